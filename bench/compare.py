"""Side-by-side benchmark: kafpy against Apache Kafka on the same machine, driven by Apache's
own perf tools.

    python -m bench.compare [--repeats 5] [--quick] [--profile] [--kafka-version 4]
                            [--only kafpy|kafka] [--no-warmup] [--rows TEXT ...]

Both brokers run at once (single node, log dirs on the same disk) with the same settings:
Apache's ``config/server.properties`` values and Kafka's defaults for what it leaves out
(``SHARED_SETTINGS``). Each is warmed up first with unmeasured produce and consume runs (the
JVM compiles its hot paths; measuring Kafka cold would flatter us). Then, per scenario and
repeat, the two take turns, the one going first alternating, so the load that other work
puts on the machine falls on both alike instead of on whichever ran second. A scenario is
``kafka-producer-perf-test`` (2,000,000 x 100 B and 200,000 x 1 KiB; acks=1 and acks=all; no
compression and lz4; a topic with 6 partitions), then ``kafka-consumer-perf-test`` reading
the same data back (after an ``os.sync()``, so the produce's dirty pages are written back
outside both measurements); at the end ``EndToEndLatency`` (acks=1, 10,000 messages of 100 B).
``--rows TEXT`` keeps only the scenarios whose name holds one of the texts (``--rows "1024B
acks=1 none"``) and skips the latency runs. The producer runs with ``--print-metrics``: its
``request-latency-avg`` (how long the broker took to answer a Produce, as the client saw it)
is kept with each produce run. The
broker's CPU seconds and peak RSS per run come from /proc. Medians of the repeats are
reported, with each side's range, the ratio of the medians, and the paired view: the median
of the two brokers' ratio within each turn and how many turns kafpy was ahead. Prints one
table, writes ``bench/results/<ts>/compare.json`` and a PNG chart (when matplotlib is
installed: ``pip install '.[bench]'``; checked before the run starts, as py-spy is for
``--profile``). ``--profile`` also runs py-spy on our broker during the first repeat's
produce and consume runs and saves flame graphs next to the results. Every run has a
timeout; the command stops by itself.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.kafka_dist import ReferenceKafka, run_tool  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

RESULTS = REPO / "bench" / "results"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# What both brokers run with: Apache Kafka's config/server.properties (single-node values,
# group.initial.rebalance.delay.ms=0) and Kafka's own defaults for what that file leaves out
# (50 partitions for each internal topic, no flush by message count).
SHARED_SETTINGS = {
    "num.partitions": 1,
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 50,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 50,
    "group.initial.rebalance.delay.ms": 0,
    "log.flush.interval.messages": 9223372036854775807,
    "log.retention.hours": 168,
    "log.segment.bytes": 1073741824,
    "log.retention.check.interval.ms": 300000,
    "socket.request.max.bytes": 104857600,
}


@dataclass
class Scenario:
    name: str
    records: int
    size: int
    acks: str
    compression: str


def chosen(name: str, rows: list[str] | None) -> bool:
    """Whether ``--rows`` keeps the scenario ``name`` (no ``--rows``: every one)."""
    return not rows or any(r in name for r in rows)


def scenarios(quick: bool) -> list[Scenario]:
    small, large = (200_000, 20_000) if quick else (2_000_000, 200_000)
    out = []
    for records, size in ((small, 100), (large, 1024)):
        for acks in ("1", "all"):
            for comp in ("none", "lz4"):
                out.append(Scenario(f"{records // 1000}k x {size}B acks={acks} {comp}", records, size, acks, comp))
    return out


# -- /proc accounting ---------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def reset_peak_rss(pid: int) -> None:
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# -- tool output parsing ------------------------------------------------------------------
REQUEST_LATENCY_RE = re.compile(r"^producer-metrics:request-latency-avg:\{client-id=[^}]*\}\s*:\s*([\d.]+)",
                                re.MULTILINE)
PRODUCER_RE = re.compile(r"(\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+) ms avg latency, "
                         r"([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99.9th")


def parse_producer(out: str) -> dict:
    m = None
    for m in PRODUCER_RE.finditer(out):
        pass
    if m is None:
        raise RuntimeError(f"producer perf test printed no summary:\n{out[-2000:]}")
    res = {"records": int(m.group(1)), "records_per_s": float(m.group(2)), "mb_per_s": float(m.group(3)),
           "avg_ms": float(m.group(4)), "p99_ms": float(m.group(8))}
    latency = REQUEST_LATENCY_RE.search(out)
    if latency is not None:
        res["request_latency_avg_ms"] = float(latency.group(1))
    return res


def parse_consumer(out: str) -> dict:
    lines = [ln for ln in out.splitlines() if ln.count(",") >= 5 and not ln.startswith("start.time")]
    if not lines:
        raise RuntimeError(f"consumer perf test printed no result:\n{out[-2000:]}")
    cols = [c.strip() for c in lines[-1].split(",")]
    res = {"mb": float(cols[2]), "mb_per_s": float(cols[3]), "records": int(float(cols[4])),
           "records_per_s": float(cols[5])}
    if len(cols) >= 9:  # the tool's own split: group join, then the fetch phase
        res.update(rebalance_ms=int(cols[6]), fetch_ms=int(cols[7]), fetch_mb_per_s=float(cols[8]))
    return res


def run_perf_tool(version: str, name: str, args: list[str], timeout: float) -> str:
    """One of Apache's tools; its output, or RuntimeError with the tail when it fails."""
    r = run_tool(version, name, args, timeout=timeout, check=False)
    out = (r.stdout or "") + (r.stderr or "")
    if r.returncode != 0:
        raise RuntimeError(f"{name} {' '.join(args)} exited {r.returncode}:\n{out[-3000:]}")
    return out


def parse_latency(out: str) -> dict:
    avg = re.search(r"Avg latency: ([\d.]+) ms", out)
    pct = re.search(r"Percentiles: 50th = ([\d.]+), 99th = ([\d.]+), 99.9th = ([\d.]+)", out)
    if not (avg and pct):
        raise RuntimeError(f"EndToEndLatency printed no result:\n{out[-2000:]}")
    return {"avg_ms": float(avg.group(1)), "p50_ms": float(pct.group(1)), "p99_ms": float(pct.group(2)),
            "p999_ms": float(pct.group(3))}


# -- one broker ---------------------------------------------------------------------------
@dataclass
class Target:
    label: str
    bootstrap: str
    pid: int
    stop: object
    results: dict = field(default_factory=dict)


class Runner:
    def __init__(self, version: str, repeats: int, quick: bool, profile: bool, out_dir: Path,
                 rows: list[str] | None = None) -> None:
        self.version = version
        self.rows = rows
        self.repeats = repeats
        self.quick = quick
        self.profile = profile
        self.out_dir = out_dir
        self.topic_seq = 0

    def tool(self, name: str, args: list[str], timeout: float) -> str:
        return run_perf_tool(self.version, name, args, timeout)

    def create_topic(self, t: Target, partitions: int = 6) -> str:
        self.topic_seq += 1
        topic = f"bench-{self.topic_seq}-{int(time.time())}"
        self.tool("kafka-topics", ["--bootstrap-server", t.bootstrap, "--create", "--topic", topic,
                                   "--partitions", str(partitions), "--replication-factor", "1"], 120)
        return topic

    def measured(self, t: Target, fn):
        reset_peak_rss(t.pid)
        c0 = cpu_seconds(t.pid)
        w0 = time.monotonic()
        res = fn()
        res["broker_cpu_s"] = round(cpu_seconds(t.pid) - c0, 2)
        res["broker_peak_rss_mb"] = round(peak_rss_mb(t.pid), 1)
        res["wall_s"] = round(time.monotonic() - w0, 2)
        return res

    def py_spy(self, t: Target, name: str) -> subprocess.Popen | None:
        if not self.profile or t.label != "kafpy":
            return None
        exe = shutil.which("py-spy")
        assert exe is not None, "checked in main()"
        return subprocess.Popen([exe, "record", "--pid", str(t.pid), "--rate", "200", "--nonblocking",
                                 "-o", str(self.out_dir / f"flame-{name}.svg")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def produce_consume(self, t: Target, sc: Scenario, profile_name: str | None = None) -> tuple[dict, dict]:
        """One produce run into a new topic, then one consume run of the same data."""
        topic = self.create_topic(t)
        spy = self.py_spy(t, f"produce-{profile_name}") if profile_name else None
        prod = self.measured(t, lambda: parse_producer(self.tool("kafka-producer-perf-test", [
            "--topic", topic, "--num-records", str(sc.records), "--record-size", str(sc.size),
            "--throughput", "-1", "--print-metrics", "--producer-props", f"bootstrap.servers={t.bootstrap}",
            f"acks={sc.acks}", f"compression.type={sc.compression}"], 900)))
        self._stop_spy(spy)
        # The produce left ~200 MB of dirty pages; the kernel writes them back 30 s later
        # (vm.dirty_expire_centisecs), in the middle of some other run. Written back here,
        # outside both measurements, that burst of I/O and kernel CPU falls on neither side.
        os.sync()
        spy = self.py_spy(t, f"consume-{profile_name}") if profile_name else None
        cons = self.measured(t, lambda: parse_consumer(self.tool("kafka-consumer-perf-test", [
            "--bootstrap-server", t.bootstrap, "--topic", topic, "--messages", str(sc.records),
            "--timeout", "120000"], 900)))
        self._stop_spy(spy)
        return prod, cons

    def warm_up(self, t: Target) -> None:
        """Unmeasured produce and consume runs, one per record size (the first consume also
        creates __consumer_offsets). Kafka's JIT needs about 400 MB of traffic to reach its
        steady speed: measured cold, its first rows ran at half speed."""
        for sc in scenarios(self.quick)[::4]:
            for comp in ("none", "lz4"):
                prod, cons = self.produce_consume(t, Scenario("warm-up", sc.records, sc.size, "1", comp))
                print(f"  {t.label:6s} warm-up {sc.records // 1000}k x {sc.size}B {comp}: produce "
                      f"{prod['mb_per_s']:8.2f} MB/s  consume {cons['mb_per_s']:8.2f} MB/s", flush=True)

    def run_scenario(self, t: Target, sc: Scenario, rep: int) -> None:
        name = f"{sc.size}-{sc.acks}-{sc.compression}" if rep == 0 else None
        prod, cons = self.produce_consume(t, sc, name)
        t.results.setdefault(f"produce {sc.name}", []).append(prod)
        t.results.setdefault(f"consume {sc.name}", []).append(cons)
        print(f"  {t.label:6s} {sc.name:32s} rep {rep + 1}: produce {prod['mb_per_s']:8.2f} MB/s  "
              f"consume {cons['mb_per_s']:8.2f} MB/s  cpu {prod['broker_cpu_s']:5.2f} s  "
              f"rss {prod['broker_peak_rss_mb']:7.1f} MB  "
              f"produce answered in {prod.get('request_latency_avg_ms', float('nan')):.2f} ms", flush=True)

    def run_latency(self, t: Target, rep: int) -> None:
        topic = self.create_topic(t, partitions=1)
        lat = self.measured(t, lambda: parse_latency(self.tool(
            "kafka-e2e-latency", [t.bootstrap, topic, "10000", "1", "100"], 600)))
        t.results.setdefault("e2e latency acks=1 10k x 100B", []).append(lat)
        print(f"  {t.label:6s} e2e latency rep {rep + 1}: p50 {lat['p50_ms']} p99 {lat['p99_ms']} "
              f"p99.9 {lat['p999_ms']} ms", flush=True)

    def run_all(self, targets: list[Target], warm_up: bool) -> None:
        """Every scenario and repeat on each target in turn, alternating who goes first."""
        if warm_up:
            for t in targets:
                self.warm_up(t)
        turn = 0
        for sc in scenarios(self.quick):
            if not chosen(sc.name, self.rows):
                continue
            for rep in range(self.repeats):
                for t in (targets if turn % 2 == 0 else targets[::-1]):
                    self.run_scenario(t, sc, rep)
                turn += 1
        if self.rows:
            return
        for rep in range(self.repeats):
            for t in (targets if turn % 2 == 0 else targets[::-1]):
                self.run_latency(t, rep)
            turn += 1

    @staticmethod
    def _stop_spy(spy: subprocess.Popen | None) -> None:
        if spy is not None:
            spy.send_signal(2)
            try:
                spy.wait(60)
            except subprocess.TimeoutExpired:
                spy.kill()


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def summarize(ours: Target, theirs: Target) -> list[dict]:
    """One row per run and metric: each broker's median and range, the ratio of the medians,
    and the paired view. Runs of the same scenario and repeat are one turn, the two brokers
    back to back under the same machine load, so the median of the per-turn ratios (and in
    how many turns kafpy came out ahead) is less exposed to load drifting between turns
    than the ratio of medians is."""
    rows = []
    for name, runs in ours.results.items():
        other = theirs.results.get(name)
        if not other:
            continue
        if name.startswith("e2e"):
            metrics = [("p50 ms", "p50_ms", False), ("p99 ms", "p99_ms", False), ("p99.9 ms", "p999_ms", False)]
        else:
            metrics = [("MB/s", "mb_per_s", True)]
            if all("request_latency_avg_ms" in r for r in runs + other):
                metrics.append(("answer ms", "request_latency_avg_ms", False))
        metrics += [("broker CPU s", "broker_cpu_s", False), ("peak RSS MB", "broker_peak_rss_mb", False)]
        for label, key, higher_better in metrics:
            a, b = median_of(runs, key), median_of(other, key)
            pairs = [(x[key], y[key]) for x, y in zip(runs, other)]
            turn_ratios = [x / y for x, y in pairs if y]
            ahead = sum(1 for x, y in pairs if (x >= y if higher_better else x <= y))
            rows.append({"run": name, "metric": label, "kafpy": a, "kafka": b,
                         "kafpy_range": [min(r[key] for r in runs), max(r[key] for r in runs)],
                         "kafka_range": [min(r[key] for r in other), max(r[key] for r in other)],
                         "ratio": round(a / b, 3) if b else float("nan"),
                         "turn_ratio": round(statistics.median(turn_ratios), 3) if turn_ratios else float("nan"),
                         "turns_ahead": f"{ahead}/{len(pairs)}"})
    return rows


def print_table(rows: list[dict]) -> None:
    """``ratio`` is kafpy's median over Kafka's; ``per turn`` the median of the ratios of
    runs taken back to back; ``ahead`` the turns in which kafpy did at least as well (higher
    MB/s, lower latency, CPU and memory)."""
    w = max(len(r["run"]) for r in rows)
    print(f"\n{'run':{w}s}  {'metric':12s} {'kafpy':>8s} {'(min-max)':>15s} {'kafka':>8s} {'(min-max)':>15s} "
          f"{'ratio':>6s} {'per turn':>8s} {'ahead':>6s}")
    for r in rows:
        ka, kb = r["kafpy_range"], r["kafka_range"]
        print(f"{r['run']:{w}s}  {r['metric']:12s} {r['kafpy']:8.2f} {f'({ka[0]:.1f}-{ka[1]:.1f})':>15s} "
              f"{r['kafka']:8.2f} {f'({kb[0]:.1f}-{kb[1]:.1f})':>15s} {r['ratio']:6.3f} {r['turn_ratio']:8.3f} "
              f"{r['turns_ahead']:>6s}")


def chart(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tput = [r for r in rows if r["metric"] == "MB/s"]
    fig, ax = plt.subplots(figsize=(12, 6))
    xs = range(len(tput))
    ax.bar([x - 0.2 for x in xs], [r["kafpy"] for r in tput], 0.4, label="kafpy")
    ax.bar([x + 0.2 for x in xs], [r["kafka"] for r in tput], 0.4, label="Apache Kafka")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["run"] for r in tput], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("MB/s (median)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def preflight(profile: bool, both: bool) -> tuple[str | None, bool, str | None]:
    """What the run needs, checked before anything starts (a missing tool must not cost a
    half-hour run its results): (why it cannot run or None, whether to draw the chart, a
    note to print)."""
    if profile and shutil.which("py-spy") is None:
        return "--profile needs py-spy: pip install '.[bench]' (or pip install py-spy)", False, None
    if importlib.util.find_spec("matplotlib") is not None:
        return None, both, None
    note = ("matplotlib is not installed: the table and compare.json are written, the chart is not "
            "(pip install '.[bench]' for it)") if both else None
    return None, False, note


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5, help="runs per scenario; medians are reported (default 5)")
    p.add_argument("--quick", action="store_true", help="a tenth of the records, for a fast look")
    p.add_argument("--profile", action="store_true", help="record py-spy flame graphs of our broker")
    p.add_argument("--kafka-version", default="4", help="Apache Kafka to compare with and whose tools drive "
                   "both brokers: 3.9 or 4 (default 4)")
    p.add_argument("--only", choices=["kafpy", "kafka"], help="run one broker only (no ratios)")
    p.add_argument("--no-warmup", action="store_true", help="skip the unmeasured warm-up run on each broker")
    p.add_argument("--rows", action="append", metavar="TEXT",
                   help="only the scenarios whose name holds TEXT (repeatable), e.g. '1024B acks=1 none'; "
                        "no latency runs")
    args = p.parse_args(argv)
    names = [sc.name for sc in scenarios(args.quick)]
    if not any(chosen(n, args.rows) for n in names):
        print(f"--rows {args.rows} matches no scenario; they are: {', '.join(names)}", file=sys.stderr)
        return 2
    problem, draw_chart, note = preflight(args.profile, args.only is None)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if note:
        print(note, flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_dir = RESULTS / stamp
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = Runner(args.kafka_version, args.repeats, args.quick, args.profile, out_dir, args.rows)
    targets: dict[str, Target] = {}
    work = Path(tempfile.mkdtemp(prefix="kafpy-bench-", dir=str(REPO / "bench" / "results")))
    brokers: list = []
    try:
        if args.only in (None, "kafpy"):
            b = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work", overrides=SHARED_SETTINGS)
            brokers.append(b.start())
            assert b.proc is not None
            targets["kafpy"] = Target("kafpy", b.bootstrap, b.proc.pid, b)
            print(f"kafpy at {b.bootstrap}", flush=True)
        if args.only in (None, "kafka"):
            k = ReferenceKafka(args.kafka_version, log_dir=work / "kafka", work_dir=work / "kafka-work",
                               overrides=SHARED_SETTINGS)
            brokers.append(k.start())
            assert k.proc is not None
            targets["kafka"] = Target("kafka", k.bootstrap, k.proc.pid, k)
            print(f"Apache Kafka {k.version} at {k.bootstrap}", flush=True)
        runner.run_all(list(targets.values()), warm_up=not args.no_warmup)
    finally:
        for b in brokers:
            b.stop()
        shutil.rmtree(work, ignore_errors=True)
    data = {"time": stamp, "quick": args.quick, "repeats": args.repeats, "kafka_version": args.kafka_version,
            "settings": SHARED_SETTINGS, "warm_up": not args.no_warmup,
            "raw": {k: v.results for k, v in targets.items()}}
    if len(targets) == 2:
        rows = summarize(targets["kafpy"], targets["kafka"])
        data["summary"] = rows
        print_table(rows)
        if draw_chart:
            chart(rows, out_dir / "throughput.png")
    path = out_dir / "compare.json"
    path.write_text(json.dumps(data, indent=1))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
