"""A ZooKeeper-mode broker in process against a real ZooKeeper, with a stand-in for the
cluster controller (whose real one lives in replication/): the cluster id before the logs,
registration with the broker epoch, an empty metadata cache fed only by UpdateMetadata, no
partition hosted before LeaderAndIsr — both sent over the network as a controller does —
re-registration after the session expired, and refusing log dirs of another cluster."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, cast

import pytest
from kazoo.client import KazooClient

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import LeaderAndIsrRequest, MetadataRequest, UpdateMetadataRequest
from kafpy.replication import zk_data as zd
from kafpy.replication.network_client import NetworkClient
from kafpy.replication.partition import Role

from kafpy.broker.broker import Broker
from kafpy.broker.config import KafkaConfig
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.broker.zk_broker import ControllerFactory, InconsistentClusterIdException

pytestmark = pytest.mark.timeout(120)

LI = LeaderAndIsrRequest
UM = UpdateMetadataRequest
TID = bytes(range(1, 17))


class ControllerStandIn:
    """Records what the broker tells its controller; never becomes active."""

    is_active = False
    epoch = 0

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.new_session = asyncio.Event()

    async def startup(self, broker_epoch: int) -> None:
        self.calls.append(("startup", broker_epoch))

    async def on_new_session(self, broker_epoch: int) -> None:
        self.calls.append(("on_new_session", broker_epoch))
        self.new_session.set()

    async def shutdown(self) -> None:
        self.calls.append(("shutdown", 0))


class AdminStandIn:
    """The parts of ZkAdminManager the broker wires at startup, doing nothing."""
    started = False

    def __init__(self) -> None:
        self.entity_configs = EntityConfigs()

    async def start(self) -> None:
        self.started = True

    async def shutdown(self) -> None:
        self.started = False

    async def ensure_offsets_topic(self) -> None:
        return None

    async def ensure_share_group_state_topic(self) -> None:
        return None

    async def ensure_transaction_state_topic(self) -> None:
        return None

    async def next_producer_id(self) -> int:
        raise AssertionError("no producer ids in these tests")


def zk_broker(zookeeper, log_dir: str, loop: asyncio.AbstractEventLoop, controller: ControllerStandIn,
              **overrides: str) -> Broker:
    config = KafkaConfig({"broker.id": "0", "log.dirs": log_dir, "zookeeper.connect": zookeeper.connect_string,
                          "zookeeper.session.timeout.ms": "6000", "listeners": "PLAINTEXT://127.0.0.1:0",
                          "controlled.shutdown.enable": "false", "num.partitions": "1", **overrides})
    # the stand-ins take the controller's and the admin manager's places
    return Broker(config, loop,
                  controller_factory=cast(ControllerFactory, lambda *args: (controller, AdminStandIn())))


def with_broker(zookeeper, tmp_path, controller: ControllerStandIn,
                body: Callable[[Broker, KazooClient], Awaitable[None]]) -> KazooClient:
    """Start a broker, run ``body(broker, observer)``, shut the broker down; returns the
    observer (a plain ZooKeeper client, still open) for checks after the shutdown."""
    observer = KazooClient(hosts=zookeeper.connect_string)
    observer.start(timeout=15)

    async def main() -> None:
        broker = zk_broker(zookeeper, str(tmp_path), asyncio.get_running_loop(), controller)
        await broker.start()
        try:
            await body(broker, observer)
        finally:
            await broker.shutdown()

    try:
        asyncio.run(main())
    except BaseException:
        observer.stop()
        observer.close()
        raise
    return observer


async def as_controller(broker: Broker, api_key: int, body: Any, version: int) -> Any:
    assert broker.server is not None, "the broker is not started"
    port = broker.server.bound_ports["PLAINTEXT"]
    client = NetworkClient("127.0.0.1", port, client_id="controller-1", node_id=0)
    try:
        return await client.send(ApiKey(api_key), body, version=version)
    finally:
        await client.close()


def test_startup_registration_and_metadata_only_from_the_controller(zookeeper, tmp_path):
    controller = ControllerStandIn()

    async def body(broker: Broker, observer: KazooClient) -> None:
        assert broker.server is not None and broker.services is not None    # started
        assert broker.metadata_cache is not None and broker.replica_manager is not None
        port = broker.server.bound_ports["PLAINTEXT"]
        data, stat = observer.get(zd.broker_path(0))
        assert json.loads(data)["endpoints"] == [f"PLAINTEXT://127.0.0.1:{port}"]
        assert broker.services.broker_epoch == stat.czxid
        assert controller.calls == [("startup", stat.czxid)]
        cluster_id = json.loads(observer.get(zd.CLUSTER_ID_PATH)[0])["id"]
        assert broker.metadata_cache.cluster_id == cluster_id
        assert f"cluster.id={cluster_id}" in (tmp_path / "meta.properties").read_text()
        for path in zd.PERSISTENT_PATHS:
            assert observer.exists(path) is not None, path
        # nothing known, nothing hosted until the controller says so
        md = await as_controller(broker, 3, MetadataRequest(topics=None), 12)
        assert (md.brokers, md.topics, md.controller_id) == ([], [], -1)
        assert broker.replica_manager.partitions == {}

        epoch = broker.services.broker_epoch
        li = LI(controller_id=1, controller_epoch=1, broker_epoch=epoch, topic_states=[LI.LeaderAndIsrTopicState(
            topic_name="t", topic_id=TID, partition_states=[LI.LeaderAndIsrPartitionState(
                partition_index=0, controller_epoch=1, leader=0, leader_epoch=0, isr=[0, 1], replicas=[0, 1],
                is_new=True)])], live_leaders=[LI.LeaderAndIsrLiveLeader(broker_id=0, host_name="127.0.0.1",
                                                                        port=port)])
        resp = await as_controller(broker, 4, li, 7)
        assert [p.error_code for t in resp.topics for p in t.partition_errors] == [ErrorCode.NONE]
        partition = broker.replica_manager.get_partition("t", 0)
        assert partition is not None and partition.role is Role.LEADER
        umr = UM(controller_id=1, controller_epoch=1, broker_epoch=epoch, live_brokers=[
            UM.UpdateMetadataBroker(id=b, endpoints=[UM.UpdateMetadataEndpoint(
                port=port + b, host="127.0.0.1", listener="PLAINTEXT", security_protocol=0)]) for b in (0, 1)],
            topic_states=[UM.UpdateMetadataTopicState(topic_name="t", topic_id=TID, partition_states=[
                UM.UpdateMetadataPartitionState(partition_index=0, controller_epoch=1, leader=0, leader_epoch=0,
                                                isr=[0, 1], zk_version=0, replicas=[0, 1])])])
        assert (await as_controller(broker, 6, umr, 8)).error_code == ErrorCode.NONE
        md = await as_controller(broker, 3, MetadataRequest(topics=None), 12)
        assert md.controller_id == 1
        assert sorted(b.node_id for b in md.brokers) == [0, 1]
        (topic,) = md.topics
        assert (topic.name, topic.topic_id, topic.partitions[0].leader_id) == ("t", TID, 0)
        stale = UM(controller_id=1, controller_epoch=1, broker_epoch=epoch - 1)
        assert (await as_controller(broker, 6, stale, 8)).error_code == ErrorCode.STALE_BROKER_EPOCH

    observer = with_broker(zookeeper, tmp_path, controller, body)
    try:
        assert controller.calls[-1] == ("shutdown", 0)
        assert observer.exists(zd.broker_path(0)) is None
    finally:
        observer.stop()
        observer.close()


def test_session_expiry_registers_again_with_a_new_epoch(zookeeper, tmp_path):
    controller = ControllerStandIn()

    async def body(broker: Broker, observer: KazooClient) -> None:
        assert broker.services is not None and broker.zk is not None    # started
        first = broker.services.broker_epoch
        session_id, password = broker.zk.kazoo.client_id
        twin = KazooClient(hosts=zookeeper.connect_string, client_id=(session_id, password))
        await asyncio.to_thread(twin.start, 15)
        await asyncio.to_thread(twin.stop)
        twin.close()
        await asyncio.wait_for(controller.new_session.wait(), 60)
        second = broker.services.broker_epoch
        assert second > first
        assert controller.calls[-1] == ("on_new_session", second)
        assert observer.get(zd.broker_path(0))[1].czxid == second

    observer = with_broker(zookeeper, tmp_path, controller, body)
    observer.stop()
    observer.close()


def test_log_dirs_of_another_cluster_refuse_to_start(zookeeper, tmp_path):
    (tmp_path / "meta.properties").write_text("version=0\nbroker.id=0\ncluster.id=SomeOtherClusterIdAAAA\n")
    controller = ControllerStandIn()

    async def main() -> None:
        broker = zk_broker(zookeeper, str(tmp_path), asyncio.get_running_loop(), controller)
        try:
            with pytest.raises(InconsistentClusterIdException) as err:
                await broker.start()
        finally:
            await broker.shutdown()
        assert "doesn't match stored clusterId Some(SomeOtherClusterIdAAAA) in meta.properties. The broker is " \
               "trying to join the wrong cluster. Configured zookeeper.connect may be wrong." in str(err.value)
        assert broker.log_manager is None  # refused before any log was opened
        assert controller.calls == []

    asyncio.run(main())


class FailingController(ControllerStandIn):
    async def startup(self, broker_epoch: int) -> None:
        raise RuntimeError("controller failed to start")


def test_a_failed_startup_unregisters_without_a_controlled_shutdown(zookeeper, tmp_path):
    controller = FailingController()

    async def main() -> float:
        broker = zk_broker(zookeeper, str(tmp_path), asyncio.get_running_loop(), controller,
                           **{"controlled.shutdown.enable": "true"})
        with pytest.raises(RuntimeError, match="controller failed to start"):
            await broker.start()
        loop = asyncio.get_running_loop()
        began = loop.time()
        await broker.shutdown()
        return loop.time() - began

    # a controlled shutdown would wait out its retries (3 x 5 s by default) for a controller
    assert asyncio.run(main()) < 4
    observer = KazooClient(hosts=zookeeper.connect_string)
    observer.start(timeout=15)
    try:
        assert observer.exists(zd.broker_path(0)) is None
    finally:
        observer.stop()
        observer.close()
