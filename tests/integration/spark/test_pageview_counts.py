"""pageview_counts end to end: counts per user and window, late views, restart."""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone

import pytest

from kafpy.spark_jobs import generate, pageview_counts

from .helpers import produce_json, read_json_values

# a JVM on a loaded 2-core machine: Spark jobs here take minutes, not seconds
pytestmark = pytest.mark.timeout(600)

WINDOW_S = 300
WATERMARK_S = 120


def epoch(ts: str) -> int:
    return int(generate.parse_time(ts).timestamp())


def late_view(user: str, ts: str) -> dict:
    return {"user_id": user, "session_id": "late", "page": "/late", "referrer": "",
            "timestamp": ts}


def expected_counts(runs: list[list[dict]]) -> tuple[dict, int]:
    """(user, window start) -> (views, distinct pages) for the windows the watermark has
    closed, one micro-batch per run (a view whose window ended at or before the watermark
    of the previous batch is dropped); also how many views were dropped as late."""
    state: dict[tuple[str, int], list[str]] = defaultdict(list)
    watermark = float("-inf")
    dropped = 0
    for run in runs:
        for v in run:
            start = epoch(v["timestamp"]) // WINDOW_S * WINDOW_S
            if start + WINDOW_S > watermark:
                state[(v["user_id"], start)].append(v["page"])
            else:
                dropped += 1
        watermark = max(watermark, max(epoch(v["timestamp"]) for v in run) - WATERMARK_S)
    closed = {(user, generate.format_time(datetime.fromtimestamp(start, tz=timezone.utc))):
              (len(pages), len(set(pages)))
              for (user, start), pages in state.items() if start + WINDOW_S <= watermark}
    return closed, dropped


def test_counts_with_late_views_across_restart(spark, kafka, tmp_path):
    topic = "clicks-e2e"
    views = list(generate.page_views(480, seed=3, users=6, event_interval=5.0))
    # run 1: 00:00:00-00:19:55 -> watermark 00:17:55, windows up to 00:15 closed
    # run 2: late views (one for a still-open window, two for closed ones) + 00:20-00:39:55
    run1 = views[:240]
    run2 = [late_view("u001", "2015-01-01 00:16:30"), late_view("u002", "2015-01-01 00:07:00"),
            *views[240:], late_view("u003", "2015-01-01 00:02:00")]
    out_dir, cp = tmp_path / "counts", tmp_path / "cp"
    args = ["--bootstrap-servers", kafka.bootstrap, "--checkpoint", str(cp),
            "--input-topic", topic, "--output-dir", str(out_dir),
            "--output-topic", f"{topic}-counts", "--window", f"{WINDOW_S} seconds",
            "--watermark", f"{WATERMARK_S} seconds", "--trigger", "once",
            "--shuffle-partitions", "2"]
    for i, run in enumerate([run1, run2]):
        produce_json(kafka.bootstrap, topic, run, key=lambda v: v["user_id"])
        assert pageview_counts.main(args, spark=spark) == 0
        want, dropped = expected_counts([run1, run2][:i + 1])
        assert dropped == (0, 2)[i]

        files = spark.read.parquet(str(out_dir)).collect()
        got = {(r.user_id, r.window_start.strftime(generate.TS_FORMAT)):
               (r.views, r.distinct_pages) for r in files}
        assert len(got) == len(files), "a window was written twice"
        assert got == want

        rows = read_json_values(spark, kafka.bootstrap, f"{topic}-counts")
        got_kafka = {(r["user_id"], r["window_start"]): (r["views"], r["distinct_pages"])
                     for r in rows}
        assert len(got_kafka) == len(rows)
        assert got_kafka == want
    # the view for the open window 00:15-00:20 was counted
    assert want[("u001", "2015-01-01 00:15:00")][0] == 1 + sum(
        1 for v in run1 if v["user_id"] == "u001" and "00:15:00" <= v["timestamp"][11:] < "00:20:00")
