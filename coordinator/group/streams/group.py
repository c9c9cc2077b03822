"""A Streams group (KIP-1071) and its members, in memory.

The broker assigns tasks, not partitions: a task is (subtopology id, partition), and a
member holds active tasks (it processes them), standby tasks (it keeps a replica of their
state) and warm-up tasks. The epochs move as in a consumer group (consumer_group.py):
the group epoch when what the assignment depends on changes (members, the topology,
the topics it reads), the assignment epoch when the target is computed, each member's
epoch once it has reconciled. An active task is given to a member only after its
previous owner revoked it, so no task is processed twice at once; and no task, in any
role, is given to a member while another member of the same process holds it (the
threads of one instance share its state directory).

Owned by StreamsGroupCoordinator (streams_coordinator.py) on the event loop thread.
What survives a restart is written to `__consumer_offsets` in Kafka 4.4's Streams*
records (streams_records.py); committed offsets are kept as for any group (GroupOffsets).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from kafpy.coordinator.group.classic.group import GroupOffsets
from kafpy.coordinator.group.streams.topology import ConfiguredTopology, StreamsTopology

TaskSet = dict[str, set[int]]       # subtopology id -> partitions

STREAMS_GROUP_TYPE = "streams"
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
STATIC_LEAVE_EPOCH = -2


class MemberState(enum.IntEnum):
    """Kafka's streams MemberState with its record values."""
    STABLE = 0
    UNREVOKED_TASKS = 1
    UNRELEASED_TASKS = 2
    UNKNOWN = 127


class StreamsGroupState(enum.Enum):
    EMPTY = "Empty"
    NOT_READY = "NotReady"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


def copy_tasks(t: TaskSet | None) -> TaskSet:
    return {s: set(ps) for s, ps in (t or {}).items() if ps}


@dataclass
class Tasks:
    """Active, standby and warm-up tasks of one member (a target or what it holds)."""
    active: TaskSet = field(default_factory=dict)
    standby: TaskSet = field(default_factory=dict)
    warmup: TaskSet = field(default_factory=dict)

    def copy(self) -> "Tasks":
        return Tasks(copy_tasks(self.active), copy_tasks(self.standby), copy_tasks(self.warmup))

    def key(self) -> tuple:
        def f(t: TaskSet) -> tuple:
            return tuple(sorted((s, tuple(sorted(ps))) for s, ps in t.items() if ps))
        return f(self.active), f(self.standby), f(self.warmup)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tasks) and self.key() == other.key()

    def is_empty(self) -> bool:
        return not any(self.key())


@dataclass
class StreamsGroupMember:
    """One member: what it said about itself (process, endpoint, tags, topology epoch)
    and where it is in reconciling (`tasks`: what it may hold now; `pending_revocation`:
    active tasks it still holds and must give up before its next epoch)."""

    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    topology_epoch: int = -1
    process_id: str = ""
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: MemberState = MemberState.STABLE
    tasks: Tasks = field(default_factory=Tasks)
    pending_revocation: Tasks = field(default_factory=Tasks)
    session_deadline: int | None = None
    revocation_deadline: int | None = None
    last_sent: Tasks | None = None
    endpoint_epoch_sent: int = -1
    # what the member last reported of its tasks' state (changelog offset sums and their
    # end offsets by (subtopology, partition)); kept in memory only, as Kafka keeps them
    task_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    task_end_offsets: dict[tuple[str, int], int] = field(default_factory=dict)

    uses_classic_protocol = False

    def metadata_key(self) -> tuple:
        return (self.instance_id, self.rack_id, self.client_id, self.client_host,
                self.rebalance_timeout_ms, self.topology_epoch, self.process_id,
                self.user_endpoint, tuple(sorted(self.client_tags.items())))


class StreamsGroup(GroupOffsets):
    """Members, topology, target assignment, epochs and committed offsets of one
    Streams group, with an index of which member holds each active task."""

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        # when the current target was computed (ms; 0: never), for the assignment interval
        self.assignment_timestamp = 0
        self.metadata_hash = 0
        self.validated_topology_epoch = -1
        self.topology: StreamsTopology | None = None
        self.configured: ConfiguredTopology | None = None
        self.members: dict[str, StreamsGroupMember] = {}
        self.static_members: dict[str, str] = {}
        self.target: dict[str, Tasks] = {}
        self.endpoint_information_epoch = 0
        self.shutdown_requested = False
        # while set (absolute ms), the first target assignment waits for more members
        self.initial_delay_deadline: int | None = None
        self.deleted = False
        self._owners: dict[tuple[str, int], str] = {}
        self._init_offsets()

    @property
    def state(self) -> StreamsGroupState:
        if self.deleted:
            return StreamsGroupState.DEAD
        if not self.members:
            return StreamsGroupState.EMPTY
        if self.configured is None or not self.configured.ready:
            return StreamsGroupState.NOT_READY
        if self.group_epoch > self.assignment_epoch:
            return StreamsGroupState.ASSIGNING
        for m in self.members.values():
            if m.member_epoch != self.assignment_epoch or m.state != MemberState.STABLE:
                return StreamsGroupState.RECONCILING
        return StreamsGroupState.STABLE

    def owner(self, subtopology: str, partition: int) -> str | None:
        return self._owners.get((subtopology, partition))

    def held_on_process(self, member: StreamsGroupMember) -> set[tuple[str, int]]:
        """The tasks the other members of `member`'s process hold in any role (active,
        standby, warm-up, or still to revoke): Kafka 4.4 grants none of them to
        `member` until released, so threads of one instance never hold one task's
        state directory at once."""
        held: set[tuple[str, int]] = set()
        for other in self.members.values():
            if other.member_id == member.member_id or other.process_id != member.process_id:
                continue
            for tasks in (other.tasks, other.pending_revocation):
                for t in (tasks.active, tasks.standby, tasks.warmup):
                    held.update((s, p) for s, ps in t.items() for p in ps)
        return held

    def set_member_tasks(self, member: StreamsGroupMember, tasks: Tasks, pending: Tasks) -> None:
        """Replace what `member` holds, keeping the active-task index right."""
        for t in (member.tasks.active, member.pending_revocation.active):
            for s, ps in t.items():
                for p in ps:
                    if self._owners.get((s, p)) == member.member_id:
                        del self._owners[(s, p)]
        member.tasks, member.pending_revocation = tasks.copy(), pending.copy()
        for t in (member.tasks.active, member.pending_revocation.active):
            for s, ps in t.items():
                for p in ps:
                    self._owners[(s, p)] = member.member_id

    def add_member(self, member: StreamsGroupMember) -> None:
        self.members[member.member_id] = member
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        self.set_member_tasks(member, member.tasks, member.pending_revocation)

    def remove_member(self, member_id: str) -> StreamsGroupMember | None:
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        self.set_member_tasks(member, Tasks(), Tasks())
        if member.instance_id is not None and self.static_members.get(member.instance_id) == member_id:
            del self.static_members[member.instance_id]
        self.target.pop(member_id, None)
        return member


@dataclass
class StreamsGroupHeartbeat:
    """One StreamsGroupHeartbeat as the coordinator reads it (built by
    StreamsGroupCoordinator.heartbeat from the handler's arguments); None fields were
    not sent (unchanged since the member's last heartbeat)."""

    group_id: str
    member_id: str
    member_epoch: int
    now_ms: int
    endpoint_information_epoch: int = -1
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    topology: StreamsTopology | None = None
    owned: Tasks | None = None
    process_id: str | None = None
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] | None = None
    shutdown_application: bool = False
    client_id: str = ""
    client_host: str = ""
    # what the member reports of its tasks' state: (subtopology, partition) -> offset
    task_offsets: dict[tuple[str, int], int] | None = None
    task_end_offsets: dict[tuple[str, int], int] | None = None
