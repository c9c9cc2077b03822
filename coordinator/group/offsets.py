"""Committed offsets of classic groups: OffsetCommit, OffsetFetch, OffsetDelete, offset
expiry and the removal of deleted topics' offsets (Kafka's GroupMetadataManager offset
paths; OffsetMetadataManager in the new runtime).

Who calls it: GroupCoordinator is built on it, on the event loop thread. A commit is
written to `__consumer_offsets` asynchronously and staged in the group's
`pending_offset_commits` meanwhile; its offsets become visible, and its OffsetCommit is
answered, only when the write is committed. OffsetFetch always returns the last
committed offsets (a plain pending commit is not UNSTABLE_OFFSET_COMMIT; only
transactional ones are). TxnOffsetCommit stages offsets per producer id in
`pending_txn_offsets`, written as the producer's transactional batch; the producer's
marker on the partition (`complete_transaction`) commits or drops them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.base import OFFSET_COMMIT, OFFSET_FETCH, CoordinatorBase, attached

if TYPE_CHECKING:
    from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
    from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator
from kafpy.coordinator.group.errors import append_error_to_commit_error
from kafpy.coordinator.group.classic.group import CONSUMER_PROTOCOL_TYPE, ClassicGroup, GroupState, complete
from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.records import OffsetAndMetadata
from kafpy.coordinator.group.results import UNKNOWN_MEMBER_ID, FetchedOffset

TopicPartition = tuple[str, int]


class OffsetManager(CoordinatorBase):
    """The offsets half of GroupCoordinator."""

    def _epoch_group(self, group_id: str) -> tuple[Any, Any]:
        """(group, coordinator validating its member epochs) of a consumer-protocol or
        Streams group; (None, None) for a classic one."""
        consumer_group = self.consumer_groups.get(group_id)
        if consumer_group is not None:
            return consumer_group, attached(self.consumer)
        streams_group = self.streams_groups.get(group_id)
        if streams_group is not None:
            return streams_group, attached(self.streams)
        return None, None

    # ================================================================ OffsetCommit
    def commit_offsets(self, group_id: str, member_id: str, group_instance_id: str | None,
                       generation_id: int, offsets: dict[TopicPartition, OffsetAndMetadata],
                       now_ms: int, api_version: int = 9) -> Completion:
        """A future resolved with {partition: error} once the commit is committed in
        `__consumer_offsets` (or failed). `api_version`: the OffsetCommit's (a
        consumer-protocol member must use v9 or above)."""
        err = self.validate_group_status(group_id, OFFSET_COMMIT)
        if err is not None:
            return self._new_future({tp: err for tp in offsets})
        consumer_group, epochs = self._epoch_group(group_id)
        if consumer_group is not None:
            # a consumer-protocol or Streams group: the member epoch must be the member's current one
            err = epochs.validate_offset_commit(consumer_group, member_id, generation_id,
                                                api_version=api_version)
            if err is not None:
                return self._new_future({tp: err for tp in offsets})
            refused = epochs.commit_partition_errors(consumer_group, member_id, generation_id, offsets)
            return self._store_offsets(consumer_group, offsets, now_ms, refused)
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            if generation_id >= 0:
                return self._new_future({tp: ErrorCode.ILLEGAL_GENERATION for tp in offsets})
            # A consumer outside group management storing offsets: a "simple" group.
            group = self.groups[group_id] = ClassicGroup(group_id, now_ms)
        err = self._validate_offset_commit(group, generation_id, member_id, group_instance_id)
        if err is None and group.is_(GroupState.COMPLETING_REBALANCE):
            err = ErrorCode.REBALANCE_IN_PROGRESS
        if err is not None:
            return self._new_future({tp: err for tp in offsets})
        if group.state in (GroupState.STABLE, GroupState.PREPARING_REBALANCE):
            member = group.members.get(member_id)
            if member is not None:
                self.schedule_heartbeat(member, now_ms)
        return self._store_offsets(group, offsets, now_ms)

    def _validate_offset_commit(self, group: ClassicGroup, generation_id: int, member_id: str,
                                group_instance_id: str | None) -> ErrorCode | None:
        if group.is_(GroupState.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_(GroupState.EMPTY):
            return None
        if (generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID
                or group_instance_id is not None):
            err = self._validate_current_member(group, member_id, group_instance_id)
            if err is not None:
                return err
            return ErrorCode.ILLEGAL_GENERATION if generation_id != group.generation_id else None
        if not group.is_(GroupState.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID
        return None

    def _check_metadata_sizes(self, offsets: dict[TopicPartition, OffsetAndMetadata]
                              ) -> tuple[dict[TopicPartition, ErrorCode], dict[TopicPartition, OffsetAndMetadata]]:
        """(OFFSET_METADATA_TOO_LARGE per partition whose metadata is too long, the rest)."""
        result: dict[TopicPartition, ErrorCode] = {}
        valid: dict[TopicPartition, OffsetAndMetadata] = {}
        limit = self.config.offset_metadata_max_bytes
        for tp, om in offsets.items():
            if om.metadata is not None and len(om.metadata.encode("utf-8")) > limit:
                result[tp] = ErrorCode.OFFSET_METADATA_TOO_LARGE
            else:
                valid[tp] = om
        return result, valid

    def _store_offsets(self, group: ClassicGroup, offsets: dict[TopicPartition, OffsetAndMetadata],
                       now_ms: int, refused: dict[TopicPartition, ErrorCode] | None = None) -> Completion:
        """Write `offsets` but the `refused` ones (answered with their error)."""
        fut = self.future_factory()
        result, valid = self._check_metadata_sizes(
            {tp: om for tp, om in offsets.items() if not refused or tp not in refused})
        result.update(refused or {})
        if not valid:
            fut.set_result({tp: result[tp] for tp in offsets})
            return fut
        group.prepare_offset_commit(valid)

        def on_written(error: ErrorCode) -> None:
            if self._is_current(group):
                for tp, om in valid.items():
                    if error == ErrorCode.NONE:
                        group.on_offset_commit_append(tp, om)
                    else:
                        group.fail_pending_offset_write(tp, om)
            result.update(dict.fromkeys(valid, ErrorCode.NONE if error == ErrorCode.NONE
                                        else append_error_to_commit_error(error)))
            complete(fut, {tp: result[tp] for tp in offsets})

        self._write(group.group_id, self.store.offset_records(group.group_id, valid), now_ms, on_written)
        return fut

    # ================================================================ TxnOffsetCommit
    def txn_commit_offsets(self, group_id: str, producer_id: int, producer_epoch: int,
                           member_id: str, group_instance_id: str | None, generation_id: int,
                           offsets: dict[TopicPartition, OffsetAndMetadata], now_ms: int) -> Completion:
        """TxnOffsetCommit: a future resolved with {partition: error} once the offsets
        are written to `__consumer_offsets` as a transactional batch of the producer.
        They stay pending (OffsetFetch does not show them; with require_stable it
        answers UNSTABLE_OFFSET_COMMIT) until the producer's marker settles them."""
        err = self.validate_group_status(group_id, OFFSET_COMMIT)
        if err is not None:
            return self._new_future({tp: err for tp in offsets})
        group, epochs = self._epoch_group(group_id)
        if group is not None:
            err = epochs.validate_offset_commit(group, member_id, generation_id,
                                                transactional=True)
        else:
            group = self.groups.get(group_id)
            if group is None or group.is_(GroupState.DEAD):
                group = self.groups[group_id] = ClassicGroup(group_id, now_ms)
            if (generation_id >= 0 or member_id != UNKNOWN_MEMBER_ID
                    or group_instance_id is not None):
                err = self._validate_current_member(group, member_id, group_instance_id)
                if err is None and generation_id != group.generation_id:
                    err = ErrorCode.ILLEGAL_GENERATION
        if err is not None:
            return self._new_future({tp: err for tp in offsets})
        fut = self.future_factory()
        result, valid = self._check_metadata_sizes(offsets)
        if not valid:
            fut.set_result(result)
            return fut
        pending = group.pending_txn_offsets.setdefault(producer_id, {})
        pending.update(valid)

        def on_written(error: ErrorCode) -> None:
            if error != ErrorCode.NONE and self._is_current(group):
                staged = group.pending_txn_offsets.get(producer_id, {})
                for tp, om in valid.items():
                    if staged.get(tp) is om:
                        del staged[tp]
                if not staged:
                    group.pending_txn_offsets.pop(producer_id, None)
            result.update(dict.fromkeys(valid, ErrorCode.NONE if error == ErrorCode.NONE
                                        else append_error_to_commit_error(error)))
            complete(fut, {tp: result[tp] for tp in offsets})

        self._write(group.group_id, self.store.offset_records(group.group_id, valid), now_ms, on_written,
                    producer_id=producer_id, producer_epoch=producer_epoch)
        return fut

    def complete_transaction(self, producer_id: int, partitions: list[int], committed: bool) -> None:
        """A COMMIT (``committed``) or ABORT marker of ``producer_id`` is committed on
        these `__consumer_offsets` partitions: the producer's pending transactional
        offsets of their groups become the committed offsets, or are dropped (Kafka's
        handleTxnCompletion). Offsets whose partitions were removed meanwhile stay removed."""
        wanted = set(partitions)
        for group in [*self.groups.values(), *self.consumer_groups.values(),
                      *self.streams_groups.values()]:
            if self.partition_for(group.group_id) not in wanted:
                continue
            pending = group.pending_txn_offsets.pop(producer_id, None)
            if pending and committed:
                group.offsets.update(pending)

    # ================================================================ OffsetFetch
    def fetch_offsets(self, group_id: str, partitions: list[TopicPartition] | None,
                      require_stable: bool = False, member_id: str | None = None,
                      member_epoch: int = -1
                      ) -> tuple[ErrorCode, dict[TopicPartition, FetchedOffset]]:
        """Committed offsets of the group; `partitions=None` means all of them. Pending
        commits are not shown (the last committed offset is); with `require_stable` a
        partition with a pending transactional commit answers UNSTABLE_OFFSET_COMMIT
        (the client retries until the transaction ends), as Kafka's new coordinator."""
        err = self.validate_group_status(group_id, OFFSET_FETCH)
        if err is not None:
            return err, {}
        group, epochs = self._epoch_group(group_id)
        if group is not None:
            # OffsetFetch v9+ names the member; a consumer or Streams group checks its epoch
            err = epochs.validate_offset_fetch(group, member_id, member_epoch)
            if err is not None:
                return err, {}
            live = True
        else:
            group = self.groups.get(group_id)
            live = group is not None and not group.is_(GroupState.DEAD)
        offsets = group.offsets if live else {}
        unstable = require_stable and live and bool(group.pending_txn_offsets)

        def fetched(tp: TopicPartition, om: OffsetAndMetadata | None) -> FetchedOffset:
            if unstable and group.has_pending_txn_offset(tp):
                return FetchedOffset(-1, -1, "", ErrorCode.UNSTABLE_OFFSET_COMMIT)
            return FetchedOffset(-1, -1, "") if om is None else \
                FetchedOffset(om.offset, om.leader_epoch, om.metadata, topic_id=om.topic_id)

        if partitions is None:
            return ErrorCode.NONE, {tp: fetched(tp, om) for tp, om in offsets.items()}
        return ErrorCode.NONE, {tp: fetched(tp, offsets.get(tp)) for tp in partitions}

    # ================================================================ OffsetDelete
    def delete_offsets(self, group_id: str, partitions: list[TopicPartition], now_ms: int
                       ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        err = self.validate_group_status(group_id, "OffsetDelete")
        if err is not None:
            return err, {}
        if group_id in self.consumer_groups:
            return self._delete_consumer_group_offsets(self.consumer_groups[group_id],
                                                       partitions, now_ms)
        if group_id in self.streams_groups:
            return self._delete_consumer_group_offsets(self.streams_groups[group_id],
                                                       partitions, now_ms)
        group = self.groups.get(group_id)
        if group is None or group.is_(GroupState.DEAD):
            return ErrorCode.GROUP_ID_NOT_FOUND, {}
        errors: dict[TopicPartition, ErrorCode] = {}
        eligible: list[TopicPartition] = []
        if group.is_(GroupState.EMPTY):
            eligible = list(partitions)
        elif group.protocol_type == CONSUMER_PROTOCOL_TYPE:
            for tp in partitions:
                if group.is_subscribed_to_topic(tp[0]):
                    errors[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
        else:
            return ErrorCode.NON_EMPTY_GROUP, {}
        if eligible:
            self._cleanup_group(group, lambda g: g.remove_offsets(eligible), now_ms)
            errors.update(dict.fromkeys(eligible, ErrorCode.NONE))
        return ErrorCode.NONE, {tp: errors[tp] for tp in partitions if tp in errors}

    def _delete_consumer_group_offsets(self, group: Any, partitions: list[TopicPartition],
                                       now_ms: int
                                       ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """OffsetDelete on a consumer group: refused for topics a member subscribes to."""
        if group.group_id in self.streams_groups:
            subscribed = attached(self.streams).subscribed_topic_names(group)
        else:
            subscribed = attached(self.consumer).subscribed_topic_names(group)
        errors = {tp: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC for tp in partitions if tp[0] in subscribed}
        eligible = [tp for tp in partitions if tp not in errors]
        removed = group.remove_offsets(eligible)
        errors.update(dict.fromkeys(eligible, ErrorCode.NONE))
        self._write(group.group_id, self.store.tombstone_records(group.group_id, removed, False),
                    now_ms, what="tombstones")
        return ErrorCode.NONE, errors

    # ================================================================ removal
    def _cleanup_group(self, group: ClassicGroup,
                       selector: Callable[[ClassicGroup], list[TopicPartition]],
                       now_ms: int) -> int:
        """Remove the offsets `selector` picks (committed or pending), make an Empty
        group without offsets Dead, and write the tombstones (Kafka's
        cleanupGroupMetadata). Returns how many partitions lost their offsets."""
        removed = selector(group)
        if group.is_(GroupState.EMPTY) and not group.has_offsets:
            group.transition_to(GroupState.DEAD, now_ms)
        dead = group.is_(GroupState.DEAD)
        if dead and self._is_current(group):
            del self.groups[group.group_id]
        self._write(group.group_id, self.store.tombstone_records(group.group_id, removed, dead and group.generation_id > 0),
                    now_ms, what="tombstones")
        return len(removed)

    def _expired_offsets(self, group: ClassicGroup, now_ms: int) -> list[TopicPartition]:
        """Partitions whose committed offset is past offsets.retention.minutes (or its
        explicit expire timestamp); partitions with a commit in flight never expire."""
        retention = self.config.offsets_retention_ms

        def expired(base: Callable[[OffsetAndMetadata], int],
                    skip_topics: Iterable[str] = frozenset()) -> list[TopicPartition]:
            out = []
            for tp, om in group.offsets.items():
                if tp[0] in skip_topics or tp in group.pending_offset_commits:
                    continue
                if om.expire_timestamp >= 0:
                    if now_ms >= om.expire_timestamp:
                        out.append(tp)
                elif now_ms - base(om) >= retention:
                    out.append(tp)
            return out

        if group.protocol_type is not None and group.is_(GroupState.EMPTY):
            ts = group.state_timestamp
            return expired(lambda om: om.commit_timestamp if ts is None else ts)
        if (group.protocol_type == CONSUMER_PROTOCOL_TYPE and group.subscribed_topics is not None
                and group.is_(GroupState.STABLE)):
            return expired(lambda om: om.commit_timestamp, group.subscribed_topics)
        if group.protocol_type is None:
            return expired(lambda om: om.commit_timestamp)
        return []

    def expire_offsets(self, now_ms: int) -> int:
        removed = 0
        for group in list(self.groups.values()):
            if not group.is_(GroupState.DEAD):
                removed += self._cleanup_group(
                    group, lambda g: g.remove_offsets(self._expired_offsets(g, now_ms)), now_ms)
        for cgroup in [*self.consumer_groups.values(), *self.streams_groups.values()]:
            removed += self._expire_consumer_group_offsets(cgroup, now_ms)
        return removed

    def _expire_consumer_group_offsets(self, group: Any, now_ms: int) -> int:
        """A consumer-protocol (or Streams) group's offsets past retention of topics no
        member subscribes to (all of them once it is empty); an empty group left without
        offsets is deleted, as Kafka's cleanupGroupMetadata does."""
        owner: StreamsGroupCoordinator | ConsumerGroupCoordinator = (attached(self.streams) if group.group_id in self.streams_groups
                                         else attached(self.consumer))
        subscribed = owner.subscribed_topic_names(group)
        retention = self.config.offsets_retention_ms
        expired = [tp for tp, om in group.offsets.items()
                   if tp[0] not in subscribed and tp not in group.pending_offset_commits
                   and (now_ms >= om.expire_timestamp if om.expire_timestamp >= 0
                        else now_ms - om.commit_timestamp >= retention)]
        gone = group.remove_offsets(expired)
        self._write(group.group_id, self.store.tombstone_records(group.group_id, gone, False),
                    now_ms, what="tombstones")
        if not group.members and not group.has_offsets:
            owner.delete_group(group, now_ms)
        return len(gone)

    def on_topics_deleted(self, topics: Iterable[str], now_ms: int) -> int:
        """Forget the committed offsets of deleted topics in every group (with
        tombstones), as Kafka does when partitions are deleted. Returns how many."""
        gone = set(topics)
        removed = 0
        for group in list(self.groups.values()):
            if group.is_(GroupState.DEAD):
                continue
            victims = [tp for tp in (*group.offsets, *group.pending_offset_commits)
                       if tp[0] in gone]
            if victims:
                removed += self._cleanup_group(
                    group, lambda g: g.remove_offsets(victims), now_ms)  # called at once
        for cgroup in [*self.consumer_groups.values(), *self.streams_groups.values()]:
            victims = [tp for tp in (*cgroup.offsets, *cgroup.pending_offset_commits)
                       if tp[0] in gone]
            gone_now = cgroup.remove_offsets(victims)
            self._write(cgroup.group_id, self.store.tombstone_records(cgroup.group_id, gone_now, False),
                        now_ms, what="tombstones")
            removed += len(gone_now)
        if self.share is not None:
            self.share.on_topics_deleted(gone, now_ms)
        return removed
