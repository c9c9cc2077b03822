"""Delegation tokens by token id, as Kafka's ``DelegationTokenImage`` /
``DelegationTokenDelta``: ``DelegationTokenRecord`` creates or renews a token (the HMAC is
not in the log: a broker derives it from the secret), ``RemoveDelegationTokenRecord`` expires
it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import DelegationTokenRecord, RemoveDelegationTokenRecord


@dataclass(frozen=True)
class DelegationTokenData:
    """A token's information (Kafka's ``TokenInformation``); principals as "User:name"."""

    token_id: str
    owner: str
    requester: str
    renewers: tuple[str, ...]
    issue_timestamp: int
    max_timestamp: int
    expiration_timestamp: int

    @staticmethod
    def from_record(record: DelegationTokenRecord) -> DelegationTokenData:
        return DelegationTokenData(record.token_id, record.owner, record.requester,
                                   tuple(record.renewers), record.issue_timestamp,
                                   record.max_timestamp, record.expiration_timestamp)

    def to_record(self) -> ApiMessageAndVersion:
        return with_version(DelegationTokenRecord(
            owner=self.owner, requester=self.requester, renewers=list(self.renewers),
            issue_timestamp=self.issue_timestamp, max_timestamp=self.max_timestamp,
            expiration_timestamp=self.expiration_timestamp, token_id=self.token_id))


@dataclass(frozen=True)
class DelegationTokenImage:
    """Token id -> token."""

    tokens: Mapping[str, DelegationTokenData]

    def is_empty(self) -> bool:
        return not self.tokens

    def records(self) -> list[ApiMessageAndVersion]:
        return [self.tokens[t].to_record() for t in sorted(self.tokens)]


EMPTY_DELEGATION_TOKENS = DelegationTokenImage(frozen({}))


class DelegationTokenDelta:
    """Token changes on top of ``image`` (None: removed)."""

    def __init__(self, image: DelegationTokenImage) -> None:
        self.image = image
        self.changes: dict[str, DelegationTokenData | None] = {}

    def replay(self, record: DelegationTokenRecord) -> None:
        self.changes[record.token_id] = DelegationTokenData.from_record(record)

    def replay_remove(self, record: RemoveDelegationTokenRecord) -> None:
        self.changes[record.token_id] = None

    def apply(self) -> DelegationTokenImage:
        if not self.changes:
            return self.image
        return DelegationTokenImage(merged(self.image.tokens, self.changes))
