"""SharePartitionManager: the share partitions this broker leads, and what ShareFetch and
ShareAcknowledge do with them (Kafka's SharePartitionManager with DelayedShareFetch).

It keeps one SharePartition per (group, topic, partition) used here, loaded from the
SharePersister on first use (an uninitialized one starts where the group's
`share.auto.offset.reset` says) and dropped when the partition's leader epoch moves on,
when a write is fenced, or when the group has no share session left on this broker.
Records are read with ReplicaManager.read_from_log as opaque batches; only their headers
are looked at, to acquire whole batches and archive control batches and, for
`share.isolation.level=read_committed`, aborted transactions. Every change of the start
offset or of a delivery state is written with `write_state`, awaited before the request
that caused it is answered (as Kafka does); a lock that runs out is released by a timer.

As Fetch does, nothing is acquired until the partitions hold `min_bytes` from their next
fetch offsets (counted on the log, as Kafka's DelayedShareFetch counts them) or the max
wait passed; a fetch that is short of them, or that acquired nothing, waits for an append
to one of its partitions (the fetch purgatory) or for records to become available again
(a release, a lock running out).

Who calls it: the ShareFetch/ShareAcknowledge handlers (broker/handlers/share.py), on the
event loop; the broker builds one as `services.share_partitions`.
"""
from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from kafpy.coordinator.share_state.persister import SharePartitionKey, SharePersister, UNINITIALIZED_START_OFFSET
from kafpy.protocol.errors import ErrorCode, KafkaError
from kafpy.replication.log_read import FetchIsolation, FetchParams, LogReadResult, PartitionFetchInfo
from kafpy.replication.partition import Partition
from kafpy.replication.purgatory import DelayedFetch
from kafpy.storage.file_records import FileRecordsSlice

from kafpy.broker.group_configs import share_config
from kafpy.broker.share.share_metrics import ShareGroupMetrics
from kafpy.broker.share.share_session import ShareSessionCache
from kafpy.broker.share.log_batches import BatchScan, Records, scan_batches
from kafpy.broker.share.share_partition import (AckBatch, AcquiredRange, AcquireMode, InFlightRun,
                                                RecordState, SharePartition, SharePartitionConfig)

if TYPE_CHECKING:
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager

    from kafpy.broker.config import KafkaConfig

log = logging.getLogger("kafka.server.share.SharePartitionManager")

PartitionKey = tuple[str, str, int]        # (group id, topic, partition)

RECORD_LOCK_DURATION = "share.record.lock.duration.ms"
DELIVERY_COUNT_LIMIT = "share.delivery.count.limit"
PARTITION_MAX_RECORD_LOCKS = "share.partition.max.record.locks"
AUTO_OFFSET_RESET = "share.auto.offset.reset"
ISOLATION_LEVEL = "share.isolation.level"
RENEW_ACKNOWLEDGE_ENABLE = "share.renew.acknowledge.enable"


class ShareError(KafkaError):
    """A partition answered with `error_code` (not a failure of the whole request)."""

    def __init__(self, error_code: ErrorCode, message: str | None = None) -> None:
        super().__init__(message or error_code.name)
        self.error_code = error_code
        self.message = message


@dataclass(frozen=True)
class SharePartitionRef:
    """One partition a request names."""

    topic: str
    topic_id: bytes
    partition: int


@dataclass
class ShareFetchResult:
    """One partition's part of a ShareFetch answer."""

    ref: SharePartitionRef
    error: ErrorCode = ErrorCode.NONE
    error_message: str | None = None
    records: Records | None = None
    acquired: list[AcquiredRange] = field(default_factory=list)
    acknowledge_error: ErrorCode = ErrorCode.NONE
    leader: tuple[int, int] = (-1, -1)


@dataclass(frozen=True)
class ShareFetchParams:
    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    max_records: int
    mode: AcquireMode = AcquireMode.BATCH_OPTIMIZED
    batch_size: int = 0          # ShareFetch's BatchSize (0: acquired ranges not split)


_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{0,9}))?S)?)?",
                       re.IGNORECASE)


def parse_duration_ms(text: str) -> int:
    """A non-negative ISO-8601 duration as java.time.Duration reads it (PnDTnHnMn.nS), in
    milliseconds; ValueError otherwise (`by_duration:` refuses negative durations)."""
    m = _DURATION.fullmatch(text.strip())
    if not m or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise ValueError(f"Text cannot be parsed to a Duration: {text}")
    days, hours, mins, secs = (int(g) if g else 0 for g in m.group(1, 2, 3, 4))
    frac = int((m.group(5) or "0").ljust(3, "0")[:3])
    return ((days * 24 + hours) * 60 + mins) * 60_000 + secs * 1000 + frac


class SharePartitionManager:
    """See the module docstring. `group_configs(group_id)` answers a group's overrides;
    `config` is the broker's KafkaConfig (the `group.share.*` defaults)."""

    def __init__(self, replica_manager: ReplicaManager, metadata_cache: MetadataCache, persister: SharePersister,
                 config: KafkaConfig,
                 group_configs: Callable[[str], Mapping[str, str]], clock: Callable[[], float],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.replica_manager = replica_manager
        self.metadata_cache = metadata_cache
        self.persister = persister
        self.config = config
        self.group_configs = group_configs
        self.clock = clock
        self.loop = loop
        self.partitions: dict[PartitionKey, SharePartition] = {}
        self._loading: dict[PartitionKey, asyncio.Future] = {}
        self._write_locks: dict[PartitionKey, asyncio.Lock] = {}
        self._waiters: dict[PartitionKey, list[asyncio.Future]] = {}
        self._timers: dict[PartitionKey, tuple[int, asyncio.TimerHandle]] = {}
        self._unwritten: set[PartitionKey] = set()      # the last write of these failed
        self.sessions = ShareSessionCache(config["group.share.max.share.sessions"])
        self.metrics = ShareGroupMetrics()

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # -- group configs --------------------------------------------------------------------
    def _group_value(self, group_id: str, name: str) -> str:
        """The group's `share.*` config: its override, else the broker's `group.share.*`."""
        return share_config(self.group_configs(group_id), self.config, name)

    def partition_config(self, group_id: str) -> SharePartitionConfig:
        return SharePartitionConfig(
            record_lock_duration_ms=int(self._group_value(group_id, RECORD_LOCK_DURATION)),
            delivery_count_limit=int(self._group_value(group_id, DELIVERY_COUNT_LIMIT)),
            max_in_flight_records=int(self._group_value(group_id, PARTITION_MAX_RECORD_LOCKS)))

    def record_lock_duration_ms(self, group_id: str) -> int:
        return int(self._group_value(group_id, RECORD_LOCK_DURATION))

    def read_committed(self, group_id: str) -> bool:
        return self._group_value(group_id, ISOLATION_LEVEL).strip() == "read_committed"

    def renew_enabled(self, group_id: str) -> bool:
        return self._group_value(group_id, RENEW_ACKNOWLEDGE_ENABLE).strip().lower() == "true"

    # -- loading --------------------------------------------------------------------------
    def _leader(self, ref: SharePartitionRef) -> Partition:
        """The hosted Partition when this broker leads it; else ShareError."""
        rm = self.replica_manager
        part = rm.get_partition(ref.topic, ref.partition) if ref.topic else None
        if part is None:
            raise ShareError(ErrorCode.UNKNOWN_TOPIC_ID if not ref.topic else rm.partition_error(ref.topic, ref.partition))
        if not part.is_leader:
            raise ShareError(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        return part

    async def share_partition(self, group_id: str, ref: SharePartitionRef) -> SharePartition:
        """The loaded share partition (raises ShareError when this broker cannot serve it)."""
        part = self._leader(ref)
        key = (group_id, ref.topic, ref.partition)
        sp = self.partitions.get(key)
        if sp is not None and sp.leader_epoch == part.leader_epoch:
            return sp
        loading = self._loading.get(key)
        if loading is None:
            loading = self.loop.create_future()
            self._loading[key] = loading
            try:
                started = time.perf_counter()
                sp = await self._load(group_id, ref, part)
                self.metrics.partition_load.record((time.perf_counter() - started) * 1000.0)
                self.partitions[key] = sp
                loading.set_result(sp)
            except BaseException as e:
                loading.set_exception(e)
                loading.exception()          # retrieved: the waiters raise it themselves
                raise
            finally:
                del self._loading[key]
            self._schedule_expiry(key, sp)
            return sp
        return await asyncio.shield(loading)

    async def _load(self, group_id: str, ref: SharePartitionRef, part: Partition) -> SharePartition:
        pkey = SharePartitionKey(group_id, uuid.UUID(bytes=bytes(ref.topic_id)), ref.partition)
        res = await self.persister.read_state(pkey, part.leader_epoch)
        missing = res.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if res.error_code and not missing:
            raise ShareError(ErrorCode.of_known(res.error_code), res.error_message)
        config = self.partition_config(group_id)
        if missing or res.start_offset == UNINITIALIZED_START_OFFSET:
            start = self._reset_offset(group_id, part)
            sp = SharePartition(group_id, ref.topic, ref.partition, config, start_offset=start,
                                state_epoch=res.state_epoch, leader_epoch=part.leader_epoch)
            if missing:
                code = await self.persister.initialize_state(pkey, res.state_epoch, start)
            else:
                code = await self.persister.write_state(pkey, res.state_epoch, part.leader_epoch, start, [])
            if code:
                raise ShareError(ErrorCode.of_known(code))
            log.info("Initialized share partition %s-%d of group %s at offset %d", ref.topic, ref.partition,
                     group_id, start)
            return sp
        return SharePartition(group_id, ref.topic, ref.partition, config, start_offset=res.start_offset,
                              batches=res.batches, state_epoch=res.state_epoch, leader_epoch=part.leader_epoch)

    def _reset_offset(self, group_id: str, part: Partition) -> int:
        """Where an uninitialized share partition starts (`share.auto.offset.reset`)."""
        lg = part.log
        reset = self._group_value(group_id, AUTO_OFFSET_RESET).strip().lower()
        if reset == "earliest":
            return lg.log_start_offset
        if reset.startswith("by_duration:"):
            ts = self.now_ms() - parse_duration_ms(reset.split(":", 1)[1].strip().upper())
            found = lg.fetch_offset_by_timestamp(ts)
            if found is not None:
                return found[0]
        return lg.last_stable_offset if self.read_committed(group_id) else lg.high_watermark

    # -- fetching -------------------------------------------------------------------------
    async def fetch(self, group_id: str, member_id: str, refs: Sequence[SharePartitionRef],
                    params: ShareFetchParams) -> list[ShareFetchResult]:
        """Acquire records for `member_id` from `refs`. As Fetch (Kafka's DelayedShareFetch),
        nothing is acquired until the partitions hold `min_bytes` from their next fetch
        offsets or `max_wait_ms` passed; then whatever can be acquired answers, and a fetch
        that acquired nothing waits on until the max wait."""
        deadline = self.now_ms() + max(params.max_wait_ms, 0)
        per_partition_bytes = max(params.max_bytes // max(len(refs), 1), 1)
        # any record satisfies min_bytes <= 1 (the clients' default): acquire as it is read
        eager = params.min_bytes <= 1
        while True:
            results = [ShareFetchResult(ref) for ref in refs]
            reads: list[tuple[ShareFetchResult, SharePartition, LogReadResult]] = []
            waiting_parts = []
            total_bytes = 0
            remaining = params.max_records
            for r in results:
                try:
                    sp = await self.share_partition(group_id, r.ref)
                    part = self._leader(r.ref)
                    waiting_parts.append(part)
                    if remaining <= 0:
                        continue
                    read = await self._read(sp, part, r.ref, per_partition_bytes)
                    if read is None:
                        continue
                    assert read.records is not None   # _read answers only a read with records
                    if eager:
                        remaining -= await self._take(sp, member_id, r, read, remaining, params)
                    else:
                        reads.append((r, sp, read))
                        total_bytes += len(read.records)
                except ShareError as e:
                    r.error, r.error_message = e.error_code, e.message
                    if e.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER:
                        r.leader = self.current_leader(r.ref)
            failed = any(r.error for r in results)
            timed_out = deadline - self.now_ms() <= 0
            if reads and (total_bytes >= params.min_bytes or timed_out or failed):
                for r, sp, read in reads:
                    if remaining <= 0:
                        break
                    remaining -= await self._take(sp, member_id, r, read, remaining, params)
            if remaining < params.max_records or failed or not waiting_parts or timed_out:
                return results
            await self._wait(group_id, waiting_parts, refs, deadline - self.now_ms())

    async def _read(self, sp: SharePartition, part: Partition, ref: SharePartitionRef, max_bytes: int) -> LogReadResult | None:
        """The log's records from the share partition's next fetch offset (opaque batches,
        up to `max_bytes`), or None when nothing could be acquired there now."""
        if not sp.can_acquire():
            return None
        read_committed = self.read_committed(sp.group_id)
        offset = sp.next_fetch_offset()
        lg = part.log
        limit = lg.last_stable_offset if read_committed else lg.high_watermark
        if offset >= limit:
            return None
        if offset < lg.log_start_offset:
            # retention moved the log start past records not yet delivered: they are gone
            changed = sp.move_start_offset(lg.log_start_offset)
            await self._persist(sp, changed, force=True)
            offset = sp.next_fetch_offset()
        fp = PartitionFetchInfo(ref.topic, ref.partition, offset, max_bytes, ref.topic_id)
        isolation = FetchIsolation.TXN_COMMITTED if read_committed else FetchIsolation.HIGH_WATERMARK
        read = self.replica_manager.read_from_log(FetchParams(-1, 0, 1, max_bytes, isolation), [fp])[0]
        if read.error:
            raise ShareError(read.error)
        if read.records is None or not len(read.records):
            return None
        return read

    async def _take(self, sp: SharePartition, member_id: str, result: ShareFetchResult, read: LogReadResult,
                    max_records: int, params: ShareFetchParams) -> int:
        """Acquire for `member_id` what `read` holds that is available; the count acquired.
        (The share partition may have moved since the read: only AVAILABLE records are
        taken, so a read another fetch acquired from meanwhile is still safe to use.)"""
        aborted = [(a.producer_id, a.first_offset) for a in read.aborted] if read.aborted else None
        assert read.records is not None   # _read answers only a read with records
        scan = scan_batches(read.records, aborted)
        batch_size = params.batch_size if params.mode is AcquireMode.BATCH_OPTIMIZED else 0
        acquired, changed = sp.acquire(member_id, scan.batches, max_records, self.now_ms(), params.mode,
                                       scan.skipped, batch_size)
        if changed and any(r.state is not RecordState.ACQUIRED for r in changed):
            await self._persist(sp, changed)
        if not acquired:
            return 0
        result.acquired = acquired
        result.records = _cut(read.records, scan, acquired[0].first_offset, acquired[-1].last_offset)
        self._schedule_expiry((sp.group_id, sp.topic, sp.partition), sp)
        return sum(a.last_offset - a.first_offset + 1 for a in acquired)

    async def _wait(self, group_id: str, parts: list[Partition], refs: Sequence[SharePartitionRef],
                    timeout_ms: int) -> None:
        """Until an append to one of `parts`, records released on one of `refs`, or the timeout."""
        fut = self.loop.create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)
        op = DelayedFetch(wake)
        self.replica_manager.fetch_purgatory.try_complete_else_watch(op, dict.fromkeys(parts), timeout_ms)
        keys = [(group_id, r.topic, r.partition) for r in refs]
        for k in keys:
            self._waiters.setdefault(k, []).append(fut)
        try:
            await fut
        finally:
            for k in keys:
                ws = self._waiters.get(k)
                if ws is not None:
                    try:
                        ws.remove(fut)
                    except ValueError:
                        pass
                    if not ws:
                        del self._waiters[k]

    def _notify(self, key: PartitionKey) -> None:
        for fut in self._waiters.pop(key, ()):
            if not fut.done():
                fut.set_result(None)

    def current_leader(self, ref: SharePartitionRef) -> tuple[int, int]:
        info = self.metadata_cache.partition(ref.topic, ref.partition) if ref.topic else None
        return (info.leader, info.leader_epoch) if info is not None else (-1, -1)

    # -- acknowledging --------------------------------------------------------------------
    async def acknowledge(self, group_id: str, member_id: str, ref: SharePartitionRef,
                          batches: Sequence[AckBatch], renew_allowed: bool = True) -> ErrorCode:
        """Apply one partition's acknowledgements and write them before answering."""
        try:
            sp = await self.share_partition(group_id, ref)
        except ShareError as e:
            return e.error_code
        if (not renew_allowed or not self.renew_enabled(group_id)) and any(4 in b.types for b in batches):
            return ErrorCode.INVALID_REQUEST
        error, changed = sp.acknowledge(member_id, batches, self.now_ms())
        if error:
            return error
        for b in batches:
            self.metrics.record_acknowledgements(b.types)
        key = (group_id, ref.topic, ref.partition)
        if any(4 in b.types for b in batches):
            self._schedule_expiry(key, sp)
        if changed:
            error = await self._persist(sp, changed)
            self._notify(key)
        return error

    async def release_member(self, group_id: str, member_id: str, refs: Sequence[SharePartitionRef]) -> None:
        """The member's share session closed: what it holds on `refs` is available again."""
        for ref in refs:
            sp = self.partitions.get((group_id, ref.topic, ref.partition))
            if sp is None:
                continue
            changed = sp.release_member(member_id)
            if changed:
                await self._persist(sp, changed)
                self._notify((group_id, ref.topic, ref.partition))

    def on_connection_closed(self, connection_id: str) -> None:
        """The client's connection closed: its share sessions end, and what their members
        hold is released at once rather than when the locks run out (as Kafka 4.4 does).
        A group left without a share session here is then empty on this broker: its share
        partitions are dropped (`on_group_empty`)."""
        sessions, groups = self.sessions.on_connection_closed(connection_id)
        releases = []
        for session in sessions:
            refs = []
            for (tid, p), name in session.partitions.items():
                if not name:
                    name = self.metadata_cache.topic_name(tid) or ""
                if name:
                    refs.append(SharePartitionRef(name, tid, p))
            if refs:
                releases.append((session.key.group_id, session.key.member_id, refs))
        if releases or groups:
            self.loop.create_task(self._after_connection_closed(releases, groups))

    async def _after_connection_closed(self, releases: list[tuple[str, str, list[SharePartitionRef]]],
                                       groups: set[str]) -> None:
        for group_id, member_id, refs in releases:
            await self.release_member(group_id, member_id, refs)
        for group_id in groups:
            if not self.sessions.has_sessions(group_id):   # none opened while releasing
                self.on_group_empty(group_id)

    def on_group_empty(self, group_id: str) -> None:
        """No member of `group_id` has a share session on this broker any more (Kafka's
        ShareGroupListener.onGroupEmpty): forget its share partitions, so the next fetch
        reads their state from the persister again. This is how an offsets reset or a
        delete of the (then empty) group reaches every partition leader, the share
        coordinator's broker or not: each sees its consumers' connections close. A
        write still in flight with the old state epoch is fenced by the coordinator."""
        dropped = [k for k in self.partitions if k[0] == group_id]
        for key in dropped:
            self._forget(key)
        if dropped:
            log.debug("Group %s has no share sessions left: dropped %d share partitions", group_id,
                      len(dropped))

    # -- locks and persistence ------------------------------------------------------------
    def _schedule_expiry(self, key: PartitionKey, sp: SharePartition) -> None:
        """A timer for the earliest lock deadline of `sp` (one per partition, moved earlier
        when a sooner deadline appears)."""
        deadline = sp.next_deadline_ms()
        if deadline is None:
            return
        current = self._timers.get(key)
        if current is not None and current[0] <= deadline:
            return
        if current is not None:
            current[1].cancel()
        delay = max(deadline - self.now_ms(), 0) / 1000.0
        self._timers[key] = (deadline, self.loop.call_later(delay, self._on_timer, key))

    def _on_timer(self, key: PartitionKey) -> None:
        self._timers.pop(key, None)
        sp = self.partitions.get(key)
        if sp is None:
            return
        changed = sp.expire_locks(self.now_ms())
        self._schedule_expiry(key, sp)
        if changed:
            log.debug("Acquisition locks of %d runs of %s expired", len(changed), key)
            self.loop.create_task(self._persist(sp, changed))
            self._notify(key)

    async def _persist(self, sp: SharePartition, changed: list[InFlightRun], force: bool = False) -> ErrorCode:
        """Write the start offset and the `changed` runs' states (in order per partition)."""
        key = (sp.group_id, sp.topic, sp.partition)
        lock = self._write_locks.get(key)
        if lock is None:
            lock = self._write_locks[key] = asyncio.Lock()
        topic = self.metadata_cache.topic(sp.topic)
        if topic is None:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        pkey = SharePartitionKey(sp.group_id, uuid.UUID(bytes=bytes(topic.topic_id)), sp.partition)
        async with lock:
            # after a failed write the next one carries the whole in-flight state, so
            # nothing the failed one held is missing from the durable state
            runs = list(sp.runs) if key in self._unwritten else changed
            batches = sp.state_batches(runs)
            code = await self.persister.write_state(pkey, sp.state_epoch, sp.leader_epoch, sp.start_offset, batches)
            if code:
                self._unwritten.add(key)
            else:
                self._unwritten.discard(key)
        if code:
            log.warning("Writing the state of share partition %s failed: %s", key, ErrorCode.of_known(code).name)
            if code in (ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.FENCED_STATE_EPOCH) and self.partitions.get(key) is sp:
                # another leader owns it now, or its state was reset or deleted (a leader
                # whose consumers stayed connected learns it here): reload next time
                self._forget(key)
        return ErrorCode.of_known(code)

    def on_partition_moved(self, topic: str, partition: int) -> None:
        """This broker stopped leading the partition: forget its share partitions (a later
        leadership loads them again from the persister)."""
        if not self.partitions:
            return
        for key in [k for k in self.partitions if k[1] == topic and k[2] == partition]:
            self._forget(key)

    def on_topics_deleted(self, topics: list[str]) -> None:
        if not self.partitions:
            return
        gone = set(topics)
        for key in [k for k in self.partitions if k[1] in gone]:
            self._forget(key)

    def _forget(self, key: PartitionKey) -> None:
        self.partitions.pop(key, None)
        self._unwritten.discard(key)
        self._write_locks.pop(key, None)
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer[1].cancel()

    def shutdown(self) -> None:
        for _, handle in self._timers.values():
            handle.cancel()
        self._timers.clear()


def _cut(records: Records, scan: BatchScan, first: int, last: int) -> Records:
    """The batches of `records` overlapping `first`..`last` (what the client needs)."""
    start, size = scan.byte_range(first, last)
    if size <= 0:
        return records
    if isinstance(records, FileRecordsSlice):
        return FileRecordsSlice(records.file, records.position + start, size)
    return records[start:start + size]
