"""A share group of KIP-932 and its members, in memory.

Unlike a consumer group, a partition may be assigned to many members at once (the share
partition's leader hands out records, not partitions), so a member never waits for
another to revoke: it takes its target assignment at the group's assignment epoch as
soon as it heartbeats. Two epochs as in KIP-848: the group epoch goes up when what the
assignment depends on changes (a member joins, leaves or changes its subscription, a
subscribed topic changes, a partition's share state becomes initialized); the
assignment epoch is the group epoch the target was computed at.

Besides members the group tracks which of its share partitions have durable state
(`initialized`), which are being initialized through the persister (`initializing`)
and which topics' state is being deleted (`deleting`): Kafka 4.4's
ShareGroupStatePartitionMetadata. Only initialized partitions are assigned.

Owned by ShareGroupCoordinator (share_group_coordinator.py) on the event loop thread.
Written to `__consumer_offsets` in Kafka 4.4's ShareGroup* records (share_records.py).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

TopicId = bytes
Assignment = dict[TopicId, set[int]]

SHARE_GROUP_TYPE = "share"
JOIN_EPOCH = 0
LEAVE_EPOCH = -1


class ShareGroupState(enum.Enum):
    """Kafka's ShareGroup.ShareGroupState (no Assigning: the assignment is computed at
    once)."""
    EMPTY = "Empty"
    STABLE = "Stable"
    DEAD = "Dead"


def copy_assignment(a: Assignment | None) -> Assignment:
    return {t: set(ps) for t, ps in (a or {}).items() if ps}


@dataclass
class ShareGroupMember:
    """One member: what it subscribed to and what it was given at `member_epoch`."""

    member_id: str
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = field(default_factory=list)
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: int = 0                     # MemberState.STABLE: share members never wait
    assigned: Assignment = field(default_factory=dict)
    session_deadline: int | None = None
    last_sent: Assignment | None = None

    def metadata_key(self) -> tuple:
        return (self.rack_id, self.client_id, self.client_host, tuple(self.subscribed_topic_names))


@dataclass
class TopicPartitions:
    """A topic's name and partitions in ShareGroupStatePartitionMetadata."""

    name: str
    partitions: set[int] = field(default_factory=set)


class ShareGroup:
    """Members, target assignment, epochs and share-partition state tracking of one group."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.metadata_hash = 0
        self.members: dict[str, ShareGroupMember] = {}
        self.target: dict[str, Assignment] = {}
        self.initialized: dict[TopicId, TopicPartitions] = {}
        self.initializing: dict[TopicId, TopicPartitions] = {}
        self.deleting: dict[TopicId, str] = {}
        self.deleted = False

    @property
    def state(self) -> ShareGroupState:
        if self.deleted:
            return ShareGroupState.DEAD
        return ShareGroupState.STABLE if self.members else ShareGroupState.EMPTY

    def is_initialized(self, topic_id: TopicId, partition: int) -> bool:
        tp = self.initialized.get(topic_id)
        return tp is not None and partition in tp.partitions

    def is_initializing(self, topic_id: TopicId, partition: int) -> bool:
        tp = self.initializing.get(topic_id)
        return tp is not None and partition in tp.partitions

    def mark_initializing(self, topic_id: TopicId, name: str, partitions: set[int]) -> None:
        self.initializing.setdefault(topic_id, TopicPartitions(name)).partitions |= partitions
        self.deleting.pop(topic_id, None)

    def mark_initialized(self, topic_id: TopicId, name: str, partitions: set[int]) -> None:
        """`partitions` of the topic have durable state now (no longer initializing)."""
        self.initialized.setdefault(topic_id, TopicPartitions(name)).partitions |= partitions
        self.forget_initializing(topic_id, partitions)

    def forget_initializing(self, topic_id: TopicId, partitions: set[int]) -> None:
        tp = self.initializing.get(topic_id)
        if tp is not None:
            tp.partitions -= partitions
            if not tp.partitions:
                del self.initializing[topic_id]

    def all_state_topics(self) -> dict[TopicId, str]:
        """Every topic with share state known or being created (id -> name)."""
        out = {t: tp.name for t, tp in self.initialized.items()}
        out.update({t: tp.name for t, tp in self.initializing.items()})
        return out


@dataclass
class ShareGroupHeartbeat:
    """One ShareGroupHeartbeat as the coordinator reads it (built by
    ShareGroupCoordinator.heartbeat from the handler's arguments); None fields were not
    sent (unchanged since the member's last heartbeat)."""

    group_id: str
    member_id: str
    member_epoch: int
    now_ms: int
    rack_id: str | None = None
    subscribed_topic_names: list[str] | None = None
    client_id: str = ""
    client_host: str = ""
