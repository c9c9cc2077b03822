"""The replica fetcher's core, without I/O: what to fetch from one leader, and what to do
with the answer.

Who may call it: ``kafpy.replication.fetcher_thread.ReplicaFetcherThread`` (one core per source
broker and fetcher id), which does the sending; tests drive it directly. It is Kafka's
``AbstractFetcherThread`` + ``ReplicaFetcherThread`` minus the thread:

- ``build_fetch`` makes one Fetch for every partition that is Fetching and not backing off:
  fetch offset, current leader epoch, last fetched epoch (with truncation on fetch), the
  follower's log start offset. ``fetch_request`` turns it into the wire request at the
  version the leader end point negotiated.
- ``process_fetch_response`` appends the leader's batches unchanged, then sets the
  follower's HW to min(leader HW, own LEO) and raises its log start offset to the
  leader's. A ``diverging_epoch`` truncates instead (``kafpy.replication.truncation``), without
  touching the HW (KAFKA-14704). Errors back the partition off (replica.fetch.backoff.ms)
  and are reported so the caller can look the leader up again; FENCED_LEADER_EPOCH stops
  fetching the partition until it is added again with a new epoch; OFFSET_OUT_OF_RANGE is
  reported for ``handle_out_of_range``, which needs the leader's offsets.
- Partitions that are Truncating get OffsetsForLeaderEpoch (``truncating_partitions``,
  ``process_epoch_end_offsets``) or, without leader epochs, truncate to their HW.

Responses are applied only to partitions whose state is still the one the request was
built from (same fetch offset and leader epoch), as Kafka does: a partition re-added or
truncated meanwhile ignores a stale answer. Record batches stay opaque: the only per-batch
work is finding where the last whole batch ends.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchRequest, FetchResponse
from kafpy.protocol.records import BATCH_LENGTH_FIELD, LOG_OVERHEAD, OFFSET_AND_LENGTH
from kafpy.storage.errors import CorruptRecordError, InvalidRecordError

from kafpy.replication.fetch_state import (LEADER_ERRORS, EpochEndOffset, FetchState, InitialFetchState,
                                     PartitionFetchState, ReplicaFetcherConfig, TopicPartition)
from kafpy.replication.follower_log import UNDEFINED_EPOCH, FollowerLog
from kafpy.replication.truncation import OffsetTruncationState, offset_truncation_state, truncate
from kafpy.protocol.message_base import ZERO_UUID

__all__ = ["FetchPlan", "PartitionFetch", "FetchOutcome", "FetcherCore", "fetch_request", "response_partitions",
           "whole_batches_size", "READ_UNCOMMITTED", "FINAL_EPOCH"]

log = logging.getLogger("kafka.server.ReplicaFetcherThread")

READ_UNCOMMITTED = 0
FINAL_EPOCH = -1          # a full fetch outside any fetch session
LAST_NAME_BASED_FETCH_VERSION = 12

_unpack_offset_and_length = OFFSET_AND_LENGTH.unpack_from  # bound once: one call per batch

@dataclass(slots=True)
class PartitionFetch:
    """One partition of a Fetch, as built (the state the answer is checked against)."""

    topic_id: bytes
    fetch_offset: int
    current_leader_epoch: int
    last_fetched_epoch: int
    log_start_offset: int
    max_bytes: int


@dataclass(slots=True)
class FetchPlan:
    """One Fetch to one leader, before choosing its wire version."""

    replica_id: int
    broker_epoch: int
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    partitions: dict[TopicPartition, PartitionFetch]

    @property
    def uses_topic_ids(self) -> bool:
        """Every partition has a topic id (else the request stays at v12, by name)."""
        return all(p.topic_id != ZERO_UUID for p in self.partitions.values())


@dataclass(slots=True)
class FetchOutcome:
    """What processing a response (or a truncation step) did: ``errors`` backed off (with
    their error); ``failed`` stopped until added again (fenced leader epoch, log gone,
    storage failure); ``out_of_range`` wait for ``handle_out_of_range``; ``truncated``
    maps partitions to the offset truncated to."""

    appended_bytes: int = 0
    errors: dict[TopicPartition, ErrorCode] = field(default_factory=dict)
    failed: list[TopicPartition] = field(default_factory=list)
    out_of_range: list[TopicPartition] = field(default_factory=list)
    truncated: dict[TopicPartition, int] = field(default_factory=dict)


def fetch_request(plan: FetchPlan, version: int) -> FetchRequest:
    """The wire request for ``plan`` at ``version`` (the caller caps it at 12 unless
    ``plan.uses_topic_ids``). The replica's id goes in ``replica_id`` up to v14 and in
    ``replica_state`` from v15; the codec writes whichever the version has."""
    topics: dict[str, FetchRequest.FetchTopic] = {}
    for tp, p in plan.partitions.items():
        t = topics.get(tp.topic)
        if t is None:
            t = topics[tp.topic] = FetchRequest.FetchTopic(topic=tp.topic, topic_id=p.topic_id, partitions=[])
        t.partitions.append(FetchRequest.FetchPartition(
            partition=tp.partition, current_leader_epoch=p.current_leader_epoch, fetch_offset=p.fetch_offset,
            last_fetched_epoch=p.last_fetched_epoch, log_start_offset=p.log_start_offset,
            partition_max_bytes=p.max_bytes))
    return FetchRequest(
        replica_id=plan.replica_id,
        replica_state=FetchRequest.ReplicaState(replica_id=plan.replica_id, replica_epoch=plan.broker_epoch),
        max_wait_ms=plan.max_wait_ms, min_bytes=plan.min_bytes, max_bytes=plan.max_bytes,
        isolation_level=READ_UNCOMMITTED, session_id=0, session_epoch=FINAL_EPOCH,
        topics=list(topics.values()), forgotten_topics_data=[], rack_id="")


def response_partitions(plan: FetchPlan, response: FetchResponse,
                        version: int) -> dict[TopicPartition, FetchResponse.PartitionData]:
    """The response's partitions by name (v13+ answers carry topic ids only); partitions
    not in ``plan`` are left out."""
    by_id: dict[bytes, str] = {}
    if version > LAST_NAME_BASED_FETCH_VERSION:
        by_id = {p.topic_id: tp.topic for tp, p in plan.partitions.items()}
    out: dict[TopicPartition, FetchResponse.PartitionData] = {}
    for t in response.responses:
        name = by_id.get(t.topic_id, "") if by_id else t.topic
        for pd in t.partitions:
            tp = TopicPartition(name, pd.partition_index)
            if tp in plan.partitions:
                out[tp] = pd
    return out


def whole_batches_size(records: bytes | bytearray | memoryview) -> int:
    """Bytes of ``records`` up to the end of its last whole batch (a leader may cut the
    last one short at the size limit; Kafka's followers ignore that tail too)."""
    n = len(records)
    pos = 0
    while n - pos >= LOG_OVERHEAD:
        end = pos + LOG_OVERHEAD + _unpack_offset_and_length(records, pos)[BATCH_LENGTH_FIELD]
        if end > n:
            break
        pos = end
    return pos


class FetcherCore:
    """Fetch states of the partitions one fetcher takes from one leader. ``replica_logs``
    finds a partition's local log (None when it is not hosted here any more). Times are
    milliseconds of the caller's clock. Used from the event loop's thread only."""

    def __init__(self, config: ReplicaFetcherConfig,
                 replica_logs: Callable[[TopicPartition], FollowerLog | None], name: str = "") -> None:
        self.config = config
        self.replica_logs = replica_logs
        self.name = name
        self.states: dict[TopicPartition, PartitionFetchState] = {}
        self.failed: set[TopicPartition] = set()

    # -- membership ----------------------------------------------------------------------
    def add_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> set[TopicPartition]:
        """Starts (or restarts, on a new leader epoch) fetching; returns the partitions
        added. A partition already fetching in the same epoch keeps its state. With
        truncation on fetch, a log with leader epochs starts Fetching (the leader answers
        with a diverging epoch if needed); otherwise it starts Truncating."""
        added = set()
        for tp, init in initial.items():
            if init.init_offset < 0:
                raise ValueError(f"{tp}: initial fetch offset {init.init_offset} < 0")
            self.failed.discard(tp)
            current = self.states.get(tp)
            if current is not None and current.current_leader_epoch == init.current_leader_epoch:
                continue
            replica = self.replica_logs(tp)
            latest = replica.latest_epoch if replica is not None else UNDEFINED_EPOCH
            if self.config.truncate_on_fetch and latest != UNDEFINED_EPOCH:
                state = PartitionFetchState(init.topic_id, init.init_offset, init.current_leader_epoch,
                                            FetchState.FETCHING, latest)
            else:
                state = PartitionFetchState(init.topic_id, init.init_offset, init.current_leader_epoch,
                                            FetchState.TRUNCATING)
            self.states[tp] = state
            added.add(tp)
            log.info("[%s] Added %s at offset %d with leader epoch %d (%s)", self.name, tp, init.init_offset,
                     init.current_leader_epoch, state.state.value)
        return added

    def remove_partitions(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionFetchState]:
        """Stops fetching ``tps``; returns the states they had."""
        out = {}
        for tp in tps:
            self.failed.discard(tp)
            state = self.states.pop(tp, None)
            if state is not None:
                out[tp] = state
        return out

    def mark_failed(self, tp: TopicPartition, why: str) -> None:
        """Stops fetching ``tp`` until it is added again (Kafka's failed partitions)."""
        if self.states.pop(tp, None) is not None:
            log.warning("[%s] Stopped fetching %s until it is added again: %s", self.name, tp, why)
        self.failed.add(tp)

    def delay_partitions(self, tps: Iterable[TopicPartition], now_ms: float, delay_ms: float | None = None) -> None:
        until = now_ms + (self.config.backoff_ms if delay_ms is None else delay_ms)
        for tp in tps:
            state = self.states.get(tp)
            if state is not None:
                state.delayed_until_ms = until

    def next_ready_ms(self, now_ms: float) -> float | None:
        """When the earliest backed-off partition may go again (None if none is delayed)."""
        delayed = [s.delayed_until_ms for s in self.states.values() if s.is_delayed(now_ms)]
        return min(delayed) if delayed else None

    # -- fetching ------------------------------------------------------------------------
    def build_fetch(self, now_ms: float) -> tuple[FetchPlan | None, dict[TopicPartition, ErrorCode]]:
        """The Fetch for every partition ready to fetch (None when there is none), and the
        partitions left out because their log is gone (backed off)."""
        cfg = self.config
        parts: dict[TopicPartition, PartitionFetch] = {}
        errors: dict[TopicPartition, ErrorCode] = {}
        for tp, s in self.states.items():
            if not s.is_ready_for_fetch(now_ms):
                continue
            replica = self.replica_logs(tp)
            if replica is None:
                errors[tp] = ErrorCode.KAFKA_STORAGE_ERROR
                continue
            parts[tp] = PartitionFetch(
                s.topic_id, s.fetch_offset, s.current_leader_epoch,
                s.last_fetched_epoch if cfg.truncate_on_fetch else UNDEFINED_EPOCH,
                replica.log_start_offset, cfg.fetch_max_bytes)
        self.delay_partitions(errors, now_ms)
        if not parts:
            return None, errors
        return FetchPlan(cfg.replica_id, cfg.broker_epoch, cfg.max_wait_ms, cfg.min_bytes, cfg.response_max_bytes,
                         parts), errors

    def fetch_failed(self, plan: FetchPlan, now_ms: float, error: BaseException | str) -> None:
        """The request failed as a whole (connection, timeout, top-level error): back off
        every partition it held."""
        log.info("[%s] Error in fetch of %d partitions: %s", self.name, len(plan.partitions), error)
        self.delay_partitions(plan.partitions, now_ms)

    def process_fetch_response(self, plan: FetchPlan, data: Mapping[TopicPartition, FetchResponse.PartitionData],
                               now_ms: float) -> FetchOutcome:
        out = FetchOutcome()
        diverging: dict[TopicPartition, EpochEndOffset] = {}
        for tp, pd in data.items():
            sent = plan.partitions.get(tp)
            state = self.states.get(tp)
            if (sent is None or state is None or state.state is not FetchState.FETCHING
                    or state.fetch_offset != sent.fetch_offset
                    or state.current_leader_epoch != sent.current_leader_epoch):
                continue   # changed since the request was built
            code = ErrorCode.of(pd.error_code)
            if code == ErrorCode.NONE:
                div = pd.diverging_epoch
                if div is not None and div.epoch >= 0:
                    diverging[tp] = EpochEndOffset(ErrorCode.NONE, div.epoch, div.end_offset)
                else:
                    self._append(tp, state, pd, out)
            elif code == ErrorCode.OFFSET_OUT_OF_RANGE:
                out.out_of_range.append(tp)
            elif code == ErrorCode.FENCED_LEADER_EPOCH:
                self.on_partition_fenced(tp, sent.current_leader_epoch, out)
            else:
                self._error(tp, code, out)
        if diverging:
            self._truncate_to_epoch_end_offsets(diverging, now_ms, out)
        self.delay_partitions(out.errors, now_ms)
        return out

    def _append(self, tp: TopicPartition, state: PartitionFetchState, pd: FetchResponse.PartitionData,
                out: FetchOutcome) -> None:
        replica = self.replica_logs(tp)
        if replica is None:
            self.mark_failed(tp, "its log is gone")
            out.failed.append(tp)
            return
        if replica.log_end_offset != state.fetch_offset:
            self.mark_failed(tp, f"fetch offset {state.fetch_offset} is not the log end offset "
                                 f"{replica.log_end_offset}")
            out.failed.append(tp)
            return
        records = pd.records
        size = whole_batches_size(records) if records is not None else 0
        if size == 0 and records:
            log.warning("[%s] Replication of %s is stuck at offset %d: the leader's answer holds no whole "
                        "batch; replica.fetch.max.bytes (%d) may be below the batch size", self.name, tp,
                        state.fetch_offset, self.config.fetch_max_bytes)
        try:
            if size:
                replica.append_as_follower(records[:size] if size < len(records) else records)
                state.last_fetched_epoch = replica.latest_epoch
            end = replica.log_end_offset
            replica.update_high_watermark(min(pd.high_watermark, end))
            if pd.log_start_offset >= 0:
                replica.maybe_increment_log_start_offset(pd.log_start_offset)
        except (CorruptRecordError, InvalidRecordError) as e:
            # maybe a transient state of the leader's log: retry after the backoff
            log.error("[%s] Found invalid records during fetch of %s at offset %d: %s", self.name, tp,
                      state.fetch_offset, e)
            self._error(tp, ErrorCode.CORRUPT_MESSAGE, out)
            return
        except Exception as e:  # noqa: BLE001 - a storage failure stops this partition only
            log.exception("[%s] Unexpected error while appending to %s", self.name, tp)
            self.mark_failed(tp, f"append failed: {e}")
            out.failed.append(tp)
            return
        state.fetch_offset = end
        state.lag = max(0, pd.high_watermark - end)
        out.appended_bytes += size

    def on_partition_fenced(self, tp: TopicPartition, request_epoch: int, out: FetchOutcome) -> None:
        """The leader has a newer epoch than the one ``tp`` asked with: stop fetching it until it
        is added again (with the new epoch), unless it was re-added meanwhile."""
        state = self.states.get(tp)
        if state is not None and state.current_leader_epoch == request_epoch:
            log.info("[%s] Partition %s has an older epoch (%d) than the current leader. Will await the new "
                     "leader's state before resuming fetching.", self.name, tp, request_epoch)
            self.mark_failed(tp, "fenced leader epoch")
            out.failed.append(tp)
            out.errors[tp] = ErrorCode.FENCED_LEADER_EPOCH

    def _error(self, tp: TopicPartition, code: ErrorCode | int, out: FetchOutcome) -> None:
        level = logging.DEBUG if code in LEADER_ERRORS else logging.WARNING
        log.log(level, "[%s] Error fetching %s: %r", self.name, tp, code)
        out.errors[tp] = code if isinstance(code, ErrorCode) else ErrorCode.UNKNOWN_SERVER_ERROR

    # -- truncation ----------------------------------------------------------------------
    def truncating_partitions(self, now_ms: float) -> tuple[dict[TopicPartition, tuple[int, int]],
                                                            list[TopicPartition]]:
        """Partitions waiting to truncate: those with leader epochs, as
        {tp: (current leader epoch, latest epoch)} for OffsetsForLeaderEpoch, and those
        without (they truncate to their high watermark, ``truncate_to_high_watermark``)."""
        with_epochs: dict[TopicPartition, tuple[int, int]] = {}
        without: list[TopicPartition] = []
        gone: list[TopicPartition] = []
        for tp, s in self.states.items():
            if not s.is_truncating(now_ms):
                continue
            replica = self.replica_logs(tp)
            if replica is None:
                gone.append(tp)
                continue
            latest = replica.latest_epoch
            if latest != UNDEFINED_EPOCH:
                with_epochs[tp] = (s.current_leader_epoch, latest)
            else:
                without.append(tp)
        for tp in gone:
            self.mark_failed(tp, "its log is gone")
        return with_epochs, without

    def truncate_to_high_watermark(self, tps: Iterable[TopicPartition]) -> FetchOutcome:
        """Logs without leader epochs: truncate to the offset they were added at (their HW)."""
        out = FetchOutcome()
        fetch_offsets = {}
        for tp in tps:
            state = self.states.get(tp)
            if state is not None:
                fetch_offsets[tp] = OffsetTruncationState(state.fetch_offset, True)
        self._apply_truncation(fetch_offsets, out)
        return out

    def process_epoch_end_offsets(self, requested: Mapping[TopicPartition, tuple[int, int]],
                                  answers: Mapping[TopicPartition, EpochEndOffset], now_ms: float) -> FetchOutcome:
        """Applies an OffsetsForLeaderEpoch answer to partitions still in the leader epoch
        they were asked in."""
        current = {tp: a for tp, a in answers.items()
                   if tp in requested and tp in self.states
                   and self.states[tp].current_leader_epoch == requested[tp][0]}
        out = FetchOutcome()
        self._truncate_to_epoch_end_offsets(current, now_ms, out, requested)
        self.delay_partitions(out.errors, now_ms)
        return out

    def _truncate_to_epoch_end_offsets(self, answers: Mapping[TopicPartition, EpochEndOffset], now_ms: float,
                                       out: FetchOutcome,
                                       requested: Mapping[TopicPartition, tuple[int, int]] | None = None) -> None:
        fetch_offsets: dict[TopicPartition, OffsetTruncationState] = {}
        for tp, answer in answers.items():
            state = self.states.get(tp)
            if state is None:
                continue
            code = ErrorCode.of(answer.error_code)
            if code == ErrorCode.FENCED_LEADER_EPOCH:
                epoch = requested[tp][0] if requested else state.current_leader_epoch
                self.on_partition_fenced(tp, epoch, out)
                continue
            if code != ErrorCode.NONE:
                self._error(tp, code, out)
                continue
            replica = self.replica_logs(tp)
            if replica is None:
                self.mark_failed(tp, "its log is gone")
                out.failed.append(tp)
                continue
            fetch_offsets[tp] = offset_truncation_state(replica, answer.leader_epoch, answer.end_offset,
                                                        state.fetch_offset, str(tp))
        self._apply_truncation(fetch_offsets, out)

    def _apply_truncation(self, fetch_offsets: Mapping[TopicPartition, OffsetTruncationState],
                          out: FetchOutcome) -> None:
        """Truncates, then moves each partition's fetch offset to its log end (Kafka's
        ``updateFetchOffsetAndMaybeMarkTruncationComplete``): Fetching when done, or always
        with truncation on fetch (the next Fetch's last_fetched_epoch continues the search)."""
        for tp, trunc in fetch_offsets.items():
            replica = self.replica_logs(tp)
            state = self.states.get(tp)
            if replica is None or state is None:
                continue
            try:
                if truncate(replica, trunc):
                    out.truncated[tp] = trunc.offset
                    log.info("[%s] Truncated %s to offset %d", self.name, tp, trunc.offset)
            except Exception as e:  # noqa: BLE001 - a storage failure stops this partition only
                log.exception("[%s] Truncation of %s failed", self.name, tp)
                self.mark_failed(tp, f"truncation failed: {e}")
                out.failed.append(tp)
                continue
            # the log end, not the target: a target inside a batch (or a compacted gap) takes
            # the whole batch away, and fetching from the target would have the leader credit
            # records this log does not have (Kafka fetches from the log end offset too)
            state.fetch_offset = replica.log_end_offset
            state.last_fetched_epoch = replica.latest_epoch
            done = self.config.truncate_on_fetch or trunc.truncation_completed
            state.state = FetchState.FETCHING if done else FetchState.TRUNCATING

    def handle_out_of_range(self, tp: TopicPartition, request_epoch: int, leader_end_offset: int,
                            leader_start_offset: int | None) -> FetchOutcome:
        """Kafka's ``fetchOffsetAndTruncate`` after OFFSET_OUT_OF_RANGE, given the leader's
        log end offset and (needed only when that is not below the follower's LEO, see
        ``needs_leader_start_offset``) its log start offset: a follower ahead of the leader
        (unclean election) truncates to the leader's end; one behind the leader's log start
        starts over there; otherwise it fetches again from its own LEO."""
        out = FetchOutcome()
        state = self.states.get(tp)
        replica = self.replica_logs(tp)
        if state is None or replica is None or state.current_leader_epoch != request_epoch:
            return out
        replica_end = replica.log_end_offset
        if leader_end_offset < replica_end:
            log.warning("[%s] Reset fetch offset for %s from %d to the current leader's latest offset %d",
                        self.name, tp, replica_end, leader_end_offset)
            self._apply_truncation({tp: OffsetTruncationState(leader_end_offset, True)}, out)
            offset = leader_end_offset
        else:
            assert leader_start_offset is not None, "the leader's log start offset is needed"
            if leader_start_offset > replica_end:
                log.info("[%s] Truncating %s fully and starting at the leader's log start offset %d",
                         self.name, tp, leader_start_offset)
                replica.truncate_fully_and_start_at(leader_start_offset)
                out.truncated[tp] = leader_start_offset
                offset = leader_start_offset
            else:
                offset = replica_end
        state.fetch_offset = offset
        state.lag = max(0, leader_end_offset - offset)
        state.last_fetched_epoch = replica.latest_epoch
        state.state = FetchState.FETCHING
        return out

    def needs_leader_start_offset(self, tp: TopicPartition, leader_end_offset: int) -> bool:
        replica = self.replica_logs(tp)
        return replica is not None and leader_end_offset >= replica.log_end_offset
