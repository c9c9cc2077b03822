"""Runs OUR broker (`python -m kafpy.broker ...`) as a child process for integration tests.

Command line (the contract in docs/INTERFACES.md):
    python -m kafpy.broker <repo>/config/server.properties \
        --override listeners=PLAINTEXT://127.0.0.1:<port> \
        --override advertised.listeners=PLAINTEXT://127.0.0.1:<port> \
        --override log.dirs=<log_dir> [--override k=v ...]
Output (stdout+stderr) goes to `<work_dir>/broker-<port>.log`, outside `log_dir` so storage
tests see only what the broker writes. Ready when the port answers ApiVersions v0.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Mapping

from . import process, wire
from .ports import LOOPBACK, free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO_ROOT / "config" / "server.properties"


class KafpyBroker:
    """One broker process; `.bootstrap`, `.port`, `.log_dir`, `.stop()`, `.kill()`,
    `.restart()`, `.log_text()`. Keeps its port and log dir across restarts."""

    def __init__(self, log_dir: str | Path | None = None, port: int | None = None, *,
                 overrides: Mapping[str, object] | None = None,
                 config: str | Path = DEFAULT_CONFIG, work_dir: str | Path | None = None,
                 start_timeout: float = 60.0, python: str = sys.executable,
                 env: Mapping[str, str] | None = None, module: str = "kafpy.broker"):
        self.work_dir = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="kafpy-"))
        self.log_dir = Path(log_dir) if log_dir else self.work_dir / "logs"
        self._auto_port = port is None
        self._started_once = False
        self.port = port or free_port()
        self.overrides = {k: str(v) for k, v in (overrides or {}).items()}
        self.config = Path(config)
        self.start_timeout = start_timeout
        self.python = python
        self.env = dict(env or {})
        self.module = module  # a stand-in module in the fixture's own tests
        self.output_path = self.work_dir / f"broker-{self.port}.log"
        self.proc: subprocess.Popen | None = None
        self.exit_codes: list[int] = []

    @property
    def host(self) -> str:
        return LOOPBACK

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def name(self) -> str:
        return f"kafpy broker {self.bootstrap}"

    def command(self) -> list[str]:
        settings = {
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            # config/server.properties advertises localhost:9092, as Kafka's own does
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "log.dirs": str(self.log_dir),
            **self.overrides,
        }
        cmd = [self.python, "-m", self.module, str(self.config)]
        for key, value in settings.items():
            cmd += ["--override", f"{key}={value}"]
        return cmd

    def start(self) -> "KafpyBroker":
        """Start and wait until ApiVersions is answered. When the port was picked here and
        another process took it meanwhile (bind failed), retry on a new port, first start only.
        """
        if self.running:
            return self
        attempts = 3 if self._auto_port and not self._started_once else 1
        for attempt in range(attempts):
            mark = self._output_size()
            try:
                self._start_once()
            except process.ProcessFailed:
                if attempt + 1 < attempts and process.bind_failed(self._output_since(mark)):
                    self.port = free_port()
                    self.output_path = self.work_dir / f"broker-{self.port}.log"
                    continue
                raise
            self._started_once = True
            return self
        raise AssertionError("unreachable")

    def _output_size(self) -> int:
        try:
            return self.output_path.stat().st_size
        except OSError:
            return 0

    def _output_since(self, mark: int) -> str:
        try:
            with open(self.output_path, "rb") as f:
                f.seek(mark)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def _start_once(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
        out = open(self.output_path, "ab")
        try:
            out.write(f"### {' '.join(self.command())}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, cwd=REPO_ROOT, env=env,
                                         start_new_session=True)
        finally:
            out.close()
        try:
            process.wait_for(self.answers_api_versions, timeout=self.start_timeout,
                             what=self.name, proc=self.proc, log_path=self.output_path)
        except BaseException:
            self.kill()
            raise

    def answers_api_versions(self) -> bool:
        return bool(wire.api_versions(LOOPBACK, self.port, timeout=2.0))

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, SIGKILL after `timeout`; returns the exit code (None if never started)."""
        if self.proc is None:
            return None
        was_running = self.running
        code = process.terminate(self.proc, timeout=timeout)
        if was_running:
            self.exit_codes.append(code)
        return code

    def kill(self) -> int | None:
        """SIGKILL: an unclean shutdown, for crash-recovery tests."""
        if self.proc is None:
            return None
        was_running = self.running
        code = process.kill(self.proc)
        if was_running:
            self.exit_codes.append(code)
        return code

    def restart(self, *, kill: bool = False) -> "KafpyBroker":
        """Stop (or kill) and start again on the same port and log dir."""
        if kill:
            self.kill()
        else:
            self.stop()
        return self.start()

    def log_text(self) -> str:
        try:
            return self.output_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> "KafpyBroker":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
