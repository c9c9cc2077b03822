"""Our segments read by Apache Kafka's DumpLogSegments, and Kafka's segments read by us."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from kafpy.protocol.records import build_control_batch, iter_batches
from kafpy.storage import LogConfig, LogManager
from kafpy.storage.log import Log
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.unit.storage.helpers import FakeClock, decode_all, kp_batch

BATCH_RE = re.compile(r"^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) .*? isvalid: (\w+)")
REC_RE = re.compile(
    r"^\| offset: (\d+) (?:CreateTime|LogAppendTime|NoTimestampType): (-?\d+) keySize: (-?\d+) "
    r"valueSize: (-?\d+) sequence: (-?\d+) headerKeys: \[(.*?)\](.*)$")


def parse_dump(text: str):
    batches, records, markers = [], [], []
    for line in text.splitlines():
        m = BATCH_RE.match(line)
        if m:
            batches.append((int(m[1]), int(m[2]), int(m[3]), m[4] == "true"))
            continue
        m = REC_RE.match(line)
        if m:
            rest = m[7]
            if "endTxnMarker:" in rest:
                markers.append((int(m[1]), rest.split("endTxnMarker:")[1].split()[0]))
                continue
            key = value = None
            if rest.startswith(" key: "):
                rest = rest[len(" key: "):]
                if " payload: " in rest:
                    key, value = rest.split(" payload: ", 1)
                else:
                    key = rest
            elif rest.startswith(" payload: "):
                value = rest[len(" payload: "):]
            headers = [h for h in m[6].split(",") if h]
            records.append((int(m[1]), key, value, headers))
    return batches, records, markers


def write_sample_log(root: Path):
    """A multi-segment log with every codec, headers, null keys/values, idempotent and
    transactional batches; returns (partition dir, expected records, expected markers)."""
    cfg = LogConfig(index_interval_bytes=256, segment_bytes=4096)
    lm = LogManager([str(root)], cfg, start_cleaner=False)
    lm.startup(cluster_id="interop", broker_id=0)
    lg = lm.get_or_create_log("interop", 0, topic_id=os.urandom(16))
    now = int(time.time() * 1000)
    expected = []
    seq = 0
    for i in range(40):
        codec = i % 5
        recs = []
        for j in range(4):
            n = i * 4 + j
            key = None if j == 1 else b"key-%d" % n
            value = None if j == 3 else (b"value-%d-" % n) * 8
            headers = [("h-a", b"x%d" % n), ("h-b", None)] if j == 0 else []
            recs.append((key, value, headers))
        pid = 1000 if i % 2 else -1
        batch = kp_batch(recs, timestamp=now + i, compression=codec, producer_id=pid,
                         producer_epoch=0 if pid >= 0 else -1, base_sequence=seq if pid >= 0 else -1)
        if pid >= 0:
            seq += 4
        info = lg.append_as_leader(batch, leader_epoch=3 + i // 20)
        for j, (k, v, h) in enumerate(recs):
            expected.append((info.first_offset + j, k, v, [hk for hk, _ in h]))
    # a committed transaction
    info = lg.append_as_leader(kp_batch([(b"txn-key", b"txn-value")], timestamp=now, producer_id=2000,
                                        producer_epoch=1, base_sequence=0, transactional=True), 5)
    expected.append((info.first_offset, b"txn-key", b"txn-value", []))
    marker = lg.append_as_leader(build_control_batch(1, producer_id=2000, producer_epoch=1,
                                                     coordinator_epoch=7, timestamp=now), 5,
                                 origin="coordinator")
    lm.shutdown()
    return Path(lg.dir), expected, [(marker.first_offset, "COMMIT")]


@pytest.mark.parametrize("version", ["3.9", "4"])
def test_kafka_dump_log_reads_our_segments(tmp_path, version):
    pdir, expected, markers = write_sample_log(tmp_path / "logs")
    logs = sorted(str(p) for p in pdir.glob("*.log"))
    assert len(logs) >= 3
    indexes = sorted(str(p) for p in pdir.glob("*.index")) + sorted(str(p) for p in pdir.glob("*.timeindex"))
    res = run_tool(version, "kafka-dump-log",
                   ["--files", ",".join(logs), "--print-data-log", "--deep-iteration"], timeout=180)
    batches, records, got_markers = parse_dump(res.stdout)
    assert batches and all(valid for *_, valid in batches)
    assert "Found" not in res.stdout and "corrupt" not in res.stdout.lower()
    assert [(o, k.encode() if k is not None else None, v.encode() if v is not None else None, h)
            for o, k, v, h in records] == expected
    assert got_markers == markers
    # indexes: sane, and every entry points at the batch it names
    res = run_tool(version, "kafka-dump-log", ["--files", ",".join(indexes), "--index-sanity-check"])
    assert res.stdout.count("passed sanity check") + res.stdout.count("is empty") == len(indexes), res.stdout
    assert res.stdout.count("passed sanity check") >= 4
    res = run_tool(version, "kafka-dump-log", ["--files", ",".join(indexes)])
    assert "Mismatches" not in res.stdout and "mismatch" not in res.stdout.lower(), res.stdout
    assert re.search(r"offset: \d+ position: \d+", res.stdout)
    # producer state snapshots
    snaps = sorted(str(p) for p in pdir.glob("*.snapshot"))
    res = run_tool(version, "kafka-dump-log", ["--files", snaps[-1]])
    assert "producerId: 1000 producerEpoch: 0" in res.stdout
    assert "producerId: 2000 producerEpoch: 1 coordinatorEpoch: 7" in res.stdout


def read_everything(lg: Log):
    out = []
    off = lg.log_start_offset
    while off < lg.log_end_offset:
        res = lg.read(off, 1 << 20)
        assert res.records is not None, f"nothing read at {off}"
        data = res.records.read_bytes()
        hs = [h for _, h in iter_batches(data, strict=True)]
        assert hs[0].base_offset <= off <= hs[0].last_offset or hs[0].base_offset >= off
        out += [r for r in decode_all(data) if r[0] >= off]
        off = hs[-1].last_offset + 1
    return out


def test_we_read_segments_written_by_apache_kafka(tmp_path):
    from confluent_kafka import Producer

    data_dir = tmp_path / "kafka-data"
    sent = []
    with ReferenceKafka("3.9", log_dir=data_dir, overrides={"log.segment.bytes": 16384,
                                                           "log.index.interval.bytes": 512}) as kafka:
        for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
            p = Producer({"bootstrap.servers": kafka.bootstrap, "compression.type": codec,
                          "enable.idempotence": True, "linger.ms": 5})
            for i in range(120):
                key = f"{codec}-key-{i}".encode()
                value = f"{codec}-value-{i}-{os.urandom(40).hex()}".encode()
                p.produce("from-kafka", key=key, value=value, headers=[("codec", codec.encode())], partition=0)
                sent.append((key, value))
            assert p.flush(60) == 0
            del p
    pdir = data_dir / "from-kafka-0"
    assert len(list(pdir.glob("*.log"))) >= 3
    for needs_recovery in (False, True):
        lg = Log(str(pdir), LogConfig(), clock=FakeClock(int(time.time() * 1000)),
                 needs_recovery=needs_recovery)
        got = read_everything(lg)
        assert [(k, v) for _, k, v, _ in got] == sent
        assert [o for o, *_ in got] == list(range(len(sent)))
        assert all(h == [("codec", h[0][1])] for *_, h in got)
        assert lg.log_end_offset == len(sent)
        # Kafka's leader-epoch-checkpoint and producer snapshot were understood
        assert lg.leader_epoch_cache.latest_epoch >= 0
        assert lg.producer_state.producers
        # random offsets land in the batch holding them
        for off in (0, 7, 119, 300, len(sent) - 1):
            hs = [h for _, h in iter_batches(lg.read(off, 1).records.read_bytes())]
            assert hs[0].base_offset <= off <= hs[0].last_offset
        ts_hit = lg.fetch_offset_by_timestamp(0)
        assert ts_hit is not None and ts_hit[0] == 0
        lg.close()
    # a LogManager over Kafka's log dir starts and finds the partition
    lm = LogManager([str(data_dir)], LogConfig(), start_cleaner=False)
    lm.startup()
    assert lm.get_log("from-kafka", 0).log_end_offset == len(sent)
    lm.shutdown()


def test_kafka_dump_log_reads_our_compacted_segments(tmp_path):
    from kafpy.storage.cleaner import LogCleaner

    cfg = LogConfig(cleanup_policy="compact", segment_bytes=2048, min_cleanable_dirty_ratio=0.0,
                    index_interval_bytes=128)
    lm = LogManager([str(tmp_path / "logs")], cfg, start_cleaner=False)
    lm.startup()
    lg = lm.get_or_create_log("compacted", 0)
    now = int(time.time() * 1000)
    latest = {}
    for i in range(60):
        codec = i % 5
        recs = [(b"key-%d" % ((i * 3 + j) % 7), (b"v%d-%d-" % (i, j)) * 6) for j in range(3)]
        info = lg.append_as_leader(kp_batch(recs, timestamp=now, compression=codec, producer_id=42,
                                            producer_epoch=0, base_sequence=i * 3), 0)
        for j, (k, v) in enumerate(recs):
            latest[k] = (info.first_offset + j, v)
    lg.update_high_watermark(lg.log_end_offset)
    assert LogCleaner(lm).clean_once(now, force=True)
    ours = read_everything(lg)
    lm.shutdown()
    pdir = Path(lg.dir)
    logs = sorted(str(p) for p in pdir.glob("*.log"))
    res = run_tool("4", "kafka-dump-log", ["--files", ",".join(logs), "--print-data-log", "--deep-iteration"])
    batches, records, _ = parse_dump(res.stdout)
    assert batches and all(valid for *_, valid in batches)
    got = [(o, k.encode(), v.encode()) for o, k, v, _ in records]
    assert got == [(o, k, v) for o, k, v, _ in ours]
    assert len(got) < 180  # compacted
    assert {k: (o, v) for o, k, v in got} == latest
    idx = sorted(str(p) for p in pdir.glob("*.index"))
    res = run_tool("4", "kafka-dump-log", ["--files", ",".join(idx), "--index-sanity-check"])
    assert "passed sanity check" in res.stdout and "Mismatch" not in res.stdout


def test_we_read_kafka_transaction_markers_and_txnindex(tmp_path):
    from confluent_kafka import Producer

    data_dir = tmp_path / "kafka-data"
    with ReferenceKafka("3.9", log_dir=data_dir) as kafka:
        p = Producer({"bootstrap.servers": kafka.bootstrap, "transactional.id": "interop-txn"})
        p.init_transactions(60)
        p.begin_transaction()
        for i in range(5):
            p.produce("txn-topic", key=b"aborted-%d" % i, value=b"a", partition=0)
        p.flush(30)
        p.abort_transaction(60)
        p.begin_transaction()
        for i in range(3):
            p.produce("txn-topic", key=b"committed-%d" % i, value=b"c", partition=0)
        p.commit_transaction(60)
        del p
        # markers reach the partition asynchronously after EndTxn: wait until the last
        # stable offset covers both (ABORT and COMMIT) before stopping the broker
        _wait_for_lso(kafka.bootstrap, "txn-topic", 10)
    pdir = data_dir / "txn-topic-0"
    lg = Log(str(pdir), LogConfig(), clock=FakeClock(int(time.time() * 1000)), needs_recovery=True)
    try:
        # 5 aborted records, ABORT marker, 3 committed records, COMMIT marker
        assert lg.log_end_offset == 10
        lg.update_high_watermark(lg.log_end_offset)
        assert lg.last_stable_offset == 10
        assert not lg.producer_state.ongoing_txns
        res = lg.read(0, 1 << 20, max_offset=lg.last_stable_offset, fetch_aborted=True)
        pid = next(iter(lg.producer_state.producers))
        assert res.aborted_transactions == [(pid, 0)]
        # Kafka's own .txnindex says the same
        txn_files = list(pdir.glob("*.txnindex"))
        assert txn_files
        entries = [t for s in lg.segments for t in s.txn_index.entries]
        assert [(t.producer_id, t.first_offset, t.last_offset) for t in entries] == [(pid, 0, 5)]
    finally:
        lg.close()


def _wait_for_lso(bootstrap: str, topic: str, expected: int, timeout: float = 60.0) -> None:
    from confluent_kafka import IsolationLevel, TopicPartition
    from confluent_kafka.admin import AdminClient, OffsetSpec

    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.monotonic() + timeout
    lso = None
    while time.monotonic() < deadline:
        futs = admin.list_offsets({TopicPartition(topic, 0): OffsetSpec.latest()},
                                  isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=10)
        lso = next(iter(futs.values())).result().offset
        if lso >= expected:
            return
        time.sleep(0.2)
    raise AssertionError(f"last stable offset of {topic}-0 stayed at {lso}, expected {expected}")
