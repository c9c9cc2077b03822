"""The suite's fork server (tests/support/forkserver.py): a forked broker is started, seen
and ended as a ``subprocess.Popen`` one would be, and commands it does not serve get Popen."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import forkserver
from tests.support.kafpy_broker import KafpyBroker
from tests.support.survivors import survivors


@pytest.fixture(autouse=True)
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the fork server: on even where the run turned it off."""
    monkeypatch.setenv(forkserver.ENABLE_VARIABLE, "1")


def test_a_forked_broker_leads_its_own_session_and_ends_as_popen_would(tmp_path: Path) -> None:
    broker = KafpyBroker(work_dir=tmp_path)
    broker.start()
    try:
        proc = broker.proc
        assert isinstance(proc, forkserver.ForkedProcess)
        assert os.getpgid(proc.pid) == proc.pid == os.getsid(proc.pid)
        assert proc.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.1)
        # its output is the broker's own, in the file the fixture gave it
        assert "] started (kafpy" in broker.log_text()
        cwd = os.readlink(f"/proc/{proc.pid}/cwd")
        assert cwd == str(broker.cwd())
    finally:
        assert broker.stop() == 0   # SIGTERM: a clean shutdown, exit code 0
    assert "shut down completed" in broker.log_text()
    assert proc.pid not in {s.pid for s in survivors()}
    assert broker.restart(kill=False).running
    assert broker.kill() == -signal.SIGKILL


def test_a_failing_start_exits_with_the_interpreter_s_code_and_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.properties"
    bad.write_text("num.partitions=many\n")
    out = open(tmp_path / "out.log", "wb")
    with out:
        proc = forkserver.popen([sys.executable, "-m", "kafpy.broker", str(bad)],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                cwd=tmp_path, start_new_session=True)
    assert isinstance(proc, forkserver.ForkedProcess)
    code = proc.wait(timeout=30)
    assert code != 0 and proc.returncode == code and proc.poll() == code
    assert "num.partitions" in (tmp_path / "out.log").read_text()
    proc.terminate()   # already gone: a no-op, as for Popen


def test_the_cpu_of_reaped_children_is_counted(tmp_path: Path) -> None:
    before = forkserver.reaped_cpu()
    broker = KafpyBroker(work_dir=tmp_path)
    broker.start()
    broker.stop()
    assert forkserver.reaped_cpu() > before


@pytest.mark.parametrize("why", ["environment", "interpreter", "stdin", "switched off"])
def test_commands_it_does_not_serve_get_popen(tmp_path: Path, why: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    env = dict(os.environ)
    python = sys.executable
    stdin: int | None = subprocess.DEVNULL
    if why == "environment":   # read when socket_writer is imported: the server has its own
        env["KAFPY_ZERO_COPY"] = "0"
    elif why == "interpreter":   # as another path names it: it may be another interpreter
        python = os.path.join(os.path.dirname(sys.executable), ".", os.path.basename(sys.executable))
    elif why == "stdin":
        stdin = None
    else:
        monkeypatch.setenv(forkserver.ENABLE_VARIABLE, "0")
    with open(tmp_path / "out.log", "wb") as out:
        proc = forkserver.popen([python, "-m", "kafpy.broker", "--help"], stdin=stdin, stdout=out,
                                stderr=subprocess.STDOUT, env=env)
    assert isinstance(proc, subprocess.Popen)
    assert proc.wait(timeout=60) == 0
