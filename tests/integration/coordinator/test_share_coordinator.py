"""The share coordinator on one broker, in raw requests as a Kafka broker's persister sends
them: FindCoordinator key type 2, then InitializeShareGroupState, WriteShareGroupState,
ReadShareGroupState, ReadShareGroupStateSummary and DeleteShareGroupState with Kafka's
answers (fencing, uninitialized partitions, unknown topics); the state survives a restart
(replayed from `__share_group_state`), and Apache's `kafka-dump-log
--share-group-state-decoder` reads the records. The same requests go to Apache Kafka 4.4,
whose answers must match ours."""
from __future__ import annotations

import re
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.share_state.persister import SharePartitionKey
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode as E
from tests.integration.broker.raw import RawConnection
from tests.integration.cluster.harness import metadata, wait_until
from tests.integration.coordinator.helpers import create_topic
from tests.support.kafka_dist import DEFAULT_KAFKA_4, run_tool
from tests.support.kafpy_broker import KafpyBroker

FIND_COORDINATOR, INITIALIZE, READ, WRITE, DELETE, SUMMARY = 10, 83, 84, 85, 86, 87
STATE_PARTITIONS = 3


def topic_id(broker: Any, topic: str) -> uuid.UUID:
    """The topic's id once the broker's Metadata knows it: Apache's broker can answer the
    zero id for a while after CreateTopics returned, its image behind the controller's
    commit on a loaded machine."""
    def known() -> uuid.UUID | None:
        found = uuid.UUID(bytes=bytes(metadata(broker, [topic]).topics[0].topic_id))
        return found if found.int else None
    found = wait_until(known, 60, f"the topic id of {topic}")
    assert found is not None
    return found


def find_share_coordinator(c: RawConnection, key: SharePartitionKey) -> Any:
    r = c.request(FIND_COORDINATOR, 6, M.FindCoordinatorRequest(key_type=2, coordinator_keys=[str(key)]))
    return r.coordinators[0]


def initialize(c: RawConnection, key: SharePartitionKey, state_epoch: int, start_offset: int) -> Any:
    R = M.InitializeShareGroupStateRequest
    r = c.request(INITIALIZE, 0, R(group_id=key.group_id, topics=[R.InitializeStateData(
        topic_id=key.topic_id.bytes, partitions=[R.PartitionData(partition=key.partition, state_epoch=state_epoch,
                                                                 start_offset=start_offset)])]))
    return r.results[0].partitions[0]


def write(c: RawConnection, key: SharePartitionKey, state_epoch: int, leader_epoch: int, start_offset: int,
          batches: list[tuple[int, int, int, int]]) -> Any:
    R = M.WriteShareGroupStateRequest
    r = c.request(WRITE, 1, R(group_id=key.group_id, topics=[R.WriteStateData(
        topic_id=key.topic_id.bytes, partitions=[R.PartitionData(
            partition=key.partition, state_epoch=state_epoch, leader_epoch=leader_epoch, start_offset=start_offset,
            delivery_complete_count=-1,
            state_batches=[R.StateBatch(first_offset=a, last_offset=b, delivery_state=s, delivery_count=n)
                           for a, b, s, n in batches])])]))
    return r.results[0].partitions[0]


def read(c: RawConnection, key: SharePartitionKey, leader_epoch: int) -> Any:
    R = M.ReadShareGroupStateRequest
    r = c.request(READ, 0, R(group_id=key.group_id, topics=[R.ReadStateData(
        topic_id=key.topic_id.bytes, partitions=[R.PartitionData(partition=key.partition, leader_epoch=leader_epoch)])]))
    return r.results[0].partitions[0]


def summary(c: RawConnection, key: SharePartitionKey) -> Any:
    R = M.ReadShareGroupStateSummaryRequest
    r = c.request(SUMMARY, 1, R(group_id=key.group_id, topics=[R.ReadStateSummaryData(
        topic_id=key.topic_id.bytes, partitions=[R.PartitionData(partition=key.partition, leader_epoch=0)])]))
    return r.results[0].partitions[0]


def delete(c: RawConnection, key: SharePartitionKey) -> Any:
    R = M.DeleteShareGroupStateRequest
    r = c.request(DELETE, 0, R(group_id=key.group_id, topics=[R.DeleteStateData(
        topic_id=key.topic_id.bytes, partitions=[R.PartitionData(partition=key.partition)])]))
    return r.results[0].partitions[0]


def earliest_offset(c: RawConnection, topic: str, partition: int) -> int:
    L = M.ListOffsetsRequest
    r = c.request(2, 5, L(replica_id=-1, isolation_level=0, topics=[L.ListOffsetsTopic(
        name=topic, partitions=[L.ListOffsetsPartition(partition_index=partition, timestamp=-2)])]))
    p = r.topics[0].partitions[0]
    assert p.error_code == E.NONE, p
    return p.offset


def batches(p: Any) -> list[tuple[int, int, int, int]]:
    return [(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in p.state_batches]


def wait_for_coordinator(host: str, port: int, key: SharePartitionKey) -> Any:
    """The coordinator of `key` once FindCoordinator finds it (the first call creates the
    topic) and it has loaded its partition (a summary no longer answers a load error)."""
    def found() -> Any:
        with RawConnection(host, port) as c:
            coordinator = find_share_coordinator(c, key)
            if coordinator.error_code != E.NONE:
                return None
            return coordinator if summary(c, key).error_code == E.NONE else None
    return wait_until(found, 60, f"the share coordinator of {key}")


def conversation(host: str, port: int, key: SharePartitionKey, unknown: SharePartitionKey) -> list[tuple]:
    """The persister's requests in order, each answer reduced to what both brokers must agree
    on (error codes, state epochs, start offsets, batches)."""
    out: list[tuple] = []
    with RawConnection(host, port) as c:
        s = summary(c, key)
        out.append(("summary uninitialized", s.error_code, s.state_epoch, s.leader_epoch, s.start_offset,
                    s.delivery_complete_count))
        out.append(("delete uninitialized", delete(c, key).error_code))
        out.append(("find malformed key", c.request(FIND_COORDINATOR, 6, M.FindCoordinatorRequest(
            key_type=2, coordinator_keys=["no-partition"])).coordinators[0].error_code))
        out.append(("read uninitialized", read(c, key, 0).error_code))
        out.append(("write uninitialized", write(c, key, 0, 0, 0, []).error_code))
        out.append(("initialize", initialize(c, key, 0, 5).error_code))
        p = read(c, key, 1)
        out.append(("read", p.error_code, p.state_epoch, p.start_offset, batches(p)))
        out.append(("write", write(c, key, 0, 1, 5, [(5, 9, 2, 1), (10, 14, 0, 2)]).error_code))
        out.append(("write", write(c, key, 0, 1, 8, [(12, 12, 4, 5)]).error_code))
        p = read(c, key, 1)
        out.append(("read", p.error_code, p.state_epoch, p.start_offset, batches(p)))
        out.append(("stale leader epoch", write(c, key, 0, 0, 8, []).error_code))
        out.append(("read stale leader epoch", read(c, key, 0).error_code))
        out.append(("initialize stale state epoch", initialize(c, key, 0, 0).error_code))
        out.append(("initialize new state epoch", initialize(c, key, 1, 20).error_code))
        out.append(("stale state epoch", write(c, key, 0, 1, 20, []).error_code))
        s = summary(c, key)
        out.append(("summary", s.error_code, s.state_epoch, s.start_offset))
        out.append(("unknown topic", initialize(c, unknown, 0, 0).error_code))
    return out


EXPECTED = [
    ("summary uninitialized", E.NONE, 0, 0, -1, -1),
    ("delete uninitialized", E.NONE),
    ("find malformed key", E.INVALID_REQUEST),
    ("read uninitialized", E.INVALID_REQUEST),
    ("write uninitialized", E.INVALID_REQUEST),
    ("initialize", E.NONE),
    ("read", E.NONE, 0, 5, []),
    ("write", E.NONE),
    ("write", E.NONE),
    ("read", E.NONE, 0, 8, [(8, 9, 2, 1), (10, 11, 0, 2), (12, 12, 4, 5), (13, 14, 0, 2)]),
    ("stale leader epoch", E.FENCED_LEADER_EPOCH),
    ("read stale leader epoch", E.FENCED_LEADER_EPOCH),
    ("initialize stale state epoch", E.NONE),
    ("initialize new state epoch", E.NONE),
    ("stale state epoch", E.FENCED_STATE_EPOCH),
    ("summary", E.NONE, 1, 20),
    ("unknown topic", E.UNKNOWN_TOPIC_OR_PARTITION),
]


@pytest.fixture(scope="module")
def share_broker(tmp_path_factory):
    work = tmp_path_factory.mktemp("kafpy-share-coord")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150,
                    overrides={"share.coordinator.state.topic.num.partitions": STATE_PARTITIONS,
                               "share.coordinator.snapshot.update.records.per.snapshot": 2,
                               "share.coordinator.state.topic.prune.interval.ms": 300,
                               # its batches zstd: replay after the restart and Apache's decoder read them
                               "share.coordinator.state.topic.compression.codec": 4})
    b.start()
    try:
        yield b
    finally:
        b.stop()


def test_persister_rpcs_restart_and_dump_log(share_broker):
    b = share_broker
    create_topic(b.bootstrap, "share-coord", 2)
    key = SharePartitionKey("sg1", topic_id(b, "share-coord"), 0)
    unknown = SharePartitionKey("sg1", uuid.uuid4(), 0)
    coordinator = wait_for_coordinator(b.host, b.port, key)
    assert coordinator.node_id == 0 and coordinator.port == b.port
    assert conversation(b.host, b.port, key, unknown) == EXPECTED

    with RawConnection(b.host, b.port) as c:
        # more writes than share.coordinator.snapshot.update.records.per.snapshot: a snapshot among them
        for i in range(5):
            assert write(c, key, 1, 2, 20 + i, [(20 + i, 20 + i, 2, 1)]).error_code == E.NONE
        before = read(c, key, 2)
        assert (before.start_offset, batches(before)) == (24, [(24, 24, 2, 1)])
        doomed = SharePartitionKey("sg-deleted", key.topic_id, 1)
        wait_for_coordinator(b.host, b.port, doomed)
        assert initialize(c, doomed, 0, 0).error_code == E.NONE
        assert delete(c, doomed).error_code == E.NONE
        assert read(c, doomed, 0).error_code == E.INVALID_REQUEST

    # the records the last snapshots made redundant are pruned from the partition's start
    state_partition = partition_for(str(key), STATE_PARTITIONS)
    with RawConnection(b.host, b.port) as c:
        wait_until(lambda: earliest_offset(c, "__share_group_state", state_partition) > 0, 30,
                   "__share_group_state pruned")

    b.stop()
    b.start()
    wait_for_coordinator(b.host, b.port, key)
    with RawConnection(b.host, b.port) as c:
        after = read(c, key, 2)
        assert (after.error_code, after.state_epoch, after.start_offset, batches(after)) == \
            (E.NONE, 1, 24, [(24, 24, 2, 1)])
        assert read(c, doomed, 0).error_code == E.INVALID_REQUEST

    segment = (Path(b.log_dir) / f"__share_group_state-{state_partition}"
               / "00000000000000000000.log")
    dumped = run_tool(DEFAULT_KAFKA_4, "kafka-dump-log",
                      ["--files", str(segment), "--share-group-state-decoder", "--print-data-log"]).stdout
    assert '"type":"0"' in dumped and '"type":"1"' in dumped, dumped[-3000:]
    assert '"groupId":"sg1"' in dumped and '"startOffset":24' in dumped, dumped[-3000:]
    assert "Unknown" not in dumped and "error" not in dumped.lower(), dumped[-3000:]
    assert {c.lower() for c in re.findall(r"compresscodec: (\w+)", dumped)} == {"zstd"}, dumped[-3000:]


def test_same_answers_as_apache_kafka(reference_kafka, share_broker):
    """The conversation above, against Apache Kafka 4.4 (KRaft) and kafpy: the same answers."""
    ref = SimpleNamespace(host="127.0.0.1", port=reference_kafka.port)
    create_topic(reference_kafka.bootstrap, "share-coord-ref", 2)
    key = SharePartitionKey("sg-ref", topic_id(ref, "share-coord-ref"), 0)
    wait_for_coordinator(ref.host, ref.port, key)

    def state_sizes() -> dict[str, int]:
        return {d.name: sum(f.stat().st_size for f in d.glob("*.log"))
                for d in Path(reference_kafka.log_dir).glob("__share_group_state-*")}
    # the session's Apache broker is shared: other tests' share groups wrote state before
    before = state_sizes()
    assert conversation(ref.host, ref.port, key, SharePartitionKey("sg-ref", uuid.uuid4(), 0)) == EXPECTED
    # Kafka put the key's records in the `__share_group_state` partition we compute for it
    # (50 partitions by default), and in no other
    written = {name for name, size in state_sizes().items() if size > before.get(name, 0)}
    assert written == {f"__share_group_state-{partition_for(str(key), 50)}"}, written
