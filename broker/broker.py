"""The broker: wires configuration, metadata, the log manager, the replica manager, the group
coordinator and the socket server together, and owns their startup and shutdown order."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from storage import LogManager, LogConfig

from broker.apis import ApiRegistry
from broker.config import KafkaConfig
from broker.metadata import BrokerInfo, StandaloneMetadata
from broker.replica_manager import ReplicaManager
from broker.server import SocketServer
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


class Broker:
    def __init__(self, config: KafkaConfig, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.config = config
        self.loop = loop or asyncio.get_event_loop()
        self.apis = ApiRegistry.load()
        self.metadata: StandaloneMetadata | None = None
        self.log_manager: LogManager | None = None
        self.replica_manager = ReplicaManager(self)
        self.group_coordinator = None
        self.zk = None
        self.server = SocketServer(config, self.apis, self, self.loop)
        self.started = asyncio.Event()
        self._stopping = False
        self._tasks: list[asyncio.Task] = []
        # blocking file work off the loop (checkpoint fsyncs), one job at a time
        self._scheduler = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kafka-scheduler")
        self.start_time_ms = int(time.time() * 1000)

    @property
    def broker_id(self) -> int:
        return self.config.broker_id

    def default_log_config(self) -> LogConfig:
        return LogConfig.from_properties(effective_topic_config(self.config, {}))

    async def start(self) -> None:
        cfg = self.config
        for d in cfg.log_dirs:
            Path(d).mkdir(parents=True, exist_ok=True)
        adv = cfg.advertised_listeners[0]
        host = adv.host or _default_host()
        self.metadata = StandaloneMetadata(cfg.log_dirs[0], BrokerInfo(cfg.broker_id, host, adv.port,
                                                                       cfg["broker.rack"]))
        if self.metadata.broker_configs:
            cfg.dynamic.update(self.metadata.broker_configs)
        self.log_manager = LogManager(cfg.log_dirs, self.default_log_config(), topic_configs=self._topic_log_config)
        self.log_manager.startup(cluster_id=self.metadata.cluster_id, broker_id=cfg.broker_id)
        for info in list(self.metadata.topics().values()):
            self.replica_manager.host_topic(info)
        from coordinator import GroupCoordinatorService
        self.group_coordinator = GroupCoordinatorService()
        await self.group_coordinator.start(self)
        await self.server.start()
        # A listener on port 0 (tests) advertises the port it got.
        if adv.port == 0:
            self.metadata.broker.port = self.server.bound_ports[adv.name]
        if cfg["zookeeper.connect"]:
            await self._register_in_zookeeper()
        self._tasks.append(self.loop.create_task(self._housekeeping()))
        log.info("[KafkaServer id=%d] started (kafpy, cluster id %s)", cfg.broker_id, self.metadata.cluster_id)
        self.started.set()

    async def _register_in_zookeeper(self) -> None:
        from broker.zk_registration import ZkRegistration
        cfg = self.config
        zk = ZkRegistration(cfg["zookeeper.connect"], cfg["zookeeper.session.timeout.ms"],
                            cfg["zookeeper.connection.timeout.ms"])
        me = self.metadata.broker
        adv = cfg.advertised_listeners[0]
        zk_cluster = await self.loop.run_in_executor(
            None, lambda: zk.start(me.node_id, me.host, me.port, adv.name, self.metadata.cluster_id, me.rack))
        if zk_cluster != self.metadata.cluster_id:
            log.warning("ZooKeeper at %s holds cluster id %s; this broker's log dirs belong to cluster %s",
                        cfg["zookeeper.connect"], zk_cluster, self.metadata.cluster_id)
        log.warning("ZooKeeper mode: this broker registers under /brokers/ids for tools, but keeps topic "
                    "metadata standalone in %s (replication across brokers is not implemented yet)",
                    cfg.log_dirs[0])
        self.zk = zk

    def _topic_log_config(self, topic: str) -> LogConfig | None:
        """The LogConfig of a topic the metadata knows (logs loaded at startup use it)."""
        info = self.metadata.topic(topic) if self.metadata is not None else None
        return self.replica_manager.log_config(info) if info is not None else None

    async def _housekeeping(self) -> None:
        """Retention every log.retention.check.interval.ms; checkpoints (high watermarks,
        recovery points, log start offsets) every 5 s, as Kafka does. The offsets are read
        here, on the loop; the files are written (and fsynced) in a thread, so a busy disk
        never stalls requests. A tick whose previous write has not finished writes
        nothing: the next one takes a fresh snapshot."""
        interval = self.config["log.retention.check.interval.ms"] / 1000
        next_retention = time.monotonic() + interval
        writing: asyncio.Future | None = None
        while True:
            await asyncio.sleep(min(5.0, interval))
            try:
                if time.monotonic() >= next_retention:
                    next_retention = time.monotonic() + interval
                    self.log_manager.run_housekeeping(int(time.time() * 1000), checkpoint=False)
                if writing is None or writing.done():
                    writing = self.loop.run_in_executor(self._scheduler, self.log_manager.checkpoint_writer())
                    writing.add_done_callback(_log_checkpoint_failure)
            except Exception:
                log.exception("Log housekeeping failed")

    async def shutdown(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        log.info("[KafkaServer id=%d] shutting down", self.config.broker_id)
        await self.server.stop_accepting()
        # The coordinator answers parked JoinGroup/SyncGroup requests first, so draining the
        # connections does not wait for rebalances.
        if self.group_coordinator is not None:
            try:
                await self.group_coordinator.stop()
            except Exception:
                log.exception("Error stopping the group coordinator")
        await self.server.drain_and_close()
        for t in self._tasks:
            t.cancel()
        self._scheduler.shutdown(wait=True)  # a checkpoint write in progress finishes first
        if self.log_manager is not None:
            self.log_manager.shutdown()
        if self.zk is not None:
            self.zk.stop()
        log.info("[KafkaServer id=%d] shut down completed", self.config.broker_id)

    def pid(self) -> int:
        return os.getpid()
