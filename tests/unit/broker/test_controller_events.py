"""ControllerEventManager over three real KafkaRaftClients wired in memory (the raft client
tests' ``Net``): the new leader activates and writes the bootstrap records, every controller
replays what commits, a write is answered once committed (a broker's epoch is the offset of its
RegisterBrokerRecord), a standby answers NOT_CONTROLLER, the next leader after a failure
serves the same image, NoOpRecords every ``metadata.max.idle.interval.ms``, and a broker whose
session expires is fenced."""
from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from kafpy.broker.controller_events import ControllerEventManager
from kafpy.metadata.bootstrap import BootstrapMetadata
from kafpy.metadata.controller.controller_result import ControllerError, ControllerResult
from kafpy.metadata.controller.quorum_controller import ControllerSettings, QuorumController
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import BrokerHeartbeatRequest, BrokerRegistrationResponse, NoOpRecord
from kafpy.metadata.record_serde import read_record
from kafpy.raft.kafka_raft_client import KafkaRaftClient
from kafpy.raft.memory_log import MemoryReplicatedLog, decode_batches
from kafpy.raft.quorum_state_store import MemoryQuorumStateStore
from kafpy.raft.raft_core import RaftCore

from tests.unit.metadata.controller.helpers import CLUSTER_ID, registration
from tests.unit.raft.test_kafka_raft_client import CONFIG, VOTERS, MemoryChannel, Net, close_all, wait_for

SESSION_MS = 400


class Quorum:
    def __init__(self, idle_ms: int = 0) -> None:
        self.net = Net()
        self.controllers: dict[int, QuorumController] = {}
        self.events: dict[int, ControllerEventManager] = {}
        bootstrap = BootstrapMetadata.from_versions(33, {}, "test")
        for node in sorted(VOTERS):
            core = RaftCore(node, VOTERS, MemoryReplicatedLog(), MemoryQuorumStateStore(), now_ms=0,
                            cluster_id=CLUSTER_ID, config=CONFIG, rng=random.Random(node))
            client = KafkaRaftClient(core, MemoryChannel(self.net, node), decode_batches, append_linger_ms=5)
            self.net.clients[node] = client
            self.controllers[node] = QuorumController(ControllerSettings(
                node, CLUSTER_ID, tuple(sorted(VOTERS)), session_timeout_ms=SESSION_MS), bootstrap,
                rng=random.Random(node))
            self.events[node] = ControllerEventManager(self.controllers[node], client,
                                                       time_ms=client.time_ms, max_idle_interval_ms=idle_ms)
        for node, client in self.net.clients.items():
            self.events[node].start()
            client.start()

    def active(self) -> list[int]:
        return [n for n, c in self.controllers.items() if n not in self.net.down and c.is_active()]

    async def wait_active(self) -> int:
        """The active controller, once its activation records are replayed."""
        await wait_for(lambda: len(self.active()) == 1
                       and self.controllers[self.active()[0]].metadata.image.features.metadata_version == 33)
        return self.active()[0]

    async def close(self) -> None:
        for events in self.events.values():
            await events.close()
        await close_all(self.net)


def _register(q: Quorum, node: int, broker_id: int) -> asyncio.Future[BrokerRegistrationResponse]:
    c = q.controllers[node]
    return asyncio.ensure_future(q.events[node].write("registerBroker", lambda now: c.cluster.register_broker(
        registration(broker_id), c.metadata.next_write_offset(), now)))


def test_activation_writes_replay_and_failover() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            # the activation's bootstrap records are committed and replayed everywhere
            await wait_for(lambda: all(c.metadata.image.features.metadata_version == 33
                                       for c in q.controllers.values()))
            standby = next(n for n in q.controllers if n != leader)
            with pytest.raises(ControllerError) as refused:
                await _register(q, standby, 7)
            assert refused.value.error == ErrorCode.NOT_CONTROLLER
            response = await _register(q, leader, 7)
            # answered once committed: the epoch is the RegisterBrokerRecord's offset, replayed
            assert q.controllers[leader].cluster.register_broker_record_offset(7) == response.broker_epoch
            await wait_for(lambda: all(7 in c.metadata.image.cluster.brokers for c in q.controllers.values()))
            assert q.net.clients[leader].core.high_watermark() == response.broker_epoch + 1

            q.net.down.add(leader)
            await wait_for(lambda: len(q.active()) == 1 and q.active()[0] != leader)
            second = q.active()[0]
            # the new active controller gave the registered broker a session at activation
            assert 7 in q.controllers[second].cluster.heartbeat_manager.brokers
            again = await _register(q, second, 8)
            assert again.broker_epoch > response.broker_epoch
            assert {7, 8} <= set(q.controllers[second].metadata.image.cluster.brokers)
        finally:
            await q.close()
    asyncio.run(run())


def test_no_op_records_and_session_expiry() -> None:
    async def run() -> None:
        q = Quorum(idle_ms=50)
        try:
            leader = await q.wait_active()
            c = q.controllers[leader]
            response = await _register(q, leader, 9)
            heartbeat = BrokerHeartbeatRequest(broker_id=9, broker_epoch=response.broker_epoch,
                                               current_metadata_offset=c.metadata.last_offset)
            beat = await q.events[leader].write("heartbeat", lambda now: c.replication.process_broker_heartbeat(
                heartbeat, now))
            assert not beat.is_fenced
            assert not c.metadata.image.cluster.brokers[9].fenced
            # no more heartbeats: fenced once the session (400 ms) is over
            await wait_for(lambda: c.metadata.image.cluster.brokers[9].fenced, timeout=5)
            # NoOpRecords keep coming while idle
            log = q.net.clients[leader].core.log
            end = log.end_offset()
            await wait_for(lambda: log.end_offset() >= end + 3, timeout=5)
            last = [b for b in decode_batches(log.read(end, 1 << 20)) if not b.control]
            assert any(read_record(r).message == NoOpRecord() for b in last for r in b.records)
        finally:
            await q.close()
    asyncio.run(run())


def test_a_write_refused_by_its_manager_appends_nothing() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            end = q.net.clients[leader].core.log.end_offset()

            def refuse(now: int) -> ControllerResult[None]:
                raise ControllerError(ErrorCode.INVALID_REQUEST, "no")
            with pytest.raises(ControllerError):
                await q.events[leader].write("refused", refuse)
            assert q.net.clients[leader].core.log.end_offset() == end
        finally:
            await q.close()
    asyncio.run(run())


def test_a_leader_cut_off_answers_not_controller_and_follows_the_new_one() -> None:
    async def run() -> None:
        q = Quorum()
        try:
            leader = await q.wait_active()
            q.net.down.add(leader)
            pending = _register(q, leader, 7)  # appended in the old epoch, never committed
            await wait_for(lambda: any(n != leader for n in q.active()), timeout=10)
            second = next(n for n in q.active() if n != leader)
            committed = await _register(q, second, 8)
            q.net.down.discard(leader)
            with pytest.raises(ControllerError) as lost:
                await asyncio.wait_for(pending, 10)
            assert lost.value.error == ErrorCode.NOT_CONTROLLER
            # the old leader follows the new one and has its image: broker 7's record stays
            # only if a follower had fetched it before the cut (a fetch parked at the leader
            # may carry it out), and then the new leader committed it
            old, new = q.controllers[leader], q.controllers[second]
            await wait_for(lambda: 8 in old.metadata.image.cluster.brokers, timeout=10)
            await wait_for(lambda: old.metadata.last_offset == new.metadata.last_offset, timeout=10)
            assert old.metadata.image.cluster.brokers == new.metadata.image.cluster.brokers
            assert old.metadata.image.cluster.brokers[8].epoch == committed.broker_epoch
            assert not old.is_active()
        finally:
            await q.close()
    asyncio.run(run())


def test_every_controller_snapshots_its_committed_image_and_a_fresh_one_loads_it(tmp_path: Path) -> None:
    """With a snapshot publisher each controller writes snapshots of the committed image
    (named after the last committed batch); a controller that starts from one of them
    (``handle_load_snapshot``) holds the same image and knows the broker's epoch."""
    from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
    from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
    from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
    from kafpy.raft.replicated_log import ValidKind, validate_offset_and_epoch
    from kafpy.raft.snapshot import RawSnapshotWriter, SnapshotId, parse_snapshot_path

    class Dir:
        def __init__(self, path: Path) -> None:
            self.path = path
            path.mkdir()

        def create_new_snapshot(self, snapshot_id: SnapshotId) -> RawSnapshotWriter | None:
            return RawSnapshotWriter(self.path, snapshot_id)

    async def run() -> None:
        q = Quorum(idle_ms=20)
        publishers = {n: SnapshotPublisher(SnapshotGenerator(n, 200, 0, 0),
                                           SnapshotEmitter(n, Dir(tmp_path / str(n)), lambda: 1), lambda: 1)
                      for n in q.events}
        for n, events in q.events.items():
            events.snapshots = publishers[n]
        try:
            leader = await q.wait_active()
            response = await _register(q, leader, 7)
            def past_registration(path: Path) -> bool:
                parsed = parse_snapshot_path(path)
                return parsed is not None and parsed.snapshot_id.end_offset > response.broker_epoch
            await wait_for(lambda: all(any(past_registration(p) for p in publishers[n].written) for n in q.events))
            for n in q.events:
                for path in publishers[n].written:
                    sid = parse_snapshot_path(path)
                    assert sid is not None
                    # the id names a committed batch end: offset and epoch of the log at it
                    core = q.net.clients[n].core
                    hw = core.high_watermark()
                    assert hw is not None and sid.snapshot_id.end_offset <= hw
                    valid = validate_offset_and_epoch(core.log, *sid.snapshot_id)
                    assert valid.kind is ValidKind.VALID, valid
            path = publishers[leader].written[-1]
            sid = parse_snapshot_path(path)
            assert sid is not None
            fresh = QuorumController(ControllerSettings(9, CLUSTER_ID, tuple(sorted(VOTERS)),
                                                        session_timeout_ms=SESSION_MS),
                                     BootstrapMetadata.from_versions(33, {}, "test"))
            events = ControllerEventManager(fresh, q.net.clients[leader], time_ms=lambda: 0)
            events.handle_load_snapshot(sid.snapshot_id, path.read_bytes())
            assert events.fault is None
            assert fresh.metadata.next_write_offset() == sid.snapshot_id.end_offset
            assert fresh.cluster.register_broker_record_offset(7) == response.broker_epoch
            assert 7 in fresh.metadata.image.cluster.brokers
            assert fresh.features.metadata_version() == 33
            # a snapshot that cannot be read stops the controller, as a replay failure does
            events.handle_load_snapshot(SnapshotId(5, 1), b"not a snapshot")
            assert events.fault is not None
        finally:
            await q.close()
    asyncio.run(run())
