"""Running this project's scripts/*.sh the way a user does: from another directory, with
their own environment, bounded by a timeout."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[3]
SCRIPTS = REPO / "scripts"


def script(name: str) -> str:
    return str(SCRIPTS / f"{name}.sh")


def run_script(name: str, *args: str, input: str | None = None, timeout: float = 120.0,
               cwd: str | Path | None = None, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
    """Run scripts/<name>.sh to completion (cwd defaults to / to show it works anywhere)."""
    return subprocess.run([script(name), *args], input=input, capture_output=True, text=True,
                          timeout=timeout, cwd=str(cwd or "/"), env={**os.environ, **(env or {})},
                          stdin=None if input is not None else subprocess.DEVNULL)


@contextmanager
def started_script(name: str, *args: str, **popen: Any) -> Iterator[subprocess.Popen]:
    """Start scripts/<name>.sh from / in a session of its own. On leaving, a process still
    running (the test failed before stopping it) is killed with its whole group and reaped."""
    proc = subprocess.Popen([script(name), *args], cwd="/", start_new_session=True, **popen)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def unshare_prefix() -> list[str]:
    """A private PID namespace: the stop scripts signal every matching process they can see,
    so their tests run where only their own processes are visible."""
    exe = shutil.which("unshare")
    assert exe, "util-linux's unshare is needed to test the stop scripts in isolation"
    probe = subprocess.run([exe, "--pid", "--fork", "--mount-proc", "true"], capture_output=True)
    assert probe.returncode == 0, ("unshare --pid --mount-proc is not permitted here: "
                                   + probe.stderr.decode(errors="replace"))
    return [exe, "--pid", "--fork", "--mount-proc"]
