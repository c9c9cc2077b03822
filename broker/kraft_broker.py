"""A ``process.roles=broker`` node (Kafka's ``BrokerServer``): a kafpy broker whose metadata
comes from a KRaft controller quorum instead of ZooKeeper.

Start-up, in Kafka's order: meta.properties checked (formatted, one cluster, this node id);
the logs loaded; the raft client started as an *observer* of the voters of
``controller.quorum.voters`` (it fetches ``__cluster_metadata`` into the on-disk metadata log
of ``metadata.log.dir`` but never votes); the listener (``BrokerMetadataListener``) loads the
latest snapshot and replays each committed batch after it into a metadata image, published once
it has read up to the high watermark, which ``BrokerMetadataPublisher`` applies to the
metadata cache and the replica manager; the coordinators and the socket server start; the
``BrokerLifecycleManager`` registers with the active controller and heartbeats. Once the
controller says the broker caught up with the log and the publisher has applied what was
committed then, the broker says it is ready and waits to be unfenced.

Shutdown (SIGTERM): a controlled shutdown first (heartbeats ask ``want_shut_down`` until the
controller has moved the leaderships away and lets the broker go, at most
``controlled.shutdown`` retries' worth of time, or until no controller has answered for
``broker.session.timeout.ms``), then what ``Broker.shutdown`` stops, then the raft client and
the metadata log.

Admin requests are forwarded to the active controller (``kraft_forwarding``); ISR changes go
there too (AlterPartition). Dynamic broker configs, client quotas and SCRAM credentials come
from the image (``kraft_dynamic_configs``). With ``authorizer.class.name`` set to Kafka's
``StandardAuthorizer`` every request is authorized (the ZooKeeper-mode rules) against the ACLs of
the published image (``ImageAclStore``); the listeners not in ``early.start.listeners`` hold
their requests until the first image is published (Kafka's initial ACL load). Not done yet, and
refused at start rather than run half-way: ``controller.quorum.bootstrap.servers`` without
voters, a controller listener other than PLAINTEXT. The listeners open before the broker registers (a listener on port 0
registers the port it got), as the metadata it has answers until it has caught up.

Who calls it: ``python -m kafpy.broker`` when ``process.roles=broker``; tests.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import time
from typing import Callable

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.meta_properties import (
    MetaPropertiesEnsemble, MetaPropertiesError, load_ensemble, random_directory_id, uuid_from_string,
    write_meta_properties,
)
from kafpy.raft.kafka_raft_client import KafkaRaftClient, wall_clock_ms
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.metadata_log import decode_batches as decode_metadata_log_batches
from kafpy.raft.quorum_state_store import FileQuorumStateStore, quorum_state_path
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.voter_set import VoterSet
from kafpy.replication.kafka_network_channel import KafkaNetworkChannel
from kafpy.replication.alter_partition_manager import AlterPartitionManager
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.replication.network_client import NetworkClient, NetworkClientConfig

from kafpy.broker.broker import Broker, _default_host
from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.controller_server import quorum_config
from kafpy.broker.features import KRaftFeatures
from kafpy.metadata.metadata_version import KRAFT_VERSION_FEATURE
from kafpy.broker.kraft_admin import KRaftAdminController
from kafpy.broker.kraft_config import parse_voters
from kafpy.broker.kraft_controller_channel import ControllerChannel
from kafpy.broker.kraft_dynamic_configs import DynamicConfigPublisher, ImageUserConfigs
from kafpy.broker.security.authorizer import Authorizer
from kafpy.broker.security.credentials import UserConfigs
from kafpy.broker.security.image_acl_store import ImageAclStore
from kafpy.broker.security.standard_authorizer import create_kraft_authorizer
from kafpy.broker.kraft_forwarding import FORWARDED, kraft_registry
from kafpy.broker.kraft_lifecycle import BrokerLifecycleManager
from kafpy.broker.kraft_metadata_listener import BrokerMetadataListener
from kafpy.broker.kraft_metadata_publisher import BrokerMetadataPublisher
from kafpy.broker.kraft_registration import broker_supported_features, registration_request
from kafpy.broker.kraft_snapshots import snapshot_publisher
from kafpy.broker.zk_broker import replication_managers

log = logging.getLogger("kafka.server.BrokerServer")

CATCH_UP_POLL_S = 0.05


class KRaftBroker(Broker):
    """The Broker's parts plus the raft observer, the metadata listener and publisher, the
    lifecycle manager and the controller channels (one per purpose)."""

    # False on a combined node, whose raft client and metadata log the controller owns
    owns_raft = True
    forwarded_apis = frozenset(int(k) for k in FORWARDED)

    def __init__(self, config: KafkaConfig, loop: asyncio.AbstractEventLoop | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(config, loop, clock)
        v = config.values
        names = [n.strip().upper() for n in (v["controller.listener.names"] or "").split(",") if n.strip()]
        self.controller_listener = names[0] if names else "CONTROLLER"
        self.voters = parse_voters(v["controller.quorum.voters"])
        self.raft: KafkaRaftClient | None = None
        self.raft_task: asyncio.Task[None] | None = None
        self.metadata_log: KafkaMetadataLog | None = None
        self.metadata_listener: BrokerMetadataListener | None = None
        self.publisher: BrokerMetadataPublisher | None = None
        self.lifecycle: BrokerLifecycleManager | None = None
        self._channels: list[ControllerChannel] = []
        self.incarnation_id = os.urandom(16)
        self.image_user_configs = ImageUserConfigs()  # SCRAM credentials from the metadata image
        self.acl_store = ImageAclStore()  # the authorizer's ACLs, from the metadata image

    @property
    def zk_mode(self) -> bool:
        return False

    def _user_configs(self) -> UserConfigs:
        return self.image_user_configs

    def _check_config(self) -> None:
        if not self.voters:
            raise ConfigError("kafpy's KRaft broker finds the controllers through controller.quorum.voters only "
                              "for now: set controller.quorum.voters (controller.quorum.bootstrap.servers alone "
                              "is not supported yet)")
        protocol = self.config.security_protocols.get(self.controller_listener, "PLAINTEXT")
        if protocol != "PLAINTEXT":
            raise ConfigError(f"kafpy's KRaft broker reaches the controllers over PLAINTEXT only for now, not "
                              f"{protocol} ({self.controller_listener})")

    async def _start_authorizer(self) -> Authorizer | None:
        """Kafka's StandardAuthorizer (or a custom one) over the ACLs of the published image."""
        authorizer = create_kraft_authorizer(self.config, self.acl_store)
        if authorizer is not None:
            await authorizer.start()
        return authorizer

    def _leader_id(self) -> int | None:
        raft = self.raft
        return raft.leader_and_epoch.leader_id if raft is not None else None

    def _channel(self, purpose: str) -> ControllerChannel:
        channel = ControllerChannel(self.config.broker_id, self.voters, self._leader_id, purpose=purpose,
                                    request_timeout_ms=int(self.config["request.timeout.ms"]),
                                    listener_name=self.controller_listener)
        self._channels.append(channel)
        return channel

    def _assign_directory_ids(self, ensemble: MetaPropertiesEnsemble, metadata_dir: str) -> MetaPropertiesEnsemble:
        """A log dir a ZooKeeper broker left (meta.properties v0, no directory.id) gets a new
        directory id written, as Kafka's KafkaRaftServer does for a broker rolled into KRaft mode
        during a migration."""
        taken = [m.directory_id for m in ensemble.log_dir_props.values() if m.directory_id]
        wrote = False
        for d, m in sorted(ensemble.log_dir_props.items()):
            if m.directory_id is None:
                new = random_directory_id(taken)
                taken.append(new)
                write_meta_properties(d, dataclasses.replace(m, directory_id=new))
                log.info("[BrokerServer id=%d] Wrote directory.id %s to %s/meta.properties", self.config.broker_id,
                         new, d)
                wrote = True
        return load_ensemble(list(self.config.log_dirs), metadata_dir) if wrote else ensemble

    def _metadata_log_dir(self) -> str:
        v = self.config.values
        return str(v["metadata.log.dir"] or self.config.log_dirs[0])

    async def start(self) -> None:
        cfg = self.config
        self._check_config()
        create_kraft_authorizer(self.config, self.acl_store)  # a bad authorizer.class.name stops it here
        metadata_dir = self._metadata_log_dir()
        try:
            ensemble = load_ensemble(list(cfg.log_dirs), metadata_dir)
            ensemble.verify_for_kraft_start(cfg.broker_id)
        except MetaPropertiesError as e:
            raise RuntimeError(str(e)) from None
        cluster_id = ensemble.cluster_id()
        assert cluster_id is not None  # verify_for_kraft_start requires formatted directories
        ensemble = self._assign_directory_ids(ensemble, metadata_dir)
        dir_ids = [uuid_from_string(m.directory_id) for d, m in sorted(ensemble.log_dir_props.items())
                   if m.directory_id and d in cfg.log_dirs]
        adv = cfg.advertised_listeners[0]
        local = BrokerInfo(cfg.broker_id, adv.host or _default_host(), adv.port, cfg["broker.rack"])
        self.metadata_cache = cache = MetadataCache(cluster_id, local, live_brokers=[])
        rm = self._start_logs(cluster_id, lambda t: None)
        self._start_raft(cluster_id, metadata_dir)
        lifecycle_channel = self._channel("heartbeat")
        self.controller = KRaftAdminController(cfg, cache, self._channel("auto-topic-creation"),
                                               lambda: self.lifecycle.broker_epoch if self.lifecycle else -1,
                                               self.clock)
        forwarding = self._channel("forwarding")
        self.apis = kraft_registry(lambda: forwarding)
        self.features = features = KRaftFeatures(broker_supported_features())
        dynamic = DynamicConfigPublisher(cfg.broker_id, self.controller.entity_configs, cfg.set_dynamic,
                                         self.image_user_configs)

        def published(image: MetadataImage) -> None:
            levels = image.finalized_features()
            kraft_version = self.raft.core.voter_history.last_kraft_version() if self.raft is not None else 0
            if kraft_version > 0:  # as Kafka's KRaftMetadataCache: the quorum log's version
                levels[KRAFT_VERSION_FEATURE] = kraft_version
            features.publish(levels, image.provenance.last_contained_offset)
            dynamic.publish(image)
            self.acl_store.publish(image.acls)
        self.publisher = BrokerMetadataPublisher(
            cfg.broker_id, cache, rm, cfg.inter_broker_listener_name, on_published=published,
            caught_up=lambda: self.metadata_listener is not None and self.metadata_listener.caught_up)
        await self._start_group_coordinator()
        await self._start_server()
        assert self.server is not None and self.services is not None
        broker_epoch: Callable[[], int] = lambda: self.lifecycle.broker_epoch if self.lifecycle else -1
        fetchers, _ = replication_managers(cfg, rm, cache, broker_epoch, self.loop, self.inter_broker_security)
        rm.start_replication(fetchers, self._alter_partition_manager(cache, broker_epoch))
        publisher = self.publisher
        assert self.raft is not None
        core = self.raft.core
        # a dedicated broker writes its own snapshots; a combined node's controller writes them
        snapshots = (snapshot_publisher(cfg, cfg.broker_id, self.metadata_log, core)
                     if self.owns_raft and self.metadata_log is not None else None)
        self.metadata_listener = BrokerMetadataListener(self._publish, high_watermark=core.high_watermark,
                                                        snapshots=snapshots)
        self.raft.register(self.metadata_listener)
        bound = dict(self.server.bound_ports)
        # the epoch of the last clean shutdown (KIP-966): Kafka's controller tells a clean restart
        # from an unclean one by it
        previous_broker_epoch = self.log_manager.previous_broker_epoch if self.log_manager is not None else -1
        self.lifecycle = lifecycle = BrokerLifecycleManager(
            cfg.broker_id, lambda: registration_request(cfg, cluster_id, self.incarnation_id, bound, local.host,
                                                        dir_ids, previous_broker_epoch),
            lifecycle_channel, lambda: publisher.published_offset,
            heartbeat_interval_ms=int(cfg["broker.heartbeat.interval.ms"]),
            session_timeout_ms=int(cfg["broker.session.timeout.ms"]))
        lifecycle.start()
        self.services.broker_epoch = -1
        timeout_s = int(cfg["initial.broker.registration.timeout.ms"]) / 1000
        try:
            await asyncio.wait_for(asyncio.shield(lifecycle.initial_catch_up), timeout_s)
        except asyncio.TimeoutError:
            raise RuntimeError(f"The broker was not caught up with the metadata log within "
                               f"initial.broker.registration.timeout.ms ({int(timeout_s * 1000)} ms)") from None
        self.services.broker_epoch = lifecycle.broker_epoch
        await self._wait_for_publisher(self.metadata_listener.last_committed_offset)
        lifecycle.set_ready_to_unfence()
        await lifecycle.initial_unfenced
        self._tasks.append(self.loop.create_task(self._housekeeping()))
        log.info("[BrokerServer id=%d] started (kafpy, cluster id %s, broker epoch %d)", cfg.broker_id, cluster_id,
                 lifecycle.broker_epoch)
        self.started.set()

    def _alter_partition_manager(self, cache: MetadataCache, broker_epoch: Callable[[], int]
                                 ) -> AlterPartitionManager:
        """ISR changes to the active controller, over the controller listener (PLAINTEXT, not
        the inter-broker listener's security)."""
        channel = self._channel("alter-partition")
        config = NetworkClientConfig(request_timeout_ms=int(self.config["controller.socket.timeout.ms"]))

        def client(node: BrokerInfo) -> NetworkClient:
            return NetworkClient(node.host, node.port, client_id=f"broker-{self.config.broker_id}-alter-partition",
                                 node_id=node.node_id, listener_name=self.controller_listener, config=config,
                                 loop=self.loop)
        return AlterPartitionManager(self.config.broker_id, broker_epoch, cache, client, self.loop,
                                     controller_node=channel.active_controller)

    def _publish(self, delta: MetadataDelta, image: MetadataImage) -> None:
        assert self.publisher is not None
        self.publisher.publish(delta, image)

    async def _wait_for_publisher(self, offset: int) -> None:
        """Until the publisher has applied the metadata up to ``offset`` (Kafka waits for its
        publishers before it reports ready to unfence)."""
        publisher = self.publisher
        assert publisher is not None
        while publisher.published_offset < offset:
            await asyncio.sleep(CATCH_UP_POLL_S)

    def _start_raft(self, cluster_id: str, metadata_dir: str) -> None:
        """The raft client as an observer of the static voters, over the on-disk metadata log."""
        v = self.config.values
        node_id = self.config.broker_id
        voters = VoterSet.from_static(self.voters, self.controller_listener)
        self.metadata_log = KafkaMetadataLog(metadata_dir, MetadataLogConfig(
            segment_bytes=v["metadata.log.segment.bytes"], segment_ms=v["metadata.log.segment.ms"],
            retention_max_bytes=v["metadata.max.retention.bytes"], retention_ms=v["metadata.max.retention.ms"],
            node_id=node_id), now_ms=wall_clock_ms)
        store = FileQuorumStateStore(quorum_state_path(metadata_dir))
        store.path.parent.mkdir(parents=True, exist_ok=True)
        qc = quorum_config(self.config)
        core = RaftCore(node_id, voters.ids(), self.metadata_log, store, now_ms=wall_clock_ms(),
                        cluster_id=cluster_id, config=qc, rng=random.Random(),
                        quorum_state_version=min(voters.kraft_version, 1))
        channel = KafkaNetworkChannel(node_id, voters.addresses(self.controller_listener),
                                      listener_name=self.controller_listener, request_timeout_ms=qc.request_timeout_ms)
        self.raft = KafkaRaftClient(core, channel, decode_metadata_log_batches, time_ms=wall_clock_ms,
                                    log_cleaner=self.metadata_log.clean)
        self.raft_task = self.raft.start()
        log.info("[BrokerServer id=%d] Following the metadata log as an observer of voters %s", node_id,
                 sorted(self.voters))

    def clean_shutdown_broker_epoch(self) -> int:
        """The epoch this broker registered with, for the next start's PreviousBrokerEpoch."""
        return self.lifecycle.broker_epoch if self.lifecycle is not None else -1

    async def shutdown(self) -> None:
        if self.stopping:
            return
        lifecycle = self.lifecycle
        if lifecycle is not None and self.started.is_set() and self.config["controlled.shutdown.enable"]:
            lifecycle.begin_controlled_shutdown()
            limit_s = (int(self.config["controlled.shutdown.max.retries"]) + 1) * \
                max(5.0, int(self.config["controlled.shutdown.retry.backoff.ms"]) / 1000)
            if await lifecycle.await_controlled_shutdown(limit_s) and self.metadata_listener is not None:
                # the leaderships moved in the log: apply them before the logs close
                try:
                    await asyncio.wait_for(self._wait_for_publisher(self.metadata_listener.last_committed_offset),
                                           5.0)
                except asyncio.TimeoutError:
                    log.warning("[BrokerServer id=%d] The leaderships the controlled shutdown moved were not "
                                "applied in 5 s; shutting down anyway", self.config.broker_id)
        if lifecycle is not None:
            await lifecycle.close()
        if self.metadata_listener is not None and self.metadata_listener.snapshots is not None:
            await self.metadata_listener.snapshots.close()
        if self.publisher is not None:
            await self.publisher.close()
        await super().shutdown()
        for channel in self._channels:
            await channel.close()
        if self.raft is not None and self.owns_raft:
            await self.raft.close()
        if self.metadata_log is not None:
            self.metadata_log.flush()
            self.metadata_log.close()
