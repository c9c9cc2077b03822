"""Share sessions (KIP-932): which partitions a share consumer fetches from this broker,
kept between its ShareFetch/ShareAcknowledge requests so that each request names only
what changed (Kafka's ShareSessionCache).

A session is keyed by (group id, member id). Epoch 0 opens one (replacing any the member
had), -1 closes it, and every other request must carry the session's current epoch, which
the answer moves on by one. Errors as Kafka answers them: SHARE_SESSION_NOT_FOUND (no
session for the key), INVALID_SHARE_SESSION_EPOCH (the wrong epoch),
SHARE_SESSION_LIMIT_REACHED (`group.share.max.share.sessions` sessions exist).

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

    def __len__(self) -> int:
        return len(self.sessions)

    def open(self, key: ShareSessionKey, now_ms: int, connection_id: str | None = None) -> ShareSession:
        """Epoch 0: a new session for `key`, replacing the member's old one."""
        old = self.sessions.pop(key, None)
        if old is None and len(self.sessions) >= self.max_sessions:
            raise ShareSessionError(ErrorCode.SHARE_SESSION_LIMIT_REACHED,
                                    "The limit of share sessions has been reached.")
        session = ShareSession(key, connection_id=connection_id, last_used_ms=now_ms)
        self.sessions[key] = session
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
        return self.sessions.pop(key, None)

    def on_connection_closed(self, connection_id: str) -> list[ShareSession]:
        """Drop the sessions opened on a connection that closed (their member is gone)."""
        gone = [s for s in self.sessions.values() if s.connection_id == connection_id]
        for s in gone:
            del self.sessions[s.key]
        return gone
