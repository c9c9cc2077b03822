"""The console consumer and producer stop cleanly on SIGTERM and SIGINT (Ctrl-C): the
consumer reports its count, the producer sends what it has read."""
from __future__ import annotations

import signal
import subprocess
import time

import pytest

from tests.integration.scripts.tools import run_script, started_script


def read_line(proc: subprocess.Popen, timeout: float = 60.0) -> str:
    """One line of the consumer's stdout, waiting at most `timeout` seconds."""
    import selectors
    assert proc.stdout is not None, "started with stdout=PIPE"
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sel.select(timeout=0.5):
            return proc.stdout.readline()
    raise AssertionError("no output from the consumer")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_consumer_stops_cleanly(broker, sig):
    b = broker.bootstrap
    topic = f"sig-{sig.name.lower()}"
    assert run_script("kafka-topics", "--create", "--bootstrap-server", b, "--topic", topic).returncode == 0
    assert run_script("kafka-console-producer", "--bootstrap-server", b, "--topic", topic,
                      input="first\n").returncode == 0
    with started_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", topic,
                        "--from-beginning", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True) as proc:
        assert read_line(proc) == "first\n"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.splitlines()[-1] == "Processed a total of 1 messages"


def test_producer_sends_what_it_read_before_sigterm(broker):
    b = broker.bootstrap
    assert run_script("kafka-topics", "--create", "--bootstrap-server", b, "--topic", "psig").returncode == 0
    with started_script("kafka-console-producer", "--bootstrap-server", b, "--topic", "psig",
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True) as proc:
        proc.stdin.write("one\ntwo\n")
        proc.stdin.flush()
        consumed = run_script("kafka-console-consumer", "--bootstrap-server", b, "--topic", "psig",
                              "--from-beginning", "--max-messages", "2", "--timeout-ms", "30000")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert consumed.stdout.splitlines() == ["one", "two"], consumed.stderr
    assert proc.returncode == 0
