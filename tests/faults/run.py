"""One fault run from a seed: cluster up, topic, clients, the seed's fault schedule, healing,
convergence, read-back, optional fuzzing, clean stop, log validation, then the checker. The
History is kept in ``work_dir``; everything else (processes, disks, cgroups, namespaces) is
removed whatever happens, Ctrl-C included."""
from __future__ import annotations

import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kafka.admin import KafkaAdminClient, NewTopic

from . import diagnose
from . import history as hist
from .checker import Verdict, check
from .cluster import Cluster
from .faults import FILLER, Injector, kinds_for, kraft_kinds, schedule
from .history import History
from tests.support.metadata_log_checker import check_logs, read_log_entries
from .validate import leftovers, record_producer_batches, validate_log_dir
from .workload import (PRODUCERS, CommittedObserver, ConfluentConsumer, KafkaPythonConsumer,
                       ProducerWorker, read_back)

TOPIC = "chaos"
PARTITIONS = 3
CONVERGE_LIMIT_S = 60.0  # after the last heal: a leader and a full ISR for every partition


@dataclass
class RunResult:
    seed: int
    history: Path
    faults: list = field(default_factory=list)
    injected: Counter = field(default_factory=Counter)
    verdict: Verdict = field(default_factory=Verdict)
    fuzz_sent: int = 0
    seconds: float = 0.0

    def describe(self, limit: int = 10) -> str:
        lines = [f"seed {self.seed}: {'OK' if self.verdict.ok else 'FAILED'} "
                 f"({self.seconds:.0f}s, history {self.history})",
                 "  schedule: " + "; ".join(f"{f['kind']}@{f['at']}s for {f['duration']}s"
                                            for f in self.faults)]
        lines += [f"  {v}" for v in self.verdict.violations[:limit]]
        if len(self.verdict.violations) > limit:
            lines.append(f"  ... {len(self.verdict.violations) - limit} more")
        return "\n".join(lines)


def create_topic(cluster: Cluster) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30000)
    try:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, cluster.n,
                                      topic_configs={"min.insync.replicas": "2"})])
    finally:
        admin.close()
    cluster.wait(lambda: cluster.healthy([TOPIC]), 60, f"{TOPIC} has leaders and full ISRs")


def run_once(seed: int, work_dir: Path, *, brokers: int = 3, rate: float = 40.0,
             session_timeout_ms: int = 6000, fault_count: int | None = None,
             kinds: list[str] | None = None, fuzz: int = 0, settle_s: float = 2.0,
             mode: str = "zookeeper") -> RunResult:
    """Run seed ``seed``; never raises for what the cluster does (that is in the verdict).
    Its faults are drawn from ``kinds``, by default ``kinds_for(seed)`` (without the ZooKeeper
    kinds in KRaft mode). KRaft mode also holds every node's ``__cluster_metadata`` log to
    Raft's promises (tests/support/metadata_log_checker.py) once the run is over."""
    started = time.monotonic()
    run_dir = work_dir / f"seed-{seed}"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    result = RunResult(seed, run_dir / "history.jsonl")
    h = History(result.history)
    cluster = Cluster(run_dir, n=brokers, session_timeout_ms=session_timeout_ms, mode=mode)
    kinds = kinds_for(seed) if kinds is None else kinds
    if mode == "kraft":
        kinds = kraft_kinds(kinds)
    plan = schedule(seed, session_timeout_ms / 1000, fault_count, kinds)
    result.faults = [asdict(f) for f in plan]
    h.record("schedule", seed=seed, brokers=brokers, kinds=kinds, faults=result.faults, mode=mode)
    workers = []
    try:
        cluster.start()
        create_topic(cluster)
        producers = [ProducerWorker(name, h, cluster.bootstrap, TOPIC, rate).start() for name in PRODUCERS]
        consumers = [KafkaPythonConsumer("kp-consumer", h, cluster.bootstrap, TOPIC).start(),
                     ConfluentConsumer("ck-consumer", h, cluster.bootstrap, TOPIC).start(),
                     CommittedObserver(h, cluster.bootstrap, TOPIC, PARTITIONS).start()]
        workers = producers + consumers
        time.sleep(settle_s)
        injector = Injector(cluster, h, TOPIC, PARTITIONS)
        try:
            injector.run(plan)
        finally:
            result.injected.update(injector.injected)
        try:
            seconds = cluster.wait(lambda: cluster.healthy([TOPIC, "__consumer_offsets"]),
                                   CONVERGE_LIMIT_S, "leaders and full ISRs")
            h.record("converged", seconds=round(seconds, 2))
        except TimeoutError as e:
            md = cluster.metadata()
            unhealthy = cluster.unhealthy([TOPIC, "__consumer_offsets"])
            h.record("converge_failed", error=str(e), live=[b.bootstrap for b in cluster.live()],
                     per_broker=diagnose.per_broker(unhealthy),
                     hints=diagnose.hints(unhealthy, {i: b.output_path for i, b in enumerate(cluster.brokers)}),
                     unhealthy=unhealthy[:20], metadata=repr(md)[:2000])
        metadata_hw = cluster.metadata_high_watermark() if mode == "kraft" else None
        time.sleep(settle_s)  # traffic on the healed cluster
        for w in producers:
            w.stop(90)
        for w in consumers:
            w.stop(30)
        workers = []
        injector.note_crashes()
        final = read_back(cluster.bootstrap, TOPIC, PARTITIONS, h)
        if fuzz:
            from .fuzz import fuzz_cluster
            result.fuzz_sent = fuzz_cluster(cluster, fuzz, seed, h)
            injector.note_crashes()
        for broker_id, code in cluster.stop().items():
            if code not in (0, None):
                h.record("unclean_exit", broker=broker_id, code=code,
                         log=cluster.brokers[broker_id].log_text()[-1500:])
        for i, b in enumerate(cluster.brokers):
            for problem in validate_log_dir(b.log_dir)[:5]:
                h.record("invalid_log", broker=i, problem=problem)
            for name in leftovers(b.log_dir, (FILLER,)):
                h.record("invalid_log", broker=i, problem=f"harness file {name} left behind")
        record_producer_batches(h, [b.log_dir for b in cluster.brokers], TOPIC, final)
        if mode == "kraft":
            logs = {i: read_log_entries(Path(b.log_dir) / "__cluster_metadata-0")
                    for i, b in enumerate(cluster.brokers)}
            if metadata_hw is None:
                h.record("metadata_log", problem="no quorum leader answered after the faults healed")
            else:
                h.record("metadata_checked", high_watermark=metadata_hw,
                         batches={i: len(e) for i, e in logs.items()})
                for problem in check_logs(logs, metadata_hw, converged=True):
                    h.record("metadata_log", problem=problem)
    except Exception as e:  # noqa: BLE001 - the harness failing is a failed run, reported
        h.record("harness_error", error=repr(e))
        raise
    finally:
        for w in workers:
            w.stop(10)
        kept = keep_logs(cluster, run_dir)
        cluster.close()
        h.close()
        result.seconds = time.monotonic() - started
    result.verdict = check(hist.read(result.history))
    if result.verdict.ok:
        for d in kept:
            shutil.rmtree(d, ignore_errors=True)
    return result


def result_from_history(path: Path) -> RunResult:
    """A finished run's result read back from its history file alone, judged by today's
    checker: what ``--summarize`` tables over runs made earlier (or by other commands)."""
    events = list(hist.read(path))
    schedule_event = next((e for e in events if e["kind"] == "schedule"), {})
    result = RunResult(schedule_event.get("seed", -1), path, faults=schedule_event.get("faults", []))
    result.injected.update(e["fault"] for e in events if e["kind"] == "fault")
    result.fuzz_sent = sum(e.get("sent", 0) for e in events if e["kind"] == "fuzz")
    if events:
        result.seconds = events[-1]["t"]
    result.verdict = check(events)
    return result


def keep_logs(cluster: Cluster, run_dir: Path) -> list[Path]:
    """Copies of the brokers' log dirs (their disks go at close), so that a failed run's
    batches (producer ids, epochs, sequences) can be read afterwards; removed when it passed."""
    kept = []
    for i, b in enumerate(cluster.brokers):
        dest = run_dir / f"broker{i}" / "logs-kept"
        try:
            shutil.copytree(b.log_dir, dest, ignore=shutil.ignore_patterns(FILLER), dirs_exist_ok=True)
        except OSError:  # a full or half-written dir: keep what was copied
            pass
        kept.append(dest)
    return kept
