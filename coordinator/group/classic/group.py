"""A classic consumer group and its members, in memory.

Owned by GroupCoordinator (single-threaded: only the event loop thread touches it).
What survives a restart is written to `__consumer_offsets` by the coordinator; this
module keeps no files. Join/sync "callbacks" are futures the broker glue awaits; a
member is awaiting join (or sync) while it holds one, as in Kafka's MemberMetadata.
"""

from __future__ import annotations

import enum
from collections import Counter
from typing import Callable, Iterable

from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.records import OffsetAndMetadata, parse_consumer_subscription_topics

CONSUMER_PROTOCOL_TYPE = "consumer"


class GroupState(enum.Enum):
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


_VALID_PREVIOUS = {
    GroupState.PREPARING_REBALANCE: {GroupState.STABLE, GroupState.COMPLETING_REBALANCE,
                                     GroupState.EMPTY},
    GroupState.COMPLETING_REBALANCE: {GroupState.PREPARING_REBALANCE},
    GroupState.STABLE: {GroupState.COMPLETING_REBALANCE},
    GroupState.DEAD: set(GroupState),
    GroupState.EMPTY: {GroupState.PREPARING_REBALANCE},
}


def complete(fut: Completion | None, result: object) -> bool:
    """Resolve a join/sync future unless its waiter went away (cancelled)."""
    if fut is None or fut.done():
        return False
    fut.set_result(result)
    return True


class Member:
    __slots__ = ("member_id", "group_instance_id", "client_id", "client_host",
                 "rebalance_timeout_ms", "session_timeout_ms", "protocol_type",
                 "protocols", "assignment", "join_future", "sync_future", "is_new",
                 "heartbeat_deadline")

    def __init__(self, member_id: str, group_instance_id: str | None, client_id: str,
                 client_host: str, rebalance_timeout_ms: int, session_timeout_ms: int,
                 protocol_type: str, protocols: list[tuple[str, bytes]],
                 assignment: bytes = b"") -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = protocols          # ordered (name, metadata) as the member sent them
        self.assignment = assignment
        self.join_future: Completion | None = None
        self.sync_future: Completion | None = None
        self.is_new = False
        # When the member is removed unless it shows signs of life; None = no deadline
        # (members parked in JoinGroup/SyncGroup count as alive, as in Kafka).
        self.heartbeat_deadline: int | None = None

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    @property
    def awaiting_join(self) -> bool:
        return self.join_future is not None

    @property
    def awaiting_sync(self) -> bool:
        return self.sync_future is not None

    def metadata(self, protocol: str | None) -> bytes:
        for name, meta in self.protocols:
            if name == protocol:
                return meta
        raise KeyError(protocol)

    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        return len(protocols) == len(self.protocols) and all(
            a[0] == b[0] and bytes(a[1]) == bytes(b[1]) for a, b in zip(protocols, self.protocols))

    def vote(self, candidates: set[str]) -> str:
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError("member supports none of the candidate protocols")


class GroupOffsets:
    """The committed offsets of a group, of either protocol (classic here, consumer in
    consumer_group.py): what OffsetFetch returns, and the writes not committed yet."""

    group_id: str

    def _init_offsets(self) -> None:
            # Committed offsets (what OffsetFetch returns), and the writes not committed yet
            # (Kafka's pendingOffsetCommits; the latest staged one per partition).
            self.offsets: dict[tuple[str, int], OffsetAndMetadata] = {}
            self.pending_offset_commits: dict[tuple[str, int], OffsetAndMetadata] = {}
            # TxnOffsetCommit offsets per producer id until its transaction ends (Kafka's
            # pendingTransactionalOffsetCommits)
            self.pending_txn_offsets: dict[int, dict[tuple[str, int], OffsetAndMetadata]] = {}

    @property
    def has_offsets(self) -> bool:
        return bool(self.offsets or self.pending_offset_commits or self.pending_txn_offsets)

    def has_pending_txn_offset(self, tp: tuple[str, int]) -> bool:
        return any(tp in offsets for offsets in self.pending_txn_offsets.values())

    def prepare_offset_commit(self, offsets: dict[tuple[str, int], OffsetAndMetadata]) -> None:
        self.pending_offset_commits.update(offsets)

    def on_offset_commit_append(self, tp: tuple[str, int], om: OffsetAndMetadata) -> None:
        """The write of `om` is committed. Writes commit in log order, so the last one
        wins; a partition whose offsets were removed meanwhile stays removed."""
        if tp in self.pending_offset_commits:
            self.offsets[tp] = om
            if self.pending_offset_commits[tp] is om:
                del self.pending_offset_commits[tp]

    def fail_pending_offset_write(self, tp: tuple[str, int], om: OffsetAndMetadata) -> None:
        if self.pending_offset_commits.get(tp) is om:
            del self.pending_offset_commits[tp]

    def remove_offsets(self, partitions: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
        """Forget committed and pending offsets of `partitions`; returns those that had
        either (they need tombstones)."""
        removed = []
        for tp in partitions:
            pending = self.pending_offset_commits.pop(tp, None)
            for txn in self.pending_txn_offsets.values():
                txn.pop(tp, None)
            if self.offsets.pop(tp, None) is not None or pending is not None:
                removed.append(tp)
        return removed


class ClassicGroup(GroupOffsets):
    """Membership, generation, selected protocol and committed offsets of one group."""

    def __init__(self, group_id: str, now_ms: int, state: GroupState = GroupState.EMPTY) -> None:
        self.group_id = group_id
        self.state = state
        self.state_timestamp: int | None = now_ms  # None: not known (loaded from a record without it)
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}          # insertion ordered
        self.static_members: dict[str, str] = {}      # group.instance.id -> member id
        self.pending_members: dict[str, int] = {}     # member id -> expiry deadline (KIP-394)
        self.pending_sync_members: set[str] = set()
        self.supported_protocols: Counter[str] = Counter()
        self._init_offsets()
        self.subscribed_topics: set[str] | None = None
        self.new_member_added = False
        # Timers (absolute ms); None = not scheduled.
        self.join_deadline: int | None = None
        self.initial_delay_active = False       # join_deadline is an initial-delay period
        self.initial_remaining_ms = 0
        self.initial_last_delay_ms = 0
        self.sync_deadline: int | None = None

    # ----------------------------------------------------------- queries
    def is_(self, state: GroupState) -> bool:
        return self.state is state

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    @property
    def size(self) -> int:
        return len(self.members)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id is not None and self.leader_id == member_id

    @property
    def num_awaiting_join(self) -> int:
        return sum(1 for m in self.members.values() if m.awaiting_join)

    def has_all_members_joined(self) -> bool:
        return (all(m.awaiting_join for m in self.members.values())
                and not self.pending_members)

    def not_yet_rejoined(self) -> list[Member]:
        return [m for m in self.members.values() if not m.awaiting_join]

    @property
    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def can_rebalance(self) -> bool:
        return self.state in _VALID_PREVIOUS[GroupState.PREPARING_REBALANCE]

    def transition_to(self, state: GroupState, now_ms: int) -> None:
        if self.state not in _VALID_PREVIOUS[state]:
            raise AssertionError(f"group {self.group_id}: invalid transition "
                                 f"{self.state.value} -> {state.value}")
        self.state = state
        self.state_timestamp = now_ms

    def candidate_protocols(self) -> set[str]:
        n = len(self.members)
        return {p for p, c in self.supported_protocols.items() if c == n}

    def supports_protocols(self, protocol_type: str, protocols: set[str]) -> bool:
        if self.is_(GroupState.EMPTY):
            return bool(protocol_type) and bool(protocols)
        return (self.protocol_type == protocol_type
                and any(self.supported_protocols[p] == len(self.members) for p in protocols))

    def select_protocol(self) -> str:
        """The protocol every member supports that gets the most votes (each member
        votes for its first supported candidate; ties go to the first voted)."""
        candidates = self.candidate_protocols()
        votes: Counter[str] = Counter(m.vote(candidates) for m in self.members.values())
        return votes.most_common(1)[0][0]

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return True if self.subscribed_topics is None else topic in self.subscribed_topics

    def compute_subscribed_topics(self) -> set[str] | None:
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE:
            return None
        if not self.members:
            return set()
        if self.protocol_name is None:
            return None
        topics: set[str] = set()
        for m in self.members.values():
            try:
                t = parse_consumer_subscription_topics(m.metadata(self.protocol_name))
            except KeyError:
                t = None
            if t is None:
                return None
            topics |= t
        return topics

    # ----------------------------------------------------------- membership
    def add(self, member: Member, join_future: Completion | None = None) -> None:
        if member.group_instance_id is not None:
            if member.group_instance_id in self.static_members:
                raise AssertionError("static member already in group")
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        for name, _ in member.protocols:
            self.supported_protocols[name] += 1
        member.join_future = join_future
        self.pending_members.pop(member.member_id, None)

    def remove(self, member_id: str) -> None:
        member = self.members.pop(member_id, None)
        if member is not None:
            for name, _ in member.protocols:
                self.supported_protocols[name] -= 1
            if member.group_instance_id is not None:
                self.static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_members.pop(member_id, None)
        self.pending_sync_members.discard(member_id)

    def update_member(self, member: Member, protocols: list[tuple[str, bytes]],
                      rebalance_timeout_ms: int, session_timeout_ms: int,
                      join_future: Completion | None) -> None:
        for name, _ in member.protocols:
            self.supported_protocols[name] -= 1
        member.protocols = protocols
        for name, _ in protocols:
            self.supported_protocols[name] += 1
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        member.join_future = join_future

    def replace_static_member(self, instance_id: str, old_id: str, new_id: str,
                              fenced_join: Callable[[str], object], fenced_sync: object) -> Member:
        """Give a static member a new member id; a caller still parked under the old id
        is answered FENCED_INSTANCE_ID."""
        member = self.members.pop(old_id)
        if member.join_future is not None:
            complete(member.join_future, fenced_join(old_id))
            member.join_future = None
        if member.sync_future is not None:
            complete(member.sync_future, fenced_sync)
            member.sync_future = None
        member.member_id = new_id
        self.members[new_id] = member
        if self.is_leader(old_id):
            self.leader_id = new_id
        if old_id in self.pending_sync_members:
            self.pending_sync_members.discard(old_id)
            self.pending_sync_members.add(new_id)
        self.static_members[instance_id] = new_id
        return member

    def maybe_elect_new_joined_leader(self) -> bool:
        if self.leader_id is None:
            return False
        leader = self.members[self.leader_id]
        if leader.awaiting_join:
            return True
        for mid, m in self.members.items():
            if m.awaiting_join:
                self.leader_id = mid
                return True
        return False

    def init_next_generation(self, now_ms: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY, now_ms)
        self.pending_sync_members.clear()

    def current_member_metadata(self) -> list[tuple[str, str | None, bytes]]:
        assert self.protocol_name is not None
        return [(m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
                for m in self.members.values()]
