"""The voters of the quorum with their directory ids and listeners (Kafka's ``VoterSet``), from
one of the two places Kafka reads them: the static ``controller.quorum.voters`` (kraft.version
0: no directory ids, one endpoint each on the first controller listener) or the VotersRecord of
the bootstrap snapshot that ``kafka-storage format --standalone / --initial-controllers``
wrote (kraft.version 1). Used by the controller side of a node to address the voters and by
DescribeQuorum to list them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kafpy.protocol.messages import VotersRecord
from kafpy.raft.quorum_state_store import NO_DIRECTORY_ID


@dataclass(frozen=True)
class Endpoint:
    """One listener of a voter (Kafka's ``Endpoints`` entry): name, host, port."""

    name: str
    host: str
    port: int


@dataclass(frozen=True)
class Voter:
    node_id: int
    directory_id: bytes = NO_DIRECTORY_ID
    endpoints: tuple[Endpoint, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class VoterSet:
    """The voters by node id and the kraft.version they come with."""

    voters: Mapping[int, Voter]
    kraft_version: int = 0

    @classmethod
    def from_static(cls, connections: Mapping[int, tuple[str, int]], listener_name: str) -> VoterSet:
        """``controller.quorum.voters`` (Kafka's ``VoterSet.fromInetSocketAddresses``)."""
        return cls({n: Voter(n, NO_DIRECTORY_ID, (Endpoint(listener_name, host, port),))
                    for n, (host, port) in connections.items()}, 0)

    @classmethod
    def from_voters_record(cls, record: VotersRecord, kraft_version: int) -> VoterSet:
        """The voters of a VotersRecord (Kafka's ``VoterSet.fromVotersRecord``)."""
        return cls({v.voter_id: Voter(v.voter_id, bytes(v.voter_directory_id), tuple(
            Endpoint(e.name, e.host, e.port) for e in v.endpoints)) for v in record.voters}, kraft_version)

    def ids(self) -> frozenset[int]:
        return frozenset(self.voters)

    def addresses(self, listener_name: str) -> dict[int, tuple[str, int]]:
        """Where to reach each voter on ``listener_name`` (voters without it are left out)."""
        out: dict[int, tuple[str, int]] = {}
        for node, voter in self.voters.items():
            for e in voter.endpoints:
                if e.name == listener_name:
                    out[node] = (e.host, e.port)
                    break
        return out

    def endpoints(self) -> dict[int, list[Endpoint]]:
        return {n: list(v.endpoints) for n, v in self.voters.items()}

    def directory_ids(self) -> dict[int, bytes]:
        return {n: v.directory_id for n, v in self.voters.items()}
