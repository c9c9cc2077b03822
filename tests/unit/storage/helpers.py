"""Test helpers: batches built with kafka-python's independent v2 encoder, a fake clock."""

from __future__ import annotations

from kafka.record.default_records import DefaultRecordBatchBuilder

from kafpy.storage import LogConfig
from kafpy.storage.log import Log

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def kp_batch(records, *, timestamp=1_700_000_000_000, compression=0, producer_id=-1,
             producer_epoch=-1, base_sequence=-1, transactional=False) -> bytes:
    """One v2 batch from (key, value[, headers]) tuples, base offset 0, built by kafka-python."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=compression, is_transactional=transactional,
                                  producer_id=producer_id, producer_epoch=producer_epoch,
                                  base_sequence=base_sequence, batch_size=1 << 30)
    for i, rec in enumerate(records):
        key, value = rec[0], rec[1]
        headers = list(rec[2]) if len(rec) > 2 else []
        ts = rec[3] if len(rec) > 3 else timestamp + i
        b.append(i, ts, key, value, headers)
    return bytes(b.build())


def batch_of(n: int, size: int = 100, start: int = 0, **kw) -> bytes:
    return kp_batch([(b"k%d" % (start + i), b"x" * size) for i in range(n)], **kw)


class FakeClock:
    """A settable clock in seconds (what Log/LogManager take)."""

    def __init__(self, ms: int = 1_700_000_000_000):
        self.ms = ms

    def __call__(self) -> float:
        return self.ms / 1000.0

    def advance(self, ms: int) -> None:
        self.ms += ms


def open_log(tmp_path, name="topic-0", clock=None, needs_recovery=False, **cfg) -> Log:
    config = LogConfig(**cfg)
    return Log(str(tmp_path / name), config, clock=clock or FakeClock(), needs_recovery=needs_recovery)


def reopen(lg: Log, clean=True, **kw) -> Log:
    """Close (clean) or abandon (unclean) ``lg`` and open the same directory again."""
    rp = lg.recovery_point
    start = lg.log_start_offset
    hw = lg.high_watermark
    if clean:
        lg.close()
    else:
        for s in lg.segments:
            s.offset_index.flush()
            s.time_index.flush()
    return Log(lg.dir, lg.config, clock=lg.clock, recovery_point=kw.get("recovery_point", rp),
               log_start_offset=start, high_watermark=hw, needs_recovery=not clean)


def decode_all(data: bytes):
    """[(offset, key, value, headers)] of every record in a blob (via kafka-python's reader)."""
    from kafka.record.memory_records import MemoryRecords

    out = []
    mr = MemoryRecords(bytes(data))
    while True:
        batch = mr.next_batch()
        if batch is None:
            break
        for r in batch:
            out.append((r.offset, r.key, r.value, [(k, v) for k, v in r.headers]))
    return out
