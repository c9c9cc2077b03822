"""A real child process appending is killed with SIGKILL; every acknowledged batch survives."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kafpy.storage import LogConfig, LogManager

REPO = Path(__file__).resolve().parents[3]

CHILD = textwrap.dedent(
    """
    import hashlib, sys, time
    from kafka.record.default_records import DefaultRecordBatchBuilder
    from kafpy.storage import LogConfig, LogManager

    lm = LogManager([sys.argv[1]], LogConfig(segment_bytes=64 * 1024, index_interval_bytes=512),
                    start_cleaner=False)
    lm.startup(cluster_id="crash", broker_id=0)
    log = lm.get_or_create_log("crash", 0)
    out = sys.stdout
    out.write("ready\\n"); out.flush()
    seq = 0
    while True:
        b = DefaultRecordBatchBuilder(2, 0, False, 7, 0, seq, 1 << 20)
        n = 1 + seq % 5
        for i in range(n):
            b.append(i, int(time.time() * 1000), b"key-%d" % (seq + i), b"value-%d-" % (seq + i) * 20, [])
        info = log.append_as_leader(bytes(b.build()), 0)
        log.update_high_watermark(log.log_end_offset)
        digest = hashlib.sha1(b"".join(b"value-%d-" % (seq + i) * 20 for i in range(n))).hexdigest()
        out.write(f"{info.first_offset} {info.last_offset} {digest}\\n"); out.flush()
        seq += n
        if seq % 97 == 0:
            lm.run_housekeeping()
    """
)


def test_sigkill_while_appending_loses_nothing_acknowledged(tmp_path):
    d = tmp_path / "logs"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(d)], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    acked = []
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        for _ in range(1500):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            first, last, digest = line.split()
            acked.append((int(first), int(last), digest))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert not (d / ".kafka_cleanshutdown").exists()

    lm = LogManager([str(d)], LogConfig(segment_bytes=64 * 1024, index_interval_bytes=512), start_cleaner=False)
    lm.startup(cluster_id="crash", broker_id=0)
    try:
        log = lm.get_log("crash", 0)
        assert log.log_end_offset >= acked[-1][1] + 1
        assert len(log.segments) > 3
        from kafka.record.memory_records import MemoryRecords

        for first, last, digest in acked:
            data = log.read(first, 1).records.read_bytes()
            batch = MemoryRecords(data).next_batch()
            recs = list(batch)
            assert (recs[0].offset, recs[-1].offset) == (first, last)
            assert hashlib.sha1(b"".join(r.value for r in recs)).hexdigest() == digest
        # consistent: offsets dense, appends continue, producer state survived
        nxt = log.log_end_offset
        info = log.append_as_leader(_batch(seq=999999, pid=8), 0)
        assert info.first_offset == nxt
    finally:
        lm.shutdown()


def _batch(seq: int, pid: int) -> bytes:
    from kafka.record.default_records import DefaultRecordBatchBuilder

    b = DefaultRecordBatchBuilder(2, 0, False, pid, 0, seq, 1 << 20)
    b.append(0, int(time.time() * 1000), b"k", b"v", [])
    return bytes(b.build())
