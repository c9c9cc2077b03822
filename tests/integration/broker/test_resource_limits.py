"""A broker out of file descriptors stays up: the requests that needed one are answered
KAFKA_STORAGE_ERROR, everything else is served, and it works again once descriptors are
available again. Empty partitions hold no descriptor at all."""
from __future__ import annotations

import os
import resource
from typing import Iterator

import pytest

from kafpy.protocol.messages import CreateTopicsRequest, DeleteTopicsRequest
from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import CREATE_TOPICS, PRODUCE, RawConnection, produce_request
from tests.support.kafpy_broker import KafpyBroker

DELETE_TOPICS = 20
STORAGE_ERROR = 56


@pytest.fixture
def broker(tmp_path) -> Iterator[KafpyBroker]:
    b = KafpyBroker(work_dir=tmp_path, log_dir=tmp_path / "logs", start_timeout=150)
    b.start()
    try:
        yield b
    finally:
        b.stop()


def _create(c: RawConnection, name: str, partitions: int) -> int:
    T = CreateTopicsRequest
    resp = c.request(CREATE_TOPICS, 5, T(timeout_ms=30000, validate_only=False, topics=[T.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])]))
    return resp.topics[0].error_code


def _produce(c: RawConnection, topic: str, partitions: range) -> list[int]:
    req = produce_request(topic, b"", acks=1)
    proto = req.topic_data[0].partition_data[0]
    req.topic_data[0].partition_data = [type(proto)(index=p, records=build_batch([(b"k", b"v")]))
                                        for p in partitions]
    resp = c.request(PRODUCE, 8, req)
    return [p.error_code for p in sorted(resp.responses[0].partition_responses, key=lambda p: p.index)]


def test_running_out_of_descriptors_is_not_fatal(broker):
    with RawConnection(broker.host, broker.port, timeout=60) as c:
        assert _create(c, "keep", 1) == 0
        assert _produce(c, "keep", range(1)) == [0]
        pid = broker.proc.pid
        in_use = len(os.listdir(f"/proc/{pid}/fd"))
        limit = in_use + 40
        limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (limit, limits[1]))  # the soft limit
        # partitions nobody wrote to cost no descriptor: far more than the limit are created
        assert _create(c, "fill", 200) == 0
        # each written partition holds its .log open: the first ~40 work, then errors
        codes = _produce(c, "fill", range(200))
        assert codes.count(0) > 10 and STORAGE_ERROR in codes, codes
        assert set(codes) <= {0, STORAGE_ERROR}
        # the broker is up and serves the partitions it has open
        assert _produce(c, "keep", range(1)) == [0]
        # a topic whose logs cannot all be made is not created (none of them is kept)
        assert _create(c, "more", 50) in (0, STORAGE_ERROR)
        D = DeleteTopicsRequest
        # every change needs a descriptor for a moment (the metadata file): refused, not fatal
        resp = c.request(DELETE_TOPICS, 4, D(topic_names=["fill"], timeout_ms=30000))
        assert resp.responses[0].error_code in (0, STORAGE_ERROR)
        # descriptors come back: everything works again, the failed partitions too
        resource.prlimit(pid, resource.RLIMIT_NOFILE, limits)
        assert _create(c, "after", 20) == 0
        assert _produce(c, "after", range(20)) == [0] * 20
        assert _produce(c, "keep", range(1)) == [0]
        resp = c.request(DELETE_TOPICS, 4, D(topic_names=["fill", "after"], timeout_ms=30000))
        assert [r.error_code for r in resp.responses if r.name == "after"] == [0]
    assert broker.running
    assert "Traceback" not in broker.log_text() or "Too many open files" in broker.log_text()
