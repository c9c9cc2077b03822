"""SCRAM credentials by mechanism and user, as Kafka's ``ScramImage`` / ``ScramDelta``.

``UserScramCredentialRecord`` sets a user's credential for one mechanism (1: SCRAM-SHA-256,
2: SCRAM-SHA-512), ``RemoveUserScramCredentialRecord`` removes it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import RemoveUserScramCredentialRecord, UserScramCredentialRecord


class ScramMechanism(IntEnum):
    """Kafka's ``ScramMechanism`` type codes."""

    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    @staticmethod
    def of(value: int) -> ScramMechanism:
        try:
            return ScramMechanism(value)
        except ValueError:
            raise MetadataReplayError(f"unknown SCRAM mechanism {value}") from None


@dataclass(frozen=True)
class ScramCredentialData:
    """A stored SCRAM credential (never the password)."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


@dataclass(frozen=True)
class ScramImage:
    """Mechanism -> user name -> credential."""

    mechanisms: Mapping[ScramMechanism, Mapping[str, ScramCredentialData]]

    def is_empty(self) -> bool:
        return not self.mechanisms

    def credential(self, mechanism: ScramMechanism, user: str) -> ScramCredentialData | None:
        return self.mechanisms.get(mechanism, frozen({})).get(user)

    def records(self) -> list[ApiMessageAndVersion]:
        out: list[ApiMessageAndVersion] = []
        for mechanism in sorted(self.mechanisms):
            users = self.mechanisms[mechanism]
            for name in sorted(users):
                c = users[name]
                out.append(with_version(UserScramCredentialRecord(
                    name=name, mechanism=int(mechanism), salt=c.salt, stored_key=c.stored_key,
                    server_key=c.server_key, iterations=c.iterations)))
        return out


EMPTY_SCRAM = ScramImage(frozen({}))


class ScramDelta:
    """Credential changes on top of ``image``: mechanism -> user -> new credential or None."""

    def __init__(self, image: ScramImage) -> None:
        self.image = image
        self.changes: dict[ScramMechanism, dict[str, ScramCredentialData | None]] = {}

    def replay(self, record: UserScramCredentialRecord) -> None:
        self.changes.setdefault(ScramMechanism.of(record.mechanism), {})[record.name] = (
            ScramCredentialData(bytes(record.salt), bytes(record.stored_key),
                                bytes(record.server_key), record.iterations))

    def replay_remove(self, record: RemoveUserScramCredentialRecord) -> None:
        self.changes.setdefault(ScramMechanism.of(record.mechanism), {})[record.name] = None

    def apply(self) -> ScramImage:
        if not self.changes:
            return self.image
        mechanisms: dict[ScramMechanism, Mapping[str, ScramCredentialData] | None] = {}
        for mechanism, changes in self.changes.items():
            users = merged(self.image.mechanisms.get(mechanism, frozen({})), changes)
            mechanisms[mechanism] = users if users else None
        return ScramImage(merged(self.image.mechanisms, mechanisms))
