"""sensor_alerts end to end: exact alerts and per-rig windows, across a restart."""
from __future__ import annotations

import threading
from collections import defaultdict
from datetime import datetime, timezone

import pytest

from kafpy.protocol.records import iter_batches
from kafpy.spark_jobs import generate, sensor_alerts
from kafpy.spark_jobs.sensor_alerts import Thresholds

from .helpers import produce_json, produce_raw, read_json_values

# a JVM on a loaded 2-core machine: Spark jobs here take minutes, not seconds
pytestmark = pytest.mark.timeout(600)

WINDOW_S = 60
WATERMARK_S = 30
EPOCH_2015 = 1420070400  # 2015-01-01 00:00:00 UTC


def seconds(ts: str) -> int:
    return int(generate.parse_time(ts).timestamp()) - EPOCH_2015


def expected_alerts(records: list[dict], thresholds: Thresholds) -> dict[int, list[str]]:
    out = {}
    for r in records:
        reading = {**r["sensor_readings"], "injection_vol": r["injection_vol"]}
        exceeded = thresholds.exceeded(reading)
        if exceeded:
            out[r["event_ID"]] = exceeded
    return out


def expected_windows(runs: list[list[dict]]) -> dict[tuple[int, str], dict]:
    """Spark's append-mode window aggregation with a watermark, one micro-batch per run:
    a reading counts unless its window ended at or before the previous watermark; a window
    is emitted once the watermark reaches its end."""
    state: dict[tuple[int, int], list[dict]] = defaultdict(list)
    watermark = float("-inf")
    for run in runs:
        for r in run:
            start = seconds(r["timestamp"]) // WINDOW_S * WINDOW_S
            if start + WINDOW_S > watermark:
                state[(r["hcid"], start)].append(r)
        watermark = max(watermark, max(seconds(r["timestamp"]) for r in run) - WATERMARK_S)
    out = {}
    for (hcid, start), rs in state.items():
        if start + WINDOW_S <= watermark:
            key = generate.format_time(datetime.fromtimestamp(EPOCH_2015 + start,
                                                              tz=timezone.utc))
            out[(hcid, key)] = {
                "readings": len(rs),
                "production": float(sum(r["production"] for r in rs)),
                "max_pressure": float(max(r["sensor_readings"]["pressure"] for r in rs)),
                "max_temperature": float(max(r["sensor_readings"]["temperature"] for r in rs)),
                "avg_pressure": sum(r["sensor_readings"]["pressure"] for r in rs) / len(rs),
                "injection_vol": float(sum(r["injection_vol"] for r in rs)),
            }
    return out


def check_stats(rows: list[dict], expected: dict) -> None:
    got = {(r["hcid"], r["window_start"]): r for r in rows}
    assert len(got) == len(rows), "a window was emitted twice"
    assert set(got) == set(expected)
    for key, exp in expected.items():
        row = got[key]
        assert row["readings"] == exp["readings"], key
        assert row["production"] == exp["production"], key
        assert row["max_pressure"] == exp["max_pressure"], key
        assert row["max_temperature"] == exp["max_temperature"], key
        assert row["injection_vol"] == exp["injection_vol"], key
        assert abs(row["avg_pressure"] - exp["avg_pressure"]) < 1e-9, key


def job_args(kafka, tmp_path, topic: str, *extra: str) -> list[str]:
    return ["--bootstrap-servers", kafka.bootstrap, "--checkpoint", str(tmp_path / "cp"),
            "--input-topic", topic, "--alerts-topic", f"{topic}-warnings",
            "--stats-topic", f"{topic}-stats", "--window", f"{WINDOW_S} seconds",
            "--watermark", f"{WATERMARK_S} seconds", "--shuffle-partitions", "2", *extra]


def test_alerts_and_windows_exact_across_restart(spark, kafka, tmp_path):
    topic = "sensor-e2e"
    records = list(generate.sensor_readings(400, seed=7, rigs=5, anomaly_rate=0.1))
    runs = [records[:200], records[200:]]
    files = ["--alerts-dir", str(tmp_path / "alerts")]
    thresholds = Thresholds()

    # what a broken rig might send: dropped by the job, no alert, no effect on windows
    produce_raw(kafka.bootstrap, topic, [
        b"not json", b"", b'{"event_ID": 9001, "timestamp": "2015-01-01 00:00:03"}',
        b'{"event_ID": 9002, "hcid": 1, "timestamp": "yesterday", '
        b'"sensor_readings": {"pressure": 999}}',
        b'{"event_ID": 9003, "hcid": 1, "sensor_readings": {"pressure": 999}}'])
    for i, run in enumerate(runs):
        produce_json(kafka.bootstrap, topic, run, key=lambda r: str(r["hcid"]))
        # each run is a fresh start of the job on the same checkpoint
        assert sensor_alerts.main(job_args(kafka, tmp_path, topic, "--trigger", "once",
                                           *files), spark=spark) == 0
        seen = [r for run_ in runs[:i + 1] for r in run_]

        alerts = read_json_values(spark, kafka.bootstrap, f"{topic}-warnings")
        want = expected_alerts(seen, thresholds)
        assert len(want) > 10
        assert sorted(a["event_ID"] for a in alerts) == sorted(want)
        assert {a["event_ID"]: a["exceeded"] for a in alerts} == want

        file_alerts = spark.read.parquet(str(tmp_path / "alerts")).collect()
        assert sorted(r.event_ID for r in file_alerts) == sorted(want)

        want_windows = expected_windows(runs[:i + 1])
        assert want_windows
        check_stats(read_json_values(spark, kafka.bootstrap, f"{topic}-stats"), want_windows)

    # Spark's sink is a default Java producer, so idempotent: every batch it wrote carries a
    # producer id and sequence (read from the partition's segment files on disk)
    segments = sorted((kafka.log_dir / f"{topic}-warnings-0").glob("*.log"))
    headers = [h for seg in segments for _, h in iter_batches(seg.read_bytes())]
    assert headers and all(h.producer_id >= 0 and h.base_sequence >= 0 for h in headers)


def test_keeps_up_with_generator_while_streaming(spark, kafka, tmp_path):
    """Generator at a fixed rate for a bounded time while the query runs on a 1 s trigger:
    every alert arrives exactly once, and the query took the data in several micro-batches."""
    topic = "sensor-live"
    rate, count = 100, 1500
    records = list(generate.sensor_readings(count, seed=11, rigs=8, anomaly_rate=0.05))
    produce_json(kafka.bootstrap, topic, records[:1], key=lambda r: str(r["hcid"]))
    args = sensor_alerts.build_parser().parse_args(
        job_args(kafka, tmp_path, topic, "--trigger", "1 second"))
    queries = sensor_alerts.start_queries(spark, args)
    try:
        producer = threading.Thread(target=generate.produce, args=(
            kafka.bootstrap, topic, records[1:]), kwargs={
            "key": lambda r: str(r["hcid"]), "rate": rate}, daemon=True)
        producer.start()
        producer.join(timeout=120)
        assert not producer.is_alive()
        for q in queries:
            q.processAllAvailable()
        batches_with_data = [p for p in queries[0].recentProgress if p["numInputRows"] > 0]
    finally:
        for q in queries:
            q.stop()
    assert len(batches_with_data) > 1
    assert sum(p["numInputRows"] for p in batches_with_data) == count
    alerts = read_json_values(spark, kafka.bootstrap, f"{topic}-warnings")
    want = expected_alerts(records, Thresholds())
    assert sorted(a["event_ID"] for a in alerts) == sorted(want)
