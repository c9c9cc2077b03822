"""The values KafkaZkClient's callers pass and get back: session states, the errors a
controller write can end with, the operations of a ZooKeeper multi, and the result of a batch
of partition-state writes. Kept apart from the client so that callers and tests can name them
without the kazoo plumbing."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from kazoo.exceptions import NodeExistsError

from kafpy.replication.leader_and_isr import LeaderAndIsr

MATCH_ANY_VERSION = -1
"""Expected version meaning "any" (ZkVersion.MatchAnyVersion); as an epoch zk version it
turns the controller-epoch check off (used before a controller is elected)."""


class SessionState(Enum):
    """ZooKeeper session changes as the controller needs them."""

    CONNECTED = "connected"        # first connection, or reconnected within the same session
    SUSPENDED = "suspended"        # connection lost; the session may still be alive
    EXPIRED = "expired"            # session gone: ephemerals (registration, /controller) deleted
    NEW_SESSION = "new_session"    # connected again after EXPIRED: register and elect again


class ControllerMovedError(Exception):
    """The ``/controller_epoch`` check of a controller write failed: another controller won."""


class BrokerIdInUseError(NodeExistsError):
    """``/brokers/ids/<id>`` exists and belongs to another session."""


@dataclass(frozen=True)
class CreateOp:
    path: str
    data: bytes = b""
    ephemeral: bool = False
    sequential: bool = False


@dataclass(frozen=True)
class SetDataOp:
    path: str
    data: bytes
    version: int = MATCH_ANY_VERSION


@dataclass(frozen=True)
class DeleteOp:
    path: str
    version: int = MATCH_ANY_VERSION


@dataclass(frozen=True)
class CheckOp:
    path: str
    version: int


Op = CreateOp | SetDataOp | DeleteOp | CheckOp
TopicPartition = tuple[str, int]


@dataclass
class UpdateLeaderAndIsrResult:
    """Per partition the written state (partition epoch = new zkVersion) or the error; the
    partitions whose write hit a newer partition epoch, to re-read and retry."""

    finished: dict[TopicPartition, LeaderAndIsr | Exception] = field(default_factory=dict)
    to_retry: list[TopicPartition] = field(default_factory=list)
