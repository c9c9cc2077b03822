"""A consumer group of Kafka 4's consumer protocol (KIP-848) and its members, in memory.

The broker, not a group leader, owns the assignment. Three epochs move it:
- the group epoch goes up whenever what the assignment depends on changes (a member
  joins, leaves or changes its subscription; a subscribed topic appears, disappears or
  gains partitions);
- the assignment epoch is the group epoch the target assignment was computed at;
- each member's epoch says which target it has reconciled to. A member moves to a new
  epoch only after giving up the partitions it must revoke, and is given a partition
  only once its previous owner released it (so no partition has two owners).

Owned by ConsumerGroupCoordinator (consumer_coordinator.py) on the event loop thread.
What survives a restart is written to `__consumer_offsets` in Kafka 4.4's records
(consumer_records.py); this module keeps no files. Committed offsets are kept as for a
classic group (GroupOffsets).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from kafpy.coordinator.group.classic.group import GroupOffsets

TopicId = bytes
Assignment = dict[TopicId, set[int]]

CONSUMER_GROUP_TYPE = "consumer"
# Member epochs a heartbeat carries to join or leave (Kafka's JOIN_GROUP_MEMBER_EPOCH ...).
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
STATIC_LEAVE_EPOCH = -2


class MemberState(enum.IntEnum):
    """Kafka's MemberState with its record values."""
    STABLE = 0
    UNREVOKED_PARTITIONS = 1
    UNRELEASED_PARTITIONS = 2
    UNKNOWN = 127


class ConsumerGroupState(enum.Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(frozen=True)
class ResolvedRegex:
    """A subscribed regular expression resolved against the topics (Kafka's
    ResolvedRegularExpression, kept in a ConsumerGroupRegularExpression record):
    the matching topic names, the topics version it was resolved at and when."""

    topics: frozenset[str]
    version: int
    timestamp_ms: int


def copy_assignment(a: Assignment | None) -> Assignment:
    return {t: set(ps) for t, ps in (a or {}).items() if ps}


def count(a: Assignment) -> int:
    return sum(len(ps) for ps in a.values())


@dataclass
class ConsumerGroupMember:
    """One member: its metadata (what it subscribed to, as it said) and where it is in
    reconciling (`assigned`: what it may own now; `pending_revocation`: what it still
    owns and must give up before moving to the next epoch)."""

    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = field(default_factory=list)
    subscribed_topic_regex: str | None = None
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    assigned: Assignment = field(default_factory=dict)
    pending_revocation: Assignment = field(default_factory=dict)
    # the member epoch at which each partition it holds was assigned to it (KIP-1251's
    # AssignmentEpochs): a commit at an older epoch is taken for a partition it kept
    assignment_epochs: dict[tuple[bytes, int], int] = field(default_factory=dict)
    # timers (absolute ms), None = not scheduled
    session_deadline: int | None = None
    revocation_deadline: int | None = None
    # what the last heartbeat response carried (None: nothing sent yet)
    last_sent: Assignment | None = None
    # a member speaking the classic protocol inside a consumer group (migration):
    # its JoinGroup protocols (name, metadata) and session timeout; None otherwise
    classic_protocols: list[tuple[str, bytes]] | None = None
    classic_session_timeout_ms: int = 0
    # a classic member told to rejoin must JoinGroup, and once joined SyncGroup, within
    # its rebalance timeout (absolute ms; None: not waiting), or it is removed
    classic_join_deadline: int | None = None
    classic_sync_deadline: int | None = None

    def stamp_assignment_epochs(self) -> None:
        """Partitions newly assigned take the member's epoch; the ones it no longer holds
        are forgotten (called after every change of its assignment)."""
        held = {(t, p) for a in (self.assigned, self.pending_revocation) for t, ps in a.items() for p in ps}
        self.assignment_epochs = {tp: e for tp, e in self.assignment_epochs.items() if tp in held}
        for t, ps in self.assigned.items():
            for p in ps:
                self.assignment_epochs.setdefault((t, p), self.member_epoch)

    @property
    def uses_classic_protocol(self) -> bool:
        return self.classic_protocols is not None

    def metadata_key(self) -> tuple:
        return (self.instance_id, self.rack_id, self.client_id, self.client_host,
                tuple(self.subscribed_topic_names), self.subscribed_topic_regex,
                self.rebalance_timeout_ms, self.server_assignor)


class ConsumerGroup(GroupOffsets):
    """Members, target assignment, epochs and committed offsets of one group. Keeps an
    index of which member holds each partition (assigned or pending revocation), so a
    member is only given a partition nobody else holds."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.members: dict[str, ConsumerGroupMember] = {}
        self.static_members: dict[str, str] = {}        # instance id -> member id
        self.target: dict[str, Assignment] = {}          # member id -> target assignment
        self.metadata_hash = 0
        self.resolved_regexes: dict[str, ResolvedRegex] = {}   # regex -> its topics
        self.deleted = False
        self._owners: dict[tuple[TopicId, int], str] = {}
        self._init_offsets()

    # ----------------------------------------------------------- queries
    @property
    def state(self) -> ConsumerGroupState:
        if self.deleted:
            return ConsumerGroupState.DEAD
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        for m in self.members.values():
            if m.member_epoch != self.assignment_epoch or m.state != MemberState.STABLE:
                return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    def subscribed_regexes(self) -> set[str]:
        """The regular expressions the members subscribe to."""
        return {m.subscribed_topic_regex for m in self.members.values() if m.subscribed_topic_regex}

    def owner(self, topic_id: TopicId, partition: int) -> str | None:
        return self._owners.get((topic_id, partition))

    def waiting_on_unreleased_partition(self, member: ConsumerGroupMember) -> bool:
        """Whether `member` (UNRELEASED_PARTITIONS) waits for a partition of its target
        that another member still holds (Kafka's waitingOnUnreleasedPartition): a classic
        member is not asked to rejoin until one of them is free."""
        if member.state != MemberState.UNRELEASED_PARTITIONS:
            return False
        for t, ps in self.target.get(member.member_id, {}).items():
            assigned = member.assigned.get(t, set())
            for p in ps:
                if p not in assigned and self._owners.get((t, p)) is not None:
                    return True
        return False

    def preferred_assignor(self, default: str) -> str:
        """The assignor most members asked for (ties: first seen), else `default`."""
        votes: dict[str, int] = {}
        for m in self.members.values():
            if m.server_assignor:
                votes[m.server_assignor] = votes.get(m.server_assignor, 0) + 1
        return max(votes, key=lambda k: votes[k]) if votes else default

    # ----------------------------------------------------------- changes
    def set_member_assignment(self, member: ConsumerGroupMember, assigned: Assignment,
                              pending: Assignment) -> None:
        """Replace what `member` holds, keeping the ownership index right."""
        for a in (member.assigned, member.pending_revocation):
            for t, ps in a.items():
                for p in ps:
                    if self._owners.get((t, p)) == member.member_id:
                        del self._owners[(t, p)]
        member.assigned, member.pending_revocation = copy_assignment(assigned), copy_assignment(pending)
        for a in (member.assigned, member.pending_revocation):
            for t, ps in a.items():
                for p in ps:
                    self._owners[(t, p)] = member.member_id

    def add_member(self, member: ConsumerGroupMember) -> None:
        self.members[member.member_id] = member
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        self.set_member_assignment(member, member.assigned, member.pending_revocation)

    def remove_member(self, member_id: str) -> ConsumerGroupMember | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        self.set_member_assignment(member, {}, {})
        if member.instance_id is not None and self.static_members.get(member.instance_id) == member_id:
            del self.static_members[member.instance_id]
        self.target.pop(member_id, None)
        return member


@dataclass
class ConsumerGroupHeartbeat:
    """One ConsumerGroupHeartbeat as the coordinator reads it (built by
    ConsumerGroupCoordinator.heartbeat from the handler's arguments); None fields were
    not sent (unchanged since the member's last heartbeat)."""

    group_id: str
    member_id: str
    member_epoch: int
    now_ms: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: list[str] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    owned: Assignment | None = None
    client_id: str = ""
    client_host: str = ""
    api_version: int = 1
