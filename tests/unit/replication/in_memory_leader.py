"""Test support for the replica fetcher: real storage Logs in a tmp dir, and a leader end
point in memory that serves from a leader's Log the way a Kafka leader answers a
follower (epoch fencing, diverging epoch on last_fetched_epoch, reads up to the LEO,
OffsetsForLeaderEpoch and ListOffsets from the leader's epoch cache). The leader's HW
follows the follower's fetch offset, as with an ISR of {leader, follower}."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Mapping

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse
from kafpy.protocol.records import build_batch, iter_batches
from kafpy.storage.config import LogConfig
from kafpy.storage.errors import OffsetOutOfRangeError
from kafpy.storage.log import Log

from kafpy.replication.fetch_state import EpochEndOffset, TopicPartition
from kafpy.replication.fetcher import FetchPlan
from kafpy.replication.leader_endpoint import LeaderEndPointError

TP = TopicPartition("topic", 0)


class Clock:
    """Seconds, moved by hand (what Log takes)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def open_log(base: Path, name: str, tp: TopicPartition = TP, config: LogConfig | None = None) -> Log:
    return Log(str(base / name / f"{tp.topic}-{tp.partition}"), config or LogConfig(), clock=Clock(),
               needs_recovery=False)


def append(log: Log, epoch: int, *values: bytes) -> None:
    """One batch of ``values`` written by the leader in ``epoch``."""
    log.append_as_leader(build_batch([(None, v) for v in values]), leader_epoch=epoch)


def batches(log: Log) -> list[tuple[int, int, bytes]]:
    """(base offset, leader epoch, bytes) of every batch in the log."""
    if log.log_end_offset == log.log_start_offset:
        return []
    out = []
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        records = log.read(offset, 1 << 30).records
        assert records is not None, f"nothing read at {offset}"
        data = records.read_bytes()
        for pos, h in iter_batches(data):
            out.append((h.base_offset, h.partition_leader_epoch, bytes(data[pos:pos + h.batch_length + 12])))
            offset = h.last_offset + 1
    return out


class InMemoryLeader:
    """``LeaderEndPoint`` over leader Logs of this process in ``leader_epoch``."""

    def __init__(self, logs: Mapping[TopicPartition, Log], leader_epoch: int) -> None:
        self.logs = dict(logs)
        self.leader_epoch = leader_epoch
        self.fetches: list[FetchPlan] = []
        self.epoch_requests: list[dict[TopicPartition, tuple[int, int]]] = []
        self.fail_next: Exception | None = None
        self.closed = False

    def _maybe_fail(self) -> None:
        """Raises ``fail_next`` once (a request that did not get through)."""
        if self.fail_next is not None:
            e, self.fail_next = self.fail_next, None
            raise e

    def _check(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[Log | None, int]:
        log = self.logs.get(tp)
        if log is None:
            return None, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if current_leader_epoch >= 0 and current_leader_epoch < self.leader_epoch:
            return None, ErrorCode.FENCED_LEADER_EPOCH
        if current_leader_epoch > self.leader_epoch:
            return None, ErrorCode.UNKNOWN_LEADER_EPOCH
        return log, ErrorCode.NONE

    async def fetch(self, plan: FetchPlan) -> dict[TopicPartition, FetchResponse.PartitionData]:
        self.fetches.append(plan)
        self._maybe_fail()
        out = self._read(plan)
        if plan.min_bytes > 0 and plan.max_wait_ms > 0 and not any(pd.records or pd.error_code for pd in out.values()):
            await asyncio.sleep(plan.max_wait_ms / 1000)   # long poll (no wake-up on append)
            out = self._read(plan)
        return out

    def _read(self, plan: FetchPlan) -> dict[TopicPartition, FetchResponse.PartitionData]:
        out = {}
        for tp, p in plan.partitions.items():
            pd = out[tp] = FetchResponse.PartitionData(partition_index=tp.partition, high_watermark=-1,
                                                       log_start_offset=-1, records=b"")
            log, err = self._check(tp, p.current_leader_epoch)
            if log is None:
                pd.error_code = err
                continue
            pd.high_watermark, pd.log_start_offset = log.high_watermark, log.log_start_offset
            if p.last_fetched_epoch >= 0:
                epoch, end = log.leader_epoch_cache.end_offset_for(p.last_fetched_epoch)
                if epoch < p.last_fetched_epoch or end < p.fetch_offset:
                    pd.diverging_epoch = FetchResponse.EpochEndOffset(epoch=epoch, end_offset=end)
                    continue
            try:
                info = log.read(p.fetch_offset, p.max_bytes, log.log_end_offset)
            except OffsetOutOfRangeError:
                pd.error_code = ErrorCode.OFFSET_OUT_OF_RANGE
                pd.high_watermark = pd.log_start_offset = -1
                continue
            if info.records is not None:
                pd.records = info.records.read_bytes()
            if p.fetch_offset > log.high_watermark:   # the follower has everything below its fetch offset
                log.update_high_watermark(p.fetch_offset)
            pd.high_watermark = log.high_watermark
        return out

    async def fetch_epoch_end_offsets(self, partitions: Mapping[TopicPartition, tuple[int, int]]
                                      ) -> dict[TopicPartition, EpochEndOffset]:
        self.epoch_requests.append(dict(partitions))
        self._maybe_fail()
        out = {}
        for tp, (current, epoch) in partitions.items():
            log, err = self._check(tp, current)
            if log is None:
                out[tp] = EpochEndOffset(err, -1, -1)
            else:
                out[tp] = EpochEndOffset(ErrorCode.NONE, *log.leader_epoch_cache.end_offset_for(epoch))
        return out

    async def fetch_earliest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        log, err = self._check(tp, current_leader_epoch)
        if log is None:
            raise LeaderEndPointError(err)
        return self.leader_epoch, log.log_start_offset

    async def fetch_latest_offset(self, tp: TopicPartition, current_leader_epoch: int) -> tuple[int, int]:
        log, err = self._check(tp, current_leader_epoch)
        if log is None:
            raise LeaderEndPointError(err)
        return self.leader_epoch, log.log_end_offset

    async def close(self) -> None:
        self.closed = True


def become_leader(log: Log, epoch: int) -> None:
    """What a new leader does to its epoch cache (Kafka's makeLeader): ``epoch`` starts at its LEO."""
    log.leader_epoch_cache.assign(epoch, log.log_end_offset)
