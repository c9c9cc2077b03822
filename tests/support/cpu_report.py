"""CPU-seconds each test file costs in a full run, the suite's own process and what it reaped.

Set ``KAFPY_CPU_REPORT=DIR`` for a run (``KAFPY_CPU_REPORT=/tmp/cpu bash scripts/run-tests.sh``)
and every pytest process (each xdist worker) writes ``DIR/<worker>.tsv``: per test file, the
CPU-seconds of the worker itself and of the children it reaped while the file's tests ran
(``getrusage`` of SELF and CHILDREN around each test, setup and teardown included). Then

    python -m tests.support.cpu_report DIR

prints the files by CPU, most first. Why CPU and not wall seconds: the suite runs four workers
on two cores, so its wall time follows the CPU it spends; a test that waits costs little.

What it cannot see: a process the suite leaves running and reaps later (the session's tool
servers) is counted where it is reaped; a daemon that is never reaped by the worker (Debian's
ZooKeeper started by the test command) is not counted at all.
"""
from __future__ import annotations

import os
import resource
import sys
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path

import pytest

from tests.support import forkserver

VARIABLE = "KAFPY_CPU_REPORT"


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    # brokers forked by the fork server are its children: it reports their CPU when it reaps them
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime + forkserver.reaped_cpu()


class CpuReport:
    """A pytest plugin: sums each test's CPU into its file and writes the sums at the end."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.own: dict[str, float] = defaultdict(float)
        self.children: dict[str, float] = defaultdict(float)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        own0, kids0 = _cpu()
        yield
        own1, kids1 = _cpu()
        path = item.nodeid.split("::", 1)[0]
        self.own[path] += own1 - own0
        self.children[path] += kids1 - kids0

    def pytest_sessionfinish(self) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        own, kids = _cpu()
        lines = [f"{self.own[p]:.2f}\t{self.children[p]:.2f}\t{p}" for p in sorted(self.own)]
        lines.append(f"{own:.2f}\t{kids:.2f}\t(whole process)")
        (self.out_dir / f"{name}.tsv").write_text("\n".join(lines) + "\n")


def register(config: pytest.Config) -> None:
    """Adds the plugin when ``KAFPY_CPU_REPORT`` names a folder (tests/conftest.py calls it)."""
    out = os.environ.get(VARIABLE)
    if out:
        config.pluginmanager.register(CpuReport(Path(out)), "kafpy-cpu-report")


def summarise(out_dir: Path) -> list[tuple[float, float, str]]:
    """(own, children, path) per file over every worker's table, most CPU first."""
    own: dict[str, float] = defaultdict(float)
    kids: dict[str, float] = defaultdict(float)
    for table in out_dir.glob("*.tsv"):
        for line in table.read_text().splitlines():
            a, b, path = line.split("\t")
            if path.startswith("("):
                continue
            own[path] += float(a)
            kids[path] += float(b)
    return sorted(((own[p], kids[p], p) for p in own), key=lambda r: -(r[0] + r[1]))


def main(argv: list[str]) -> int:
    rows = summarise(Path(argv[0]))
    total = sum(a + b for a, b, _ in rows)
    print(f"{'CPU-s':>8} {'pytest':>8} {'reaped':>8} {'share':>6}  file")
    for a, b, path in rows[: int(argv[1]) if len(argv) > 1 else 60]:
        print(f"{a + b:8.1f} {a:8.1f} {b:8.1f} {100 * (a + b) / total:5.1f}%  {path}")
    print(f"{total:8.1f} {sum(r[0] for r in rows):8.1f} {sum(r[1] for r in rows):8.1f}  all {len(rows)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
