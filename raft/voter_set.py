"""The voters of the quorum with their directory ids and listeners (Kafka's ``VoterSet``), from
one of the two places Kafka reads them: the static ``controller.quorum.voters`` (kraft.version
0: no directory ids, one endpoint each on the first controller listener) or the VotersRecord of
the bootstrap snapshot that ``kafka-storage format --standalone / --initial-controllers``
wrote (kraft.version 1). Used by the controller side of a node to address the voters and by
DescribeQuorum to list them. With kraft.version 1 the set also changes through the log
(``voter_set_history``): ``add_voter`` / ``remove_voter`` / ``update_voter`` give the set a
VotersRecord then carries (``to_voters_record``), as Kafka's ``VoterSet`` does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kafpy.protocol.messages import VotersRecord
from kafpy.raft.quorum_state_store import NO_DIRECTORY_ID, ReplicaKey

# what kafpy's raft supports of kraft.version (Kafka 4.4's KRaftVersion range: 0..1)
SUPPORTED_KRAFT_VERSIONS = (0, 1)


@dataclass(frozen=True)
class Endpoint:
    """One listener of a voter (Kafka's ``Endpoints`` entry): name, host, port."""

    name: str
    host: str
    port: int


@dataclass(frozen=True)
class Voter:
    """One voter (Kafka's ``VoterNode``): its key, listeners and supported kraft.version range."""

    node_id: int
    directory_id: bytes = NO_DIRECTORY_ID
    endpoints: tuple[Endpoint, ...] = field(default_factory=tuple)
    kraft_versions: tuple[int, int] = (0, 0)

    @property
    def key(self) -> ReplicaKey:
        return ReplicaKey.of(self.node_id, self.directory_id)

    def address(self, listener_name: str) -> tuple[str, int] | None:
        for e in self.endpoints:
            if e.name == listener_name:
                return e.host, e.port
        return None


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
            Endpoint(e.name, e.host, e.port) for e in v.endpoints),
            (v.k_raft_version_feature.min_supported_version, v.k_raft_version_feature.max_supported_version))
            for v in record.voters}, kraft_version)

    @classmethod
    def of_ids(cls, ids: frozenset[int]) -> VoterSet:
        """Voters known by id only (tests and callers without listeners)."""
        return cls({n: Voter(n) for n in ids}, 0)

    def to_voters_record(self) -> VotersRecord:
        """The VotersRecord (version 0) naming this set, voters by id (Kafka's ``toVotersRecord``)."""
        return VotersRecord(version=0, voters=[VotersRecord.Voter(
            voter_id=v.node_id, voter_directory_id=v.directory_id,
            endpoints=[VotersRecord.Endpoint(name=e.name, host=e.host, port=e.port) for e in v.endpoints],
            k_raft_version_feature=VotersRecord.KRaftVersionFeature(
                min_supported_version=v.kraft_versions[0], max_supported_version=v.kraft_versions[1]))
            for _, v in sorted(self.voters.items())])

    def with_kraft_version(self, kraft_version: int) -> VoterSet:
        return VoterSet(self.voters, kraft_version)

    def is_voter(self, key: ReplicaKey) -> bool:
        """``key`` is a voter: same id, and the same directory id when the voter has one
        (Kafka's ``isVoter``: a replica with another directory is not that voter)."""
        voter = self.voters.get(key.id)
        if voter is None:
            return False
        mine = voter.key.directory_id
        return mine is None or key.directory_id == mine

    def voter_keys(self) -> list[ReplicaKey]:
        return [v.key for _, v in sorted(self.voters.items())]

    def add_voter(self, voter: Voter) -> VoterSet | None:
        """The set with ``voter`` added; None when its id is already a voter."""
        if voter.node_id in self.voters:
            return None
        return VoterSet({**self.voters, voter.node_id: voter}, self.kraft_version)

    def remove_voter(self, key: ReplicaKey) -> VoterSet | None:
        """The set without the voter ``key`` (id and directory id must match); None when it is
        not a voter or is the last one (Kafka never removes the last voter)."""
        voter = self.voters.get(key.id)
        if voter is None or voter.key != key or len(self.voters) == 1:
            return None
        return VoterSet({n: v for n, v in self.voters.items() if n != key.id}, self.kraft_version)

    def update_voter(self, voter: Voter) -> VoterSet | None:
        """The set with the voter of the same key replaced (new listeners, versions); None
        when no voter has that key."""
        old = self.voters.get(voter.node_id)
        if old is None or old.key != voter.key:
            return None
        return VoterSet({**self.voters, voter.node_id: voter}, self.kraft_version)

    def needs_update(self, voter: Voter) -> bool:
        """The voter of the same key differs in listeners or versions (Kafka's ``voterNodeNeedsUpdate``)."""
        old = self.voters.get(voter.node_id)
        return old is not None and old.key == voter.key and (
            set(old.endpoints) != set(voter.endpoints) or old.kraft_versions != voter.kraft_versions)

    def ids(self) -> frozenset[int]:
        return frozenset(self.voters)

    def addresses(self, listener_name: str) -> dict[int, tuple[str, int]]:
        """Where to reach each voter on ``listener_name`` (voters without it are left out)."""
        out: dict[int, tuple[str, int]] = {}
        for node, voter in self.voters.items():
            address = voter.address(listener_name)
            if address is not None:
                out[node] = address
        return out

    def endpoints(self) -> dict[int, list[Endpoint]]:
        return {n: list(v.endpoints) for n, v in self.voters.items()}

    def directory_ids(self) -> dict[int, bytes]:
        return {n: v.directory_id for n, v in self.voters.items()}
