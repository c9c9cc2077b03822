"""A broker with two log dirs, one a small tmpfs that fills: that dir goes offline (its
partitions answer KAFKA_STORAGE_ERROR and are listed offline), the other dir's partitions
keep working, and after a restart with space again every acknowledged record is intact."""
from __future__ import annotations

import subprocess

from kafpy.protocol.messages import FetchRequest, ListOffsetsRequest, MetadataRequest
from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic, produce_request, read_all
from tests.support.kafpy_broker import KafpyBroker

FETCH, LIST_OFFSETS, METADATA = 1, 2, 3
STORAGE_ERROR = 56
VALUE = 64 * 1024


def _produce(c: RawConnection, topic: str, partition: int, value: bytes) -> int:
    resp = c.request(PRODUCE, 8, produce_request(topic, build_batch([(b"k", value)]), partition, acks=1))
    return resp.responses[0].partition_responses[0].error_code


def _fetch_errors(c: RawConnection, topic: str, partitions: range) -> dict[int, int]:
    F = FetchRequest
    resp = c.request(FETCH, 11, F(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, session_epoch=-1,
                                  topics=[F.FetchTopic(topic=topic, partitions=[
                                      F.FetchPartition(partition=p, fetch_offset=0, partition_max_bytes=1024)
                                      for p in partitions])]))
    return {p.partition_index: p.error_code for p in resp.responses[0].partitions}


def _list_offsets_errors(c: RawConnection, topic: str, partitions: range) -> dict[int, int]:
    L = ListOffsetsRequest
    resp = c.request(LIST_OFFSETS, 5, L(replica_id=-1, topics=[L.ListOffsetsTopic(name=topic, partitions=[
        L.ListOffsetsPartition(partition_index=p, timestamp=-1) for p in partitions])]))
    return {p.partition_index: p.error_code for p in resp.topics[0].partitions}


def test_a_full_log_dir_goes_offline_and_the_other_keeps_working(tmp_path, small_fs):
    big = tmp_path / "logs"
    broker = KafpyBroker(work_dir=tmp_path, log_dir=big, start_timeout=150,
                         overrides={"log.dirs": f"{big},{small_fs}"})
    broker.start()
    try:
        create_topic(broker.port, "t", 4)  # new logs alternate between the dirs
        on_small = sorted(int(p.name.rsplit("-", 1)[1]) for p in small_fs.iterdir() if p.name.startswith("t-"))
        on_big = sorted(set(range(4)) - set(on_small))
        assert len(on_small) == len(on_big) == 2
        acked: dict[int, list[bytes]] = {p: [] for p in range(4)}
        with RawConnection(broker.host, broker.port, timeout=60) as c:
            failed = None
            for i in range(200):
                p = on_small[i % 2]
                value = bytes([i % 251]) * VALUE
                code = _produce(c, "t", p, value)
                if code:
                    failed = code
                    break
                acked[p].append(value)
            assert failed == STORAGE_ERROR and sum(len(acked[p]) for p in on_small) > 5
            expect = {p: STORAGE_ERROR if p in on_small else 0 for p in range(4)}
            for p in range(4):
                code = _produce(c, "t", p, b"after")
                assert code == expect[p], (p, code)
                if code == 0:
                    acked[p].append(b"after")
            assert _fetch_errors(c, "t", range(4)) == expect
            assert _list_offsets_errors(c, "t", range(4)) == expect
            md = c.request(METADATA, 9, MetadataRequest(topics=None))
            (topic,) = [t for t in md.topics if t.name == "t"]
            assert {p.partition_index: p.offline_replicas for p in topic.partitions} == \
                {p: [0] if p in on_small else [] for p in range(4)}
            # freeing space does not bring the dir back before a restart (as Kafka)
            subprocess.run(["mount", "-o", "remount,size=16m", str(small_fs)], check=True)
            assert _produce(c, "t", on_small[0], b"still offline") == STORAGE_ERROR
        assert broker.running
        assert broker.stop() == 0
        broker.start()
        for p in range(4):
            assert [v for _, _, v in read_all(broker.bootstrap, "t", p)] == acked[p], p
        with RawConnection(broker.host, broker.port, timeout=60) as c:
            assert [_produce(c, "t", p, b"again") for p in range(4)] == [0] * 4
    finally:
        broker.stop()
