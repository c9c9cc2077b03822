"""Loading logs at startup: progress reported per log dir as it goes, and a start after a
clean shutdown reads no segment again (no recovery scan, no index rebuilt, no batch
replayed into producer state), while a crash or a lost index does."""
from __future__ import annotations

import logging
import os
import re

import pytest

from kafpy.storage import LogConfig, LogManager
from kafpy.storage.log import Log
from kafpy.storage.log_manager import CLEAN_SHUTDOWN_FILE
from tests.unit.storage.helpers import FakeClock, kp_batch

CONFIG = LogConfig(segment_bytes=2048)


class Ticks:
    """A monotonic clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _fill(dirs: list[str], partitions: int = 6, batches: int = 8) -> LogManager:
    """Logs of several segments each, written by an idempotent producer (producer state)."""
    lm = LogManager(dirs, CONFIG, start_cleaner=False, clock=FakeClock())
    lm.startup(cluster_id="c", broker_id=0)
    for p in range(partitions):
        lg = lm.get_or_create_log("t", p)
        for i in range(batches):
            lg.append_as_leader(kp_batch([(b"k", b"v" * 400)], producer_id=7 + p, producer_epoch=0,
                                         base_sequence=i), 0)
        assert batches < 3 or len(lg.segments) > 1
    return lm


def _log(lm: LogManager, topic: str, partition: int) -> Log:
    lg = lm.get_log(topic, partition)
    assert lg is not None, f"no log {topic}-{partition}"
    return lg


def _start(dirs: list[str], **kw) -> LogManager:
    lm = LogManager(dirs, CONFIG, start_cleaner=False, clock=FakeClock(), **kw)  # the batches' time
    lm.startup(cluster_id="c", broker_id=0)
    return lm


def test_progress_is_logged_per_log_dir_while_loading(tmp_path, caplog) -> None:
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    _fill(dirs, partitions=10, batches=2).shutdown()
    caplog.set_level(logging.INFO, logger="kafpy.storage.log_manager")
    # every read of the clock is one second later: a progress line is due every 3 logs or so
    lm = _start(dirs, load_progress_interval_s=3.0, monotonic=Ticks(1.0))
    lm.shutdown()
    lines = [r.getMessage() for r in caplog.records]
    for d in dirs:
        assert f"Skipping recovery of 5 logs from {d} since clean shutdown file was found" in lines
        assert f"In the process of loading 5 logs in log dir {d}" in lines
        assert any(re.fullmatch(rf"Loaded all 5 logs in log dir {re.escape(d)} in [0-9.]+ s", m) for m in lines)
    progress = [(int(m.group(1)), m.group(2)) for m in
                (re.fullmatch(r"Loaded (\d+)/5 logs in log dir (\S+) \([0-9.]+ s so far\)", line) for line in lines)
                if m]
    assert len(progress) >= 2, lines
    assert [n for n, d in progress if d == dirs[0]] == sorted(n for n, d in progress if d == dirs[0])
    assert all(0 <= n < 5 for n, _ in progress)
    # the first announcement comes before any progress, the summary after all of it
    first = lines.index(f"In the process of loading 5 logs in log dir {dirs[0]}")
    summary = next(i for i, m in enumerate(lines) if m.startswith("Loaded 10 logs in "))
    assert all(first < i < summary for i, m in enumerate(lines) if re.match(r"Loaded \d+/5 ", m))


def test_progress_is_quiet_when_loading_is_quick(tmp_path, caplog) -> None:
    dirs = [str(tmp_path / "a")]
    _fill(dirs, partitions=4, batches=1).shutdown()
    caplog.set_level(logging.INFO, logger="kafpy.storage.log_manager")
    _start(dirs, load_progress_interval_s=1000.0, monotonic=Ticks(0.001)).shutdown()
    assert not [r for r in caplog.records if re.match(r"Loaded \d+/\d+ logs", r.getMessage())]


def test_a_start_after_a_clean_shutdown_reads_no_segment(tmp_path, caplog) -> None:
    dirs = [str(tmp_path / "a")]
    _fill(dirs).shutdown()
    caplog.set_level(logging.INFO, logger="kafpy.storage.log_manager")
    lm = _start(dirs)
    try:
        assert lm.segments_recovered == 0
        assert lm.producer_batches_replayed == 0
        assert all(lg.segments_recovered == 0 and lg.producer_batches_replayed == 0 for lg in lm.logs().values())
        assert any("(0 segments recovered, 0 batches replayed into producer state)" in r.getMessage()
                   for r in caplog.records)
        lg = _log(lm, "t", 3)
        assert lg.log_end_offset == 8
        assert lg.producer_state.producers[10].last_seq == 7  # producer state came from the snapshot
    finally:
        lm.shutdown()


def test_a_start_after_a_crash_recovers_and_replays(tmp_path) -> None:
    dirs = [str(tmp_path / "a")]
    _fill(dirs).shutdown()
    os.unlink(os.path.join(dirs[0], CLEAN_SHUTDOWN_FILE))  # as if the broker had been killed
    lm = _start(dirs)
    try:
        assert lm.segments_recovered > 0
        assert _log(lm, "t", 3).log_end_offset == 8
    finally:
        lm.shutdown()
    # that start's own clean shutdown spares the next one again
    lm = _start(dirs)
    assert lm.segments_recovered == 0 and lm.producer_batches_replayed == 0
    lm.shutdown()


def test_a_lost_index_is_rebuilt_and_counted(tmp_path) -> None:
    dirs = [str(tmp_path / "a")]
    _fill(dirs).shutdown()
    seg_dir = os.path.join(dirs[0], "t-2")
    first_index = sorted(n for n in os.listdir(seg_dir) if n.endswith(".index"))[0]
    os.unlink(os.path.join(seg_dir, first_index))
    lm = _start(dirs)
    try:
        assert lm.segments_recovered == 1
        assert _log(lm, "t", 2).segments_recovered == 1
    finally:
        lm.shutdown()


@pytest.mark.parametrize("threads", [1, 3])
def test_progress_counts_every_log_whatever_the_threads(tmp_path, caplog, threads) -> None:
    dirs = [str(tmp_path / "a")]
    _fill(dirs, partitions=7, batches=1).shutdown()
    caplog.set_level(logging.INFO, logger="kafpy.storage.log_manager")
    _start(dirs, recovery_threads_per_data_dir=threads).shutdown()
    assert any(r.getMessage().startswith(f"Loaded all 7 logs in log dir {dirs[0]} in ") for r in caplog.records)


def test_a_clean_shutdown_leaves_trimmed_indexes_with_the_largest_timestamp(tmp_path) -> None:
    """What lets the start skip the segments: each active segment's time index ends with its
    largest timestamp (written at close) and no index keeps its preallocated tail."""
    dirs = [str(tmp_path / "a")]
    lm = LogManager(dirs, LogConfig(), start_cleaner=False, clock=FakeClock())
    lm.startup(cluster_id="c", broker_id=0)
    lg = lm.get_or_create_log("t", 0)
    for i in range(3):  # small batches: below index.interval.bytes, so no entry before close
        lg.append_as_leader(kp_batch([(b"k", b"v")], timestamp=1_700_000_000_000 + 10 * i), 0)
    lm.shutdown()
    seg_dir = os.path.join(dirs[0], "t-0")
    with open(os.path.join(seg_dir, "0" * 20 + ".timeindex"), "rb") as f:
        assert f.read() == (1_700_000_000_020).to_bytes(8, "big") + (2).to_bytes(4, "big")
    assert os.path.getsize(os.path.join(seg_dir, "0" * 20 + ".index")) == 0
    lm = _start(dirs)
    try:
        seg = _log(lm, "t", 0).active_segment
        assert seg.largest_timestamp == 1_700_000_000_020
        assert lm.segments_recovered == 0
    finally:
        lm.shutdown()
