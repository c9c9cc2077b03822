"""What the broker-assigned ("modern", in Kafka 4.x's words) group coordinators share:
ConsumerGroupCoordinator (KIP-848), ShareGroupCoordinator and StreamsGroupCoordinator.

Each keeps its groups beside the classic ones, in the `__consumer_offsets` partitions the
attached classic GroupCoordinator (`self.classic`) owns, and writes its records through
that coordinator's CoordinatorWriter (coordinator/result.py). This base holds the plumbing that is the same for the three:
the session timer heap (`_wake`, `_take_due`, `next_deadline`), per-group config
overrides, writing a batch of records with failures logged, the heartbeat flow
(`_answer_heartbeat`: a kind's pure `_heartbeat` decides, the classic coordinator's
CoordinatorWriter writes and answers), reading one kind's records
back when a partition is loaded, unloading, listing and the member-epoch check of
OffsetFetch/OffsetCommit. What a group kind means (its heartbeat, its records, its
replay) stays in its own coordinator. One thread (the event loop), so nothing locks.
"""
from __future__ import annotations

import enum
import heapq
import logging
from types import ModuleType
from typing import (TYPE_CHECKING, Callable, Collection, Generic, Iterable, Iterator, Mapping,
                    Protocol, Sequence, TypeVar)

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.classic.view import ClassicCoordinatorView
from kafpy.coordinator.group.errors import append_error_to_group_error
from kafpy.coordinator.group.offsets_log import Completion, Record, TxnMarker, TxnRecord
from kafpy.coordinator.group.results import HeartbeatResult
from kafpy.coordinator.result import CoordinatorResult
from kafpy.coordinator.group.modern_records import TopicIdPartitions
from kafpy.coordinator.group.classic.group import GroupOffsets

if TYPE_CHECKING:
    from kafpy.coordinator.group.streams.group import Tasks

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")


class ModernMember(Protocol):
    """What this base reads of a member of any kind (consumer, share, Streams)."""

    @property
    def member_epoch(self) -> int: ...


class ModernGroup(Protocol):
    """What this base reads and replays of a group of any kind (ConsumerGroup, ShareGroup,
    StreamsGroup); the target is an assignment per member, Streams' one of tasks."""

    group_epoch: int
    assignment_epoch: int
    metadata_hash: int

    @property
    def group_id(self) -> str: ...
    @property
    def deleted(self) -> bool: ...
    @property
    def state(self) -> enum.Enum: ...
    @property
    def members(self) -> Mapping[str, ModernMember]: ...
    @property
    def target(self) -> dict[str, TopicIdPartitions] | dict[str, Tasks]: ...


class GroupMetadataValue(Protocol):
    """What every kind's GroupMetadataValue record has."""

    @property
    def epoch(self) -> int: ...
    @property
    def metadata_hash(self) -> int: ...


class TargetMetadataValue(Protocol):
    """What every kind's TargetAssignmentMetadataValue record has."""

    @property
    def assignment_epoch(self) -> int: ...


GroupT = TypeVar("GroupT", bound=ModernGroup)
MemberT = TypeVar("MemberT", bound=ModernMember)


class ModernGroupCoordinator(Generic[GroupT, MemberT]):
    """Base of the three modern group coordinators. A subclass sets, in its __init__,
    `classic` (the classic GroupCoordinator), `groups` (id -> group), `_wakeups` (a heap
    of deadlines) and `_group_configs` (group id -> its config overrides), and names its
    records in `RECORDS_NAME` (how a failed write is logged). Generic over the kind's group
    and member classes."""

    RECORDS_NAME = "group records"
    # OffsetCommit below v9 from one of its members is UNSUPPORTED_VERSION (consumer groups)
    COMMITS_FROM_V9 = False
    classic: ClassicCoordinatorView
    groups: dict[str, GroupT]
    _wakeups: list[int]
    _group_configs: Callable[[str], Mapping[str, str]]

    # ================================================================ timers
    def _wake(self, deadline: int) -> int:
        """Note a deadline; `poll` (called with the classic coordinator's) scans the
        groups only once the earliest one is due."""
        heapq.heappush(self._wakeups, deadline)
        return deadline

    def next_deadline(self) -> int | None:
        return self._wakeups[0] if self._wakeups else None

    def _take_due(self, now_ms: int) -> bool:
        """For `poll`: forget the deadlines that are due; False when none is."""
        if not self._wakeups or self._wakeups[0] > now_ms:
            return False
        while self._wakeups and self._wakeups[0] <= now_ms:
            heapq.heappop(self._wakeups)
        return True

    def _override(self, group_id: str | None, name: str, default: int) -> int:
        """The group's integer override of `name` (kafka-configs --entity-type groups),
        else `default` (also when unreadable)."""
        if group_id is None:
            return default
        try:
            return int(self._group_configs(group_id).get(name, default))
        except (TypeError, ValueError):
            return default

    # ================================================================ the log
    def _append(self, group_id: str, records: Sequence[Record], now_ms: int) -> None:
        """Write `records` to the group's partition; nobody waits, a failure is only
        logged (the in-memory state has moved already, a new coordinator rebuilds from
        the log)."""
        self.classic.writer.write(self.classic.partition_for(group_id), records, now_ms,
                                  what=self.RECORDS_NAME, key=group_id)

    # ================================================================ heartbeats
    def _answer_heartbeat(self, group_id: str,
                          outcome: HeartbeatResult | CoordinatorResult[HeartbeatResult],
                          now_ms: int) -> Completion:
        """The heartbeat flow of the three kinds, after the kind's `_heartbeat` decided:
        a refusal (a bare HeartbeatResult) is answered at once; otherwise the answer is
        given once the group's records are committed, or, when their write fails, the
        write's error as a group error (`_failed_heartbeat`)."""
        if isinstance(outcome, HeartbeatResult):
            outcome = CoordinatorResult(outcome)
        answer = outcome.response
        return self.classic.writer.answer(
            self.classic.partition_for(group_id), outcome, now_ms,
            lambda error: self._failed_heartbeat(answer, append_error_to_group_error(error)))

    def _failed_heartbeat(self, answer: HeartbeatResult, error: ErrorCode) -> HeartbeatResult:
        """What a member hears when its heartbeat's records could not be written: the
        error, with the member id and epoch it was about to get."""
        return HeartbeatResult(error, None, answer.member_id, answer.member_epoch)

    def _group_records(self, partition: int, key_versions: Collection[int],
                       decode: Callable[[bytes, bytes | None], tuple]) -> Iterator[tuple]:
        """For `load_partition`: the (kind, group id, member id, value) of each record of
        `partition` whose key version is one of `key_versions`, decoded by `decode`;
        transaction markers and other kinds' records are passed over, an unreadable one
        is logged and skipped."""
        for entry in self.classic.log.read(partition):
            if isinstance(entry, (TxnMarker, TxnRecord)):
                continue
            key, value = entry
            if len(key) < 2 or int.from_bytes(key[:2], "big", signed=True) not in key_versions:
                continue
            try:
                yield decode(key, value)
            except ValueError as e:
                log.warning("skipping unreadable record in partition %d: %s", partition, e)

    def _replay(self, partition: int, now_ms: int) -> dict[str, GroupT]:
        """For `load_partition`: the groups the records of `partition` leave (a group
        metadata tombstone drops a group and its members), members attached with their
        session timers started. The records every kind has are replayed here; the
        kind's own go to `_replay_group_record`, those in `SKIPPED_ON_REPLAY` nowhere."""
        groups: dict[str, GroupT] = {}
        members: dict[tuple[str, str], MemberT] = {}
        for kind, gid, mid, v in self._group_records(partition, self.KEY_VERSIONS, self.RECORDS.decode_record):
            if kind == self.RECORDS.GROUP_METADATA:
                if v is None:
                    groups.pop(gid, None)
                    for k in [k for k in members if k[0] == gid]:
                        del members[k]
                    continue
                self._replay_group_metadata(groups.setdefault(gid, self.GROUP(gid)), v)
                continue
            if kind in self.SKIPPED_ON_REPLAY:
                continue
            g = groups.setdefault(gid, self.GROUP(gid))
            if kind == self.RECORDS.TARGET_METADATA:
                if v is not None:
                    self._replay_target_metadata(g, v)
            elif kind == self.RECORDS.TARGET_MEMBER:
                if v is None:
                    g.target.pop(mid, None)
                else:
                    g.target[mid] = self.RECORDS.target_of(v)
            elif kind == self.RECORDS.MEMBER_METADATA:
                if v is None:
                    members.pop((gid, mid), None)
                else:
                    self.RECORDS.apply_member_metadata(members.setdefault((gid, mid), self.MEMBER(mid)), v)
            elif kind == self.RECORDS.CURRENT_ASSIGNMENT:
                if v is not None:
                    self._replay_current_assignment(
                        members.setdefault((gid, mid), self.MEMBER(mid)), v)
            else:
                self._replay_group_record(g, kind, mid, v)
        for (gid, _), m in members.items():
            if gid in groups:
                self._attach_member(groups[gid], m)
                self._schedule_session(m, now_ms, gid)
        return groups

    # the hooks of `_replay`: a subclass names its records module, their key versions,
    # its group and member classes (made from an id), and replays its own kinds of records
    RECORDS: ModuleType  # the kind's records module (consumer, share or streams .records)
    KEY_VERSIONS: Collection[int]
    GROUP: Callable[[str], GroupT]
    MEMBER: Callable[[str], MemberT]
    SKIPPED_ON_REPLAY: Collection[int] = frozenset()

    def _schedule_session(self, member: MemberT, now_ms: int, group_id: str) -> None:
        raise NotImplementedError

    def _replay_group_metadata(self, group: GroupT, v: GroupMetadataValue) -> None:
        group.group_epoch, group.metadata_hash = v.epoch, v.metadata_hash

    def _replay_target_metadata(self, group: GroupT, v: TargetMetadataValue) -> None:
        group.assignment_epoch = v.assignment_epoch

    def _replay_current_assignment(self, member: MemberT, v: object) -> None:
        self.RECORDS.apply_current_assignment(member, v)

    def _replay_group_record(self, group: GroupT, kind: int, key: str | None, v: object) -> None:
        """A record of the kind's own (`key`: its member id or other key field)."""

    def _attach_member(self, group: GroupT, member: MemberT) -> None:
        raise NotImplementedError

    def _adopt_offsets(self, group: GroupOffsets) -> None:
        """For `load_partition`: the offsets the classic coordinator loaded for this id
        (into a classic group) become the group's."""
        classic = self.classic.groups.pop(group.group_id, None)
        if classic is not None:
            group.offsets, group.pending_txn_offsets = classic.offsets, classic.pending_txn_offsets

    def unload_partition(self, partition: int) -> None:
        for gid in [g for g in self.groups if self.classic.partition_for(g) == partition]:
            del self.groups[gid]

    # ================================================================ list
    def _missing_group_message(self, group_id: str, kind: str) -> str:
        """What a describe of an id that is no live group of this kind answers with
        GROUP_ID_NOT_FOUND: Kafka names a classic or consumer group's id as of another type."""
        if group_id in self.classic.groups or group_id in self.classic.consumer_groups:
            return f"Group {group_id} is not a {kind} group."
        return f"Group {group_id} not found."

    def overviews(self, states: set[str] | None) -> list[tuple[str, str]]:
        """(group id, state) of every live group of this kind, lower-case states filter."""
        return [(g.group_id, g.state.value) for g in self.groups.values()
                if not g.deleted and (states is None or g.state.value.lower() in states)]

    # ================================================================ offsets
    def _stale_epoch_error(self, member: ModernMember) -> ErrorCode:
        """OffsetCommit's error for a member's wrong epoch."""
        return ErrorCode.STALE_MEMBER_EPOCH

    def validate_offset_commit(self, group: GroupT, member_id: str, member_epoch: int,
                               transactional: bool = False, api_version: int = 9) -> ErrorCode | None:
        """Kafka's validateOffsetCommit (called by the OffsetManager): without a member
        epoch only an empty group takes commits (admin, or a consumer outside group
        management); a consumer-protocol member commits with OffsetCommit v9 or above
        (`api_version`: the OffsetCommit's)."""
        if member_epoch < 0 and not group.members:
            return None
        if transactional and member_epoch < 0 and not member_id:
            return None
        member = group.members.get(member_id)
        if member is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if (self.COMMITS_FROM_V9 and not transactional and api_version < 9
                and not getattr(member, "uses_classic_protocol", False)):
            return ErrorCode.UNSUPPORTED_VERSION
        if member_epoch < member.member_epoch and self.COMMITS_FROM_V9 and not transactional:
            return None     # partition by partition: commit_partition_errors
        if member_epoch != member.member_epoch:
            return self._stale_epoch_error(member)
        return None

    def commit_partition_errors(self, group: GroupT, member_id: str, member_epoch: int,
                                partitions: Iterable[tuple[str, int]]) -> dict[tuple[str, int], ErrorCode]:
        """The partitions of an OffsetCommit that validate_offset_commit let through
        refused one by one (consumer groups: by assignment epoch); none here."""
        return {}

    def validate_offset_fetch(self, group: GroupT, member_id: str | None,
                              member_epoch: int) -> ErrorCode | None:
        """Kafka's validateOffsetFetch (called by the OffsetManager): no member id and
        epoch -1 is an admin fetch."""
        if member_id is None and member_epoch < 0:
            return None
        member = group.members.get(member_id or "")
        if member is None:
            return ErrorCode.UNKNOWN_MEMBER_ID
        if member_epoch != member.member_epoch:
            return ErrorCode.STALE_MEMBER_EPOCH
        return None
