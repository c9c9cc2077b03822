"""All partition logs of one broker, over the directories of ``log.dirs``.

Per log dir on disk: ``meta.properties`` (version=0, broker.id, cluster.id),
``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint``,
``replication-offset-checkpoint`` (high watermarks), ``cleaner-offset-checkpoint``
(written by the cleaner) and, between a clean shutdown and the next startup, the
``.kafka_cleanshutdown`` marker that lets logs open without a recovery scan. Every
file is written atomically (see ``kafpy.storage.checkpoint``). The partitions'
``partition.metadata`` and ``leader-epoch-checkpoint`` are written at once but fsynced
in one batch (``pending_fsyncs``) by the next checkpoint writer, before it writes the
recovery points, and at shutdown before the clean-shutdown marker. Unrelated files and
directories are ignored with a warning; ``<topic>-<partition>-delete`` directories
(a deletion interrupted by a crash) are removed.

Who may call it: the broker's event-loop thread; ``cleaner`` runs its own thread, and the
writer ``checkpoint_writer`` returns may run in any thread, as may ``create_logs`` and
``delete_logs`` (file work that the broker keeps off its event loop; the map of logs
changes under ``_lock``).
A new log goes to the online directory holding the fewest partitions. A directory whose
disk fails (``kafpy.storage.log_dir_failure``) goes offline for good: ``handle_log_dir_failure``
closes its logs without writing and forgets them; its partitions stay offline until
restart, and nothing is written there any more (no checkpoints, no clean-shutdown marker).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import shutil
import threading
import time
import uuid
from typing import TYPE_CHECKING, Callable, Optional

from kafpy.storage.checkpoint import OffsetCheckpointFile, PendingFsyncs, read_meta_properties, write_meta_properties
from kafpy.storage.config import LogConfig
from kafpy.storage.errors import KafkaStorageError, StorageError
from kafpy.storage.load_progress import LoadProgress
from kafpy.storage.log import Log, parse_topic_partition
from kafpy.storage.log_dir_failure import LogDirFailureChannel, is_log_dir_failure

if TYPE_CHECKING:
    from kafpy.storage.cleaner import LogCleaner

__all__ = ["LogManager"]

log = logging.getLogger(__name__)

CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"
RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint"
LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint"
REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint"
META_PROPERTIES = "meta.properties"
CLUSTER_METADATA_DIR = "__cluster_metadata-0"  # KRaft's metadata log, never a partition of this LogManager
CLOSE_THREADS = 8  # logs closed at once at shutdown (see _close_logs)
_DIR_FILES = {CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT,
              REPLICATION_OFFSET_CHECKPOINT, META_PROPERTIES, "cleaner-offset-checkpoint",
              ".lock", "bootstrap.checkpoint",
              "cluster-metadata.json"}  # the broker's standalone metadata (replication/metadata_cache.py)


def descriptor_usage() -> str:
    """"N descriptors open (limit soft S, hard H)" for the startup log line (Linux /proc)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        n = str(len(os.listdir("/proc/self/fd")) - 1)  # less the listing's own
    except OSError:
        n = "?"
    return f"{n} descriptors open (limit soft {soft}, hard {hard})"


class LogManager:
    """See the module docstring."""

    def __init__(self, log_dirs: list[str], default_config: LogConfig, clock: Callable[[], float] = time.time,
                 topic_configs: Optional[Callable[[str], Optional[LogConfig]]] = None,
                 start_cleaner: bool = True, recovery_threads_per_data_dir: int = 1,
                 load_progress_interval_s: float = 5.0, monotonic: Callable[[], float] = time.monotonic,
                 cleaner_threads: int = 1, cleaner_backoff_ms: int = 15000,
                 cleaner_dedupe_buffer_size: int = 134217728, cleaner_load_factor: float = 0.9,
                 cleaner_io_max_bytes_per_s: float = float("inf"), cleaner_io_buffer_size: int = 524288):
        if isinstance(log_dirs, str):
            log_dirs = [d for d in log_dirs.split(",") if d]
        self.log_dirs = [os.path.abspath(d) for d in log_dirs]
        self.default_config = default_config
        self.clock = clock
        self.topic_configs = topic_configs
        self._logs: dict[tuple[str, int], Log] = {}
        self._log_dir_of: dict[tuple[str, int], str] = {}
        self._dir_counts = {d: 0 for d in self.log_dirs}  # logs per dir (for _pick_dir, kept as they change)
        self._lock = threading.RLock()
        self._start_cleaner = start_cleaner
        self.cleaner_threads, self.cleaner_backoff_ms = cleaner_threads, cleaner_backoff_ms  # log.cleaner.*
        self.cleaner_dedupe_buffer_size, self.cleaner_load_factor = cleaner_dedupe_buffer_size, cleaner_load_factor
        self.cleaner_io_max_bytes_per_s = cleaner_io_max_bytes_per_s
        self.cleaner_io_buffer_size = cleaner_io_buffer_size
        self.recovery_threads_per_data_dir = max(1, recovery_threads_per_data_dir)
        self.load_progress_interval_s = load_progress_interval_s  # see LoadProgress
        self._monotonic = monotonic
        # read at the last startup, summed over the logs: what a clean shutdown spares the next start
        self.segments_recovered = 0
        self.producer_batches_replayed = 0
        self.cleaner: Optional[LogCleaner] = None
        self.cluster_id: Optional[str] = None
        self.broker_id: Optional[int] = None
        self._started = False
        self._ckpt_lock = threading.Lock()   # checkpoint writers take turns (see checkpoint_writer)
        self._ckpt_gen = itertools.count()
        self._ckpt_written: dict[str, int] = {}
        self.pending_fsyncs = PendingFsyncs()  # the logs' small files, fsynced by checkpoint writers
        self.failure_channel = LogDirFailureChannel()
        self.offline_logs: dict[tuple[str, int], str] = {}  # partitions of failed dirs -> their dir
        # the broker epoch every dir's clean-shutdown file recorded at the last start, else -1
        # (a KRaft broker registers with it: see previous_broker_epoch)
        self.previous_broker_epoch = -1

    # ------------------------------------------------------------------ lifecycle
    def startup(self, cluster_id: Optional[str] = None, broker_id: Optional[int] = None) -> None:
        """Create dirs, check/write meta.properties, load and recover every log, start the cleaner."""
        self.cluster_id, self.broker_id = cluster_id, broker_id
        for d in self.log_dirs:
            os.makedirs(d, exist_ok=True)
            self._check_meta(d, cluster_id, broker_id)
        t0 = self._monotonic()
        self._load_dirs()
        log.info("Loaded %d logs in %.2f s (%d segments recovered, %d batches replayed into producer state); %s",
                 len(self._logs), self._monotonic() - t0, self.segments_recovered,
                 self.producer_batches_replayed, descriptor_usage())
        if self._start_cleaner:
            from kafpy.storage.cleaner import LogCleaner

            self.cleaner = LogCleaner(self, clock=self.clock, backoff_ms=self.cleaner_backoff_ms,
                                      threads=self.cleaner_threads,
                                      dedupe_buffer_size=self.cleaner_dedupe_buffer_size,
                                      load_factor=self.cleaner_load_factor,
                                      io_max_bytes_per_s=self.cleaner_io_max_bytes_per_s,
                                      io_buffer_size=self.cleaner_io_buffer_size)
            self.cleaner.start()
        self._started = True

    def _check_meta(self, d: str, cluster_id: Optional[str], broker_id: Optional[int]) -> None:
        path = os.path.join(d, META_PROPERTIES)
        props = read_meta_properties(path)
        if props:
            if cluster_id and props.get("cluster.id") and props["cluster.id"] != cluster_id:
                raise KafkaStorageError(
                    f"cluster id {cluster_id} does not match {props['cluster.id']} stored in {path}")
            if broker_id is not None and props.get("broker.id") and int(props["broker.id"]) != broker_id:
                raise KafkaStorageError(
                    f"broker id {broker_id} does not match {props['broker.id']} stored in {path}")
            if cluster_id and not props.get("cluster.id"):
                props["cluster.id"] = cluster_id
                write_meta_properties(path, props)
            return
        new = {"version": "0"}
        if broker_id is not None:
            new["broker.id"] = str(broker_id)
        if cluster_id:
            new["cluster.id"] = cluster_id
        write_meta_properties(path, new)

    def _config_for(self, topic: str) -> LogConfig:
        if self.topic_configs is not None:
            cfg = self.topic_configs(topic)
            if cfg is not None:
                return cfg
        return self.default_config

    def _load_dirs(self) -> None:
        """Open (and, after a crash, recover) every log of every dir, as Kafka's loadLogs:
        ``num.recovery.threads.per.data.dir`` threads per dir, all dirs at once (opening a
        log is file work: reading indexes and snapshots, a recovery scan). Logs are
        registered afterwards, in dir and name order; a log that cannot load fails startup."""
        jobs: list[tuple[str, tuple[str, int], Callable[[], Log]]] = []
        markers: list[tuple[str, Optional[str]]] = []
        progress = LoadProgress(self.load_progress_interval_s, self._monotonic)
        for d in self.log_dirs:
            marker = os.path.join(d, CLEAN_SHUTDOWN_FILE)
            clean = os.path.exists(marker)
            markers.append((d, marker if clean else None))
            loaders = self._log_loaders(d, clean)
            progress.start_dir(d, len(loaders), clean)
            jobs.extend((d, tp, make) for tp, make in loaders)

        def load(d: str, make: Callable[[], Log]) -> Log:
            lg = make()
            progress.loaded(d)
            return lg

        threads = self.recovery_threads_per_data_dir * len(self.log_dirs)
        if threads > 1 and len(jobs) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=min(threads, len(jobs)), thread_name_prefix="log-recovery") as pool:
                futures = [pool.submit(load, d, make) for d, _, make in jobs]
                logs = [f.result() for f in futures]
        else:
            logs = [load(d, make) for d, _, make in jobs]
        self.segments_recovered = sum(lg.segments_recovered for lg in logs)
        self.producer_batches_replayed = sum(lg.producer_batches_replayed for lg in logs)
        for (d, tp, _), lg in zip(jobs, logs):
            if tp in self._logs:
                raise KafkaStorageError(f"duplicate log directories for {tp}: {self._log_dir_of[tp]} and {d}")
            self._register(tp, lg, d)
        self.previous_broker_epoch = previous_broker_epoch([m for _, m in markers])
        for d, clean_marker in markers:
            if clean_marker is not None:
                os.unlink(clean_marker)
            # make the recovery points durable as loaded, so a crash now recovers correctly
            self._write_checkpoints(d)

    def _log_loaders(self, d: str, clean: bool) -> list[tuple[tuple[str, int], Callable[[], Log]]]:
        """For each partition directory of ``d``: its (topic, partition) and the function
        that opens its log. Leftover ``-delete``/``-stray`` directories are removed."""
        recovery = OffsetCheckpointFile(os.path.join(d, RECOVERY_POINT_CHECKPOINT)).read()
        starts = OffsetCheckpointFile(os.path.join(d, LOG_START_OFFSET_CHECKPOINT)).read()
        hws = OffsetCheckpointFile(os.path.join(d, REPLICATION_OFFSET_CHECKPOINT)).read()
        configs: dict[str, LogConfig] = {}  # one per topic, not per partition
        out: list[tuple[tuple[str, int], Callable[[], Log]]] = []
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if not os.path.isdir(path):
                if name not in _DIR_FILES and not name.endswith(".tmp"):
                    log.warning("ignoring unexpected file %s in log dir %s", name, d)
                continue
            if name == CLUSTER_METADATA_DIR:  # KRaft's metadata log belongs to the raft client
                continue
            if name.endswith("-delete") or name.endswith("-stray"):
                log.info("removing leftover directory %s", path)
                shutil.rmtree(path, ignore_errors=True)
                continue
            try:
                tp = parse_topic_partition(name)
            except ValueError:
                log.warning("ignoring unexpected directory %s in log dir %s", name, d)
                continue
            if tp[0] not in configs:
                configs[tp[0]] = self._config_for(tp[0])

            def make(path: str = path, tp: tuple[str, int] = tp, cfg: LogConfig = configs[tp[0]]) -> Log:
                return Log(path, cfg, clock=self.clock, recovery_point=recovery.get(tp, 0),
                           log_start_offset=starts.get(tp, 0), high_watermark=hws.get(tp, 0),
                           needs_recovery=not clean, pending_fsyncs=self.pending_fsyncs)
            out.append((tp, make))
        return out

    def shutdown(self, broker_epoch: int = -1) -> None:
        """Stop the cleaner, close every log (flush, snapshots), checkpoints, clean markers
        (holding ``broker_epoch``: a KRaft broker's, -1 with ZooKeeper, as Kafka's)."""
        if self.cleaner is not None:
            self.cleaner.shutdown()
            self.cleaner = None
        with self._lock:
            failed = self._close_logs()
            for d in self.live_log_dirs:
                self._write_checkpoints(d)
                if d not in failed:
                    # Kafka's CleanShutdownFileHandler content
                    with open(os.path.join(d, CLEAN_SHUTDOWN_FILE), "w") as f:
                        f.write(json.dumps({"version": 0, "brokerEpoch": broker_epoch}, separators=(",", ":")))
                        f.flush()
                        os.fsync(f.fileno())
                    from kafpy.storage.checkpoint import fsync_dir

                    fsync_dir(d)
            self._started = False

    def _close_logs(self) -> set[str]:
        """Close every log (flush, producer-state snapshot, trimmed indexes), up to
        ``CLOSE_THREADS`` at once as Kafka closes them on a pool per log dir: closing waits
        on the disk (an fsync per log), and concurrent fsyncs are committed together, so
        5,000 logs close in a fraction of the time they take one after another. The dirs
        where a close failed (they get no clean-shutdown marker)."""
        items = list(self._logs.items())
        total, t0 = len(items), time.monotonic()

        def close(item: tuple[tuple[str, int], Log]) -> Optional[str]:
            tp, lg = item
            try:
                lg.close()
                return None
            except Exception:  # noqa: BLE001 - keep closing the others
                log.exception("closing log %s failed", tp)
                return self._log_dir_of[tp]

        if len(items) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(CLOSE_THREADS, len(items)), thread_name_prefix="log-close") as pool:
                failed = {d for d in pool.map(close, items) if d is not None}
        else:
            failed = {d for d in map(close, items) if d is not None}
        log.info("Closed %d logs in %.2f s", total, time.monotonic() - t0)
        return failed

    # ------------------------------------------------------------------ logs
    def get_log(self, topic: str, partition: int) -> Optional[Log]:
        return self._logs.get((topic, partition))

    def logs(self) -> dict[tuple[str, int], Log]:
        return dict(self._logs)

    def log_dir_of(self, topic: str, partition: int) -> Optional[str]:
        return self._log_dir_of.get((topic, partition))

    def _pick_dir(self) -> str:
        counts = self._dir_counts
        live = self.live_log_dirs
        if not live:
            raise KafkaStorageError(f"no log dir is online ({', '.join(self.log_dirs)} have failed)")
        return min(live, key=lambda d: (counts[d], self.log_dirs.index(d)))

    def get_or_create_log(self, topic: str, partition: int, config: Optional[LogConfig] = None,
                          topic_id: Optional[bytes] = None) -> Log:
        tp = (topic, partition)
        with self._lock:
            lg = self._logs.get(tp)
            if lg is not None:
                if config is not None and config is not lg.config:
                    lg.update_config(config)
                if topic_id is not None and lg.topic_id != topic_id:
                    lg.assign_topic_id(topic_id)
                return lg
            if tp in self.offline_logs:
                raise KafkaStorageError(f"cannot create log {topic}-{partition}: its log dir "
                                        f"{self.offline_logs[tp]} is offline")
            d = self._pick_dir()
            path = os.path.join(d, f"{topic}-{partition}")
            existed = os.path.isdir(path)
            try:
                lg = Log(path, config or self._config_for(topic), clock=self.clock,
                         needs_recovery=False, topic_id=topic_id, pending_fsyncs=self.pending_fsyncs)
            except BaseException as e:
                if not existed:  # leave no half-made directory behind to load at restart
                    shutil.rmtree(path, ignore_errors=True)
                self.maybe_fail_dir(d, e, f"creating log {topic}-{partition}")
                raise
            self._register(tp, lg, d)
            return lg

    def _register(self, tp: tuple[str, int], lg: Log, d: str) -> None:
        self._logs[tp] = lg
        self._log_dir_of[tp] = d
        self._dir_counts[d] += 1
        lg.on_storage_error = lambda e: self.maybe_fail_dir(d, e, f"writing log {tp[0]}-{tp[1]}")

    # ------------------------------------------------------------------ failed log dirs
    def maybe_fail_dir(self, d: str, exc: BaseException, what: str) -> None:
        """Report ``d`` offline to ``failure_channel`` when ``exc`` is a disk failure."""
        if is_log_dir_failure(exc):
            self.failure_channel.maybe_add_offline_log_dir(d, f"Error while {what} in dir {d}", exc)

    @property
    def live_log_dirs(self) -> list[str]:
        return [d for d in self.log_dirs if not self.failure_channel.is_offline(d)]

    def handle_log_dir_failure(self, d: str) -> list[tuple[str, int]]:
        """Kafka's LogManager.handleLogDirFailure: close the logs of the failed dir ``d``
        without writing, forget them (remembered in ``offline_logs``); the partitions
        that went offline. The caller (the replica manager, on the event loop) takes them
        offline and shuts the broker down when no dir is left."""
        with self._lock:
            gone = [tp for tp, ld in self._log_dir_of.items() if ld == d]
            for tp in gone:
                lg = self._logs.pop(tp)
                del self._log_dir_of[tp]
                self._dir_counts[d] -= 1
                self.offline_logs[tp] = d
                if self.cleaner is not None:
                    self.cleaner.abort(tp)
                try:
                    lg.close_handlers()
                except Exception:  # noqa: BLE001 - a failed disk; the others still close
                    log.exception("closing log %s in failed dir %s", lg.dir, d)
        log.warning("Logs for partitions %s are offline and logs for future partitions are offline due "
                    "to failure on log directory %s", ",".join(f"{t}-{p}" for t, p in gone[:20])
                    + (f" (and {len(gone) - 20} more)" if len(gone) > 20 else ""), d)
        return gone

    def create_logs(self, specs: list[tuple[str, int, Optional[LogConfig], Optional[bytes]]]) -> list[Log]:
        """``get_or_create_log(topic, partition, config, topic_id)`` for each spec, all or
        nothing: when a log cannot be made (out of descriptors, a full or failing disk)
        the logs made here are deleted again and ``KafkaStorageError`` raised, its
        ``errno`` the cause's. Meant for a worker thread: the broker creates a topic's
        partitions without holding its event loop (about half a millisecond each)."""
        made: list[tuple[str, int]] = []
        out = []
        try:
            for topic, partition, config, topic_id in specs:
                new = (topic, partition) not in self._logs
                out.append(self.get_or_create_log(topic, partition, config, topic_id))
                if new:
                    made.append((topic, partition))
        except (OSError, StorageError) as e:
            log.error("creating log %s-%d failed, dropping the %d created with it: %s",
                      topic, partition, len(made), e)
            self.delete_logs(made)
            err = KafkaStorageError(f"creating log {topic}-{partition} failed: {e}")
            err.errno = getattr(e, "errno", None)
            raise err from e
        return out

    def delete_logs(self, keys: list[tuple[str, int]]) -> None:
        """``delete_log`` for each (topic, partition); one checkpoint write per log dir at
        the end. May run in a worker thread (see ``create_logs``)."""
        dirs = set()
        for topic, partition in keys:
            d = self._delete_log(topic, partition)
            if d is not None:
                dirs.add(d)
        for d in dirs:
            self._write_checkpoints(d)

    def update_config(self, topic: str, config: LogConfig) -> None:
        for (t, _), lg in self._logs.items():
            if t == topic:
                lg.update_config(config)

    def delete_log(self, topic: str, partition: int) -> None:
        """Remove the partition: rename its dir to ``<tp>.<uuid>-delete``, then remove it."""
        d = self._delete_log(topic, partition)
        if d is not None:
            self._write_checkpoints(d)

    def detach_log(self, topic: str, partition: int) -> Optional[tuple[Log, str]]:
        """Unregister a deleted partition's log (on the caller's thread, so a new log of
        the same name is a new one) without touching its files; ``remove_detached`` does
        that later, in a worker thread. None if there was no such log."""
        tp = (topic, partition)
        with self._lock:
            lg = self._logs.pop(tp, None)
            d = self._log_dir_of.pop(tp, None)
            if d is not None:
                self._dir_counts[d] -= 1
        if lg is None:
            return None
        assert d is not None  # a log is registered with its dir
        if self.cleaner is not None:
            self.cleaner.abort(tp)
        return lg, d

    def remove_detached(self, detached: list[tuple[Log, str]]) -> None:
        """Close, rename to ``<tp>.<uuid>-delete`` and remove each detached log; one
        checkpoint write per log dir at the end. Runs in a worker thread; a log dir that
        a new log of the same name needs is free once this returns."""
        dirs = set()
        for lg, d in detached:
            try:
                lg.delete(rename_to=os.path.join(d, f"{lg.topic}-{lg.partition}.{uuid.uuid4().hex}-delete"))
            except OSError as e:
                log.error("deleting log %s failed: %s", lg.dir, e)
            dirs.add(d)
        for d in dirs:
            self._write_checkpoints(d)

    def _delete_log(self, topic: str, partition: int) -> Optional[str]:
        """Unregister and remove one log; the log dir it was in, None if there was none."""
        found = self.detach_log(topic, partition)
        if found is None:
            return None
        lg, d = found
        lg.delete(rename_to=os.path.join(d, f"{topic}-{partition}.{uuid.uuid4().hex}-delete"))
        return d

    # ------------------------------------------------------------------ housekeeping
    def run_housekeeping(self, now_ms: Optional[int] = None, checkpoint: bool = True) -> None:
        """Retention, removal of ``.deleted`` files, flush by time, unmapping the indexes
        of inactive segments (mapped again on their next lookup, as Kafka opens them
        lazily) and, unless
        ``checkpoint`` is False (the broker writes them from a thread), checkpoints."""
        now = int(self.clock() * 1000) if now_ms is None else now_ms
        for tp, lg in list(self._logs.items()):
            if lg.closed:
                continue
            try:
                lg.delete_old_segments(now)
                lg.delete_pending_files(now)
                lg.maybe_flush(now)
                lg.producer_state.remove_expired(now)
                lg.unload_inactive_indexes()
            except Exception:  # noqa: BLE001
                log.exception("housekeeping of %s-%d failed", *tp)
        if checkpoint:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Write every log dir's checkpoint files now."""
        self.checkpoint_writer()()

    def checkpoint_writer(self) -> Callable[[], None]:
        """Take the offsets to checkpoint now and return the function that writes them.

        The broker takes the snapshot on its event loop and runs the writer in a thread:
        each file is fsynced twice (file and directory), which takes 10-30 ms when other
        writes keep the disk busy, and the loop must not stall for that (Kafka writes
        these files from its scheduler thread, too). Writers take turns on a lock, and a
        snapshot never overwrites the files of a newer one.
        """
        snaps = [(d, next(self._ckpt_gen), self._snapshot(d)) for d in self.live_log_dirs]

        def write() -> None:
            for d, gen, snap in snaps:
                self._write_snapshot(d, gen, snap)

        return write

    def _write_checkpoints(self, d: str) -> None:
        if self.failure_channel.is_offline(d):
            return
        self._write_snapshot(d, next(self._ckpt_gen), self._snapshot(d))

    def _snapshot(self, d: str) -> tuple[dict, dict, dict]:
        rec, start, hw = {}, {}, {}
        for tp, lg in list(self._logs.items()):
            if self._log_dir_of.get(tp) != d:
                continue
            rec[tp] = lg.recovery_point
            start[tp] = lg.log_start_offset
            hw[tp] = lg.high_watermark
        return rec, start, hw

    def _write_snapshot(self, d: str, gen: int, snap: tuple[dict, dict, dict]) -> None:
        # epoch entries and topic ids written before the snapshot was taken become durable
        # before the recovery points that may cover their data (see storage.checkpoint)
        self.pending_fsyncs.flush()
        rec, start, hw = snap
        with self._ckpt_lock:
            if gen < self._ckpt_written.get(d, -1):
                return  # a newer snapshot is already on disk
            try:
                OffsetCheckpointFile(os.path.join(d, RECOVERY_POINT_CHECKPOINT)).write(rec)
                OffsetCheckpointFile(os.path.join(d, LOG_START_OFFSET_CHECKPOINT)).write(start)
                OffsetCheckpointFile(os.path.join(d, REPLICATION_OFFSET_CHECKPOINT)).write(hw)
            except OSError as e:
                log.error("writing checkpoints in %s failed: %s", d, e)
                self.maybe_fail_dir(d, e, "writing checkpoints")
                return
            self._ckpt_written[d] = gen


def previous_broker_epoch(markers: list[Optional[str]]) -> int:
    """The broker epoch the clean-shutdown files recorded (Kafka's
    ``readBrokerEpochFromCleanShutdownFiles``, KIP-966): -1 unless every log dir has one and
    all hold the same epoch. A KRaft broker registers with it as ``PreviousBrokerEpoch``:
    Kafka's controller takes a registration whose previous epoch is the registered one for a
    clean restart (an unclean one loses the broker its eligible-leader standing)."""
    epoch = -1
    for marker in markers:
        if marker is None:
            return -1
        try:
            with open(marker) as f:
                recorded = json.load(f).get("brokerEpoch")
        except (OSError, ValueError, AttributeError):
            return -1  # an empty file (written before the epoch was kept) or not Kafka's
        if not isinstance(recorded, int) or recorded < 0 or (epoch != -1 and recorded != epoch):
            return -1
        epoch = recorded
    return epoch
