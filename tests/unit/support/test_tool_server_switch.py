"""Which calls ``run_tool`` may send to a tool server: the one-shot admin tools, unless
``KAFPY_TOOL_SERVER=0`` gives every tool a JVM of its own."""
from __future__ import annotations

import pytest

from tests.support import tool_server


def test_admin_tools_go_to_the_server_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFPY_TOOL_SERVER", raising=False)
    assert tool_server.enabled()
    assert tool_server.pooled("kafka-topics") and tool_server.pooled("kafka-configs.sh")
    # tools that read stdin or run until stopped never do
    assert not tool_server.pooled("kafka-console-producer")
    assert not tool_server.pooled("kafka-server-start")


def test_zero_turns_the_server_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFPY_TOOL_SERVER", "0")
    assert not tool_server.enabled()
    assert not tool_server.pooled("kafka-topics")
    monkeypatch.setenv("KAFPY_TOOL_SERVER", "1")
    assert tool_server.pooled("kafka-topics")
