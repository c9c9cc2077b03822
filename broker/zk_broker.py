"""What a ZooKeeper-mode broker does with ZooKeeper at startup (Kafka's KafkaServer.startup):
the cluster id, read or created before the logs start and checked against the log dirs'
meta.properties; the dynamic broker configs; the registration under ``/brokers/ids`` whose
czxid is the broker epoch; and the cluster controller and admin manager built over the
ZooKeeper client.

Who may call it: the Broker, at startup and after a ZooKeeper session expired. Nothing on
disk of its own (meta.properties is read, never written, here).
"""
from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Callable, Protocol

from kafpy.storage.checkpoint import read_meta_properties

from kafpy.broker.admin_controller import AdminController
from kafpy.broker.config import KafkaConfig
from kafpy.broker.features import supported_features
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.replication import zk_data as zd

if TYPE_CHECKING:
    from kafpy.broker.security.client import ClientSecurity
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.zk_admin import ZkAdminManager
    from kafpy.replication.replica_manager import ReplicaManager
    from kafpy.replication.alter_partition_manager import AlterPartitionManager
    from kafpy.replication.fetcher_manager import ReplicaFetcherManager
    from kafpy.replication.zk_client import KafkaZkClient

log = logging.getLogger("kafka.server.KafkaServer")

META_PROPERTIES = "meta.properties"

# (config, zk, metadata cache, replica manager, clock, loop) -> (cluster controller, admin manager)
# (config, ZooKeeper client, metadata cache, replica manager, clock, loop, inter-broker security)
ControllerFactory = Callable[[KafkaConfig, "KafkaZkClient", MetadataCache, "ReplicaManager", Callable[[], float],
                              asyncio.AbstractEventLoop, "ClientSecurity | None"],
                             tuple["KafkaController", "ZkAdminController"]]


class ZkAdminController(AdminController, Protocol):
    """The ZooKeeper-mode admin manager: an AdminController the broker also starts (topic
    configs, following /config/changes) and shuts down."""

    async def start(self) -> None: ...

    async def shutdown(self) -> None: ...


class InconsistentClusterIdException(Exception):
    """The log dirs belong to another cluster than the one ZooKeeper describes."""


def check_cluster_id(log_dirs: list[str], cluster_id: str) -> None:
    """Refuse to start on log dirs whose meta.properties names another cluster, with Kafka's
    message (the broker is pointed at the wrong ZooKeeper, or ZooKeeper lost its data)."""
    for d in log_dirs:
        stored = read_meta_properties(os.path.join(d, META_PROPERTIES)).get("cluster.id")
        if stored and stored != cluster_id:
            raise InconsistentClusterIdException(
                f"The Cluster ID {cluster_id} doesn't match stored clusterId Some({stored}) in meta.properties. "
                f"The broker is trying to join the wrong cluster. Configured zookeeper.connect may be wrong.")


def broker_registration(config: KafkaConfig, bound_ports: dict[str, int], default_host: str
                        ) -> zd.BrokerRegistration:
    """``/brokers/ids/<id>``: every advertised listener (a port 0 listener at the port it got,
    one without a host at ``default_host``) with its security protocol, the rack, and the
    features this broker supports (what ZkFeatures caps the cluster's defaults by)."""
    protocols = dict(entry.split(":", 1) for entry in config["listener.security.protocol.map"])
    endpoints = tuple(
        zd.EndPoint(li.name, li.host or default_host, li.port or bound_ports.get(li.name, li.port),
                    protocols.get(li.name, "PLAINTEXT"))
        for li in config.advertised_listeners)
    features = {name: {"min_version": low, "max_version": high}
                for name, (low, high) in supported_features().items()}
    return zd.BrokerRegistration(config.broker_id, endpoints, rack=config["broker.rack"],
                                 features=features)


async def load_dynamic_broker_configs(zk: "KafkaZkClient", broker_id: int) -> tuple[dict[str, str], dict[str, str]]:
    """The cluster-wide default and this broker's own ``/config/brokers`` entries."""
    default, own = await asyncio.gather(zk.get_entity_config(zd.ConfigType.BROKER, zd.DEFAULT_BROKER_ENTITY),
                                        zk.get_entity_config(zd.ConfigType.BROKER, str(broker_id)))
    return default, own


def replication_managers(config: KafkaConfig, replica_manager: "ReplicaManager", cache: MetadataCache,
                         broker_epoch: Callable[[], int], loop: asyncio.AbstractEventLoop,
                         security: "ClientSecurity | None",
                         controller_node: "Callable[[], BrokerInfo | None] | None" = None,
                         ) -> tuple["ReplicaFetcherManager", "AlterPartitionManager"]:
    """The replica fetchers (followers fetch from their leaders over the listener the
    metadata cache knows) and the AlterPartitionManager (ISR changes to the controller;
    ``controller_node`` names it when it is not the broker the metadata cache names, as a KRaft
    controller during a migration)."""
    from kafpy.replication.alter_partition_manager import AlterPartitionManager
    from kafpy.replication.fetch_state import ReplicaFetcherConfig, replica_client_config
    from kafpy.replication.fetcher_manager import ReplicaFetcherManager
    from kafpy.replication.network_client import NetworkClient, NetworkClientConfig
    keys = ("replica.fetch.max.bytes", "replica.fetch.response.max.bytes", "replica.fetch.min.bytes",
            "replica.fetch.wait.max.ms", "replica.fetch.backoff.ms", "num.replica.fetchers",
            "replica.socket.timeout.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
            "socket.connection.setup.timeout.ms")
    props = {k: config.get(k) for k in keys if config.get(k) is not None}
    fetchers = ReplicaFetcherManager(ReplicaFetcherConfig.from_properties(props, config.broker_id),
                                     replica_manager.replica_log, client_config=replica_client_config(props),
                                     on_leader_error=replica_manager.on_fetch_leader_error, security=security)
    client_config = NetworkClientConfig(request_timeout_ms=config["controller.socket.timeout.ms"])

    def controller_client(node: BrokerInfo) -> NetworkClient:
        return NetworkClient(node.host, node.port, client_id=f"broker-{config.broker_id}-alter-partition",
                             node_id=node.node_id, config=client_config, loop=loop, security=security)
    alter = AlterPartitionManager(config.broker_id, broker_epoch, cache, controller_client, loop,
                                  controller_node=controller_node)
    return fetchers, alter


def kafka_controller_and_admin(config: KafkaConfig, zk: "KafkaZkClient", cache: MetadataCache,
                               replica_manager: "ReplicaManager", clock: Callable[[], float],
                               loop: asyncio.AbstractEventLoop, security: "ClientSecurity | None"
                               ) -> tuple["KafkaController", "ZkAdminManager[EntityConfigs]"]:
    """The default ControllerFactory: replication's KafkaController and ZkAdminManager (which
    applies config change notifications to the replica manager's logs)."""
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.zk_admin import ZkAdminManager
    controller = KafkaController(config, zk, config.broker_id, clock, loop, security=security)
    return controller, ZkAdminManager(config, zk, cache, controller, clock, loop, EntityConfigs(),
                                      replica_manager=replica_manager)
