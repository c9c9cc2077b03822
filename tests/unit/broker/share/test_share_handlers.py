"""ShareFetch and ShareAcknowledge against a socket-free broker (real logs, replica manager,
in-memory persister): sessions and their errors, acquisition, acknowledgement written
before the answer, release, lock expiry, long polling woken by an append."""
from __future__ import annotations

import asyncio
import tempfile
import uuid

import pytest

from kafpy.broker.handlers.share import handle_share_acknowledge, handle_share_fetch
from kafpy.broker.share.share_partition_manager import SharePartitionManager
from kafpy.coordinator.share_state.persister import InMemoryPersister, SharePartitionKey
from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.messages import ShareAcknowledgeRequest as AR, ShareFetchRequest as FR
from tests.unit.broker.helpers import LocalBroker, call

GROUP = "sg"


class Clock:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def env():
    loop = asyncio.new_event_loop()
    with tempfile.TemporaryDirectory() as d:
        b = LocalBroker(d, loop, **{"group.share.max.share.sessions": "2"})
        clock = Clock()
        persister = InMemoryPersister()
        overrides = {"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": "1000",
                     "share.delivery.count.limit": "3"}
        b.services.share_persister = persister
        b.services.share_partitions = SharePartitionManager(b.replica_manager, b.metadata, persister, b.config,
                                                            lambda g: overrides, clock, loop)
        info = b.create_topic("t", 1)
        b.append("t", 0, [b"a", b"b", b"c"])
        b.append("t", 0, [b"d", b"e"])
        try:
            b.overrides = overrides
            yield b, info.topic_id, clock, persister
        finally:
            b.services.share_partitions.shutdown()
            b.close()
            loop.close()


def fetch(b, tid, member, epoch, acks=(), max_wait=0, version=2, forget=False, min_bytes=1, batch_size=500):
    part = FR.FetchPartition(partition_index=0, acknowledgement_batches=[
        FR.AcknowledgementBatch(first_offset=f, last_offset=l, acknowledge_types=list(t)) for f, l, t in acks])
    req = FR(group_id=GROUP, member_id=member, share_session_epoch=epoch, max_wait_ms=max_wait, min_bytes=min_bytes,
             max_bytes=1 << 20, max_records=500, batch_size=batch_size,
             topics=[FR.FetchTopic(topic_id=tid, partitions=[part])], forgotten_topics_data=[])
    return call(b, handle_share_fetch, 78, version, req)


def ack(b, tid, member, epoch, acks):
    req = AR(group_id=GROUP, member_id=member, share_session_epoch=epoch, topics=[AR.AcknowledgeTopic(
        topic_id=tid, partitions=[AR.AcknowledgePartition(partition_index=0, acknowledgement_batches=[
            AR.AcknowledgementBatch(first_offset=f, last_offset=l, acknowledge_types=list(t))
            for f, l, t in acks])])])
    return call(b, handle_share_acknowledge, 79, 2, req)


def acquired(resp):
    return [(a.first_offset, a.last_offset, a.delivery_count)
            for t in resp.responses for p in t.partitions for a in p.acquired_records]


def test_fetch_acquires_and_a_second_member_gets_nothing(env):
    b, tid, _, _ = env
    r = fetch(b, tid, "m1", 0)
    assert r.error_code == 0 and r.acquisition_lock_timeout_ms == 1000
    assert acquired(r) == [(0, 4, 1)]
    assert len(r.responses[0].partitions[0].records) > 0
    assert acquired(fetch(b, tid, "m2", 0)) == []


def test_session_errors(env):
    b, tid, _, _ = env
    assert fetch(b, tid, "m1", 3).error_code == E.SHARE_SESSION_NOT_FOUND
    assert fetch(b, tid, "m1", 0).error_code == 0
    assert fetch(b, tid, "m1", 5).error_code == E.INVALID_SHARE_SESSION_EPOCH
    assert fetch(b, tid, "m1", 1).error_code == 0
    assert ack(b, tid, "m1", 2, []).error_code == 0
    assert ack(b, tid, "m1", 0, []).error_code == E.INVALID_SHARE_SESSION_EPOCH
    assert fetch(b, tid, "m2", 0).error_code == 0
    assert fetch(b, tid, "m3", 0).error_code == E.SHARE_SESSION_LIMIT_REACHED
    assert fetch(b, tid, "m1", 0, acks=[(0, 0, [1])]).error_code == E.INVALID_REQUEST


def test_accept_is_written_before_the_answer(env):
    b, tid, _, persister = env
    fetch(b, tid, "m1", 0)
    r = ack(b, tid, "m1", 1, [(0, 2, [1])])
    assert r.responses[0].partitions[0].error_code == 0
    st = persister.states[SharePartitionKey(GROUP, uuid.UUID(bytes=tid), 0)]
    assert st.start_offset == 3
    # records below the start offset again: done already, skipped as Kafka does
    r = ack(b, tid, "m1", 2, [(0, 2, [1])])
    assert r.responses[0].partitions[0].error_code == 0
    # past the records read: INVALID_REQUEST
    r = ack(b, tid, "m1", 3, [(3, 99, [1])])
    assert r.responses[0].partitions[0].error_code == E.INVALID_REQUEST


def test_release_is_redelivered_and_reject_is_not(env):
    b, tid, _, _ = env
    fetch(b, tid, "m1", 0)
    r = fetch(b, tid, "m1", 1, acks=[(0, 4, [1, 2, 3, 1, 1])])
    assert r.responses[0].partitions[0].acknowledge_error_code == 0
    metrics = b.services.share_partitions.metrics
    assert metrics.acknowledgements == {"Accept": 3, "Release": 1, "Reject": 1, "Renew": 0}
    assert metrics.partition_load.count == 1
    assert acquired(r) == [(1, 1, 2)]
    fetch(b, tid, "m1", 2, acks=[(1, 1, [3])])
    assert acquired(fetch(b, tid, "m2", 0)) == []


def test_lock_expiry_redelivers_and_the_delivery_limit_archives(env):
    b, tid, clock, _ = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    for attempt in (2, 3):
        clock.t += 1.5
        mgr._on_timer((GROUP, "t", 0))
        r = fetch(b, tid, f"m{attempt - 1}", 0)
        assert acquired(r) == [(0, 4, attempt)]
    clock.t += 1.5
    mgr._on_timer((GROUP, "t", 0))
    assert mgr.partitions[(GROUP, "t", 0)].start_offset == 5
    assert acquired(fetch(b, tid, "m1", 0)) == []


def test_closing_the_session_releases(env):
    b, tid, _, _ = env
    fetch(b, tid, "m1", 0)
    assert ack(b, tid, "m1", -1, [(0, 0, [1])]).error_code == 0
    assert acquired(fetch(b, tid, "m2", 0)) == [(1, 4, 2)]
    assert ack(b, tid, "m1", 1, []).error_code == E.SHARE_SESSION_NOT_FOUND


def test_long_poll_wakes_on_append(env):
    b, tid, _, _ = env
    fetch(b, tid, "m1", 0)
    loop = b.loop

    async def later():
        await asyncio.sleep(0.05)
        b.append("t", 0, [b"f"])
        b.replica_manager.fetch_purgatory.check_and_complete(b.replica_manager.get_partition("t", 0))

    task = loop.create_task(later())
    r = fetch(b, tid, "m1", 1, max_wait=5000)
    loop.run_until_complete(task)
    assert acquired(r) == [(5, 5, 1)]


def test_min_bytes_waits_without_acquiring_until_enough_bytes(env):
    """As Fetch (and Kafka's DelayedShareFetch): fewer bytes than min_bytes wait, nothing
    acquired meanwhile, until an append brings enough."""
    b, tid, _, _ = env
    mgr = b.services.share_partitions
    held = []

    async def later():
        await asyncio.sleep(0.05)
        held.append([r.state for r in mgr.partitions[(GROUP, "t", 0)].runs])
        b.append("t", 0, [b"x" * 2000])
        b.replica_manager.fetch_purgatory.check_and_complete(b.replica_manager.get_partition("t", 0))

    task = b.loop.create_task(later())
    r = fetch(b, tid, "m1", 0, max_wait=5000, min_bytes=1500)
    b.loop.run_until_complete(task)
    assert held == [[]] and acquired(r) == [(0, 5, 1)]


def test_min_bytes_not_reached_by_max_wait_answers_what_there_is(env):
    b, tid, clock, _ = env

    async def later():
        await asyncio.sleep(0.02)
        clock.t += 1.0                # max_wait passed

    task = b.loop.create_task(later())
    r = fetch(b, tid, "m1", 0, max_wait=100, min_bytes=1 << 20)
    b.loop.run_until_complete(task)
    assert acquired(r) == [(0, 4, 1)]


def test_batch_size_splits_the_acquired_records(env):
    b, tid, _, _ = env
    assert acquired(fetch(b, tid, "m1", 0, batch_size=3)) == [(0, 2, 1), (3, 4, 1)]


def test_unknown_topic_id(env):
    b, _, _, _ = env
    r = fetch(b, uuid.uuid4().bytes, "m1", 0)
    assert r.responses[0].partitions[0].error_code == E.UNKNOWN_TOPIC_ID


def test_latest_reset_starts_at_the_end(env):
    b, tid, _, _ = env
    b.overrides["share.auto.offset.reset"] = "latest"
    assert acquired(fetch(b, tid, "m1", 0)) == []
    b.append("t", 0, [b"f"])
    assert acquired(fetch(b, tid, "m1", 1)) == [(5, 5, 1)]


def test_read_committed_archives_aborted_records(env):
    from kafpy.protocol.batch_builder import build_batch, build_control_batch
    from kafpy.protocol.batch_header import CONTROL_ABORT
    b, tid, _, _ = env
    b.overrides["share.isolation.level"] = "read_committed"
    part = b.replica_manager.get_partition("t", 0)
    part.append_records_to_leader(build_batch([(None, b"x"), (None, b"y")], producer_id=9, producer_epoch=0,
                                              base_sequence=0, is_transactional=True))
    part.append_records_to_leader(build_control_batch(CONTROL_ABORT, producer_id=9, producer_epoch=0),
                                  origin="coordinator")
    b.append("t", 0, [b"z"])
    r = fetch(b, tid, "m1", 0)
    assert acquired(r) == [(0, 4, 1), (8, 8, 1)]
    fetch(b, tid, "m1", 1, acks=[(0, 4, [1]), (8, 8, [1])])
    assert b.services.share_partitions.partitions[(GROUP, "t", 0)].start_offset == 9


def test_a_closed_connection_ends_its_sessions_and_releases(env):
    b, tid, _, _ = env
    fetch(b, tid, "m1", 0)                     # opened on connection "conn-test"
    b.services.share_partitions.on_connection_closed("conn-test")
    b.loop.run_until_complete(asyncio.sleep(0))
    assert acquired(fetch(b, tid, "m2", 0)) == [(0, 4, 2)]
    assert fetch(b, tid, "m1", 1).error_code == E.SHARE_SESSION_NOT_FOUND


def test_not_leader_answers_the_current_leader_and_its_endpoint(env):
    import dataclasses
    from kafpy.replication.metadata_cache import BrokerInfo, PartitionInfo
    from kafpy.replication.partition import PartitionState
    b, tid, _, _ = env
    fetch(b, tid, "m1", 0)
    b.replica_manager.apply_partition_states([PartitionState("t", 0, tid, 1, 1, 1, (0, 1), (0, 1))])
    info = b.metadata.topic("t")
    b.metadata.update(brokers=[b.metadata.broker(0), BrokerInfo(1, "127.0.0.1", 9093)],
                      topics=[dataclasses.replace(info, partitions={0: PartitionInfo(1, 1, [0, 1], [0, 1])})])
    r = fetch(b, tid, "m1", 1)
    p = r.responses[0].partitions[0]
    assert p.error_code == E.NOT_LEADER_OR_FOLLOWER
    assert (p.current_leader.leader_id, p.current_leader.leader_epoch) == (1, 1)
    assert [(n.node_id, n.port) for n in r.node_endpoints] == [(1, 9093)]


def test_after_a_failed_write_the_next_carries_the_whole_state(env):
    b, tid, _, persister = env
    fetch(b, tid, "m1", 0)
    real = persister.write_state
    calls = []

    async def failing(*args, **kw):
        calls.append(args)
        return E.COORDINATOR_NOT_AVAILABLE
    persister.write_state = failing
    r = ack(b, tid, "m1", 1, [(2, 2, [3])])
    assert r.responses[0].partitions[0].error_code == E.COORDINATOR_NOT_AVAILABLE
    persister.write_state = real
    assert ack(b, tid, "m1", 2, [(4, 4, [1])]).responses[0].partitions[0].error_code == 0
    st = persister.states[SharePartitionKey(GROUP, uuid.UUID(bytes=tid), 0)]
    assert [(x.first_offset, x.last_offset, x.delivery_state) for x in st.batches] == \
        [(0, 1, 0), (2, 2, 4), (3, 3, 0), (4, 4, 2)]


def test_moved_or_deleted_partitions_are_forgotten(env):
    b, tid, _, _ = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    assert (GROUP, "t", 0) in mgr.partitions
    mgr.on_partition_moved("t", 0)
    assert mgr.partitions == {} and mgr._timers == {}
    fetch(b, tid, "m2", 0)            # loaded again from the persister
    assert (GROUP, "t", 0) in mgr.partitions
    mgr.on_topics_deleted(["t"])
    assert mgr.partitions == {}


def test_unsupported_when_share_version_is_off(env):
    b, tid, _, _ = env
    b.loop.run_until_complete(b.services.features.update({"share.version": 0}))
    assert fetch(b, tid, "m1", 0).error_code == E.UNSUPPORTED_VERSION
    assert ack(b, tid, "m1", 1, []).error_code == E.UNSUPPORTED_VERSION


def _reset_to_earliest(persister, tid):
    """What AlterShareGroupOffsets does to the durable state: a new state epoch at 0."""
    key = SharePartitionKey(GROUP, uuid.UUID(bytes=tid), 0)
    epoch = persister.states[key].state_epoch + 1
    return persister.initialize_state(key, epoch, 0)


def test_the_group_empty_on_this_broker_drops_its_share_partitions(env):
    """Kafka 4.4's ShareGroupListener.onGroupEmpty: once the last connection holding one
    of the group's share sessions closes, its cached share partitions are dropped, so the
    next fetch reads the state again (after an offsets reset, from the new start)."""
    b, tid, _, persister = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    assert ack(b, tid, "m1", -1, [(0, 4, [1])]).error_code == 0     # session closed, all done
    b.loop.run_until_complete(_reset_to_earliest(persister, tid))
    assert acquired(fetch(b, tid, "m2", 0)) == []                   # the group still has a session
    mgr.on_connection_closed("conn-test")
    b.loop.run_until_complete(asyncio.sleep(0.01))
    assert mgr.partitions == {} and len(mgr.sessions) == 0
    assert acquired(fetch(b, tid, "m3", 0)) == [(0, 4, 1)]          # the reset state, read again


def test_a_group_with_sessions_left_keeps_its_share_partitions(env):
    b, tid, _, _ = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    mgr.sessions.sessions[next(iter(mgr.sessions.sessions))].connection_id = "other"
    fetch(b, tid, "m2", 0)
    mgr.on_connection_closed("conn-test")
    b.loop.run_until_complete(asyncio.sleep(0.01))
    assert (GROUP, "t", 0) in mgr.partitions


def test_a_fenced_write_drops_the_share_partition_and_the_next_fetch_reloads(env):
    """A leader that did not see the group empty (its consumer stayed connected) learns
    of an offsets reset from its next write: FENCED_STATE_EPOCH, the share partition is
    dropped with its timers, and the next fetch reads the reset state (Kafka 4.4)."""
    b, tid, _, persister = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    b.loop.run_until_complete(_reset_to_earliest(persister, tid))
    r = ack(b, tid, "m1", 1, [(0, 4, [1])])
    assert r.responses[0].partitions[0].error_code == E.FENCED_STATE_EPOCH
    assert mgr.partitions == {} and mgr._timers == {}
    assert acquired(fetch(b, tid, "m1", 2)) == [(0, 4, 1)]


def test_a_deleted_and_recreated_group_starts_again_at_its_reset(env):
    b, tid, _, persister = env
    mgr = b.services.share_partitions
    fetch(b, tid, "m1", 0)
    assert ack(b, tid, "m1", 1, [(0, 4, [1])]).responses[0].partitions[0].error_code == 0
    mgr.on_connection_closed("conn-test")                  # the group empty on this broker
    b.loop.run_until_complete(asyncio.sleep(0.01))
    b.loop.run_until_complete(persister.delete_state(SharePartitionKey(GROUP, uuid.UUID(bytes=tid), 0)))
    assert acquired(fetch(b, tid, "m2", 0)) == [(0, 4, 1)]  # share.auto.offset.reset=earliest again
