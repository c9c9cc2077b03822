"""CPU-seconds a test run costs, split by the kind of process that spent them.

    python -m bench.suite_cpu [--interval 0.5] [--json OUT] [--per-file] -- PYTEST_ARGS...

Runs `python -m pytest -q -p no:cacheprovider -n 0 PYTEST_ARGS` (once, or once per test file
with --per-file) and meanwhile reads utime+stime of every process below it from
/proc/<pid>/stat every `--interval` seconds. Each process is classed once by its command line
(the pytest process, a kafpy broker, Apache Kafka's broker JVM, ZooKeeper's JVM, a short Java
tool by main class, Spark, pip/venv builds, console tools, Go/librdkafka programs, other).

Why a subreaper: a process that exits between two samples loses at most one interval of CPU
to the sampler, and one that is orphaned (a daemon) would escape the parent's cutime. The
sampler makes itself the child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every descendant
is finally reaped by it and RUSAGE_CHILDREN is the run's exact total; the difference between
that and the per-process sum is printed as "unsampled" (short processes that lived less than
one interval, and the last interval of those that exited).

CPU-seconds, not wall seconds, are the measure: they hardly change with the machine's load,
which other people share.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_REPO = Path(__file__).resolve().parents[1]


@dataclass
class Proc:
    """One process seen below the run: its class and the largest CPU time read for it."""

    pid: int
    start: int
    cls: str
    ppid: int
    cpu: float = 0.0
    reaped: float = 0.0  # cutime+cstime: CPU of its children it has waited for


@dataclass
class RunCpu:
    """CPU-seconds of one run: per process class, the exact total and the wall time."""

    label: str
    wall: float = 0.0
    total: float = 0.0
    by_class: dict[str, float] = field(default_factory=dict)
    exit_code: int = 0
    processes: dict[str, int] = field(default_factory=dict)  # how many were seen per class

    @property
    def unsampled(self) -> float:
        return self.total - sum(self.by_class.values())


def _short_main(args: list[str]) -> str:
    """The main class of a `java ... -cp X Main args` command line, without its package."""
    skip_next = False
    for arg in args[1:]:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-cp", "-classpath", "--class-path", "-jar"):
            skip_next = arg != "-jar"
            if arg == "-jar":
                continue
            continue
        if arg.startswith("-"):
            continue
        return arg.rsplit(".", 1)[-1] if "." in arg and "/" not in arg else Path(arg).name
    return "?"


def classify(args: list[str]) -> str:
    """A process class from a command line (as read from /proc/<pid>/cmdline)."""
    if not args:
        return "other"
    exe = Path(args[0]).name
    line = " ".join(args)
    if exe == "java" or exe.endswith("/java"):
        if "kafka.Kafka" in args:
            return "kafka-broker-jvm"
        if any("zookeeper.server" in a for a in args):
            return "zookeeper-jvm"
        if "org.apache.spark" in line or "spark-submit" in line or "pyspark" in line:
            return "spark-jvm"
        return "java:" + _short_main(args)
    if exe.startswith("python") or exe == "pytest":
        if "pytest" in line and ("-m pytest" in line or exe == "pytest" or "xdist" in line):
            return "pytest"
        # the suite's fork server and the brokers it forked carry the server's command line
        if "kafpy.broker" in line or "kafpy.embedded" in line or "tests.support.forkserver" in line:
            return "kafpy-broker"
        if "pyspark" in line or "spark" in line:
            return "spark-python"
        if " pip" in line or "-m venv" in line or "ensurepip" in line or "build" in line:
            return "pip/venv"
        if "zookeeper" in line:
            return "zookeeper-python"
        if "kafpy" in line or "scripts" in line:
            return "kafpy-tool"
        return "python:other"
    if exe in ("pip", "pip3") or "pip" in exe:
        return "pip/venv"
    if "franz" in exe or exe.startswith("go"):
        return "go"
    if exe in ("kcat", "kafkacat", "rdkafka_example", "rdkafka_performance"):
        return "librdkafka"
    if exe in ("bash", "sh", "dash", "env", "timeout", "nice", "setsid"):
        return "shell"
    if "chrom" in exe:
        return "chromium"
    if "prometheus" in exe:
        return "prometheus"
    return "other:" + exe


@dataclass
class Stat:
    """What one read of /proc/<pid>/stat tells: identity, parent and CPU times."""

    start: int
    ppid: int
    cpu: float
    reaped: float


def _read_stat(pid: int) -> Stat | None:
    """A pid's start time, parent, own CPU and its waited-for children's CPU; None if gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    # fields[0] is state (field 3): ppid is field 4, utime..cstime 14-17, starttime 22.
    ticks = [int(f) for f in fields[11:15]]
    return Stat(int(fields[19]), int(fields[1]), (ticks[0] + ticks[1]) / _CLK_TCK,
                (ticks[2] + ticks[3]) / _CLK_TCK)


def _ppid(pid: int) -> int | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(raw[raw.rindex(")") + 2:].split()[1])


def _cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


_PIDS = re.compile(r"^\d+$")


def _descendants(root: int) -> set[int]:
    """Every live pid whose parent chain reaches `root` (orphans reparent to it: subreaper)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if _PIDS.match(entry):
            pid = int(entry)
            parent = _ppid(pid)
            if parent is not None:
                parents[pid] = parent
    found: set[int] = set()
    for pid in parents:
        chain: list[int] = []
        cur: int | None = pid
        while cur is not None and cur > 1 and cur not in found:
            if cur == root:
                found.update(chain)
                break
            chain.append(cur)
            cur = parents.get(cur)
        else:
            if cur in found:
                found.update(chain)
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _subtree(proc: Proc, by_parent: dict[int, list[Proc]]) -> float:
    """CPU sampled of a process that exited and of its descendants that exited with it (in
    the same interval): what its parent's cutime growth already holds of what was counted."""
    return proc.cpu + proc.reaped + sum(_subtree(c, by_parent) for c in by_parent.get(proc.pid, []))


def _settle(gone: list[Proc], live: list[Proc],
            parent_reaped: dict[int, tuple[float, float]]) -> list[Proc]:
    """Give the processes that exited since the last sample the CPU they spent after it.

    A parent's cutime+cstime grows by the final CPU of every child it reaps; the growth
    beyond what was last sampled of those children is their unseen tail, shared among them
    by their sampled CPU. Growth with no known child gone is processes too short to be seen,
    booked as "short:<parent class>".
    """
    shorts: list[Proc] = []
    by_parent: dict[int, list[Proc]] = {}
    for proc in gone:
        by_parent.setdefault(proc.ppid, []).append(proc)
    for parent in live:
        before, now = parent_reaped.get(parent.pid, (parent.reaped, parent.reaped))
        grown = now - before
        if grown <= 0:
            continue
        children = by_parent.get(parent.pid, [])
        tail = grown - sum(_subtree(c, by_parent) for c in children)
        if tail <= 0:
            continue
        if children:
            weight = sum(c.cpu for c in children) or float(len(children))
            for child in children:
                child.cpu += tail * ((child.cpu or 1.0) / weight)
        else:
            shorts.append(Proc(-1, 0, "short:" + parent.cls, parent.pid, cpu=tail))
    return shorts


def measure(label: str, cmd: list[str], interval: float) -> RunCpu:
    """Run `cmd`, sampling its process tree's CPU until it and every descendant are gone."""
    before = _children_cpu()
    start = time.monotonic()
    child = subprocess.Popen(cmd, cwd=_REPO)
    seen: dict[tuple[int, int], Proc] = {}
    live: dict[tuple[int, int], Proc] = {}
    shorts: list[Proc] = []
    me = os.getpid()
    exit_code: int | None = None
    while True:
        now_live: dict[tuple[int, int], Proc] = {}
        parent_reaped: dict[int, tuple[float, float]] = {}
        for pid in _descendants(me):
            stat = _read_stat(pid)
            if stat is None:
                continue
            key = (pid, stat.start)
            proc = seen.get(key)
            if proc is None:
                args = _cmdline(pid)
                if not args:
                    continue
                proc = seen[key] = Proc(pid, stat.start, classify(args), stat.ppid,
                                        reaped=stat.reaped)
            elif proc.cls in ("shell", "python:other", "other:?"):
                args = _cmdline(pid)  # a fork that exec'd since it was first seen
                if args:
                    proc.cls = classify(args)
            proc.ppid = stat.ppid
            parent_reaped[pid] = (proc.reaped, stat.reaped)
            proc.cpu = max(proc.cpu, stat.cpu)
            proc.reaped = max(proc.reaped, stat.reaped)
            now_live[key] = proc
        gone = [p for k, p in live.items() if k not in now_live]
        shorts += _settle(gone, list(now_live.values()), parent_reaped)
        live = now_live
        if exit_code is None:
            exit_code = child.poll()
        # Reap orphans handed to us as subreaper (and the child once it exits).
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = -1
            if pid <= 0:
                break
            if pid == child.pid and exit_code is None:
                exit_code = os.waitstatus_to_exitcode(status)
        if exit_code is not None and not live:
            break
        time.sleep(interval)
    result = RunCpu(label, wall=time.monotonic() - start, total=_children_cpu() - before,
                    exit_code=exit_code)
    for proc in list(seen.values()) + shorts:
        result.by_class[proc.cls] = result.by_class.get(proc.cls, 0.0) + proc.cpu
    for proc in seen.values():
        result.processes[proc.cls] = result.processes.get(proc.cls, 0) + 1
    return result


def _row(run: RunCpu, classes: list[str]) -> str:
    cells = " ".join(f"{run.by_class.get(c, 0.0):>8.1f}" for c in classes)
    return (f"{run.label[:58]:<58} {run.exit_code:>3} {run.wall:>7.1f} {run.total:>8.1f} "
            f"{cells} {run.unsampled:>8.1f}")


def print_table(runs: list[RunCpu]) -> None:
    """Files by CPU-seconds, most first, with one column per process class."""
    totals: dict[str, float] = {}
    for run in runs:
        for cls, cpu in run.by_class.items():
            totals[cls] = totals.get(cls, 0.0) + cpu
    classes = sorted(totals, key=lambda c: -totals[c])
    header = " ".join(f"{c[:8]:>8}" for c in classes)
    print(f"{'file':<58} {'rc':>3} {'wall-s':>7} {'cpu-s':>8} {header} {'unsampl':>8}")
    for run in sorted(runs, key=lambda r: -r.total):
        print(_row(run, classes))
    if len(runs) > 1:
        total = RunCpu("TOTAL", wall=sum(r.wall for r in runs), total=sum(r.total for r in runs),
                       by_class=totals)
        print(_row(total, classes))
    print("classes: " + ", ".join(classes))
    counts: dict[str, int] = {}
    for run in runs:
        for cls, n in run.processes.items():
            counts[cls] = counts.get(cls, 0) + n
    print("processes seen: " + ", ".join(f"{c} {counts[c]}" for c in classes if counts.get(c)))


def _test_files(paths: list[str]) -> list[str]:
    files: list[str] = []
    for raw in paths:
        path = _REPO / raw
        if path.is_dir():
            files += sorted(str(p.relative_to(_REPO)) for p in path.rglob("test_*.py"))
        else:
            files.append(raw)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("--per-file", action="store_true",
                        help="run every test file under the given paths on its own")
    parser.add_argument("--json", type=Path, help="append each run's figures to this file")
    parser.add_argument("pytest_args", nargs="+", help="paths and options for pytest")
    args = parser.parse_args(argv)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("warning: cannot become child subreaper; orphans escape the total", file=sys.stderr)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"]
    options = [a for a in args.pytest_args if a.startswith("-")]
    paths = [a for a in args.pytest_args if not a.startswith("-")]
    jobs = [(f, [f]) for f in _test_files(paths)] if args.per_file else [(" ".join(paths), paths)]
    runs: list[RunCpu] = []
    for label, targets in jobs:
        run = measure(label, base + options + targets, args.interval)
        runs.append(run)
        print(f"[suite_cpu] {label}: rc {run.exit_code}, {run.total:.1f} CPU-s, "
              f"{run.wall:.1f} wall-s", file=sys.stderr, flush=True)
        if args.json:
            with args.json.open("a") as out:
                out.write(json.dumps({"label": label, "rc": run.exit_code, "wall": run.wall,
                                      "cpu": run.total, "by_class": run.by_class,
                                      "processes": run.processes}) + "\n")
    print_table(runs)
    return 0 if all(r.exit_code in (0, 5) for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
