"""Runs OUR broker (`python -m kafpy.broker ...`) as a child process for integration tests:
kafpy.embedded's EmbeddedBroker, started the way docs/INTERFACES.md states the contract.

Command line (the contract in docs/INTERFACES.md):
    python -m kafpy.broker <repo>/config/server.properties \
        --override listeners=PLAINTEXT://127.0.0.1:<port> \
        --override advertised.listeners=PLAINTEXT://127.0.0.1:<port> \
        --override log.dirs=<log_dir> [--override k=v ...]
Output (stdout+stderr) goes to `<work_dir>/broker-<port>.log`, outside `log_dir` so storage
tests see only what the broker writes. Ready when the port answers ApiVersions v0. Unlike
EmbeddedBroker's own start, no test defaults are added: the repository's server.properties
and the test's overrides are all the broker gets.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Mapping

from kafpy.embedded import EmbeddedBroker

from . import forkserver
from .ports import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO_ROOT / "config" / "server.properties"


class KafpyBroker(EmbeddedBroker):
    """One broker process; `.bootstrap`, `.port`, `.log_dir`, `.stop()`, `.kill()`,
    `.restart()`, `.log_text()`. Keeps its port and log dir across restarts."""

    def __init__(self, log_dir: str | Path | None = None, port: int | None = None, *,
                 overrides: Mapping[str, object] | None = None,
                 config: str | Path = DEFAULT_CONFIG, work_dir: str | Path | None = None,
                 start_timeout: float = 60.0, python: str = sys.executable,
                 env: Mapping[str, str] | None = None, module: str = "kafpy.broker",
                 fork: bool = True):
        super().__init__(overrides, port=port, work_dir=work_dir,
                         log_dir=log_dir or (Path(work_dir) / "logs" if work_dir else None),
                         start_timeout=start_timeout, python=python, env=env, keep_files=True)
        if log_dir is None and work_dir is None:
            self.log_dir = self.work_dir / "logs"
        self.config = Path(config)
        self.module = module  # a stand-in module in the fixture's own tests
        self.fork = fork  # False: a new interpreter, as a user's ``python -m kafpy.broker``

    def _pick_port(self) -> int:
        return free_port()

    @property
    def output_path(self) -> Path:
        return self.work_dir / f"broker-{self.port}.log"

    def settings(self) -> dict[str, str]:
        return {
            "listeners": f"PLAINTEXT://{self.host}:{self.port}",
            # config/server.properties advertises localhost:9092, as Kafka's own does
            "advertised.listeners": f"PLAINTEXT://{self.host}:{self.port}",
            "log.dirs": str(self.log_dir),
            **self.overrides,
        }

    def prepare(self) -> None:
        """Nothing to write: the settings are on the command line."""

    def command(self) -> list[str]:
        cmd = [self.python, "-m", self.module, str(self.config)]
        for key, value in self.settings().items():
            cmd += ["--override", f"{key}={value}"]
        return cmd

    def cwd(self) -> Path:
        return REPO_ROOT

    def spawn(self, command: list[str], out: IO[bytes]) -> "subprocess.Popen[bytes]":
        """Forked from the suite's fork server (tests/support/forkserver.py) unless
        ``fork=False``; the same as a new interpreter as far as the broker can tell."""
        if not self.fork:
            return super().spawn(command, out)
        return forkserver.popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=self.cwd(), env=self.environment(),
                                start_new_session=True)

    def environment(self) -> dict[str, str]:
        """The checkout first on the path, whichever interpreter runs the broker."""
        env = super().environment()
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
        return env
