"""Share sessions (KIP-932): which partitions a share consumer fetches from this broker,
kept between its ShareFetch/ShareAcknowledge requests so that each request names only
what changed (Kafka's ShareSessionCache).

A session is keyed by (group id, member id). Epoch 0 opens one (replacing any the member
had), -1 closes it, and every other request must carry the session's current epoch, which
the answer moves on by one. Errors as Kafka answers them: SHARE_SESSION_NOT_FOUND (no
session for the key), INVALID_SHARE_SESSION_EPOCH (the wrong epoch),
SHARE_SESSION_LIMIT_REACHED (`group.share.max.share.sessions` sessions exist).

The cache also remembers which groups each connection opened sessions for, so that when
a connection closes the SharePartitionManager can tell whether a group has no session
left on this broker (Kafka's ShareGroupListener.onGroupEmpty).

Who calls it: the ShareFetch/ShareAcknowledge handlers, on the event loop. In memory only.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kafpy.protocol.errors import ErrorCode, KafkaError

INITIAL_EPOCH = 0
FINAL_EPOCH = -1


class ShareSessionError(KafkaError):
    def __init__(self, error_code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code


@dataclass(frozen=True)
class ShareSessionKey:
    group_id: str
    member_id: str


@dataclass(eq=False)
class ShareSession:
    """One member's session: its partitions as (topic id, partition) -> topic name, and the
    epoch its next request must carry. `connection_id` is the connection that opened it."""

    key: ShareSessionKey
    epoch: int = 1
    partitions: dict[tuple[bytes, int], str] = field(default_factory=dict)
    connection_id: str | None = None
    last_used_ms: int = 0


def next_epoch(epoch: int) -> int:
    return 1 if epoch >= 0x7FFFFFFF else epoch + 1


class ShareSessionCache:
    """The share sessions of this broker, at most `max_sessions`."""

    def __init__(self, max_sessions: int = 2000) -> None:
        self.max_sessions = max_sessions
        self.sessions: dict[ShareSessionKey, ShareSession] = {}
        self._members_per_group: dict[str, int] = {}
        self._connection_groups: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self.sessions)

    def open(self, key: ShareSessionKey, now_ms: int, connection_id: str | None = None) -> ShareSession:
        """Epoch 0: a new session for `key`, replacing the member's old one."""
        if key not in self.sessions and len(self.sessions) >= self.max_sessions:
            raise ShareSessionError(ErrorCode.SHARE_SESSION_LIMIT_REACHED,
                                    "The limit of share sessions has been reached.")
        self.remove(key)
        session = ShareSession(key, connection_id=connection_id, last_used_ms=now_ms)
        self.sessions[key] = session
        self._members_per_group[key.group_id] = self._members_per_group.get(key.group_id, 0) + 1
        if connection_id is not None:
            self._connection_groups.setdefault(connection_id, set()).add(key.group_id)
        return session

    def get(self, key: ShareSessionKey, epoch: int, now_ms: int) -> ShareSession:
        """The session an incremental (or final) request names, checked against `epoch`."""
        session = self.sessions.get(key)
        if session is None:
            raise ShareSessionError(ErrorCode.SHARE_SESSION_NOT_FOUND,
                                    f"Share session not found for {key.group_id}/{key.member_id}")
        if epoch != FINAL_EPOCH and epoch != session.epoch:
            raise ShareSessionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH,
                                    f"Share session epoch {epoch} does not match the expected {session.epoch}")
        session.last_used_ms = now_ms
        return session

    def remove(self, key: ShareSessionKey) -> ShareSession | None:
        session = self.sessions.pop(key, None)
        if session is not None:
            n = self._members_per_group.get(key.group_id, 0) - 1
            if n > 0:
                self._members_per_group[key.group_id] = n
            else:
                self._members_per_group.pop(key.group_id, None)
        return session

    def has_sessions(self, group_id: str) -> bool:
        """Whether any member of `group_id` has a share session on this broker."""
        return group_id in self._members_per_group

    def on_connection_closed(self, connection_id: str) -> tuple[list[ShareSession], set[str]]:
        """Drop the sessions opened on a connection that closed (their member is gone).
        Returns them and the groups the connection ever opened a session for (also those
        whose session a final epoch already closed), for the group-empty check."""
        gone = [s for s in self.sessions.values() if s.connection_id == connection_id]
        for s in gone:
            self.remove(s.key)
        return gone, self._connection_groups.pop(connection_id, set())
