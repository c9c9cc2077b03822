"""The session-end check's finder (tests/support/survivors.py) on real processes: a child, a
daemonised grandchild re-parented away from pytest, and nothing once they are killed."""
from __future__ import annotations

import os
import subprocess
import time

from tests.support.survivors import OWNER_VARIABLE, kill, survivors


def _wait(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_finds_a_child_and_a_daemonised_grandchild_then_nothing_once_killed(tmp_path) -> None:
    assert os.environ[OWNER_VARIABLE] == str(os.getpid())
    marker = f"kafpy-survivor-{os.getpid()}-{time.monotonic_ns()}"
    child = subprocess.Popen(["bash", "-c", f"exec -a {marker} sleep 300"])
    # a double fork: the sleeper's parent exits, so it is init's (or a subreaper's) child
    subprocess.run(["bash", "-c", f"(exec -a {marker}-daemon sleep 300 &) ; exit 0"], check=True)
    try:
        # the daemon shows its own name once its subshell has exec'd (before, the bash line)
        def both_named() -> bool:
            found = [s for s in survivors() if marker in s.command]
            return len(found) == 2 and any(s.command.startswith(f"{marker}-daemon") for s in found)
        _wait(both_named)
        ours = [s for s in survivors() if marker in s.command]
        daemon = next(s for s in ours if s.pid != child.pid)
        assert child.pid in {s.pid for s in ours}
        assert daemon.command.startswith(f"{marker}-daemon")
        kill(ours)
        child.wait(timeout=10)
        _wait(lambda: not [s for s in survivors() if marker in s.command])
    finally:
        kill([s for s in survivors() if marker in s.command])   # the daemon too, when a check failed
        child.kill()
        child.wait()


def test_another_owner_sees_none_of_ours() -> None:
    child = subprocess.Popen(["sleep", "300"])
    other = subprocess.Popen(["sleep", "300"], env={})  # no children, no owner variable
    try:
        _wait(lambda: any(s.pid == child.pid for s in survivors()))
        assert survivors(owner=other.pid) == []
    finally:
        for p in (child, other):
            p.kill()
            p.wait()
