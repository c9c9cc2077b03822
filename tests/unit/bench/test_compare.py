"""bench.compare's parsing of Apache's perf tools and its summary (medians, ranges, turns)."""
from __future__ import annotations

import pytest

from bench.compare import Runner, Target, parse_consumer, parse_latency, parse_producer, print_table, summarize

PRODUCER_OUT = """\
512345 records sent, 102469.0 records/sec (9.77 MB/sec), 3.1 ms avg latency, 210.0 ms max latency.
2000000 records sent, 350877.192982 records/sec (33.46 MB/sec), 12.34 ms avg latency, 250.00 ms max latency, \
8 ms 50th, 30 ms 95th, 45 ms 99th, 120 ms 99.9th.
"""

CONSUMER_OUT = """\
start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, \
fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-11-26 04:15:44:412, 2026-11-26 04:15:46:585, 190.7349, 87.7749, 2000000, 920386.5624, 613, 1560, \
122.2659, 1282051.2821
"""


def test_parse_producer_takes_the_final_summary():
    r = parse_producer(PRODUCER_OUT)
    assert r == {"records": 2000000, "records_per_s": 350877.192982, "mb_per_s": 33.46, "avg_ms": 12.34,
                 "p99_ms": 45.0}


def test_parse_producer_keeps_the_brokers_answer_time_from_the_printed_metrics():
    out = PRODUCER_OUT + """
Metric Name                                                                   Value
producer-metrics:request-latency-avg:{client-id=perf-producer-client}       : 2.718
producer-metrics:request-latency-max:{client-id=perf-producer-client}       : 31.000
producer-node-metrics:request-latency-avg:{client-id=perf-producer-client, node-id=node-1} : 9.000
"""
    assert parse_producer(out)["request_latency_avg_ms"] == 2.718
    assert "request_latency_avg_ms" not in parse_producer(PRODUCER_OUT)


def test_parse_consumer_keeps_the_tools_rebalance_and_fetch_split():
    r = parse_consumer(CONSUMER_OUT)
    assert r["mb"] == pytest.approx(190.7349)
    assert r["mb_per_s"] == pytest.approx(87.7749)
    assert r["records"] == 2000000
    assert (r["rebalance_ms"], r["fetch_ms"]) == (613, 1560)
    assert r["fetch_mb_per_s"] == pytest.approx(122.2659)


def test_parse_latency():
    out = "Avg latency: 1.2345 ms\nPercentiles: 50th = 1, 99th = 5, 99.9th = 12\n"
    assert parse_latency(out) == {"avg_ms": 1.2345, "p50_ms": 1.0, "p99_ms": 5.0, "p999_ms": 12.0}


@pytest.mark.parametrize("parse", [parse_producer, parse_consumer, parse_latency])
def test_tool_output_without_a_result_is_an_error(parse):
    with pytest.raises(RuntimeError):
        parse("Exception in thread main: org.apache.kafka.common.errors.TimeoutException\n")


def _run(mb: float, cpu: float) -> dict:
    return {"mb_per_s": mb, "broker_cpu_s": cpu, "broker_peak_rss_mb": 60.0}


def test_summary_gives_medians_ranges_and_the_paired_turns():
    # Turn by turn kafpy is ahead in two of three; the third turn ran under load for kafpy.
    ours = Target("kafpy", "", 0, None, {"produce x": [_run(30, 1.0), _run(20, 1.2), _run(33, 0.9)]})
    theirs = Target("kafka", "", 0, None, {"produce x": [_run(25, 2.0), _run(28, 2.2), _run(30, 1.8)]})
    rows = {r["metric"]: r for r in summarize(ours, theirs)}
    tput = rows["MB/s"]
    assert (tput["kafpy"], tput["kafka"]) == (30, 28)
    assert tput["kafpy_range"] == [20, 33] and tput["kafka_range"] == [25, 30]
    assert tput["ratio"] == pytest.approx(30 / 28, abs=1e-3)
    # per-turn ratios 1.2, 0.714, 1.1: the median is 1.1
    assert tput["turn_ratio"] == pytest.approx(1.1, abs=1e-3)
    assert tput["turns_ahead"] == "2/3"
    # lower is better for CPU: kafpy used less in every turn
    assert rows["broker CPU s"]["turns_ahead"] == "3/3"
    assert rows["broker CPU s"]["ratio"] == pytest.approx(1.0 / 2.0, abs=1e-3)


def test_summary_skips_runs_only_one_broker_has_and_prints(capsys):
    ours = Target("kafpy", "", 0, None, {"produce x": [_run(30, 1.0)], "only ours": [_run(1, 1)]})
    theirs = Target("kafka", "", 0, None, {"produce x": [_run(20, 2.0)]})
    rows = summarize(ours, theirs)
    assert {r["run"] for r in rows} == {"produce x"}
    print_table(rows)
    out = capsys.readouterr().out
    assert "produce x" in out and "1.500" in out and "1/1" in out


def test_rows_keep_only_the_named_scenarios_and_skip_the_latency_runs(tmp_path):
    ran = []

    class Recording(Runner):
        def run_scenario(self, t, sc, rep):
            ran.append((t.label, sc.name, rep))

        def run_latency(self, t, rep):
            ran.append((t.label, "latency", rep))

    runner = Recording("4", 2, True, False, tmp_path, rows=["1024B acks=1 none"])
    runner.run_all([Target("kafpy", "", 0, None), Target("kafka", "", 0, None)], warm_up=False)
    assert ran == [("kafpy", "20k x 1024B acks=1 none", 0), ("kafka", "20k x 1024B acks=1 none", 0),
                   ("kafka", "20k x 1024B acks=1 none", 1), ("kafpy", "20k x 1024B acks=1 none", 1)]


def test_summary_adds_the_answer_time_when_every_run_has_it():
    run = {"mb_per_s": 30.0, "broker_cpu_s": 1.0, "broker_peak_rss_mb": 60.0, "request_latency_avg_ms": 2.0}
    other = dict(run, request_latency_avg_ms=4.0)
    rows = {r["metric"]: r for r in summarize(Target("kafpy", "", 0, None, {"produce x": [run]}),
                                              Target("kafka", "", 0, None, {"produce x": [other]}))}
    assert rows["answer ms"]["ratio"] == 0.5 and rows["answer ms"]["turns_ahead"] == "1/1"
