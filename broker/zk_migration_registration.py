"""A ZooKeeper-mode broker's part in a migration (Kafka 3.9's ``KafkaServer`` with
``zookeeper.metadata.migration.enable``): it registers with the KRaft controllers as a migrating
ZooKeeper broker (BrokerRegistration with ``isMigratingZkBroker``) and heartbeats, so the KRaft
controller's migration driver knows every ZooKeeper broker is ready, while the broker keeps its
ZooKeeper registration and keeps taking LeaderAndIsr/UpdateMetadata from whoever is controller.

How the broker finds the active controller: Kafka's ZooKeeper broker runs a raft observer of the
metadata log; this one asks the voters (``controller.quorum.voters``, else
``controller.quorum.bootstrap.servers``) with DescribeQuorum every heartbeat interval, which
names the leader and its high watermark (the offset its heartbeats report, so the controller
unfences it as it unfences a KRaft broker that caught up).

Who calls it: ``Broker._start_zk_mode`` when the flag is set. Event loop only, nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Callable, Mapping

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import BrokerRegistrationRequest, DescribeQuorumRequest, DescribeQuorumResponse
from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.kraft_forwarding import forwarding_handler
from kafpy.broker.kraft_config import parse_voters
from kafpy.broker.kraft_controller_channel import ControllerChannel
from kafpy.broker.kraft_lifecycle import BrokerLifecycleManager
from kafpy.broker.kraft_registration import registration_request

log = logging.getLogger("kafka.server.KafkaServer")
METADATA_TOPIC = "__cluster_metadata"


def controller_addresses(config: KafkaConfig) -> dict[int, tuple[str, int]]:
    """The controllers a migrating broker asks: the static voters, else the bootstrap servers
    (ids -2, -3, ... as Kafka's bootstrap nodes)."""
    v = config.values
    if v["controller.quorum.voters"]:
        return parse_voters(v["controller.quorum.voters"])
    out: dict[int, tuple[str, int]] = {}
    for i, raw in enumerate(v["controller.quorum.bootstrap.servers"] or []):
        host, _, port = raw.strip().rpartition(":")
        out[-2 - i] = (host.strip("[]"), int(port))
    if not out:
        raise ConfigError("If using zookeeper.metadata.migration.enable, controller.quorum.voters or "
                          "controller.quorum.bootstrap.servers must contain the KRaft controllers.")
    return out


def zk_broker_directory_ids(config: KafkaConfig, cluster_id: str) -> list[bytes]:
    """A stable directory id per log dir (Kafka's ZooKeeper brokers carry the ``directory.id``
    of meta.properties; here one derived from the cluster, broker and path)."""
    return [uuid.uuid5(uuid.NAMESPACE_URL, f"kafpy:{cluster_id}:{config.broker_id}:{d}").bytes
            for d in config.log_dirs]


class KRaftControllerProbe:
    """Keeps the controllers' addresses, the leader the last DescribeQuorum named and its high
    watermark."""

    def __init__(self, broker_id: int, controllers: Mapping[int, tuple[str, int]], listener_name: str,
                 request_timeout_ms: int) -> None:
        self.broker_id = broker_id
        self.controllers = dict(controllers)
        self.listener_name = listener_name
        self.config = NetworkClientConfig(request_timeout_ms=request_timeout_ms)
        self.leader: int | None = None
        self.high_watermark = -1

    def leader_id(self) -> int | None:
        return self.leader

    def active_controller(self) -> BrokerInfo | None:
        """The active controller as a node to reach (None until DescribeQuorum named it)."""
        if self.leader is None or self.leader not in self.controllers:
            return None
        host, port = self.controllers[self.leader]
        return BrokerInfo(self.leader, host, port)

    async def probe_once(self) -> None:
        """Ask each controller in turn until one names the leader."""
        request = DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
            topic_name=METADATA_TOPIC, partitions=[DescribeQuorumRequest.PartitionData(partition_index=0)])])
        for node, (host, port) in sorted(self.controllers.items(), key=lambda kv: kv[0] != self.leader):
            client = NetworkClient(host, port, client_id=f"zk-broker-{self.broker_id}-quorum-probe", node_id=node,
                                   listener_name=self.listener_name, config=self.config)
            try:
                await client.ready()
                response = await client.send(ApiKey.DESCRIBE_QUORUM, request)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a controller down: ask the next one
                log.debug("DescribeQuorum to controller %s failed: %s", node, e)
                continue
            finally:
                await client.close()
            assert isinstance(response, DescribeQuorumResponse)
            partitions = [p for t in response.topics for p in t.partitions]
            if response.error_code or not partitions or partitions[0].error_code or partitions[0].leader_id < 0:
                continue
            p = partitions[0]
            leader = p.leader_id
            if leader not in self.controllers:
                for n in response.nodes:  # DescribeQuorum v2 lists the leader's endpoints
                    for li in n.listeners:
                        if n.node_id == leader and li.name == self.listener_name:
                            self.controllers[leader] = (li.host, li.port)
            if leader in self.controllers:
                self.leader, self.high_watermark = leader, p.high_watermark
                return


class ZkMigrationRegistration:
    """Keeps the probe, its task and the lifecycle manager of a migrating ZooKeeper broker."""

    def __init__(self, config: KafkaConfig, cluster_id: str, bound_ports: Mapping[str, int],
                 default_host: str) -> None:
        v = config.values
        names = [n.strip().upper() for n in (v["controller.listener.names"] or "").split(",") if n.strip()]
        if not names:
            raise ConfigError("If using zookeeper.metadata.migration.enable, controller.listener.names must be set.")
        timeout_ms = int(v["request.timeout.ms"])
        self.interval_ms = int(v["broker.heartbeat.interval.ms"])
        self.probe = KRaftControllerProbe(config.broker_id, controller_addresses(config), names[0], timeout_ms)
        channel = ControllerChannel(config.broker_id, self.probe.controllers, self.probe.leader_id,
                                    purpose="heartbeat", request_timeout_ms=timeout_ms, listener_name=names[0])
        incarnation = uuid.uuid4().bytes
        dirs = zk_broker_directory_ids(config, cluster_id)
        ports = dict(bound_ports)

        def request() -> BrokerRegistrationRequest:
            r = registration_request(config, cluster_id, incarnation, ports, default_host, dirs)
            r.is_migrating_zk_broker = True
            channel.voters = dict(self.probe.controllers)  # a leader learnt from DescribeQuorum
            self.forwarding.voters = channel.voters
            return r
        self.channel = channel
        self.forwarding = ControllerChannel(config.broker_id, self.probe.controllers, self.probe.leader_id,
                                            purpose="forwarding", request_timeout_ms=timeout_ms,
                                            listener_name=names[0])
        self.lifecycle = BrokerLifecycleManager(config.broker_id, request, channel,
                                                lambda: self.probe.high_watermark,
                                                heartbeat_interval_ms=self.interval_ms)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        log.info("[KafkaServer id=%d] Registering with the KRaft controllers as a migrating ZooKeeper broker",
                 self.lifecycle.broker_id)
        self._task = asyncio.get_running_loop().create_task(self._probe(), name="zk-migration-quorum-probe")
        self.lifecycle.set_ready_to_unfence()  # a ZooKeeper broker serves from its own start-up
        self.lifecycle.start()

    async def _probe(self) -> None:
        while True:
            await self.probe.probe_once()
            await asyncio.sleep(self.interval_ms / 1000)

    async def controlled_shutdown(self, timeout_s: float = 30.0) -> None:
        """Kafka 3.9's shutdown of a ZooKeeper broker whose controller is a KRaft controller: the
        heartbeats ask to shut down; the controller moves the leaderships away and lets it go."""
        log.info("[KafkaServer id=%d] Controlled shutdown through the KRaft controller", self.lifecycle.broker_id)
        self.lifecycle.begin_controlled_shutdown()
        try:
            await asyncio.wait_for(asyncio.shield(self.lifecycle.controlled_shutdown), timeout_s)
        except asyncio.TimeoutError:
            log.warning("[KafkaServer id=%d] The KRaft controller did not end the controlled shutdown within %.0f s; "
                        "shutting down anyway", self.lifecycle.broker_id, timeout_s)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self.lifecycle.close()
        await self.forwarding.close()


# the admin APIs a ZooKeeper broker forwards while a KRaft controller rules (Kafka 3.9's
# ForwardingManager on a migrating broker); the quorum's own APIs are not a ZooKeeper broker's
MIGRATION_FORWARDED = (
    ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.ALTER_CONFIGS,
    ApiKey.INCREMENTAL_ALTER_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.ALTER_CLIENT_QUOTAS,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ApiKey.ELECT_LEADERS, ApiKey.ALTER_PARTITION_REASSIGNMENTS,
    ApiKey.LIST_PARTITION_REASSIGNMENTS,
)


def migration_registry(registry: ApiRegistry, kraft_rules: Callable[[], bool],
                       channel: Callable[[], ControllerChannel]) -> ApiRegistry:
    """``registry`` with the admin APIs sent on to the KRaft controller while ``kraft_rules()``
    (a KRaft controller sent the last UpdateMetadata), and handled as in ZooKeeper mode before."""
    out: list[Handler] = []
    for key, handler in registry.by_key.items():
        if key in {int(k) for k in MIGRATION_FORWARDED}:
            out.append(_either(handler, forwarding_handler(ApiKey(key), channel), kraft_rules))
        else:
            out.append(handler)
    return ApiRegistry(out)


def _either(zk: Handler, forward: Handler, kraft_rules: Callable[[], bool]) -> Handler:
    async def handle(ctx: RequestContext, request: Message) -> Message | None:
        return await (forward if kraft_rules() else zk).func(ctx, request)
    return Handler(zk.api_key, zk.min_version, zk.max_version, handle)
