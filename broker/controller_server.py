"""The controller side of a KRaft node (Kafka's ``ControllerServer`` with its ``KafkaRaftManager``):
checks the node was formatted (meta.properties, Kafka's words when not), builds the raft core
from the quorum-state file and the voters of ``controller.quorum.voters``, drives it with
``KafkaRaftClient``, and serves ``ControllerApis`` on the listeners named in
``controller.listener.names`` (nothing else is served there).

The voters come from ``controller.quorum.voters`` (a static quorum, kraft.version 0) or, when
that is empty, from the VotersRecord of the bootstrap snapshot ``kafka-storage format
--standalone / --initial-controllers`` wrote (kraft.version 1, with directory ids and
endpoints), then from the VotersRecords of the log: AddRaftVoter / RemoveRaftVoter /
UpdateRaftVoter change it (``kafpy.raft.voter_changes``). A node formatted with
``--no-initial-controllers`` starts as an observer that finds the leader through
``controller.quorum.bootstrap.servers`` until it is added.

With ``authorizer.class.name`` set to Kafka's ``StandardAuthorizer`` every request on the
controller listeners is authorized (``kafpy.broker.controller_authorization``) against the ACLs
the quorum controller has replayed; the listeners are early-start ones, as in Kafka: until the
controller has caught up with the log only super users are answered.

The controller writes this node's snapshots of its committed image (``kraft_snapshots``; a
combined node's broker writes none) and loads the latest one at start.

On the raft client run the quorum controller (``QuorumController`` with its
``ControllerEventManager``: every controller replays the committed records, the leader activates
and turns admin and broker requests into records) and the ``ControllerRegistrationManager``.

Who calls it: ``python -m kafpy.broker`` when ``process.roles=controller``. The replicated log
is the on-disk ``__cluster_metadata`` log (``KafkaMetadataLog``) of the metadata log dir; tests
may hand in another (``MemoryReplicatedLog``).

Requests on one connection are answered in order, one at a time (a parked Fetch holds only its
own connection), as Kafka's socket server mutes a channel while its request is processed.
"""
from __future__ import annotations

import asyncio
import logging
import random
import struct
from pathlib import Path
from typing import Callable

from kafpy.metadata.bootstrap import (
    BINARY_BOOTSTRAP_FILENAME, BootstrapMetadata, bootstrap_snapshot_path, read_bootstrap_checkpoint,
    read_bootstrap_snapshot,
)
from kafpy.metadata.controller.quorum_controller import ControllerSettings, QuorumController
from kafpy.metadata.image.cluster import Endpoint
from kafpy.metadata import metadata_version as mv
from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
from kafpy.metadata.meta_properties import MetaPropertiesError, load_ensemble, uuid_from_string
from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ProtocolError, UnsupportedVersion
from kafpy.raft.kafka_raft_client import KafkaRaftClient, wall_clock_ms
from kafpy.raft.kafka_raft_client import BatchDecoder
from kafpy.raft.memory_log import decode_batches as decode_memory_batches
from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.metadata_log import decode_batches as decode_metadata_log_batches
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state_store import FileQuorumStateStore, quorum_state_path
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.replicated_log import ReplicatedLog
from kafpy.raft.voter_set import Endpoint as VoterEndpoint
from kafpy.raft.voter_set import VoterSet
from kafpy.replication.kafka_network_channel import KafkaNetworkChannel
from kafpy.replication.zk_client import KafkaZkClient

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.controller_apis import ControllerApis, RequestScope
from kafpy.broker.controller_authorization import ControllerAuthorizer
from kafpy.broker.controller_events import ControllerEventManager
from kafpy.broker.controller_registration import ControllerRegistrationManager
from kafpy.broker.controller_requests import ControllerRequests
from kafpy.broker.endpoint import Listener
from kafpy.broker.kraft_config import parse_voters
from kafpy.broker.security.authorizer import Authorizer
from kafpy.broker.security.image_acl_store import ImageAclStore
from kafpy.broker.security.standard_authorizer import create_kraft_authorizer
from kafpy.broker.kraft_snapshots import snapshot_publisher
from kafpy.broker.zk_migration_runner import ZkMigrationRunner

log = logging.getLogger("kafka.server.ControllerServer")
# Kafka's SecurityProtocol ids, as registrations carry them
SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
_SIZE = struct.Struct(">i")


def quorum_config(config: KafkaConfig) -> QuorumConfig:
    """``controller.quorum.*`` as the core reads them, fetch sizes included."""
    keys = [*QuorumConfig.KEYS, QuorumConfig.AUTO_JOIN_KEY]
    return QuorumConfig.from_properties({k: str(config.values[k]) for k in keys})


class ControllerServer:
    """Keeps the config, the raft client, the listeners' servers and their connections."""

    def __init__(self, config: KafkaConfig, log_: ReplicatedLog | None = None,
                 time_ms: Callable[[], int] = wall_clock_ms) -> None:
        self.config = config
        # the on-disk __cluster_metadata-0 log, opened in start(); tests may hand in another
        self.log: ReplicatedLog | None = log_
        self.decode_batches: BatchDecoder = decode_memory_batches if log_ is not None else decode_metadata_log_batches
        self.time_ms = time_ms
        self.node_id: int = config.values["node.id"]
        names = [n.strip().upper() for n in (config.values["controller.listener.names"] or "").split(",")
                 if n.strip()]
        self.controller_listeners: list[Listener] = [li for li in config.listeners if li.name in names]
        self.listener_name = names[0] if names else "CONTROLLER"
        self.voters = VoterSet.from_static(parse_voters(config.values["controller.quorum.voters"]),
                                           self.listener_name)
        self.raft: KafkaRaftClient | None = None
        self.apis: ControllerApis | None = None
        self.controller: QuorumController | None = None
        self.events: ControllerEventManager | None = None
        self.registration: ControllerRegistrationManager | None = None
        self.snapshots: SnapshotPublisher | None = None  # this node's snapshots of the controller's image
        self.migration: ZkMigrationRunner | None = None  # zookeeper.metadata.migration.enable (KIP-866)
        self.fault: BaseException | None = None  # a committed record the controller could not replay
        self.raft_task: asyncio.Task[None] | None = None
        self._servers: list[asyncio.AbstractServer] = []
        self._connections: set[asyncio.Task[None]] = set()
        self.acl_store = ImageAclStore()  # the authorizer's ACLs: those the quorum controller replayed
        self.authorizer: Authorizer | None = None

    def _check_config(self) -> None:
        """What this controller does not do yet is refused, not run half-way."""
        self._authorizer()  # a bad authorizer.class.name stops the node here
        for li in self.controller_listeners:
            if self.config.security_protocol(li.name) != "PLAINTEXT":
                raise ConfigError(f"kafpy's controller listener {li.name} supports PLAINTEXT only for now")

    def _authorizer(self) -> Authorizer | None:
        return create_kraft_authorizer(self.config, self.acl_store)

    def _caught_up(self) -> bool:
        """Whether the quorum controller has replayed the log up to the high watermark (the
        controller's initial ACL load)."""
        raft, controller = self.raft, self.controller
        if raft is None or controller is None:
            return False
        hwm = raft.core.high_watermark()
        return hwm is not None and controller.metadata.last_offset + 1 >= hwm

    def _authorization(self) -> ControllerAuthorizer | None:
        authorizer = self.authorizer
        controller = self.controller
        if authorizer is None or controller is None:
            return None
        return ControllerAuthorizer(authorizer, self.acl_store, lambda: controller.metadata.image, self._caught_up)

    def _bootstrap_voters(self, metadata_dir: str) -> VoterSet:
        """Without static voters: those of the bootstrap snapshot (a dynamic quorum)."""
        if not bootstrap_snapshot_path(metadata_dir).is_file():
            raise ConfigError(f"no controller.quorum.voters and no bootstrap snapshot in {metadata_dir}: "
                              "format with kafka-storage format --standalone or --initial-controllers, or "
                              "set controller.quorum.voters")
        _, kraft_version, record = read_bootstrap_snapshot(metadata_dir)
        if (record is None or not record.voters) and not self.config.values["controller.quorum.bootstrap.servers"]:
            raise ConfigError(f"the bootstrap snapshot in {metadata_dir} names no voters and "
                              "controller.quorum.bootstrap.servers is empty: nothing to join")
        if record is None or not record.voters:  # an observer until AddRaftVoter makes it a voter
            return VoterSet({}, kraft_version)
        return VoterSet.from_voters_record(record, kraft_version)

    def _bootstrap_servers(self) -> dict[int, tuple[str, int]]:
        """``controller.quorum.bootstrap.servers`` as ids -2, -3, ... (Kafka's bootstrap nodes),
        what an observer fetches from to find the leader."""
        servers: dict[int, tuple[str, int]] = {}
        for i, raw in enumerate(self.config.values["controller.quorum.bootstrap.servers"] or []):
            host, _, port = raw.strip().rpartition(":")
            servers[-2 - i] = (host.strip("[]"), int(port))
        return servers

    def _local_endpoints(self) -> tuple[VoterEndpoint, ...]:
        """This controller's listeners as a voter's endpoints (what UpdateRaftVoter and the
        leader's VotersRecord carry)."""
        return tuple(VoterEndpoint(li.name, li.host or "localhost", li.port) for li in self.controller_listeners)

    @staticmethod
    def _bootstrap_metadata(metadata_dir: str) -> BootstrapMetadata:
        """Kafka's ``BootstrapMetadata`` for the activation of an empty log: the bootstrap
        snapshot ``format`` wrote, else a 3.x ``bootstrap.checkpoint``, else the latest
        production metadata.version (Kafka's default)."""
        if bootstrap_snapshot_path(metadata_dir).is_file():
            return read_bootstrap_snapshot(metadata_dir)[0]
        binary = Path(metadata_dir) / BINARY_BOOTSTRAP_FILENAME
        if binary.is_file():
            return read_bootstrap_checkpoint(binary)
        return BootstrapMetadata.from_versions(mv.LATEST_PRODUCTION.level, {},
                                               "the default bootstrap (no bootstrap snapshot)")

    def _quorum_controller(self, cluster_id: str, metadata_dir: str) -> QuorumController:
        v = self.config.values
        return QuorumController(ControllerSettings(
            node_id=self.node_id, cluster_id=cluster_id, quorum_node_ids=tuple(sorted(self.voters.ids())),
            session_timeout_ms=int(v["broker.session.timeout.ms"]),
            default_num_partitions=int(v["num.partitions"]),
            default_replication_factor=int(v["default.replication.factor"]),
            default_min_isr=int(v["min.insync.replicas"]),
            zk_migration_enabled=bool(v["zookeeper.metadata.migration.enable"])), self._bootstrap_metadata(metadata_dir),
            kraft_version=self._kraft_version)

    def _kraft_version(self) -> int:
        """The kraft.version of the quorum's log at its end (the raft layer's, not a record's)."""
        return self.raft.core.voter_history.last_kraft_version() if self.raft is not None else 0

    def _metadata_log_dir(self) -> str:
        v = self.config.values
        return v["metadata.log.dir"] or (v["log.dirs"] or [v["log.dir"]])[0]

    async def start(self) -> None:
        self._check_config()
        metadata_dir = self._metadata_log_dir()
        log_dirs = list(self.config.values["log.dirs"] or [self.config.values["log.dir"]])
        try:
            ensemble = load_ensemble(log_dirs, metadata_dir)
            ensemble.verify_for_kraft_start(self.node_id)
        except MetaPropertiesError as e:
            raise RuntimeError(str(e)) from None
        cluster_id = ensemble.cluster_id()
        assert cluster_id is not None  # verify_for_kraft_start requires formatted directories
        meta = ensemble.log_dir_props.get(metadata_dir)
        directory_id = uuid_from_string(meta.directory_id) if meta and meta.directory_id else None
        if not self.voters.voters:
            self.voters = self._bootstrap_voters(metadata_dir)
        if self.log is None:
            v = self.config.values
            self.log = KafkaMetadataLog(metadata_dir, MetadataLogConfig(
                segment_bytes=v["metadata.log.segment.bytes"], segment_ms=v["metadata.log.segment.ms"],
                retention_max_bytes=v["metadata.max.retention.bytes"], retention_ms=v["metadata.max.retention.ms"],
                node_id=self.node_id), now_ms=self.time_ms)
        now = self.time_ms()
        store = FileQuorumStateStore(quorum_state_path(metadata_dir))
        store.path.parent.mkdir(parents=True, exist_ok=True)
        qc = quorum_config(self.config)
        # quorum-state data_version follows kraft.version, as Kafka writes it
        # static voters: those of controller.quorum.voters; a dynamic quorum's come from the log
        # (its bootstrap snapshot, then VotersRecords) through the core's voter-set history
        static = self.voters if self.voters.kraft_version == 0 and self.voters.voters else VoterSet({}, 0)
        bootstrap = self._bootstrap_servers() if not static.voters else {}
        core = RaftCore(self.node_id, static, self.log, store, now_ms=now,
                        cluster_id=cluster_id, config=qc, rng=random.Random(),
                        directory_id=directory_id, quorum_state_version=min(self.voters.kraft_version, 1),
                        listener_name=self.listener_name, local_endpoints=self._local_endpoints(),
                        bootstrap_ids=tuple(sorted(bootstrap, reverse=True)))
        addresses = {**bootstrap, **core.quorum.voter_set.addresses(self.listener_name)}
        channel = KafkaNetworkChannel(self.node_id, addresses,
                                      listener_name=self.listener_name, request_timeout_ms=qc.request_timeout_ms)
        self.raft = KafkaRaftClient(core, channel, self.decode_batches, time_ms=self.time_ms,
                                    log_cleaner=self.log.clean if isinstance(self.log, KafkaMetadataLog) else None,
                                    append_linger_ms=int(self.config.values["controller.quorum.append.linger.ms"]))
        self.controller = self._quorum_controller(cluster_id, metadata_dir)
        self.snapshots = (snapshot_publisher(self.config, self.node_id, self.log, core)
                          if isinstance(self.log, KafkaMetadataLog) else None)
        self.events = ControllerEventManager(self.controller, self.raft, time_ms=self.time_ms, snapshots=self.snapshots,
                                             max_idle_interval_ms=int(self.config.values["metadata.max.idle.interval.ms"]),
                                             leader_imbalance_check_interval_ms=self._leader_imbalance_interval_ms(),
                                             on_fault=self._on_fault)
        self.authorizer = self._authorizer()
        if self.authorizer is not None:
            await self.authorizer.start()
        self.apis = ControllerApis(self.raft, cluster_id, self.node_id, self.voters,
                                   ControllerRequests(self.controller, self.events, self.config, self.authorizer),
                                   self._authorization())
        self.registration = ControllerRegistrationManager(
            self.controller, self.raft, self._registered_listeners(), self.voters.addresses(self.listener_name),
            self.listener_name, qc.request_timeout_ms)
        self.events.start()
        if self.config.values["zookeeper.metadata.migration.enable"]:
            self.migration = self._migration_runner()
            self.migration.start()
        self.raft_task = self.raft.start()
        self.registration.start()
        for li in self.controller_listeners:
            server = await asyncio.start_server(self._acceptor(li.name), li.host or None, li.port)
            self._servers.append(server)
            log.info("Controller %s listening on %s (cluster %s, voters %s, kraft.version %s)", self.node_id,
                     li, cluster_id, sorted(self.voters.voters), self.voters.kraft_version)

    def _migration_runner(self) -> ZkMigrationRunner:
        """The ZooKeeper migration driver of a controller started with
        ``zookeeper.metadata.migration.enable`` (``zookeeper.connect`` required, as in Kafka)."""
        v = self.config.values
        if not v["zookeeper.connect"]:
            raise ConfigError("If using zookeeper.metadata.migration.enable in KRaft mode, zookeeper.connect must "
                              "also be set.")
        assert self.controller is not None and self.events is not None
        zk = KafkaZkClient(v["zookeeper.connect"], int(v["zookeeper.session.timeout.ms"]))
        return ZkMigrationRunner(self.node_id, self.controller, self.events, zk, time_ms=self.time_ms)

    def _leader_imbalance_interval_ms(self) -> int | None:
        v = self.config.values
        if not v["auto.leader.rebalance.enable"]:
            return None
        return int(v["leader.imbalance.check.interval.seconds"]) * 1000

    def _registered_listeners(self) -> list[Endpoint]:
        """The controller listeners this node registers: the voters' address for its own id
        where it has one (what others reach it at), else the listener's host and port."""
        known = {e.name: e for e in self.voters.endpoints().get(self.node_id, [])}
        out = []
        for li in self.controller_listeners:
            e = known.get(li.name)
            host, port = (e.host, e.port) if e is not None else (li.host or "", li.port)
            out.append(Endpoint(li.name, host, port, SECURITY_PROTOCOL_IDS[self.config.security_protocol(li.name)]))
        return out

    def _on_fault(self, error: BaseException) -> None:
        """Kafka's fatal fault handler: the node stops (the raft task ends, the process exits 1)."""
        self.fault = error
        if self.raft_task is not None:
            self.raft_task.cancel()

    def _acceptor(self, listener: str) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], None]:
        def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._accept(reader, writer, listener)
        return accept

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener: str) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(reader, writer, listener))
        self._connections.add(task)
        task.add_done_callback(self._connections.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener: str) -> None:
        peer = writer.get_extra_info("peername")
        limit = int(self.config.values["socket.request.max.bytes"])
        scope = RequestScope(listener, peer[0] if isinstance(peer, tuple) and peer else "")
        try:
            while True:
                try:
                    size = _SIZE.unpack(await reader.readexactly(4))[0]
                except asyncio.IncompleteReadError:
                    return
                if size < 0 or size > limit:
                    log.warning("Closing connection from %s: request size %s is not within 0..%s", peer, size, limit)
                    return
                frame = await reader.readexactly(size)
                answer = await self._answer(frame, peer, scope)
                if answer is None:
                    return
                writer.write(answer)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def _answer(self, frame: bytes, peer: object, scope: RequestScope) -> bytes | None:
        """The response frame, or None to close the connection."""
        apis = self.apis
        assert apis is not None
        if len(frame) >= 8:
            api_key, api_version, correlation_id = struct.unpack_from(">hhi", frame, 0)
            if api_key == ApiKey.API_VERSIONS and not apis.is_enabled(api_key, api_version):
                return codec.unsupported_api_versions_response(correlation_id, apis.version_ranges())
            if not apis.is_enabled(api_key, api_version):
                log.info("Closing connection from %s: api key %s version %s is not enabled on "
                         "controller listener %s", peer, api_key, api_version, scope.listener_name)
                return None
        try:
            header, request = codec.decode_request(frame)
        except (ProtocolError, UnsupportedVersion) as e:
            log.info("Closing connection from %s: cannot parse the request: %s", peer, e)
            return None
        response = await apis.handle(header, request, scope)
        return codec.encode_response(header.request_api_key, header.request_api_version,
                                     header.correlation_id, response)

    async def shutdown(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self.migration is not None:
            await self.migration.close()
        if self.registration is not None:
            await self.registration.close()
        if self.events is not None:
            await self.events.close()
        if self.raft is not None:
            await self.raft.close()
        for server in self._servers:
            await server.wait_closed()
        if isinstance(self.log, KafkaMetadataLog):
            self.log.flush()
            self.log.close()
