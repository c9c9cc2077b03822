"""The fetcher core and its task over real follower Logs: the Fetch it builds (encoded and
decoded with the real codec per version), what it does with each kind of answer, and the
task's handling of failed requests."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Mapping

import pytest

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FetchResponse, RequestHeader
from kafpy.protocol.records import build_batch
from kafpy.replication.broker_connection import Disconnected
from kafpy.replication.fetch_state import (BrokerEndPoint, FetchState, InitialFetchState, ReplicaFetcherConfig,
                                     TopicPartition, replica_client_config)
from kafpy.replication.fetcher import FetcherCore, fetch_request, response_partitions, whole_batches_size
from kafpy.replication.fetcher_thread import ReplicaFetcherThread
from kafpy.replication.follower_log import StorageFollowerLog

from .in_memory_leader import TP, InMemoryLeader, append, batches, become_leader, open_log

LEADER = BrokerEndPoint(0, "leader", 9092)
TOPIC_ID = bytes(range(1, 17))
TP1 = TopicPartition("other", 1)


def make_core(follower, **config) -> FetcherCore:
    cfg = ReplicaFetcherConfig(**{"replica_id": 7, **config})
    return FetcherCore(cfg, lambda tp: StorageFollowerLog(follower) if tp == TP else None)


def add(core: FetcherCore, offset: int, epoch: int = 3, topic_id: bytes = TOPIC_ID) -> None:
    core.add_partitions({TP: InitialFetchState(LEADER, topic_id, offset, epoch)})


def round_trip(request, version: int):
    header = RequestHeader(request_api_key=1, request_api_version=version, correlation_id=1, client_id="f")
    return codec.decode_request(codec.encode_request(header, request)[4:])[1]


@pytest.mark.parametrize("version", [12, 13, 14, 15, 17])
def test_fetch_request_per_version(tmp_path: Path, version: int) -> None:
    follower = open_log(tmp_path, "f")
    append(follower, 2, b"x")
    follower.maybe_increment_log_start_offset(0)
    core = make_core(follower, broker_epoch=42, fetch_max_bytes=4096, response_max_bytes=65536, min_bytes=5,
                     max_wait_ms=250)
    add(core, follower.log_end_offset)
    plan, errors = core.build_fetch(0)
    assert errors == {} and plan is not None and plan.uses_topic_ids
    req = round_trip(fetch_request(plan, version), version)
    assert (req.max_wait_ms, req.min_bytes, req.max_bytes, req.isolation_level) == (250, 5, 65536, 0)
    assert (req.session_id, req.session_epoch) == (0, -1)
    if version >= 15:
        assert (req.replica_state.replica_id, req.replica_state.replica_epoch) == (7, 42)
    else:
        assert req.replica_id == 7
    [t] = req.topics
    assert t.topic_id == TOPIC_ID if version >= 13 else t.topic == "topic"
    [p] = t.partitions
    assert (p.partition, p.fetch_offset, p.current_leader_epoch, p.last_fetched_epoch, p.log_start_offset,
            p.partition_max_bytes) == (0, 1, 3, 2, 0, 4096)


def test_response_partitions_by_topic_id_and_by_name(tmp_path: Path) -> None:
    core = make_core(open_log(tmp_path, "f"), truncate_on_fetch=False)
    core.add_partitions({TP: InitialFetchState(LEADER, TOPIC_ID, 0, 3)})
    core.states[TP].state = FetchState.FETCHING
    plan, _ = core.build_fetch(0)
    assert plan is not None
    pd = FetchResponse.PartitionData(partition_index=0)
    by_id = FetchResponse(responses=[FetchResponse.FetchableTopicResponse(topic_id=TOPIC_ID, partitions=[pd]),
                                     FetchResponse.FetchableTopicResponse(topic_id=bytes(16), partitions=[pd])])
    assert response_partitions(plan, by_id, 13) == {TP: pd}
    by_name = FetchResponse(responses=[FetchResponse.FetchableTopicResponse(topic="topic", partitions=[pd])])
    assert response_partitions(plan, by_name, 12) == {TP: pd}


def test_whole_batches_size_drops_a_partial_last_batch() -> None:
    one = build_batch([(None, b"a" * 50)])
    two = build_batch([(None, b"b" * 50)])
    assert whole_batches_size(one + two) == len(one) + len(two)
    assert whole_batches_size(one + two[:-1]) == len(one)
    assert whole_batches_size(one + two[:5]) == len(one)
    assert whole_batches_size(b"") == 0


def test_add_keeps_the_state_of_the_same_epoch_and_restarts_on_a_new_one(tmp_path: Path) -> None:
    follower = open_log(tmp_path, "f")
    core = make_core(follower)
    add(core, 0)
    assert core.states[TP].state is FetchState.TRUNCATING   # no epochs yet: truncate to the HW first
    core.states[TP].fetch_offset = 5
    add(core, 0)
    assert core.states[TP].fetch_offset == 5
    append(follower, 1, b"x")
    add(core, 1, epoch=4)
    assert (core.states[TP].fetch_offset, core.states[TP].state, core.states[TP].last_fetched_epoch) == \
        (1, FetchState.FETCHING, 1)


async def fetch_once(core: FetcherCore, leader: InMemoryLeader, now: float = 0):
    plan, _ = core.build_fetch(now)
    assert plan is not None
    return core.process_fetch_response(plan, await leader.fetch(plan), now)


def test_appends_the_leaders_batches_unchanged_then_sets_hw_and_log_start(tmp_path: Path) -> None:
    leader_log, follower = open_log(tmp_path, "l"), open_log(tmp_path, "f")
    become_leader(leader_log, 3)
    for v in (b"a", b"b", b"c"):
        append(leader_log, 3, v)
    leader_log.update_high_watermark(3)
    leader_log.delete_records_before(1)
    leader = InMemoryLeader({TP: leader_log}, 3)
    core = make_core(follower)
    follower.truncate_fully_and_start_at(1)
    add(core, 1)
    core.truncate_to_high_watermark([TP])
    out = asyncio.run(fetch_once(core, leader))
    assert out.appended_bytes > 0 and out.errors == {}
    assert batches(follower) == batches(leader_log)
    assert (follower.log_start_offset, follower.log_end_offset, follower.high_watermark) == (1, 3, 3)
    assert (core.states[TP].fetch_offset, core.states[TP].last_fetched_epoch, core.states[TP].lag) == (3, 3, 0)
    # the leader's HW above the follower's LEO is capped at the LEO
    append(leader_log, 3, b"d")
    leader_log.update_high_watermark(4)
    pd = FetchResponse.PartitionData(partition_index=0, high_watermark=4, log_start_offset=2, records=b"")
    plan, _ = core.build_fetch(0)
    assert plan is not None
    core.process_fetch_response(plan, {TP: pd}, 0)
    assert (follower.high_watermark, follower.log_start_offset) == (3, 2)


def test_diverging_epoch_truncates_without_raising_the_high_watermark(tmp_path: Path) -> None:
    """KAFKA-14704: the response that reports the divergence also carries the leader's
    HW; the follower must not expose its doomed tail by raising its HW first."""
    follower = open_log(tmp_path, "f")
    for v in (b"a", b"b", b"c"):
        append(follower, 1, v)
    follower.update_high_watermark(1)
    core = make_core(follower)
    add(core, 3, epoch=2)
    plan, _ = core.build_fetch(0)
    assert plan is not None
    pd = FetchResponse.PartitionData(partition_index=0, high_watermark=10, log_start_offset=0, records=b"",
                                     diverging_epoch=FetchResponse.EpochEndOffset(epoch=1, end_offset=2))
    out = core.process_fetch_response(plan, {TP: pd}, 0)
    assert out.truncated == {TP: 2}
    assert (follower.log_end_offset, follower.high_watermark) == (2, 1)
    assert (core.states[TP].fetch_offset, core.states[TP].state) == (2, FetchState.FETCHING)


def test_errors_back_off_and_fenced_partitions_stop_until_re_added(tmp_path: Path) -> None:
    follower, leader_log = open_log(tmp_path, "f"), open_log(tmp_path, "l")
    append(follower, 1, b"a")
    core = make_core(follower, backoff_ms=1000)
    add(core, 1, epoch=5)                       # the leader is still in epoch 4
    out = asyncio.run(fetch_once(core, InMemoryLeader({TP: leader_log}, 4), now=100))
    assert out.errors == {TP: ErrorCode.UNKNOWN_LEADER_EPOCH}
    assert core.build_fetch(1099)[0] is None and core.next_ready_ms(1099) == 1100
    out = asyncio.run(fetch_once(core, InMemoryLeader({}, 5), now=1100))
    assert out.errors == {TP: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}
    out = asyncio.run(fetch_once(core, InMemoryLeader({TP: leader_log}, 6), now=2100))
    assert out.failed == [TP] and TP in core.failed and TP not in core.states
    add(core, 1, epoch=6)
    assert TP not in core.failed and core.states[TP].is_ready_for_fetch(2100)


def test_a_response_to_a_changed_partition_is_ignored(tmp_path: Path) -> None:
    follower, leader_log = open_log(tmp_path, "f"), open_log(tmp_path, "l")
    append(follower, 1, b"a")
    append(leader_log, 1, b"a")
    append(leader_log, 1, b"b")
    core = make_core(follower)
    add(core, 1, epoch=1)
    plan, _ = core.build_fetch(0)
    assert plan is not None
    data = asyncio.run(InMemoryLeader({TP: leader_log}, 1).fetch(plan))
    add(core, 1, epoch=2)                       # re-added in a new epoch while the fetch was out
    out = core.process_fetch_response(plan, data, 0)
    assert out.appended_bytes == 0 and follower.log_end_offset == 1


@pytest.mark.parametrize("leader_values, leader_start, expected", [
    (1, 0, (1, 0)),      # follower ahead of the leader (unclean election): truncate to the leader's end
    (6, 5, (5, 5)),      # follower behind the leader's log start: start over there
])
def test_offset_out_of_range(tmp_path: Path, leader_values: int, leader_start: int,
                             expected: tuple[int, int]) -> None:
    follower, leader_log = open_log(tmp_path, "f"), open_log(tmp_path, "l")
    for v in (b"a", b"b", b"c"):
        append(follower, 0, v)
    for i in range(leader_values):
        append(leader_log, 0, b"%d" % i)
    leader_log.update_high_watermark(leader_log.log_end_offset)
    leader_log.delete_records_before(leader_start)
    core = make_core(follower, truncate_on_fetch=False)
    add(core, 3, epoch=0)
    core.states[TP].state = FetchState.FETCHING

    async def scenario() -> None:
        thread = ReplicaFetcherThread(0, LEADER, InMemoryLeader({TP: leader_log}, 0), core)
        await thread.maybe_fetch()
        assert (core.states[TP].fetch_offset, follower.log_start_offset) == expected
        await thread.maybe_fetch()
        await thread.shutdown()

    asyncio.run(scenario())
    assert follower.log_end_offset == leader_log.log_end_offset
    assert [b[0] for b in batches(follower)] == [b[0] for b in batches(leader_log)]


def test_a_failed_request_backs_off_every_partition_and_reports_them(tmp_path: Path) -> None:
    follower, leader_log = open_log(tmp_path, "f"), open_log(tmp_path, "l")
    append(leader_log, 0, b"a")
    reported: list[Mapping[TopicPartition, ErrorCode | int]] = []
    core = make_core(follower, backoff_ms=20, max_wait_ms=10)
    add(core, 0, epoch=0)
    core.truncate_to_high_watermark([TP])
    leader = InMemoryLeader({TP: leader_log}, 0)
    leader.fail_next = Disconnected("connection to node 0 was closed")

    async def scenario() -> None:
        thread = ReplicaFetcherThread(0, LEADER, leader, core, on_leader_error=reported.append)
        thread.start()
        for _ in range(200):
            if follower.log_end_offset == 1:
                break
            await asyncio.sleep(0.005)
        await thread.shutdown()

    asyncio.run(scenario())
    assert reported == [{TP: ErrorCode.NETWORK_EXCEPTION}]
    assert follower.log_end_offset == 1 and leader.closed and len(leader.fetches) >= 2


def test_configs_from_broker_properties() -> None:
    props = {"replica.fetch.max.bytes": "2048", "replica.fetch.response.max.bytes": "8192",
             "replica.fetch.min.bytes": "3", "replica.fetch.wait.max.ms": "70", "replica.fetch.backoff.ms": "90",
             "num.replica.fetchers": "4", "replica.socket.timeout.ms": "5000"}
    cfg = ReplicaFetcherConfig.from_properties(props, replica_id=2, broker_epoch=11)
    assert (cfg.replica_id, cfg.broker_epoch, cfg.fetch_max_bytes, cfg.response_max_bytes, cfg.min_bytes,
            cfg.max_wait_ms, cfg.backoff_ms, cfg.num_fetchers) == (2, 11, 2048, 8192, 3, 70, 90, 4)
    assert replica_client_config(props).request_timeout_ms == 5000


def test_offsets_for_leader_epoch_failure_backs_off_and_a_lost_log_stops_the_partition(tmp_path: Path) -> None:
    follower = open_log(tmp_path, "f")
    append(follower, 1, b"a")
    reported: list[Mapping[TopicPartition, ErrorCode | int]] = []
    logs = {TP: StorageFollowerLog(follower)}
    core = FetcherCore(ReplicaFetcherConfig(7, truncate_on_fetch=False, backoff_ms=50), logs.get)
    add(core, 1, epoch=2)
    leader = InMemoryLeader({}, 2)
    leader.fail_next = Disconnected("connection to node 0 was closed")

    async def scenario() -> None:
        thread = ReplicaFetcherThread(0, LEADER, leader, core, on_leader_error=reported.append)
        await thread.maybe_truncate()
        assert core.states[TP].is_delayed(thread._now_ms()) and core.states[TP].state is FetchState.TRUNCATING
        core.states[TP].delayed_until_ms = 0
        del logs[TP]
        await thread.maybe_truncate()
        assert TP in core.failed and TP not in core.states
        await thread.shutdown()

    asyncio.run(scenario())
    assert reported == [{TP: ErrorCode.NETWORK_EXCEPTION}]


def test_after_truncating_inside_a_batch_fetches_from_the_log_end(tmp_path: Path) -> None:
    """Issue 22, defect 3: a truncation target inside a batch removes the whole batch, so the
    follower's log ends before the target; it must fetch from its log end (as Kafka's
    truncateToEpochEndOffsets does), else the leader credits it with records it lacks."""
    follower = open_log(tmp_path, "f")
    append(follower, 1, b"a", b"b", b"c")  # offsets 0-2 in one batch
    core = make_core(follower)
    add(core, 3, epoch=2)
    plan, _ = core.build_fetch(0)
    assert plan is not None
    pd = FetchResponse.PartitionData(partition_index=0, high_watermark=0, log_start_offset=0, records=b"",
                                     diverging_epoch=FetchResponse.EpochEndOffset(epoch=1, end_offset=1))
    out = core.process_fetch_response(plan, {TP: pd}, 0)
    assert TP in out.truncated
    assert follower.log_end_offset == 0
    assert (core.states[TP].fetch_offset, core.states[TP].state) == (0, FetchState.FETCHING)
    plan, _ = core.build_fetch(0)
    assert plan is not None
    assert plan.partitions[TP].fetch_offset == 0
