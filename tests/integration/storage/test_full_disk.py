"""A real full disk: a small tmpfs (the ``small_fs`` fixture)."""

from __future__ import annotations

import time

import pytest

from kafpy.storage import KafkaStorageError, LogConfig, LogManager
from tests.unit.storage.helpers import decode_all, kp_batch


def test_appends_fail_cleanly_when_the_disk_fills(small_fs):
    cfg = LogConfig(segment_bytes=256 * 1024, index_interval_bytes=1024)
    lm = LogManager([str(small_fs / "logs")], cfg, start_cleaner=False)
    lm.startup(cluster_id="full", broker_id=0)
    lg = lm.get_or_create_log("full", 0)
    acked = []
    error = None
    now = int(time.time() * 1000)
    for i in range(2000):
        batch = kp_batch([(b"k%d" % i, bytes([i % 251]) * 2000)], timestamp=now)
        try:
            info = lg.append_as_leader(batch, 0)
        except KafkaStorageError as e:
            error = e
            break
        acked.append(info.first_offset)
    assert error is not None and error.error_code == 56
    assert len(acked) > 50
    leo = lg.log_end_offset
    assert leo == acked[-1] + 1
    # every acknowledged record is readable and intact; reads go on
    off = 0
    seen = []
    while off < leo:
        data = lg.read(off, 1 << 20).records.read_bytes()
        recs = decode_all(data)
        seen += [(o, v) for o, _, v, _ in recs]
        off = recs[-1][0] + 1
    assert [o for o, _ in seen] == acked
    assert all(v == bytes([o % 251]) * 2000 for o, v in seen)
    # more appends keep failing without corrupting anything
    with pytest.raises(KafkaStorageError):
        lg.append_as_leader(kp_batch([(b"x", b"y" * 4000)], timestamp=now), 0)
    assert lg.log_end_offset == leo
    # free space (delete the oldest segments), appends work again
    lg.update_high_watermark(leo)
    lg.delete_records_before(lg.segments[2].base_offset)
    lg.delete_pending_files(force=True)
    info = lg.append_as_leader(kp_batch([(b"after", b"space")], timestamp=now), 0)
    assert info.first_offset == leo
    lm.shutdown()
    lm2 = LogManager([str(small_fs / "logs")], cfg, start_cleaner=False)
    lm2.startup(cluster_id="full", broker_id=0)
    assert lm2.get_log("full", 0).log_end_offset == leo + 1
    lm2.shutdown()


def test_index_append_on_a_full_disk_raises_instead_of_crashing(small_fs):
    from kafpy.storage.index import OffsetIndex

    idx = OffsetIndex(str(small_fs / "00000000000000000000.index"), 0, max_index_size=512 * 1024,
                      writable=True)
    idx.append(1, 100)
    # fill the file system to the last block
    with open(small_fs / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\xff" * 4096)
        except OSError:
            pass
    with pytest.raises(OSError):
        for i in range(2, 200_000):
            idx.append(i, 100 + i)
    n = idx.entries
    assert n >= 1 and idx.lookup(1) == (1, 100)
    (small_fs / "filler").unlink()
    idx.append(10**6, 10**7)
    assert idx.entries == n + 1
    idx.close()
