"""A real Prometheus server (Debian's ``prometheus`` package) for the metrics tests: started
on a free loopback port with a generated config that scrapes the given targets every
second, queried through its HTTP API.

Installed by ``scripts/install-deps.sh``; a test that needs it fails (not skips) when it is
missing.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from tests.support import process
from tests.support.ports import LOOPBACK, free_port

SCRAPE_INTERVAL_S = 1


class PrometheusServer:
    def __init__(self, work_dir: Path, targets: list[str], labels: dict[str, str] | None = None) -> None:
        self.work_dir = work_dir
        self.targets = targets
        # target labels, as Kubernetes service discovery would attach (namespace, pod...)
        self.labels = labels or {}
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.output_path = work_dir / "prometheus.out"

    def start(self) -> "PrometheusServer":
        binary = shutil.which("prometheus")
        assert binary, "prometheus not found: scripts/install-deps.sh installs Debian's prometheus package"
        self.work_dir.mkdir(parents=True, exist_ok=True)
        config = self.work_dir / "prometheus.yml"
        config.write_text(
            "global:\n"
            f"  scrape_interval: {SCRAPE_INTERVAL_S}s\n"
            f"  evaluation_interval: {SCRAPE_INTERVAL_S}s\n"
            "scrape_configs:\n"
            "  - job_name: kafpy\n"
            f"    scrape_timeout: {SCRAPE_INTERVAL_S}s\n"
            "    static_configs:\n"
            f"      - targets: [{', '.join(repr(t) for t in self.targets)}]\n"
            + (f"        labels: {json.dumps(self.labels)}\n" if self.labels else ""))
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={self.work_dir / 'data'}",
             f"--web.listen-address={LOOPBACK}:{self.port}", "--log.level=warn"],
            stdout=self.output_path.open("wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        process.wait_for(self._ready, timeout=60, what="prometheus answers /-/ready", proc=self.proc,
                         log_path=self.output_path)
        return self

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://{LOOPBACK}:{self.port}/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def query(self, expr: str, at: float | None = None) -> list[dict]:
        """The result vector of an instant query (``at``: Unix time, default now)."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        url = f"http://{LOOPBACK}:{self.port}/api/v1/query?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        assert body["status"] == "success", body
        return body["data"]["result"]

    def value(self, expr: str, at: float | None = None) -> float | None:
        """The single value of a query whose result is one sample (a sum...), or None."""
        result = self.query(expr, at)
        if not result:
            return None
        assert len(result) == 1, result
        return float(result[0]["value"][1])

    def targets_up(self) -> int:
        return int(self.value("sum(up)") or 0)

    def stop(self) -> None:
        if self.proc is not None:
            process.terminate(self.proc, timeout=10)
            self.proc = None

    def log_text(self) -> str:
        return process.tail(self.output_path, 80)


def wait_value(prom: PrometheusServer, expr: str, ok, timeout: float, what: str) -> float | None:
    """Polls ``expr`` until ``ok(value)``; fails naming ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = prom.value(expr)
        if last is not None and ok(last):
            return last
        time.sleep(0.5)
    raise AssertionError(f"{what} within {timeout:.0f}s; {expr} was {last!r}")
