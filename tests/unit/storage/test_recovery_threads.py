"""Logs load with num.recovery.threads.per.data.dir threads: after a clean shutdown and
after a crash, every log of every dir comes back as it was."""
from __future__ import annotations

import pytest

from kafpy.storage import LogConfig, LogManager
from tests.unit.storage.helpers import kp_batch


def _fill(dirs: list[str]) -> tuple[LogManager, dict[tuple[str, int], int]]:
    lm = LogManager(dirs, LogConfig(segment_bytes=4096), start_cleaner=False)
    lm.startup(cluster_id="c", broker_id=0)
    for p in range(12):
        lg = lm.get_or_create_log("t", p)
        for i in range(p + 1):
            lg.append_as_leader(kp_batch([(b"k", b"v" * 300)]), 0)
    ends = {tp: lg.log_end_offset for tp, lg in lm.logs().items()}
    return lm, ends


@pytest.mark.parametrize("clean", [True, False])
def test_logs_load_in_threads(tmp_path, clean):
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    lm, ends = _fill(dirs)
    dir_of = {tp: lm.log_dir_of(*tp) for tp in ends}
    if clean:
        lm.shutdown()
    # else: a crash, nothing closed (the data is in the page cache, the recovery scan finds it)
    again = LogManager(dirs, LogConfig(segment_bytes=4096), start_cleaner=False, recovery_threads_per_data_dir=3)
    again.startup(cluster_id="c", broker_id=0)
    try:
        assert {tp: lg.log_end_offset for tp, lg in again.logs().items()} == ends
        assert {tp: again.log_dir_of(*tp) for tp in ends} == dir_of
        assert list(again.logs()) == sorted(again.logs(), key=lambda tp: (dirs.index(dir_of[tp]), f"{tp[0]}-{tp[1]}"))
        lg = again.get_log("t", 11)
        assert lg.append_as_leader(kp_batch([(b"k", b"after")]), 0).first_offset == ends[("t", 11)]
    finally:
        again.shutdown()
