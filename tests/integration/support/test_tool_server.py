"""The tool server that runs Apache's one-shot admin tools for ``run_tool``
(tests/support/tool_server.py): for Kafka 3.9 and 4 it answers what a JVM of the tool's own
answers (exit code, stdout, stderr), against a live kafpy broker and offline, and a run past
its timeout ends as subprocess.run's does."""
from __future__ import annotations

import re
import subprocess
import uuid

import pytest

from tests.support import tool_server
from tests.support.kafka_dist import run_tool
from tests.support.kafpy_broker import KafpyBroker


def _first_trace_line(stderr: str) -> str:
    """Of a stack trace, the text before the first frame (the frames below main differ)."""
    return stderr.split("\n\tat ", 1)[0]


def _untimed(text: str) -> str:
    """Log lines with their timestamps taken out."""
    return re.sub(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ", "[time] ", text, flags=re.M)


@pytest.mark.parametrize("version", ["3.9", "4"])
def test_pooled_runs_answer_as_fresh_jvms(broker: KafpyBroker, version: str, monkeypatch) -> None:
    monkeypatch.setenv("KAFPY_TOOL_SERVER", "1")
    bs = ["--bootstrap-server", broker.bootstrap]
    topic = f"pooled-{uuid.uuid4().hex[:8]}"
    cases = [
        ("kafka-topics", ["--version"]),            # Exit.exit(0) inside a catch of Throwable
        ("kafka-topics", []),                       # a usage error
        ("kafka-topics", [*bs, "--describe", "--topic", "nope"]),   # an error from the broker
        ("kafka-topics", [*bs, "--list"]),
        ("kafka-configs", [*bs, "--describe", "--entity-type", "brokers", "--entity-default"]),
        ("kafka-configs", ["--help"]),
        ("kafka-consumer-groups", [*bs, "--list"]),
        ("kafka-topics", [*bs, "--list", "--command-config", "/nonexistent.properties"]),
    ]
    if version == "4":
        cases += [("kafka-features", [*bs, "describe"]),
                  ("kafka-storage", ["version-mapping", "-r", "3.9"])]
    served_before = tool_server.served(version)
    created = run_tool(version, "kafka-topics", [*bs, "--create", "--topic", topic, "--partitions", "2"])
    assert created.returncode == 0 and topic in created.stdout
    # earlier tests of this worker may have left servers idle: count runs, not servers
    assert tool_server.served(version) == served_before + 1, "the create above ran in a tool server"
    codes = set()
    for tool, args in cases:
        served = run_tool(version, tool, args, check=False, timeout=60)
        fresh = run_tool(version, tool, args, check=False, timeout=60, fresh_jvm=True)
        if (served.returncode, served.stdout) != (fresh.returncode, fresh.stdout):
            # once more, both: on a loaded machine one JVM's admin client can time out (a
            # fresh 3.9 one printed "Failed to find brokers to send ListGroups" in a CI run)
            served = run_tool(version, tool, args, check=False, timeout=60)
            fresh = run_tool(version, tool, args, check=False, timeout=60, fresh_jvm=True)
        assert (served.returncode, served.stdout) == (fresh.returncode, fresh.stdout), (tool, args)
        served_err, fresh_err = _untimed(served.stderr), _untimed(fresh.stderr)
        if "\n\tat " in fresh_err:
            assert _first_trace_line(served_err) == _first_trace_line(fresh_err), (tool, args)
        else:
            assert served_err == fresh_err, (tool, args)
        codes.add(served.returncode)
    assert codes == {0, 1}
    described = run_tool(version, "kafka-topics", [*bs, "--describe", "--topic", topic])
    assert described.stdout.count(f"Topic: {topic}\tPartition:") == 2


def test_a_run_past_its_timeout_kills_its_server_and_the_next_run_gets_a_new_one(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KAFPY_TOOL_SERVER", "1")
    tool_server.close_all()   # servers earlier tests of this worker left idle would stay alive
    # a broker that accepts and never answers: the admin client waits out its own timeouts
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            run_tool("4", "kafka-topics", ["--bootstrap-server", f"127.0.0.1:{port}", "--list"],
                     timeout=3)
    finally:
        listener.close()
    key = ("4", *tool_server._key_tail())
    assert not any(s.alive() for s in tool_server._idle.get(key, [])), "the stuck server was killed"
    version = run_tool("4", "kafka-topics", ["--version"])
    assert version.returncode == 0 and version.stdout.strip()
    assert any(s.alive() for s in tool_server._idle[key])
