"""Share acknowledgements at the edges of what a consumer holds, the same raw requests
(ShareGroupHeartbeat, ShareFetch, ShareAcknowledge) to Apache Kafka 4.4 and kafpy in the
same test, as Kafka 4.4's SharePartition.acknowledge answers them:

- records below the share-partition start offset are skipped and a batch straddling it
  counts from it: member A took 0-9, accepted 0-4 and released 5-9 (start offset 5), took
  5-9 again and acknowledges 0-9: 5-9 are done (NONE) and never delivered again;
- an acknowledgement reaching past the records read is INVALID_REQUEST;
- GAP acknowledgements go through the owner check: B marking A's records as gaps is
  INVALID_RECORD_STATE and A still holds them.
"""
from __future__ import annotations

import time
import uuid
from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.batch_builder import build_batch
from tests.integration.broker.raw import RawConnection, produce_request
from tests.support.side_by_side import apache_and_kafpy
from tests.support.ports import LOOPBACK

SETTINGS = {"group.share.record.lock.duration.ms": 15000}
ACCEPT, RELEASE, GAP = 1, 2, 0


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("share-acks"), SETTINGS)


class Member:
    """One share-group member speaking raw requests on its own connection."""

    def __init__(self, port: int, group: str, topic: str, topic_id: Any) -> None:
        self.conn = RawConnection(LOOPBACK, port, timeout=30)
        self.group, self.topic, self.topic_id = group, topic, topic_id
        self.member_id = str(uuid.uuid4())
        self.session_epoch = 0

    def join(self) -> None:
        """Heartbeat until the partition is assigned."""
        epoch = 0
        deadline = time.monotonic() + 60
        while True:
            r = self.conn.request(ApiKey.SHARE_GROUP_HEARTBEAT, 1, M.ShareGroupHeartbeatRequest(
                group_id=self.group, member_id=self.member_id, member_epoch=epoch, rack_id=None,
                subscribed_topic_names=[self.topic] if epoch == 0 else None))
            if r.error_code in (14, 15, 16):    # the group coordinator is still loading
                self.conn.request(ApiKey.FIND_COORDINATOR, 4, M.FindCoordinatorRequest(
                    key="", key_type=0, coordinator_keys=[self.group]))
                assert time.monotonic() < deadline, r
                time.sleep(0.2)
                continue
            assert r.error_code == 0, r
            epoch = r.member_epoch
            if r.assignment is not None and r.assignment.topic_partitions:
                return
            assert time.monotonic() < deadline, "never assigned"
            time.sleep(0.2)

    def fetch(self, wait_ms: int = 2000) -> list[tuple[int, int, int]]:
        """One ShareFetch; the acquired (first, last, delivery count)."""
        F = M.ShareFetchRequest
        r = self.conn.request(ApiKey.SHARE_FETCH, 1, F(
            group_id=self.group, member_id=self.member_id, share_session_epoch=self.session_epoch,
            max_wait_ms=wait_ms, min_bytes=1, max_bytes=1 << 20, max_records=500, batch_size=500,
            topics=[F.FetchTopic(topic_id=self.topic_id, partitions=[F.FetchPartition(
                partition_index=0, partition_max_bytes=1 << 20, acknowledgement_batches=[])])]
            if self.session_epoch == 0 else [], forgotten_topics_data=[]))
        self.session_epoch += 1
        assert r.error_code == 0, r
        out = []
        for t in r.responses:
            for p in t.partitions:
                assert p.error_code == 0, p
                out += [(a.first_offset, a.last_offset, a.delivery_count) for a in p.acquired_records]
        return out

    def fetch_until(self, want: int) -> list[tuple[int, int, int]]:
        deadline = time.monotonic() + 60
        got: list[tuple[int, int, int]] = []
        while sum(b - a + 1 for a, b, _ in got) < want:
            assert time.monotonic() < deadline, got
            got += self.fetch()
        return got

    def acknowledge(self, first: int, last: int, types: list[int]) -> int:
        """One ShareAcknowledge of `first`..`last`; the partition's error code."""
        A = M.ShareAcknowledgeRequest
        r = self.conn.request(ApiKey.SHARE_ACKNOWLEDGE, 1, A(
            group_id=self.group, member_id=self.member_id, share_session_epoch=self.session_epoch,
            topics=[A.AcknowledgeTopic(topic_id=self.topic_id, partitions=[A.AcknowledgePartition(
                partition_index=0, acknowledgement_batches=[A.AcknowledgementBatch(
                    first_offset=first, last_offset=last, acknowledge_types=types)])])]))
        self.session_epoch += 1
        assert r.error_code == 0, r
        return r.responses[0].partitions[0].error_code

    def close(self) -> None:
        self.conn.close()


def _create_topic(port: int, topic: str) -> Any:
    T = M.CreateTopicsRequest
    with RawConnection(LOOPBACK, port) as c:
        r = c.request(ApiKey.CREATE_TOPICS, 7, T(timeout_ms=30000, validate_only=False, topics=[
            T.CreatableTopic(name=topic, num_partitions=1, replication_factor=1, assignments=[],
                             configs=[])]))
    assert r.topics[0].error_code == 0, r.topics[0]
    return r.topics[0].topic_id


def _produce(port: int, topic: str, n: int, start: int) -> None:
    batch = build_batch([(b"k", b"v%d" % (start + i)) for i in range(n)])
    with RawConnection(LOOPBACK, port) as c:
        r = c.request(ApiKey.PRODUCE, 9, produce_request(topic, batch))
    assert r.responses[0].partition_responses[0].error_code == 0


def _scenario(port: int) -> list[object]:
    topic, group = "share-ack-edges", "share-ack-edges-group"
    topic_id = _create_topic(port, topic)
    a = Member(port, group, topic, topic_id)
    b = Member(port, group, topic, topic_id)
    answers: list[object] = []
    try:
        a.join()
        a.fetch(wait_ms=500)    # opens the session; the share partition starts at the (empty) end
        _produce(port, topic, 10, 0)
        answers.append(a.fetch_until(10))                                       # [(0, 9, 1)]
        answers.append(a.acknowledge(0, 9, [ACCEPT] * 5 + [RELEASE] * 5))
        answers.append(a.fetch_until(5))                                        # [(5, 9, 2)]
        answers.append(("overlapping the start offset", a.acknowledge(0, 9, [ACCEPT])))
        _produce(port, topic, 10, 10)
        answers.append(a.fetch_until(10))               # 10-19 only: 5-9 were done
        answers.append(("past the records read", a.acknowledge(15, 25, [ACCEPT])))
        b.join()
        answers.append(b.fetch(wait_ms=300))            # nothing for B: A holds 10-19
        answers.append(("B's gaps over A's records", b.acknowledge(10, 19, [GAP])))
        answers.append(("A still holds them", a.acknowledge(10, 19, [ACCEPT])))
    finally:
        a.close()
        b.close()
    return answers


def test_acknowledgements_around_what_the_member_holds(brokers):
    got = {name: _scenario(broker.port) for name, broker in brokers.items()}
    assert got["kafpy"] == got["apache"]
    assert got["apache"] == [
        [(0, 9, 1)], 0, [(5, 9, 2)], ("overlapping the start offset", 0), [(10, 19, 1)],
        ("past the records read", 42), [], ("B's gaps over A's records", 121),
        ("A still holds them", 0)], got
