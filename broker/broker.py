"""The broker: builds its parts — metadata cache, log manager, replica manager with its
purgatories, the standalone controller (or in ZooKeeper mode, when zookeeper.connect is set,
the ZooKeeper client, the cluster controller and the admin manager), the group coordinator,
the socket server — hands each the collaborators it uses, and owns their startup and
shutdown order (in ZooKeeper mode a controlled shutdown first).

Who may call it: ``broker/__main__.py`` and tests. Nothing on disk of its own; blocking file
work (checkpoints, controller state) runs on single-thread executors, never on the loop.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafpy.storage import LogConfig, LogManager

from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, new_cluster_id
from kafpy.replication.partition import Partition
from kafpy.replication.purgatory import DelayedOperationPurgatory
from kafpy.replication.replica_manager import ReplicaManager
from kafpy.replication.zk_data import BrokerRegistration

from kafpy.coordinator.group.service import GroupCoordinatorService
from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.service import ShareCoordinatorService
from kafpy.coordinator.transaction.config import TransactionCoordinatorConfig
from kafpy.coordinator.transaction.marker_sender import TxnMarkerSender
from kafpy.coordinator.transaction.service import TransactionCoordinatorService

from kafpy.broker.admin_controller import AdminController
from kafpy.broker.apis import ApiRegistry
from kafpy.broker.config import KafkaConfig
from kafpy.broker.controlled_shutdown import controlled_shutdown, controller_client_factory
from kafpy.broker.features import TRANSACTION_VERSION, KRaftFeatures, StandaloneFeatures, ZkFeatures
from kafpy.broker.group_configs import overrides_lookup
from kafpy.broker.controller import ControllerState, StandaloneController, load_controller_state
from kafpy.broker.fetch_session import FetchSessionCache
from kafpy.broker.quotas import ClientQuotas
from kafpy.broker.security.client import ClientSecurity
from kafpy.broker.security.credentials import UserConfigs, user_configs_store
from kafpy.broker.server import SocketServer
from kafpy.broker.services import BrokerServices
from kafpy.broker.share_persister import BrokerSharePersister
from kafpy.broker.topic_config import effective_topic_config
from kafpy.broker.txn_verification import TxnVerifier
from kafpy.broker.zk_broker import (ControllerFactory, ZkAdminController, broker_registration, check_cluster_id, kafka_controller_and_admin,
                              load_dynamic_broker_configs, replication_managers)

if TYPE_CHECKING:
    from kafpy.broker.kraft_controller_channel import ControllerChannel
    from kafpy.broker.zk_migration_registration import ZkMigrationRegistration
    from kafpy.protocol.messages import WriteTxnMarkersRequest, WriteTxnMarkersResponse
    from kafpy.replication.network_client import NetworkClient
    from kafpy.coordinator.group.config import GroupCoordinatorConfig
    from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
    from kafpy.coordinator.group.share.config import ShareGroupConfig
    from kafpy.coordinator.group.streams.config import StreamsGroupConfig
    from kafpy.metrics.observer import RequestObserver
    from kafpy.broker.share.share_partition_manager import SharePartitionManager
    from kafpy.broker.security.authorizer import Authorizer
    from kafpy.replication.controller import KafkaController
    # imported where used: a standalone broker never loads kazoo (start time)
    from kafpy.replication.zk_client import KafkaZkClient, SessionState

log = logging.getLogger("kafka.server.KafkaServer")


def _log_checkpoint_failure(fut: "asyncio.Future") -> None:
    if not fut.cancelled() and fut.exception() is not None:
        log.error("Writing checkpoints failed", exc_info=fut.exception())


def _default_host() -> str:
    """Kafka advertises the canonical host name when a listener names no host; fall back to
    localhost when that name does not resolve here."""
    try:
        name = socket.getfqdn()
        socket.getaddrinfo(name, None)
        return name
    except OSError:
        return "localhost"


class HttpListeners(Protocol):
    """What the broker does with its HTTP listeners (``kafpy.broker.http_routes.BrokerHttp``,
    which reads the Broker): stop them."""

    async def stop(self) -> None: ...


class CoordinatorLeadership(Protocol):
    """What a coordinator does when this broker gains or loses one of its topic's partitions."""

    def on_elected(self, partition: int, leader_epoch: int) -> None: ...

    def on_resigned(self, partition: int, leader_epoch: int) -> None: ...


class GroupCoordinatorLeadership:
    """Forwards leadership of ``__consumer_offsets`` partitions to the group coordinator and
    of ``__transaction_state`` partitions to the transaction coordinator, and of
    ``__share_group_state`` partitions to the share coordinator (Kafka's
    onLeadershipChange → onElection / onResignation). The coordinators are built after the
    replica manager they need, so they are attached once built."""

    def __init__(self) -> None:
        self.service: GroupCoordinatorService | None = None
        self.txn_service: TransactionCoordinatorService | None = None
        self.share_service: ShareCoordinatorService | None = None
        self.share_partitions: SharePartitionManager | None = None

    def _service_for(self, partition: Partition) -> CoordinatorLeadership | None:
        if partition.topic == GROUP_METADATA_TOPIC_NAME:
            return self.service
        if partition.topic == TRANSACTION_STATE_TOPIC_NAME:
            return self.txn_service
        if partition.topic == SHARE_GROUP_STATE_TOPIC_NAME:
            return self.share_service
        return None

    def on_become_leader(self, partition: Partition) -> None:
        service = self._service_for(partition)
        if service is not None:
            service.on_elected(partition.index, partition.leader_epoch)

    def on_become_follower(self, partition: Partition) -> None:
        service = self._service_for(partition)
        if service is not None:
            service.on_resigned(partition.index, partition.leader_epoch)
        if self.share_partitions is not None:
            self.share_partitions.on_partition_moved(partition.topic, partition.index)

    def on_topics_deleted(self, topics: list[str]) -> None:
        if self.service is not None:
            self.service.on_topics_deleted(topics)
        if self.share_service is not None:
            self.share_service.on_topics_deleted(topics)
        if self.share_partitions is not None:
            self.share_partitions.on_topics_deleted(topics)


class Broker:
    # the APIs this broker forwards to a controller that authorizes them (a KRaft broker's)
    forwarded_apis: frozenset[int] = frozenset()

    def __init__(self, config: KafkaConfig, loop: asyncio.AbstractEventLoop | None = None,
                 clock: Callable[[], float] = time.time,
                 controller_factory: ControllerFactory = kafka_controller_and_admin) -> None:
        """``controller_factory`` builds the cluster controller and admin manager of a
        ZooKeeper-mode broker (tests pass their own)."""
        self.config = config
        self.loop = loop or asyncio.get_event_loop()
        self.clock = clock
        self._controller_factory = controller_factory
        self.apis = ApiRegistry.load(zk_mode=self.zk_mode)
        self.started = asyncio.Event()
        self.stopping = False
        self.start_time_ms = int(clock() * 1000)
        # blocking file work off the loop, one job at a time each: checkpoint fsyncs, and
        # the controller's state file (so a change is answered once it is on disk)
        self._scheduler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kafka-scheduler")
        self._controller_io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="controller-state")
        self._tasks: list[asyncio.Task] = []
        self.leadership = GroupCoordinatorLeadership()
        # built by start()
        self.metadata_cache: MetadataCache | None = None
        self.log_manager: LogManager | None = None
        self.replica_manager: ReplicaManager | None = None
        # the admin handlers' metadata writer: StandaloneController, or ZkAdminManager in ZooKeeper mode
        self.controller: AdminController | None = None
        self.cluster_controller: "KafkaController | None" = None  # ZooKeeper mode
        self._zk_admin: ZkAdminController | None = None  # ZooKeeper mode: self.controller, started and shut down
        self.inter_broker_security: ClientSecurity | None = None
        self.zk: KafkaZkClient | None = None
        self.zk_migration: "ZkMigrationRegistration | None" = None  # zookeeper.metadata.migration.enable
        self._registration: BrokerRegistration | None = None
        self.group_coordinator: GroupCoordinatorService | None = None
        self.txn_coordinator: TransactionCoordinatorService | None = None
        self.txn_verifier: TxnVerifier | None = None
        self.share_coordinator: ShareCoordinatorService | None = None
        self.share_persister: BrokerSharePersister | None = None
        self.services: BrokerServices | None = None
        self.features: StandaloneFeatures | ZkFeatures | KRaftFeatures | None = None
        self.server: SocketServer | None = None
        self.http_server: HttpListeners | None = None   # broker.http_routes.BrokerHttp, when kafpy.http.listeners is set

    @property
    def broker_id(self) -> int:
        return self.config.broker_id

    @property
    def zk_mode(self) -> bool:
        return bool(self.config["zookeeper.connect"])

    async def start(self) -> None:
        cfg = self.config
        # this broker's connections to the others use the inter-broker listener's security
        self.inter_broker_security = ClientSecurity.inter_broker(cfg)
        for d in cfg.log_dirs:
            Path(d).mkdir(parents=True, exist_ok=True)
        adv = cfg.advertised_listeners[0]
        local = BrokerInfo(cfg.broker_id, adv.host or _default_host(), adv.port, cfg["broker.rack"])
        if self.zk_mode:
            await self._start_zk_mode(local)
        else:
            await self._start_standalone(local)
        self._tasks.append(self.loop.create_task(self._housekeeping()))
        assert self.metadata_cache is not None
        log.info("[KafkaServer id=%d] started (kafpy, cluster id %s)", cfg.broker_id, self.metadata_cache.cluster_id)
        self.started.set()

    async def _start_standalone(self, local: BrokerInfo) -> None:
        cfg = self.config
        state = load_controller_state(cfg.log_dirs[0])
        if state.broker_configs or state.default_broker_configs:
            cfg.set_dynamic(state.default_broker_configs, state.broker_configs)
        self.metadata_cache = cache = MetadataCache(state.cluster_id, local)
        rm = self._start_logs(state.cluster_id, lambda t: self._topic_log_config(state, t))
        self.controller = StandaloneController(cfg, state, local, cache, rm, self._controller_io, self.loop)
        self.features = StandaloneFeatures(state.finalized_features, state.features_epoch,
                                           self.controller.persist_features)
        await self._start_group_coordinator()
        # Standalone: this broker is the controller, so it hosts every partition now.
        self.controller.startup()
        await self._start_server()
        assert self.server is not None
        adv = cfg.advertised_listeners[0]
        # Every listener's endpoint (clients are answered with their own listener's); a
        # listener on port 0 (tests) advertises the port it got.
        endpoints = {li.name: (li.host or local.host, li.port or self.server.bound_ports.get(li.name, li.port))
                     for li in cfg.advertised_listeners}
        local = BrokerInfo(local.node_id, local.host, endpoints[adv.name][1], local.rack, endpoints)
        self.controller.broker_endpoint_changed(local)

    async def _start_zk_mode(self, local: BrokerInfo) -> None:
        """KafkaServer.startup in ZooKeeper mode: the cluster id before the logs; an empty
        metadata cache that only UpdateMetadata fills and no partition hosted until
        LeaderAndIsr; registration once the listeners are bound, then the controller."""
        from kafpy.replication.zk_client import KafkaZkClient
        cfg = self.config
        self.zk = zk = KafkaZkClient(cfg["zookeeper.connect"], cfg["zookeeper.session.timeout.ms"],
                                     cfg["zookeeper.connection.timeout.ms"], self.clock, self._on_zk_session_state)
        log.info("Connecting to zookeeper on %s", cfg["zookeeper.connect"])
        await zk.start()
        await zk.ensure_persistent_paths()
        cluster_id = await zk.get_or_create_cluster_id(new_cluster_id())
        log.info("Cluster ID = %s", cluster_id)
        self.features = ZkFeatures(zk)
        await self.features.start()
        check_cluster_id(cfg.log_dirs, cluster_id)
        cfg.set_dynamic(*await load_dynamic_broker_configs(zk, cfg.broker_id))
        self.metadata_cache = cache = MetadataCache(cluster_id, local, live_brokers=[])
        rm = self._start_logs(cluster_id, lambda t: None)
        self.cluster_controller, self.controller = self._controller_factory(cfg, zk, cache, rm, self.clock, self.loop,
                                                                            self.inter_broker_security)
        self._zk_admin = self.controller
        await self.controller.start()  # topic configs, and following /config/changes
        await self._start_group_coordinator()
        await self._start_server()
        assert self.server is not None and self.services is not None
        services = self.services
        migration = cfg["zookeeper.metadata.migration.enable"]
        rm.start_replication(*replication_managers(
            cfg, rm, cache, self._zk_broker_epoch if migration else lambda: services.broker_epoch, self.loop,
            self.inter_broker_security, self._zk_controller_node if migration else None))
        cfg.reconfigure_listeners.append(self._replica_fetchers_changed)
        rm.log_dir_event_notifier = lambda: zk.propagate_log_dir_event(cfg.broker_id)
        self._registration = broker_registration(cfg, self.server.bound_ports, local.host)
        services.broker_epoch = await zk.register_broker(self._registration)
        await self.cluster_controller.startup(services.broker_epoch)
        if cfg["zookeeper.metadata.migration.enable"]:  # KIP-866: register with the KRaft controllers
            from kafpy.broker.zk_migration_registration import ZkMigrationRegistration
            self.zk_migration = ZkMigrationRegistration(cfg, cluster_id, self.server.bound_ports, local.host)
            self.zk_migration.start()
            lifecycle = self.zk_migration.lifecycle
            services.kraft_broker_epoch = lambda: lifecycle.broker_epoch
            from kafpy.broker.kraft_admin import KRaftAdminController
            from kafpy.replication.zk_admin import ZkAdminManager
            if isinstance(self._zk_admin, ZkAdminManager):   # auto-created topics go to the KRaft controller
                creator = KRaftAdminController(cfg, cache, self.zk_migration.forwarding,
                                               lambda: lifecycle.broker_epoch, self.clock)
                self._zk_admin.kraft_creator = lambda: creator if self._kraft_controller() is not None else None

    def _kraft_controller(self) -> BrokerInfo | None:
        """During a migration, the active KRaft controller once UpdateMetadata named one (Kafka's
        KRaftCachedControllerId), else None."""
        mig, cache = self.zk_migration, self.metadata_cache
        if mig is None or cache is None or cache.kraft_controller_id is None:
            return None
        return mig.probe.active_controller()

    def _forwarding_channel(self) -> "ControllerChannel":
        assert self.zk_migration is not None  # a KRaft controller rules only once registered
        return self.zk_migration.forwarding

    def _zk_controller_node(self) -> BrokerInfo | None:
        cache = self.metadata_cache
        assert cache is not None
        kraft = self._kraft_controller()
        if kraft is not None:
            return kraft
        return cache.broker(cache.controller_id) if cache.controller_id >= 0 else None

    def _zk_broker_epoch(self) -> int:
        """Kafka 3.9's ZkBrokerEpochManager: the KRaft broker epoch while a KRaft controller rules."""
        assert self.services is not None
        if self._kraft_controller() is not None and self.zk_migration is not None:
            return self.zk_migration.lifecycle.broker_epoch
        return self.services.broker_epoch

    def _replica_fetchers_changed(self) -> None:
        """num.replica.fetchers altered dynamically: resize the fetcher pool (in the
        background: it waits for fetchers to stop) when the count differs."""
        assert self.replica_manager is not None
        fm = self.replica_manager.fetcher_manager
        size = max(1, self.config["num.replica.fetchers"])
        if fm is not None and fm.config.num_fetchers != size:
            self._tasks.append(self.loop.create_task(fm.resize_thread_pool(size), name="resize-replica-fetchers"))

    def _txn_verification_changed(self) -> None:
        """transaction.partition.verification.enable altered dynamically (Kafka's
        DynamicProducerStateManagerConfig): later transactional batches follow it."""
        if self.txn_verifier is not None:
            self.txn_verifier.enabled = self.config["transaction.partition.verification.enable"]

    def _log_cleaner_changed(self) -> None:
        """log.cleaner.threads, backoff.ms, dedupe.buffer.size, io.buffer.load.factor,
        io.max.bytes.per.second and io.buffer.size altered dynamically."""
        assert self.log_manager is not None
        cleaner = self.log_manager.cleaner
        cfg = self.config
        if cleaner is not None:
            cleaner.reconfigure(cfg["log.cleaner.threads"], cfg["log.cleaner.backoff.ms"],
                                cfg["log.cleaner.dedupe.buffer.size"], cfg["log.cleaner.io.buffer.load.factor"],
                                cfg["log.cleaner.io.max.bytes.per.second"], cfg["log.cleaner.io.buffer.size"])

    def _start_logs(self, cluster_id: str, topic_configs: Callable[[str], LogConfig | None]) -> ReplicaManager:
        cfg = self.config
        self.log_manager = LogManager(cfg.log_dirs, LogConfig.from_properties(effective_topic_config(cfg, {})),
                                      clock=self.clock, topic_configs=topic_configs,
                                      recovery_threads_per_data_dir=cfg["num.recovery.threads.per.data.dir"],
                                      start_cleaner=cfg["log.cleaner.enable"], cleaner_threads=cfg["log.cleaner.threads"],
                                      cleaner_backoff_ms=cfg["log.cleaner.backoff.ms"],
                                      cleaner_dedupe_buffer_size=cfg["log.cleaner.dedupe.buffer.size"],
                                      cleaner_load_factor=cfg["log.cleaner.io.buffer.load.factor"],
                                      cleaner_io_max_bytes_per_s=cfg["log.cleaner.io.max.bytes.per.second"],
                                      cleaner_io_buffer_size=cfg["log.cleaner.io.buffer.size"])
        self.log_manager.startup(cluster_id=cluster_id, broker_id=cfg.broker_id)
        cfg.reconfigure_listeners.append(self._log_cleaner_changed)
        assert self.metadata_cache is not None
        self.replica_manager = ReplicaManager(
            cfg, self.clock, self.log_manager, self.metadata_cache, DelayedOperationPurgatory("Produce", self.loop),
            DelayedOperationPurgatory("Fetch", self.loop), self.leadership, self.loop,
            functools.partial(effective_topic_config, cfg))
        return self.replica_manager

    async def _start_group_coordinator(self) -> None:
        assert (self.controller is not None and self.metadata_cache is not None
                and self.replica_manager is not None)
        self.group_coordinator = GroupCoordinatorService(
            self._group_coordinator_config(), self.replica_manager, self.metadata_cache,
            self.controller.ensure_offsets_topic, self.loop, self.clock,
            consumer_config=self._consumer_group_config(),
            group_configs=overrides_lookup(self.controller.entity_configs),
            share_config=self._share_group_config(),
            share_persister=lambda: self.services.share_persister if self.services else None,
            streams_config=self._streams_group_config())
        self.leadership.service = self.group_coordinator
        await self.group_coordinator.start()
        await self._start_txn_coordinator()
        await self._start_share_coordinator()

    async def _start_share_coordinator(self) -> None:
        """The share coordinator of the `__share_group_state` partitions this broker leads,
        and the persister through which this broker's share partitions reach any of them."""
        cfg = self.config
        assert (self.controller is not None and self.metadata_cache is not None
                and self.replica_manager is not None)
        self.share_coordinator = ShareCoordinatorService(
            ShareCoordinatorConfig.from_broker_config(cfg), self.replica_manager, self.metadata_cache,
            self.controller.ensure_share_group_state_topic, self.loop, self.clock)
        self.leadership.share_service = self.share_coordinator
        self.share_persister = BrokerSharePersister(
            cfg.broker_id, self.metadata_cache, lambda: self.share_coordinator,
            lambda node: self._txn_marker_client(node, "share-persister"), self.loop,
            max_wait_ms=cfg["request.timeout.ms"])
        await self.share_coordinator.start()

    async def _start_txn_coordinator(self) -> None:
        cfg = self.config
        txn_config = TransactionCoordinatorConfig.from_broker_config(cfg)
        txn_config.broker_id = cfg.broker_id
        assert (self.controller is not None and self.metadata_cache is not None
                and self.replica_manager is not None)
        markers = TxnMarkerSender(cfg.broker_id, self.metadata_cache, self._write_txn_markers_locally,
                                  self._txn_marker_client, self.loop, timeout_ms=cfg["request.timeout.ms"])
        self.txn_verifier = TxnVerifier(
            cfg.broker_id, self.metadata_cache, lambda: self.txn_coordinator,
            lambda node: self._txn_marker_client(node, "txn-verifier"), cfg["transaction.partition.verification.enable"],
            add_retry_backoff_ms=cfg["add.partitions.to.txn.retry.backoff.ms"],
            add_retry_max_ms=min(cfg["add.partitions.to.txn.retry.backoff.max.ms"], cfg["request.timeout.ms"]))
        cfg.reconfigure_listeners.append(self._txn_verification_changed)
        verifier = self.txn_verifier

        async def close_clients() -> None:
            await markers.close()
            await verifier.close()
        self.txn_coordinator = TransactionCoordinatorService(
            txn_config, self.replica_manager, self.metadata_cache, self.controller.ensure_transaction_state_topic,
            self.controller.next_producer_id, markers, self.loop, self.clock, close_markers=close_clients,
            transaction_version=lambda: self.features.current().level(TRANSACTION_VERSION) if self.features else 0)
        self.leadership.txn_service = self.txn_coordinator
        await self.txn_coordinator.start()

    async def _write_txn_markers_locally(self, request: WriteTxnMarkersRequest) -> WriteTxnMarkersResponse:
        """WriteTxnMarkers for partitions this broker leads, without a connection."""
        from kafpy.broker.handlers.txn_markers import write_txn_markers
        assert self.services is not None
        return await write_txn_markers(self.services, request)

    def _txn_marker_client(self, node: BrokerInfo, purpose: str = "txn-marker-sender") -> NetworkClient:
        from kafpy.replication.network_client import NetworkClient, NetworkClientConfig
        return NetworkClient(node.host, node.port, client_id=f"broker-{self.config.broker_id}-{purpose}",
                             node_id=node.node_id, loop=self.loop, security=self.inter_broker_security,
                             config=NetworkClientConfig(request_timeout_ms=self.config["request.timeout.ms"]))

    async def _start_authorizer(self) -> Authorizer | None:
        """The authorizer of ``authorizer.class.name``, started, its ACLs in ZooKeeper or the
        standalone metadata file (a KRaft broker's are the metadata image's)."""
        from kafpy.broker.authorization import start_authorizer
        return await start_authorizer(self.config, self.zk, self.controller, self.clock)

    async def _start_server(self) -> None:
        cfg = self.config
        from kafpy.broker.authorization import early_start_listeners, guard_registry
        authorizer = await self._start_authorizer()
        if authorizer is not None:
            self.apis = guard_registry(self.apis, authorizer, early_start_listeners(cfg), self.forwarded_apis)
        if self.zk_mode and cfg["zookeeper.metadata.migration.enable"]:  # KIP-866: admin requests forwarded
            from kafpy.broker.zk_migration_registration import migration_registry
            self.apis = migration_registry(self.apis, lambda: self._kraft_controller() is not None,
                                           self._forwarding_channel)
        assert (self.metadata_cache is not None and self.controller is not None and self.replica_manager is not None
                and self.log_manager is not None)
        self.services = BrokerServices(
            config=cfg, clock=self.clock, apis=self.apis, metadata_cache=self.metadata_cache,
            controller=self.controller, replica_manager=self.replica_manager, log_manager=self.log_manager,
            fetch_sessions=FetchSessionCache(cfg["max.incremental.fetch.session.cache.slots"]),
            group_coordinator=self.group_coordinator, txn_coordinator=self.txn_coordinator,
            txn_verifier=self.txn_verifier,
            share_persister=self.share_persister, share_coordinator=self.share_coordinator,
            cluster_controller=self.cluster_controller, zk_client=self.zk, authorizer=authorizer,
            quotas=self._client_quotas(),
            user_configs=self._user_configs(), features=self.features)
        self._start_share_partitions()
        self.server = SocketServer(self.config, self.apis, self.services, self.loop)
        self._observe_requests_when_read()
        cfg.reconfigure_listeners.append(self._observe_requests_when_read)
        await self.server.start()
        await self._start_http()

    def _user_configs(self) -> UserConfigs:
        """Where SCRAM credentials are read: ZooKeeper, or the standalone broker's file."""
        return user_configs_store(self.zk, self.config.log_dirs[0])

    def _start_share_partitions(self) -> None:
        """The share partitions this broker leads (ShareFetch, ShareAcknowledge), writing
        their state through `services.share_persister`."""
        from kafpy.broker.share.share_partition_manager import SharePartitionManager
        services = self.services
        assert services is not None and self.controller is not None and services.share_persister is not None
        assert self.replica_manager is not None and self.metadata_cache is not None
        services.share_partitions = SharePartitionManager(
            self.replica_manager, self.metadata_cache, services.share_persister, self.config,
            overrides_lookup(self.controller.entity_configs), self.clock, self.loop)
        self.leadership.share_partitions = services.share_partitions

    def _observe_requests_when_read(self) -> None:
        """Install the per-request observer (metrics.observer) once something reads what it
        records: an HTTP listener serving /metrics, a slow-request threshold, or
        kafka.request.logger at DEBUG. Until then requests pay nothing for it (a feature costs
        nothing where it is not used). Called at start and on every dynamic change; once
        installed it stays."""
        cfg = self.config
        assert self.server is not None and self.replica_manager is not None
        if self.server.observer is not None or not cfg["kafpy.metrics.enable"]:
            return
        if (cfg["kafpy.http.listeners"] or cfg["kafpy.request.logger.slow.ms"] >= 0
                or logging.getLogger("kafka.request.logger").isEnabledFor(logging.DEBUG)):
            observer = self._request_observer()
            self.replica_manager.topic_stats = observer.topics   # produces counted as appended
            self.server.observer = observer

    def _request_observer(self) -> RequestObserver:
        """Per-request metrics and the request logger (metrics.observer)."""
        from kafpy.metrics.observer import RequestObserver
        from kafpy.metrics.request_logger import RequestLogger
        cache = self.metadata_cache
        assert cache is not None
        return RequestObserver(self.apis.name, cache.topic_name,
                               RequestLogger(lambda: self.config["kafpy.request.logger.slow.ms"]))

    async def _start_http(self) -> None:
        """The HTTP listeners (kafpy.http.listeners): /metrics and the status page. aiohttp
        and prometheus_client are imported only here, so a broker without them pays nothing."""
        if not self.config["kafpy.http.listeners"]:
            return
        from kafpy.broker.http_routes import start_http_server
        self.http_server = await start_http_server(self)

    def _client_quotas(self) -> ClientQuotas:
        """The client quotas, fed with the controller's user and client entity configs."""
        quotas = ClientQuotas.from_config(self.config)
        assert self.controller is not None
        self.controller.entity_configs.add_listener(quotas.apply_entity_config)
        return quotas

    def _group_coordinator_config(self) -> GroupCoordinatorConfig:
        from kafpy.coordinator.group.config import GroupCoordinatorConfig
        gc = GroupCoordinatorConfig.from_broker_config(self.config)
        gc.broker_id = self.config.broker_id
        return gc

    def _consumer_group_config(self) -> ConsumerGroupConfig | None:
        """The consumer protocol's settings, or None when
        group.coordinator.rebalance.protocols leaves it out (classic groups only)."""
        from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
        if "consumer" not in [p.strip().lower() for p in self.config["group.coordinator.rebalance.protocols"]]:
            return None
        return ConsumerGroupConfig.from_broker_config(self.config)

    def _share_group_config(self) -> ShareGroupConfig:
        """Share groups' settings (KIP-932): always on; the share.version feature gates
        their APIs."""
        from kafpy.coordinator.group.share.config import ShareGroupConfig
        return ShareGroupConfig.from_broker_config(self.config)
    def _streams_group_config(self) -> StreamsGroupConfig | None:
        """The Streams protocol's settings (KIP-1071), or None when
        group.coordinator.rebalance.protocols leaves it out."""
        from kafpy.coordinator.group.streams.config import StreamsGroupConfig
        if "streams" not in [p.strip().lower() for p in self.config["group.coordinator.rebalance.protocols"]]:
            return None
        return StreamsGroupConfig.from_broker_config(self.config)

    def _topic_log_config(self, state: ControllerState, topic: str) -> LogConfig | None:
        """The LogConfig of a topic the controller knows (logs loaded at startup use it)."""
        info = state.topics.get(topic)
        return LogConfig.from_properties(effective_topic_config(self.config, info.configs)) if info else None

    def _on_zk_session_state(self, state: SessionState) -> None:
        """A new session after an expiry lost the registration: register again (a new broker
        epoch), then let the controller elect again."""
        from kafpy.replication.zk_client import SessionState
        if state is SessionState.EXPIRED:
            log.warning("[KafkaServer id=%d] ZooKeeper session expired", self.config.broker_id)
        elif state is SessionState.NEW_SESSION and not self.stopping and self._registration is not None:
            self._tasks.append(self.loop.create_task(self._register_again()))

    async def _register_again(self) -> None:
        assert self.zk is not None and self._registration is not None
        assert self.services is not None and self.cluster_controller is not None
        while not self.stopping:
            try:
                epoch = await self.zk.register_broker(self._registration)
                break
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("[KafkaServer id=%d] Registering again in ZooKeeper failed; retrying",
                              self.config.broker_id)
                await asyncio.sleep(1.0)
        else:
            return
        self.services.broker_epoch = epoch
        await self.cluster_controller.on_new_session(epoch)

    async def _housekeeping(self) -> None:
        """Retention every log.retention.check.interval.ms; checkpoints (high watermarks,
        recovery points, log start offsets) every replica.high.watermark.checkpoint.interval.ms
        (5 s; Kafka writes the other two less often, every minute). The offsets are read
        here, on the loop; the files are written (and fsynced) in a thread, so a busy disk
        never stalls requests. A tick whose previous write has not finished writes
        nothing: the next one takes a fresh snapshot."""
        interval = self.config["log.retention.check.interval.ms"] / 1000
        checkpoint_interval = self.config["replica.high.watermark.checkpoint.interval.ms"] / 1000
        next_retention = self.clock() + interval
        writing: asyncio.Future | None = None
        assert self.log_manager is not None
        while True:
            await asyncio.sleep(min(checkpoint_interval, interval))
            try:
                now = self.clock()
                if now >= next_retention:
                    next_retention = now + interval
                    self.log_manager.run_housekeeping(int(now * 1000), checkpoint=False)
                if writing is None or writing.done():
                    writing = self.loop.run_in_executor(self._scheduler, self.log_manager.checkpoint_writer())
                    writing.add_done_callback(_log_checkpoint_failure)
            except Exception:
                log.exception("Log housekeeping failed")

    def clean_shutdown_broker_epoch(self) -> int:
        """The broker epoch the clean-shutdown files keep: -1 for a ZooKeeper-mode broker, as
        Kafka's ``KafkaServer`` writes (a KRaft broker keeps its own, see `KRaftBroker`)."""
        return -1

    async def shutdown(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        log.info("[KafkaServer id=%d] shutting down", self.config.broker_id)
        if (self.zk_migration is not None and self._kraft_controller() is not None and self.started.is_set()
                and self.config["controlled.shutdown.enable"]):
            await self.zk_migration.controlled_shutdown()  # KIP-866: through the KRaft controller's heartbeats
        elif self.zk_mode and self.started.is_set() and self.config["controlled.shutdown.enable"]:
            try:  # while still serving: the controller moves our leaderships with requests to us
                assert self.metadata_cache is not None and self.services is not None
                services = self.services
                await controlled_shutdown(self.config, self.metadata_cache, lambda: services.broker_epoch,
                                          self.clock, controller_client_factory(self.config, self.loop,
                                                                                self.inter_broker_security))
            except Exception:
                log.exception("Error during controlled shutdown")
        if self.zk_migration is not None:
            await self.zk_migration.close()
        if self.server is not None:
            await self.server.stop_accepting()
        if self.http_server is not None:
            try:
                await self.http_server.stop()
            except Exception:
                log.exception("Error stopping the HTTP listeners")
        # The coordinator answers parked JoinGroup/SyncGroup requests first, and parked
        # produces and fetches are answered now, so draining the connections waits for none.
        for name, coordinator in (("group", self.group_coordinator), ("transaction", self.txn_coordinator),
                                  ("share", self.share_coordinator)):
            if coordinator is not None:
                try:
                    await coordinator.stop()
                except Exception:
                    log.exception("Error stopping the %s coordinator", name)
        if self.services is not None and self.services.share_partitions is not None:
            self.services.share_partitions.shutdown()
        if self.share_persister is not None:
            await self.share_persister.close()
        if self.replica_manager is not None:
            await self.replica_manager.shutdown_replication()
            self.replica_manager.shutdown()
        if self.server is not None:
            await self.server.drain_and_close()
        for t in self._tasks:
            t.cancel()
        if self.services is not None and self.services.authorizer is not None:
            try:  # no request is left to ask it; its ZooKeeper notification reads end here
                await self.services.authorizer.close()
            except Exception:
                log.exception("Error closing the authorizer")
        if self.cluster_controller is not None:
            try:
                assert self._zk_admin is not None
                await self._zk_admin.shutdown()
                await self.cluster_controller.shutdown()
            except Exception:
                log.exception("Error stopping the controller")
        self._scheduler.shutdown(wait=True)  # a checkpoint write in progress finishes first
        self._controller_io.shutdown(wait=True)
        if self.log_manager is not None:
            self.log_manager.shutdown(self.clean_shutdown_broker_epoch())
        if isinstance(self.features, ZkFeatures):
            self.features.close()
        if self.zk is not None:
            await self.zk.close()
        log.info("[KafkaServer id=%d] shut down completed", self.config.broker_id)
