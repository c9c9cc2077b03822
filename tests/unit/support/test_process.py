"""process.terminate / wait_for on short-lived child processes (no sockets)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.process import ProcessFailed, terminate, wait_for

IGNORE_TERM = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
               "print('up', flush=True); time.sleep(60)")


def test_terminate_escalates_to_sigkill():
    proc = subprocess.Popen([sys.executable, "-c", IGNORE_TERM], stdout=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdout.readline() == b"up\n"
    assert terminate(proc, timeout=0.5) == -9


def test_terminate_returns_clean_exit_code():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    assert terminate(proc, timeout=30) == -15


def test_wait_for_reports_early_exit_with_output(tmp_path):
    log = tmp_path / "out.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", "print('boom'); raise SystemExit(3)"],
                                stdout=out, stderr=subprocess.STDOUT)
    with pytest.raises(ProcessFailed, match="exited with 3") as err:
        wait_for(lambda: False, timeout=60, what="child", proc=proc, log_path=log)
    assert "boom" in str(err.value)


def test_wait_for_times_out_and_treats_probe_errors_as_not_ready():
    calls = []

    def probe():
        calls.append(1)
        raise ConnectionRefusedError

    with pytest.raises(ProcessFailed, match="not ready"):
        wait_for(probe, timeout=0.3, what="nothing", interval=0.05)
    assert calls


def test_line_reader_returns_lines_and_reports_eof():
    from tests.support.process import LineReader

    proc = subprocess.Popen([sys.executable, "-c", "print('a'); print('b')"],
                            stdout=subprocess.PIPE, text=True)
    reader = LineReader(proc.stdout)
    assert reader.lines(2, timeout=60) == ["a", "b"]
    with pytest.raises(EOFError):
        reader.lines(1, timeout=60)
    proc.wait(timeout=30)
