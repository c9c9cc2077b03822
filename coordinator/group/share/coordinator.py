"""Share groups of KIP-932 in the group coordinator: ShareGroupHeartbeat and
ShareGroupDescribe, a state machine with the clock passed in.

Who calls it: the broker glue (broker/handlers/share_group.py) for requests; the classic
GroupCoordinator (GroupCoordinatorService builds both and attaches this one as
`classic.share`) for loading and unloading
`__consumer_offsets` partitions, timers (`poll`), ListGroups, DescribeGroups and
DeleteGroups. One thread (the event loop), so nothing locks. The groups live in
`classic.share_groups`, beside the classic and consumer groups of the same partitions.

Every change is written to `__consumer_offsets` as one batch of Kafka 4.4's ShareGroup*
records (share_records.py); a heartbeat is answered once its batch is committed. As for
consumer groups the in-memory state moves at once and is not rolled back when a write
fails: the member finds the coordinator again and rejoins.

Share-partition state: a partition is assigned only once its durable state exists in the
share coordinator. A heartbeat that finds subscribed partitions the group has not
initialized marks them initializing (ShareGroupStatePartitionMetadata) and hands the
persister calls to `run_async`; when they finish, `complete_initialization` marks them
initialized and bumps the group epoch, so the next heartbeats assign them. The state is
initialized with start offset -1, as Kafka 4.4's coordinator does: the share partition's
leader then applies the group's `share.auto.offset.reset` when it first reads it.
Deleting a group (or its offsets) deletes that state through the persister, before the
answer (DeleteGroups answers the persister's error and keeps the group when it fails).
"""
from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Callable, Coroutine, Mapping

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.share import records as share_records
from kafpy.coordinator.group.share import assignor as share_assignor
from kafpy.coordinator.group.consumer.topics import TopicMeta, TopicsView, metadata_hash
from kafpy.coordinator.group.classic.view import ClassicCoordinatorView
from kafpy.coordinator.group.modern import ModernGroupCoordinator
from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.results import HeartbeatResult
from kafpy.coordinator.result import CoordinatorResult
from kafpy.coordinator.share_state.persister import (UNINITIALIZED_START_OFFSET, SharePartitionKey, SharePersister,
                                                      StateSummary)
from kafpy.coordinator.group.share.config import ShareGroupConfig
from kafpy.coordinator.group.share.group import (
    ShareGroupHeartbeat, JOIN_EPOCH, LEAVE_EPOCH, ShareGroup, ShareGroupMember, ShareGroupState,
    copy_assignment)

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")

#: Kafka's member ids are 22 characters (a Uuid); longer than a UUID's 36 is refused
MAX_MEMBER_ID_LENGTH = 36


@dataclass
class DescribedShareGroup:
    group_id: str
    error: int = ErrorCode.NONE
    message: str | None = None
    state: str = ShareGroupState.DEAD.value
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor: str = share_assignor.NAME
    members: list[ShareGroupMember] = field(default_factory=list)


def _error(error: ErrorCode, message: str | None = None, member_id: str | None = None,
           epoch: int = 0) -> HeartbeatResult:
    return HeartbeatResult(error, message, member_id, epoch)


def topic_uuid(topic_id: bytes) -> uuid.UUID:
    return uuid.UUID(bytes=bytes(topic_id))


class ShareGroupCoordinator(ModernGroupCoordinator[ShareGroup, ShareGroupMember]):
    """All share groups of the `__consumer_offsets` partitions the attached classic
    coordinator owns (the plumbing shared with consumer and Streams groups:
    modern_group.py). `persister()` gives the SharePersister (or None: no durable share
    state, partitions count as initialized at once); `run_async(coro)` runs a persister
    call on the event loop (the service passes `loop.create_task`)."""

    RECORDS_NAME = "share group records"

    def __init__(self, classic: ClassicCoordinatorView, config: ShareGroupConfig, topics: TopicsView,
                 persister: Callable[[], SharePersister | None] | None = None,
                 run_async: Callable[[Coroutine[object, None, object]], object] | None = None,
                 group_configs: Callable[[str], Mapping[str, str]] | None = None,
                 clock_ms: Callable[[], int] | None = None) -> None:
        self.classic = classic
        self.config = config
        self.topics = topics
        self._persister = persister or (lambda: None)
        self._run_async = run_async
        self._group_configs = group_configs or (lambda _gid: {})
        self.groups: dict[str, ShareGroup] = classic.share_groups
        self._wakeups: list[int] = []
        self._clock_ms = clock_ms or (lambda: classic.last_poll_ms)

    # ================================================================ ShareGroupHeartbeat
    def heartbeat(self, group_id: str, member_id: str, member_epoch: int, *,
                  rack_id: str | None = None, subscribed_topic_names: list[str] | None = None,
                  client_id: str = "", client_host: str = "", now_ms: int) -> Completion:
        """A future resolved with a HeartbeatResult once the group's changes are written;
        the share partitions it found uninitialized are initialized after that."""
        request = ShareGroupHeartbeat(group_id, member_id, member_epoch, now_ms, rack_id,
                                      subscribed_topic_names, client_id, client_host)
        return self._answer_heartbeat(group_id, self._heartbeat(request), now_ms)

    @staticmethod
    def _validate_request(group_id: str, member_id: str, member_epoch: int,
                          names: list[str] | None) -> str | None:
        """Why the request is INVALID_REQUEST (Kafka's throwIfShareGroupHeartbeatRequestIsInvalid)."""
        if not group_id:
            return "GroupId can't be empty."
        if not member_id or len(member_id) > MAX_MEMBER_ID_LENGTH:
            return ""           # Kafka 4.4 answers these without a message
        if member_epoch == JOIN_EPOCH and not names:
            return "SubscribedTopicNames must be set in first request."
        if member_epoch < LEAVE_EPOCH:
            return "MemberEpoch is invalid."
        return None

    def _heartbeat(self, request: ShareGroupHeartbeat) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        """What the heartbeat answers (a bare HeartbeatResult: refused, nothing to write),
        the records it writes and the share partitions to initialize once they are."""
        group_id, member_id, member_epoch = request.group_id, request.member_id, request.member_epoch
        rack_id, names, now_ms = request.rack_id, request.subscribed_topic_names, request.now_ms
        client_id, client_host = request.client_id, request.client_host
        reason = self._validate_request(group_id, member_id, member_epoch, names)
        if reason is not None:
            return _error(ErrorCode.INVALID_REQUEST, reason or None)
        err = self.classic.validate_group_status(group_id, "ShareGroupHeartbeat")
        if err is not None:
            return _error(err, None, member_id, member_epoch)
        group = self.groups.get(group_id)
        if group is None and (group_id in self.classic.groups
                              or group_id in self.classic.consumer_groups):
            if not self._is_empty_classic(group_id):
                return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
        if member_epoch == LEAVE_EPOCH:
            return self._leave(group, group_id, member_id, now_ms)
        records: list = []
        if group is None:
            if member_epoch != JOIN_EPOCH:
                return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Share group {group_id} not found.")
            group = ShareGroup(group_id)
            self.classic.groups.pop(group_id, None)
            self.groups[group_id] = group
        member = group.members.get(member_id)
        if member_epoch == JOIN_EPOCH:
            if member is None and len(group.members) >= self.config.max_size:
                return _error(ErrorCode.GROUP_MAX_SIZE_REACHED,
                              f"The share group has reached its maximum capacity of "
                              f"{self.config.max_size} members.")
            if member is None:
                member = ShareGroupMember(member_id)
                group.members[member_id] = member
                log.info("[GroupId %s] Member %s joins the share group using the share protocol.",
                         group_id, member_id)
            else:
                member.member_epoch = member.previous_member_epoch = 0
                member.assigned = {}
            member.last_sent = None
        else:
            if member is None:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                              f"Member {member_id} is not a member of group {group_id}.")
            fenced = self._check_epoch(member, member_epoch)
            if fenced is not None:
                return fenced
        before = member.metadata_key()
        subscription_before = tuple(member.subscribed_topic_names)
        member.client_id, member.client_host = client_id, client_host
        if rack_id is not None:
            member.rack_id = rack_id
        if names is not None:
            member.subscribed_topic_names = list(names)
        bump = False
        if member.metadata_key() != before or member_epoch == JOIN_EPOCH:
            records.append(share_records.member_metadata(group_id, member))
            bump = (member_id not in group.target
                    or subscription_before != tuple(member.subscribed_topic_names))
        subscribed = self._subscribed_topics(group)
        topics_hash = metadata_hash(subscribed)
        if bump or topics_hash != group.metadata_hash:
            self._bump(group, records, topics_hash)
        to_init = self._uninitialized(group, subscribed, records)
        if to_init:
            # as Kafka 4.4 does: partitions starting to initialize move the epoch (and
            # their completion moves it again, assigning them)
            self._bump(group, records, topics_hash)
        if group.group_epoch > group.assignment_epoch:
            self._compute_target(group, subscribed, records, now_ms)
        self._reconcile(group, member, records)
        self._schedule_session(member, now_ms, group_id)
        assignment = None
        if member.last_sent is None or member.assigned != member.last_sent:
            assignment = copy_assignment(member.assigned)
            member.last_sent = assignment
        answer = HeartbeatResult(ErrorCode.NONE, None, member_id, member.member_epoch,
                                 self._heartbeat_interval(group_id), assignment)
        if not to_init:
            return CoordinatorResult(answer, records)
        return CoordinatorResult(answer, records, lambda: self._initialize(group_id, to_init))

    def _is_empty_classic(self, group_id: str) -> bool:
        """A classic group with no members and no offsets (left behind) gives way."""
        g = self.classic.groups.get(group_id)
        return (g is not None and group_id not in self.classic.consumer_groups
                and not g.members and not g.offsets and not g.pending_offset_commits)

    @staticmethod
    def _check_epoch(member: ShareGroupMember, epoch: int) -> HeartbeatResult | None:
        """Kafka's throwIfShareGroupMemberEpochIsInvalid."""
        if epoch > member.member_epoch:
            return _error(ErrorCode.FENCED_MEMBER_EPOCH,
                          f"The share group member has a greater member epoch ({epoch}) than the "
                          f"one known by the group coordinator ({member.member_epoch}). The member "
                          f"must abandon all its partitions and rejoin.")
        if epoch < member.member_epoch and epoch != member.previous_member_epoch:
            return _error(ErrorCode.FENCED_MEMBER_EPOCH,
                          f"The share group member has a smaller member epoch ({epoch}) than the "
                          f"one known by the group coordinator ({member.member_epoch}), and it "
                          f"does not match the previous member epoch "
                          f"({member.previous_member_epoch}). The member must abandon all its "
                          f"partitions and rejoin.")
        return None

    def _leave(self, group: ShareGroup | None, group_id: str, member_id: str,
               now_ms: int) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        if group is None:
            return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        member = group.members.get(member_id)
        if member is None:
            return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                          f"Member {member_id} is not a member of group {group_id}.")
        log.info("[GroupId %s] Member %s left the share group.", group_id, member_id)
        records: list = []
        self._remove_member(group, member, records)
        return CoordinatorResult(HeartbeatResult(ErrorCode.NONE, None, member_id, LEAVE_EPOCH, 0, None), records)

    def _remove_member(self, group: ShareGroup, member: ShareGroupMember, records: list) -> None:
        group.members.pop(member.member_id, None)
        group.target.pop(member.member_id, None)
        records.extend(share_records.member_tombstones(group.group_id, member.member_id))
        self._bump(group, records, metadata_hash(self._subscribed_topics(group)))

    def _bump(self, group: ShareGroup, records: list, topics_hash: int) -> None:
        group.group_epoch += 1
        group.metadata_hash = topics_hash
        records.append(share_records.group_metadata(group.group_id, group.group_epoch, topics_hash))

    # ================================================================ assignment
    def _subscribed_topics(self, group: ShareGroup) -> dict[str, TopicMeta]:
        out: dict[str, TopicMeta] = {}
        for m in group.members.values():
            for name in m.subscribed_topic_names:
                if name not in out:
                    meta = self.topics.topic(name)
                    if meta is not None and not meta.internal:
                        out[name] = meta
        return out

    def _compute_target(self, group: ShareGroup, subscribed: dict[str, TopicMeta],
                        records: list, now_ms: int) -> None:
        subs = {m.member_id: frozenset(subscribed[n].topic_id for n in m.subscribed_topic_names
                                       if n in subscribed)
                for m in group.members.values()}
        partitions = {}
        for meta in subscribed.values():
            tp = group.initialized.get(meta.topic_id)
            if tp is not None:
                partitions[meta.topic_id] = sorted(p for p in tp.partitions if p < meta.num_partitions)
        target = share_assignor.assign(subs, partitions, group.target)
        for mid, a in target.items():
            if group.target.get(mid) != a:
                records.append(share_records.target_member(group.group_id, mid, a))
        group.target = target
        group.assignment_epoch = group.group_epoch
        records.append(share_records.target_metadata(group.group_id, group.assignment_epoch, now_ms))

    @staticmethod
    def _reconcile(group: ShareGroup, member: ShareGroupMember, records: list) -> None:
        """A share member takes its target at once (a partition may have many holders)."""
        target = group.target.get(member.member_id, {})
        if member.member_epoch == group.assignment_epoch and member.assigned == target:
            return
        if member.member_epoch != group.assignment_epoch:
            member.previous_member_epoch, member.member_epoch = member.member_epoch, group.assignment_epoch
        member.assigned = copy_assignment(target)
        records.append(share_records.current_assignment(group.group_id, member))

    # ================================================================ share state
    def _uninitialized(self, group: ShareGroup, subscribed: dict[str, TopicMeta],
                       records: list) -> dict[bytes, set[int]]:
        """Subscribed partitions without share state and not being initialized: marked
        initializing (a record), returned for `_initialize` once the batch is written."""
        todo: dict[bytes, set[int]] = {}
        for meta in subscribed.values():
            missing = {p for p in range(meta.num_partitions)
                       if not group.is_initialized(meta.topic_id, p)
                       and not group.is_initializing(meta.topic_id, p)}
            if missing:
                group.mark_initializing(meta.topic_id, meta.name, missing)
                todo[meta.topic_id] = missing
        if todo:
            records.append(share_records.state_partition_metadata(group))
        return todo

    def _initialize(self, group_id: str, partitions: dict[bytes, set[int]]) -> None:
        group = self.groups.get(group_id)
        if group is None:
            return
        persister = self._persister()
        if persister is None or self._run_async is None:
            self.complete_initialization(group_id, partitions, {}, self._clock_ms())
            return
        state_epoch = group.group_epoch

        async def run() -> None:
            ok: dict[bytes, set[int]] = {}
            failed: dict[bytes, set[int]] = {}
            for t, ps in partitions.items():
                for p in sorted(ps):
                    key = SharePartitionKey(group_id, topic_uuid(t), p)
                    try:
                        error = await persister.initialize_state(key, state_epoch,
                                                                 UNINITIALIZED_START_OFFSET)
                    except Exception as e:  # noqa: BLE001 - retried on a later heartbeat
                        log.warning("Unable to initialize share group state %s: %s", key, e)
                        error = ErrorCode.UNKNOWN_SERVER_ERROR
                    (ok if error == ErrorCode.NONE else failed).setdefault(t, set()).add(p)
            self.complete_initialization(group_id, ok, failed, self._clock_ms())
        self._run_async(run())

    def complete_initialization(self, group_id: str, ok: dict[bytes, set[int]],
                                failed: dict[bytes, set[int]], now_ms: int) -> None:
        """The persister answered: `ok` partitions have state now (assignable after the
        epoch bump written here), `failed` ones are retried by the next heartbeat."""
        group = self.groups.get(group_id)
        if group is None or self.classic.partition_for(group_id) not in self.classic.owned_partitions:
            return
        for t, ps in ok.items():
            name = (group.initializing.get(t) or group.initialized.get(t))
            group.mark_initialized(t, name.name if name else "", ps)
        for t, ps in failed.items():
            group.forget_initializing(t, ps)
        records = [share_records.state_partition_metadata(group)]
        if ok:
            self._bump(group, records, group.metadata_hash)
        self._append(group_id, records, now_ms)

    def initialized_partitions(self, group_id: str) -> dict[bytes, set[int]]:
        group = self.groups.get(group_id)
        if group is None:
            return {}
        return {t: set(tp.partitions) for t, tp in group.initialized.items()}

    def delete_state(self, group_id: str, partitions: dict[bytes, set[int]]) -> Coroutine[object, None, dict]:
        """Delete the share state of `partitions` through the persister; a coroutine
        resolving to {(topic id, partition): error}."""
        persister = self._persister()

        async def run() -> dict:
            out = {}
            for t, ps in partitions.items():
                for p in sorted(ps):
                    error: int = ErrorCode.NONE
                    if persister is not None:
                        try:
                            error = await persister.delete_state(
                                SharePartitionKey(group_id, topic_uuid(t), p))
                        except Exception as e:  # noqa: BLE001 - reported per partition
                            log.warning("Unable to delete share group state of %s: %s", group_id, e)
                            error = ErrorCode.UNKNOWN_SERVER_ERROR
                    out[(t, p)] = error
            return out
        return run()

    # ================================================================ share group offsets
    def offsets_group_error(self, group_id: str, api: str) -> tuple[ErrorCode, str | None] | None:
        """Why an offsets request cannot be served for `group_id` here (coordinator
        errors; GROUP_ID_NOT_FOUND for a missing or non-share group)."""
        err = self.classic.validate_group_status(group_id, api)
        if err is not None:
            return err, None
        if group_id not in self.groups:
            if group_id in self.classic.groups or group_id in self.classic.consumer_groups:
                return ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group."
            return ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} not found."
        return None

    async def describe_offsets(self, group_id: str, topics: list[tuple[str, list[int]]] | None
                               ) -> list[tuple[TopicMeta | str, int, ErrorCode | StateSummary]]:
        """DescribeShareGroupOffsets of one share group: (topic, partition, StateSummary
        or an ErrorCode) for the requested partitions, or for every initialized one
        when `topics` is None. A partition without share state has start offset -1."""
        from kafpy.coordinator.share_state.persister import StateSummary
        group = self.groups.get(group_id)
        wanted: list[tuple[TopicMeta | str, int]] = []
        if topics is None:
            for t, tp in sorted((group.initialized if group else {}).items(),
                                key=lambda kv: kv[1].name):
                meta: TopicMeta | str | None = self.topics.topic_by_id(t)
                if meta is not None:
                    wanted.extend((meta, p) for p in sorted(tp.partitions))
        else:
            for name, partitions in topics:
                meta = self.topics.topic(name)
                wanted.extend((meta if meta is not None else name, p) for p in partitions)
        persister = self._persister()
        out: list[tuple[TopicMeta | str, int, ErrorCode | StateSummary]] = []
        for meta, p in wanted:
            if isinstance(meta, str) or p >= meta.num_partitions or p < 0:
                out.append((meta, p, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
            elif group is None or not group.is_initialized(meta.topic_id, p) or persister is None:
                out.append((meta, p, StateSummary()))
            else:
                try:
                    summary = await persister.read_summary(
                        SharePartitionKey(group_id, topic_uuid(meta.topic_id), p), 0)
                except Exception as e:  # noqa: BLE001 - answered as that partition's error
                    log.warning("Failed to read summary of the share partition %s-%d: %s",
                                meta.name, p, e)
                    summary = StateSummary(error_code=ErrorCode.UNKNOWN_SERVER_ERROR)
                out.append((meta, p, summary))
        return out

    async def alter_offsets(self, group_id: str, topics: dict[str, dict[int, int]], now_ms: int
                            ) -> tuple[ErrorCode, str | None, list[tuple[str, bytes, int, ErrorCode]]]:
        """AlterShareGroupOffsets (kafka-share-groups --reset-offsets): only on an empty
        group, created when missing as Kafka does; each partition's share state is
        initialized anew at its start offset (a new state epoch). Returns the top-level
        error and message and (topic, topic id, partition, error) per partition."""
        err = self.classic.validate_group_status(group_id, "AlterShareGroupOffsets")
        if err is not None:
            return err, None, []
        group = self.groups.get(group_id)
        if group is None:
            if group_id in self.classic.groups or group_id in self.classic.consumer_groups:
                return ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.", []
            group = ShareGroup(group_id)
            self.groups[group_id] = group
        if group.members:
            return ErrorCode.NON_EMPTY_GROUP, "The group is not empty.", []
        results: list[tuple[str, bytes, int, ErrorCode]] = []
        todo: dict[bytes, dict[int, int]] = {}
        for name, offsets in topics.items():
            meta = self.topics.topic(name)
            for p, offset in sorted(offsets.items()):
                if meta is None or not 0 <= p < meta.num_partitions:
                    results.append((name, b"\0" * 16 if meta is None else meta.topic_id, p,
                                    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
                else:
                    todo.setdefault(meta.topic_id, {})[p] = offset
                    group.mark_initializing(meta.topic_id, name, {p})
        records: list = []
        self._bump(group, records, group.metadata_hash)
        records.append(share_records.state_partition_metadata(group))
        self._append(group_id, records, now_ms)
        persister = self._persister()
        ok: dict[bytes, set[int]] = {}
        failed: dict[bytes, set[int]] = {}
        for t, offsets in todo.items():
            meta = self.topics.topic_by_id(t)
            for p, offset in sorted(offsets.items()):
                error = ErrorCode.NONE
                if persister is not None:
                    try:
                        error = ErrorCode.of_known(await persister.initialize_state(
                            SharePartitionKey(group_id, topic_uuid(t), p), group.group_epoch, offset))
                    except Exception as e:  # noqa: BLE001 - answered as that partition's error
                        log.warning("Unable to initialize share group state %s-%d: %s", group_id, p, e)
                        error = ErrorCode.UNKNOWN_SERVER_ERROR
                (ok if error == ErrorCode.NONE else failed).setdefault(t, set()).add(p)
                results.append((meta.name if meta else "", t, p, error))
        self.complete_initialization(group_id, ok, failed, now_ms)
        return ErrorCode.NONE, None, results

    async def delete_offsets(self, group_id: str, topic_names: list[str], now_ms: int
                             ) -> tuple[ErrorCode, str | None, list[tuple[str, bytes, ErrorCode]]]:
        """DeleteShareGroupOffsets: only on an empty group; the topics' share state is
        deleted through the persister and they are no longer initialized."""
        problem = self.offsets_group_error(group_id, "DeleteShareGroupOffsets")
        if problem is not None:
            return problem[0], problem[1], []
        group = self.groups[group_id]
        if group.members:
            return ErrorCode.NON_EMPTY_GROUP, "The group is not empty.", []
        results: list[tuple[str, bytes, ErrorCode]] = []
        todo: dict[bytes, set[int]] = {}
        for name in topic_names:
            meta = self.topics.topic(name)
            known = meta is not None and (meta.topic_id in group.initialized
                                          or meta.topic_id in group.initializing)
            if not known:
                results.append((name, meta.topic_id if meta else b"\0" * 16,
                                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
                continue
            assert meta is not None  # known
            ps = set(group.initialized[meta.topic_id].partitions) if meta.topic_id in group.initialized else set()
            if meta.topic_id in group.initializing:
                ps |= group.initializing[meta.topic_id].partitions
            todo[meta.topic_id] = ps
            group.deleting[meta.topic_id] = name
        if todo:
            self._append(group_id, [share_records.state_partition_metadata(group)], now_ms)
        errors = await self.delete_state(group_id, todo)
        for t, ps in todo.items():
            name = group.deleting.get(t, "")
            failed = [e for (tt, _), e in errors.items() if tt == t and e != ErrorCode.NONE]
            if not failed:
                group.deleting.pop(t, None)
                group.initialized.pop(t, None)
                group.initializing.pop(t, None)
            results.append((name, t, ErrorCode.of_known(failed[0]) if failed else ErrorCode.NONE))
        if todo:
            self._append(group_id, [share_records.state_partition_metadata(group)], now_ms)
        return ErrorCode.NONE, None, results

    def on_topics_deleted(self, topics: set[str], now_ms: int) -> None:
        """Deleted topics leave every share group's state metadata (Kafka's
        maybeCleanupShareGroupState): their share state is deleted through the persister
        and the next heartbeats assign without them (the metadata hash moves)."""
        for group in list(self.groups.values()):
            doomed = {t: tp for t, tp in {**group.initializing, **group.initialized}.items()
                      if tp.name in topics}
            if not doomed:
                continue
            partitions: dict[bytes, set[int]] = {}
            for t in doomed:
                for d in (group.initialized, group.initializing):
                    tp = d.pop(t, None)
                    if tp is not None:
                        partitions.setdefault(t, set()).update(tp.partitions)
            self._append(group.group_id, [share_records.state_partition_metadata(group)], now_ms)
            if self._run_async is not None and self._persister() is not None:
                self._run_async(self.delete_state(group.group_id, partitions))

    # ================================================================ timers
    def _heartbeat_interval(self, group_id: str) -> int:
        return self._override(group_id, "share.heartbeat.interval.ms", self.config.heartbeat_interval_ms)

    def _session_timeout(self, group_id: str) -> int:
        return self._override(group_id, "share.session.timeout.ms", self.config.session_timeout_ms)

    def _schedule_session(self, member: ShareGroupMember, now_ms: int, group_id: str) -> None:
        member.session_deadline = self._wake(now_ms + self._session_timeout(group_id))

    def poll(self, now_ms: int) -> None:
        """Remove members whose session expired."""
        if not self._take_due(now_ms):
            return
        for group in list(self.groups.values()):
            records: list = []
            for member in list(group.members.values()):
                if member.session_deadline is not None and member.session_deadline <= now_ms:
                    log.info("[GroupId %s] Member %s fenced from the group because the member "
                             "session expired.", group.group_id, member.member_id)
                    self._remove_member(group, member, records)
            if records:
                self._append(group.group_id, records, now_ms)

    # ================================================================ describe, list, delete
    def describe(self, group_id: str) -> DescribedShareGroup:
        err = self.classic.validate_group_status(group_id, "ShareGroupDescribe")
        if err is not None:
            return DescribedShareGroup(group_id, err)
        group = self.groups.get(group_id)
        if group is None or group.deleted:
            return DescribedShareGroup(group_id, ErrorCode.GROUP_ID_NOT_FOUND,
                                       self._missing_group_message(group_id, "share"))
        return DescribedShareGroup(group_id, ErrorCode.NONE, None, group.state.value,
                                   group.group_epoch, group.assignment_epoch, share_assignor.NAME,
                                   list(group.members.values()))

    async def delete_groups_state(self, group_ids: list[str], now_ms: int) -> dict[str, ErrorCode]:
        """The first step of DeleteGroups (Kafka's deleteShareGroups): the share state of
        each empty share group named here is deleted through the persister, and only then
        may `delete_group` delete the group. Returns {group id: the persister's error} for
        the groups whose state could not be deleted (DeleteGroups answers that error and
        keeps them); the ids that are not empty share groups of this coordinator are left
        to DeleteGroups' own checks."""
        failed: dict[str, ErrorCode] = {}
        for gid in group_ids:
            group = self.groups.get(gid)
            if (group is None or group.deleted or group.members
                    or self.classic.validate_group_status(gid, "DeleteGroups") is not None):
                continue
            partitions = self._state_partitions(group)
            if not partitions:
                continue
            for t, tp in {**group.initializing, **group.initialized}.items():
                group.deleting[t] = tp.name
            self._append(gid, [share_records.state_partition_metadata(group)], now_ms)
            errors = await self.delete_state(gid, partitions)
            bad = [e for e in errors.values() if e != ErrorCode.NONE]
            if bad:
                failed[gid] = ErrorCode.of_known(bad[0])
                log.error("Error deleting share group %s due to error %s", gid, failed[gid].name)
                continue
            if self.groups.get(gid) is group:
                # the state is gone: should a member join before the group is deleted,
                # its heartbeat initializes the partitions anew
                group.initialized.clear()
                group.initializing.clear()
                group.deleting.clear()
                self._append(gid, [share_records.state_partition_metadata(group)], now_ms)
        return failed

    @staticmethod
    def _state_partitions(group: ShareGroup) -> dict[bytes, set[int]]:
        partitions = {t: set(tp.partitions) for t, tp in group.initialized.items()}
        for t, tp in group.initializing.items():
            partitions.setdefault(t, set()).update(tp.partitions)
        return partitions

    def delete_group(self, group: ShareGroup, now_ms: int) -> ErrorCode:
        """DeleteGroups of a share group: only an empty one. Its share state is deleted
        first (`delete_groups_state`); what is left (a caller that skipped that step) is
        deleted through the persister in the background."""
        if group.members:
            return ErrorCode.NON_EMPTY_GROUP
        group.deleted = True
        del self.groups[group.group_id]
        records = list(share_records.group_tombstones(group.group_id))
        self._append(group.group_id, records, now_ms)
        partitions = self._state_partitions(group)
        if partitions and self._run_async is not None and self._persister() is not None:
            self._run_async(self.delete_state(group.group_id, partitions))
        return ErrorCode.NONE

    # ================================================================ partitions
    RECORDS, KEY_VERSIONS, SKIPPED_ON_REPLAY = share_records, share_records.SHARE_KEY_VERSIONS, {share_records.PARTITION_METADATA}
    GROUP, MEMBER = ShareGroup, ShareGroupMember

    def _attach_member(self, group: ShareGroup, member: ShareGroupMember) -> None:
        group.members[member.member_id] = member

    def _replay_group_record(self, g: ShareGroup, kind: int, key: str | None, v: object) -> None:
        if kind == share_records.STATE_PARTITION_METADATA and v is not None:
            assert isinstance(v, messages.ShareGroupStatePartitionMetadataValue)  # the kind's value
            share_records.apply_state_partition_metadata(g, v)

    def load_partition(self, partition: int, now_ms: int) -> int:
        """Replay the share group records of `partition`."""
        groups = self._replay(partition, now_ms)
        loaded = 0
        for gid, g in groups.items():
            if g.group_epoch == 0 and not g.members:
                continue
            # initializations in flight on the previous coordinator are retried
            g.initializing.clear()
            self.classic.groups.pop(gid, None)
            self.groups[gid] = g
            loaded += 1
            log.info("Loaded share group %s with %d members.", gid, len(g.members))
        return loaded
