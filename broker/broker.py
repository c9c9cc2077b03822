"""The broker: builds its parts — metadata cache, log manager, replica manager with its
purgatories, the standalone controller, the group coordinator, the socket server — hands
each the collaborators it uses, and owns their startup and shutdown order.

Who may call it: ``broker/__main__.py`` and tests. Nothing on disk of its own; blocking file
work (checkpoints, controller state) runs on single-thread executors, never on the loop.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from protocol.topics import GROUP_METADATA_TOPIC_NAME
from replication.partition import Partition
from replication.purgatory import DelayedOperationPurgatory
from storage import LogConfig, LogManager

from broker.apis import ApiRegistry
from broker.config import KafkaConfig
from broker.controller import ControllerState, StandaloneController, load_controller_state
from broker.fetch_session import FetchSessionCache
# Until the coordinator's new service lands, a bridge with its constructor wraps the old one.
from coordinator import GroupCoordinatorService
from broker.metadata import BrokerInfo, MetadataCache
from broker.replica_manager import ReplicaManager
from broker.server import SocketServer
from broker.services import BrokerServices
from broker.topic_config import effective_topic_config

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


class GroupCoordinatorLeadership:
    """Forwards leadership of ``__consumer_offsets`` partitions to the group coordinator
    (Kafka's onLeadershipChange → onElection / onResignation). The coordinator is built
    after the replica manager it needs, so it is attached once built."""

    def __init__(self) -> None:
        self.service: GroupCoordinatorService | None = None

    def on_become_leader(self, partition: Partition) -> None:
        if partition.topic == GROUP_METADATA_TOPIC_NAME and self.service is not None:
            self.service.on_elected(partition.index, partition.leader_epoch)

    def on_become_follower(self, partition: Partition) -> None:
        if partition.topic == GROUP_METADATA_TOPIC_NAME and self.service is not None:
            self.service.on_resigned(partition.index, partition.leader_epoch)

    def on_topics_deleted(self, topics: list[str]) -> None:
        if self.service is not None:
            self.service.on_topics_deleted(topics)


class Broker:
    def __init__(self, config: KafkaConfig, loop: asyncio.AbstractEventLoop | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.loop = loop or asyncio.get_event_loop()
        self.clock = clock
        self.apis = ApiRegistry.load()
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
        self.controller: StandaloneController | None = None
        self.group_coordinator: GroupCoordinatorService | None = None
        self.services: BrokerServices | None = None
        self.server: SocketServer | None = None
        self.zk = None

    @property
    def broker_id(self) -> int:
        return self.config.broker_id

    async def start(self) -> None:
        cfg = self.config
        for d in cfg.log_dirs:
            Path(d).mkdir(parents=True, exist_ok=True)
        adv = cfg.advertised_listeners[0]
        local = BrokerInfo(cfg.broker_id, adv.host or _default_host(), adv.port, cfg["broker.rack"])
        state = load_controller_state(cfg.log_dirs[0])
        if state.broker_configs:
            cfg.dynamic.update(state.broker_configs)
        self.metadata_cache = cache = MetadataCache(state.cluster_id, local)
        self.log_manager = LogManager(cfg.log_dirs, LogConfig.from_properties(effective_topic_config(cfg, {})),
                                      clock=self.clock, topic_configs=lambda t: self._topic_log_config(state, t))
        self.log_manager.startup(cluster_id=state.cluster_id, broker_id=cfg.broker_id)
        self.replica_manager = rm = ReplicaManager(
            cfg, self.clock, self.log_manager, cache, DelayedOperationPurgatory("Produce", self.loop),
            DelayedOperationPurgatory("Fetch", self.loop), self.leadership, self.loop)
        self.controller = StandaloneController(cfg, state, local, cache, rm, self._controller_io, self.loop)
        self.group_coordinator = GroupCoordinatorService(
            self._group_coordinator_config(), rm, cache, self.controller.ensure_offsets_topic, self.loop, self.clock)
        self.leadership.service = self.group_coordinator
        await self.group_coordinator.start()
        # Standalone: this broker is the controller, so it hosts every partition now.
        self.controller.startup()
        self.services = BrokerServices(
            config=cfg, clock=self.clock, apis=self.apis, metadata_cache=cache, controller=self.controller,
            replica_manager=rm, log_manager=self.log_manager,
            fetch_sessions=FetchSessionCache(cfg["max.incremental.fetch.session.cache.slots"]),
            group_coordinator=self.group_coordinator)
        self.server = SocketServer(self.config, self.apis, self.services, self.loop)
        await self.server.start()
        # A listener on port 0 (tests) advertises the port it got.
        if adv.port == 0:
            local = BrokerInfo(local.node_id, local.host, self.server.bound_ports[adv.name], local.rack)
            self.controller.broker_endpoint_changed(local)
        if cfg["zookeeper.connect"]:
            await self._register_in_zookeeper(local)
        self._tasks.append(self.loop.create_task(self._housekeeping()))
        log.info("[KafkaServer id=%d] started (kafpy, cluster id %s)", cfg.broker_id, cache.cluster_id)
        self.started.set()

    def _group_coordinator_config(self):
        from coordinator.config import GroupCoordinatorConfig
        gc = GroupCoordinatorConfig.from_broker_config(self.config)
        gc.broker_id = self.config.broker_id
        return gc

    def _topic_log_config(self, state: ControllerState, topic: str) -> LogConfig | None:
        """The LogConfig of a topic the controller knows (logs loaded at startup use it)."""
        info = state.topics.get(topic)
        return LogConfig.from_properties(effective_topic_config(self.config, info.configs)) if info else None

    async def _register_in_zookeeper(self, me: BrokerInfo) -> None:
        from broker.zk_registration import ZkRegistration
        cfg = self.config
        zk = ZkRegistration(cfg["zookeeper.connect"], cfg["zookeeper.session.timeout.ms"],
                            cfg["zookeeper.connection.timeout.ms"])
        adv = cfg.advertised_listeners[0]
        cluster_id = self.metadata_cache.cluster_id
        now_ms = int(self.clock() * 1000)
        zk_cluster = await self.loop.run_in_executor(
            None, lambda: zk.start(me.node_id, me.host, me.port, adv.name, cluster_id, now_ms, me.rack))
        if zk_cluster != cluster_id:
            log.warning("ZooKeeper at %s holds cluster id %s; this broker's log dirs belong to cluster %s",
                        cfg["zookeeper.connect"], zk_cluster, cluster_id)
        log.warning("ZooKeeper mode: this broker registers under /brokers/ids for tools, but keeps topic "
                    "metadata standalone in %s (replication across brokers is not implemented yet)",
                    cfg.log_dirs[0])
        self.zk = zk

    async def _housekeeping(self) -> None:
        """Retention every log.retention.check.interval.ms; checkpoints (high watermarks,
        recovery points, log start offsets) every 5 s, as Kafka does. The offsets are read
        here, on the loop; the files are written (and fsynced) in a thread, so a busy disk
        never stalls requests. A tick whose previous write has not finished writes
        nothing: the next one takes a fresh snapshot."""
        interval = self.config["log.retention.check.interval.ms"] / 1000
        next_retention = self.clock() + interval
        writing: asyncio.Future | None = None
        while True:
            await asyncio.sleep(min(5.0, interval))
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

    async def shutdown(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        log.info("[KafkaServer id=%d] shutting down", self.config.broker_id)
        if self.server is not None:
            await self.server.stop_accepting()
        # The coordinator answers parked JoinGroup/SyncGroup requests first, and parked
        # produces and fetches are answered now, so draining the connections waits for none.
        if self.group_coordinator is not None:
            try:
                await self.group_coordinator.stop()
            except Exception:
                log.exception("Error stopping the group coordinator")
        if self.replica_manager is not None:
            self.replica_manager.shutdown()
        if self.server is not None:
            await self.server.drain_and_close()
        for t in self._tasks:
            t.cancel()
        self._scheduler.shutdown(wait=True)  # a checkpoint write in progress finishes first
        self._controller_io.shutdown(wait=True)
        if self.log_manager is not None:
            self.log_manager.shutdown()
        if self.zk is not None:
            self.zk.stop()
        log.info("[KafkaServer id=%d] shut down completed", self.config.broker_id)
