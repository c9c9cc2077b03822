"""QuorumConfig's defaults (Kafka 4.4's) and its reading of controller.quorum.* properties;
RequestManager's in-flight, timeout and backoff bookkeeping."""
from __future__ import annotations

import pytest

from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.request_manager import RequestManager


def test_defaults_are_kafkas() -> None:
    c = QuorumConfig()
    assert (c.election_timeout_ms, c.election_backoff_max_ms, c.fetch_timeout_ms,
            c.request_timeout_ms, c.retry_backoff_ms) == (1000, 1000, 2000, 2000, 20)
    assert (c.fetch_max_bytes, c.fetch_snapshot_max_bytes) == (1048576, 1048576)


def test_from_properties() -> None:
    c = QuorumConfig.from_properties({"controller.quorum.election.timeout.ms": "300",
                                      "controller.quorum.fetch.timeout.ms": "900",
                                      "unrelated": "x"})
    assert c.election_timeout_ms == 300 and c.fetch_timeout_ms == 900 and c.request_timeout_ms == 2000
    with pytest.raises(ValueError):
        QuorumConfig.from_properties({"controller.quorum.fetch.timeout.ms": "-1"})
    with pytest.raises(ValueError):
        QuorumConfig.from_properties({"controller.quorum.fetch.timeout.ms": "soon"})
    c = QuorumConfig.from_properties({"controller.quorum.fetch.max.bytes": "4096",
                                      "controller.quorum.fetch.snapshot.max.bytes": "8192"})
    assert (c.fetch_max_bytes, c.fetch_snapshot_max_bytes) == (4096, 8192)
    for key in ("controller.quorum.fetch.max.bytes", "controller.quorum.fetch.snapshot.max.bytes"):
        with pytest.raises(ValueError, match=f"Invalid value 0 for configuration {key}: Value must be at least 1"):
            QuorumConfig.from_properties({key: "0"})


def test_request_manager() -> None:
    m = RequestManager(request_timeout_ms=100, retry_backoff_ms=20)
    assert m.is_ready(2, 0)
    m.on_send(2, 7, 0)
    assert not m.is_ready(2, 50) and m.has_any_in_flight()
    assert not m.on_response(2, 6, 50)  # not the one in flight
    assert m.on_response(2, 7, 50) and m.is_ready(2, 50)
    assert not m.on_response(2, 7, 60)  # answered already
    m.on_send(3, 8, 100)
    m.expire(199)
    assert not m.is_ready(3, 199)
    m.expire(200)  # timed out: backs off before the next try
    assert not m.is_ready(3, 210) and m.is_ready(3, 220)
    assert not m.on_response(3, 8, 230)  # a late answer is no longer expected
    m.on_send(3, 9, 230)
    m.reset_all()
    assert m.is_ready(3, 230) and not m.has_any_in_flight()
