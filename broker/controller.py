"""The standalone controller: a single broker acting as its own controller, the one writer of
cluster metadata (Kafka's KafkaController for a one-broker cluster).

It validates and decides every change (topic creation with replica assignment and topic ids,
deletion, new partitions, topic and broker configs, producer-id blocks), persists its state,
then feeds the MetadataCache and tells the ReplicaManager which partitions to host through
``apply_partition_states``. Handlers and the group coordinator ask it; they never write the
cache.

On disk: ``<first log dir>/cluster-metadata.json`` (cluster id, topics with ids, partition
states and configs, broker configs, user and client entity configs such as quotas, the end
of the last producer-id block), rewritten
atomically (temp file, fsync, rename, fsync the directory). Writes run on a single-thread
executor so the event loop never waits on a disk; a change is answered only after its
write completed, and writes land in the order changes were decided.

Who may call it: handlers and the broker, on the event loop.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
from concurrent.futures import Executor
from pathlib import Path
from dataclasses import dataclass, field
from typing import Protocol

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.json_value import JsonObject
from kafpy.protocol.topics import (GROUP_METADATA_TOPIC_NAME, INTERNAL_TOPICS, SHARE_GROUP_STATE_TOPIC_NAME,
                             TRANSACTION_STATE_TOPIC_NAME,
                             InvalidTopicName, unify_collision_chars, validate_topic_name)

from kafpy.broker.config import KafkaConfig
from kafpy.replication.internal_topics import (offsets_topic_configs, share_group_state_topic_configs,
                                               transaction_state_topic_configs)
from kafpy.replication.metadata_cache import (BrokerInfo, MetadataCache, PartitionInfo, TopicError, TopicInfo, new_cluster_id,
                             new_topic_id, topic_id_str)
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.partition import LEADER_DURING_DELETE, PartitionState
from kafpy.replication.zk_data import DEFAULT_BROKER_ENTITY
from kafpy.storage.errors import StorageError

log = logging.getLogger("kafka.controller.KafkaController")

METADATA_FILE = "cluster-metadata.json"
PRODUCER_ID_BLOCK = 1000


class PartitionStateApplier(Protocol):
    """What the controller needs of the ReplicaManager."""

    def apply_partition_states(self, states: list[PartitionState]) -> dict[tuple[str, int], ErrorCode]: ...
    async def prepare_logs(self, states: list[PartitionState],
                           topic_configs: dict[str, dict[str, str]] | None = None) -> None: ...
    async def apply_partition_states_async(self, states: list[PartitionState],
                                           topic_configs: dict[str, dict[str, str]] | None = None,
                                           prepared: bool = False) -> dict[tuple[str, int], ErrorCode]: ...
    def update_topic_config(self, info: TopicInfo) -> None: ...


@dataclass
class ControllerState:
    """What the state file holds, read before anything else starts (the log manager needs the
    cluster id, the broker config its dynamic part)."""

    cluster_id: str
    topics: dict[str, TopicInfo] = field(default_factory=dict)
    broker_configs: dict[str, str] = field(default_factory=dict)
    producer_id_block_end: int = 0
    # the cluster-wide default entity's (/config/brokers/<default> in ZooKeeper), kept apart
    # from the broker's own so DescribeConfigs tells their sources apart, as Kafka does
    default_broker_configs: dict[str, str] = field(default_factory=dict)
    acls: list[JsonObject] = field(default_factory=list)  # broker.security.acl_store sections
    # {"users"|"clients": {sanitized entity name: configs}}, as /config/<type>/<name> in ZooKeeper
    entity_configs: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    # finalized feature levels (broker/features.py) and their epoch; None: never written
    # (the broker then finalizes the defaults)
    finalized_features: dict[str, int] | None = None
    features_epoch: int = 0


def load_controller_state(log_dir: str) -> ControllerState:
    """Read ``<log_dir>/cluster-metadata.json``, creating it with a new cluster id if absent.
    Called once at startup, before the broker serves requests."""
    path = Path(log_dir) / METADATA_FILE
    if not path.exists():
        state = ControllerState(new_cluster_id())
        _write_atomically(path, _serialize(state))
        return state
    data = json.loads(path.read_text())
    topics = {}
    for t in data.get("topics", []):
        topics[t["name"]] = TopicInfo(
            name=t["name"], topic_id=base64.b64decode(t["topic_id"]),
            partitions={int(p): PartitionInfo(**pi) for p, pi in t["partitions"].items()},
            configs=dict(t.get("configs", {})), is_internal=t["name"] in INTERNAL_TOPICS)
    return ControllerState(data["cluster_id"], topics, dict(data.get("broker_configs", {})),
                           int(data.get("producer_id_block_end", 0)), acls=list(data.get("acls", [])),
                           entity_configs=dict(data.get("entity_configs", {})),
                           finalized_features=data.get("finalized_features"),
                           features_epoch=int(data.get("features_epoch", 0)),
                           default_broker_configs=dict(data.get("default_broker_configs", {})))


def _topic_json(t: TopicInfo) -> str:
    return json.dumps(
        {"name": t.name, "topic_id": base64.b64encode(t.topic_id).decode(),
         "partitions": {str(p): {"leader": pi.leader, "leader_epoch": pi.leader_epoch,
                                 "replicas": pi.replicas, "isr": pi.isr,
                                 "offline_replicas": pi.offline_replicas}
                        for p, pi in sorted(t.partitions.items())},
         "configs": t.configs})


class _TopicJsonCache:
    """Each topic's JSON, kept while its TopicInfo is the same object: the controller
    replaces a TopicInfo on every change and never edits one, so writing the state after
    a change encodes only the changed topic (with 20,000 partitions, encoding them all
    on every CreateTopics held the event loop for a tenth of a second)."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[TopicInfo, str]] = {}

    def encode(self, topics: list[TopicInfo]) -> list[str]:
        out, keep = [], {}
        for t in topics:
            hit = self._by_id.get(id(t))
            text = hit[1] if hit is not None and hit[0] is t else _topic_json(t)
            keep[id(t)] = (t, text)
            out.append(text)
        self._by_id = keep
        return out


def _serialize(state: ControllerState, cache: _TopicJsonCache | None = None) -> str:
    """The state as JSON (compact: the C encoder, many times faster than an indented one)."""
    topics = sorted(state.topics.values(), key=lambda t: t.name)
    head = json.dumps({"version": 1, "cluster_id": state.cluster_id,
                       "producer_id_block_end": state.producer_id_block_end,
                       "broker_configs": state.broker_configs,
                       "default_broker_configs": state.default_broker_configs, "acls": state.acls,
                       "entity_configs": state.entity_configs,
                       "finalized_features": state.finalized_features,
                       "features_epoch": state.features_epoch})
    parts = (cache or _TopicJsonCache()).encode(topics)
    return head[:-1] + ', "topics": [' + ",\n".join(parts) + "]}\n"


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


class StandaloneController:
    def __init__(self, config: KafkaConfig, state: ControllerState, local_broker: BrokerInfo,
                 cache: MetadataCache, replica_manager: PartitionStateApplier, executor: Executor,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.config = config
        self.broker_id = local_broker.node_id
        self.cache = cache
        self.replica_manager = replica_manager
        self.path = Path(config.log_dirs[0]) / METADATA_FILE
        self._executor = executor
        self._loop = loop
        self._state = state
        self._topics = state.topics
        self._live_brokers = [local_broker]
        self._creating: dict[str, asyncio.Future] = {}
        self._producer_id_next = state.producer_id_block_end
        self._producer_id_write: asyncio.Future | None = None
        self._json_cache = _TopicJsonCache()
        self.entity_configs = EntityConfigs(state.entity_configs)
        cache.cluster_id = state.cluster_id

    # -- startup -----------------------------------------------------------------------------
    def startup(self) -> None:
        """Become controller: publish brokers and topics, then host every partition."""
        self.cache.update(controller_id=self.broker_id, brokers=self._live_brokers, topics=self._topics.values())
        self.replica_manager.apply_partition_states(
            [s for info in self._topics.values() for s in self._states(info)])

    def broker_endpoint_changed(self, broker: BrokerInfo) -> None:
        """The local broker bound its listener (port 0 in tests): publish the real port."""
        self._live_brokers = [broker]
        self.cache.update(brokers=self._live_brokers)

    # -- persistence ---------------------------------------------------------------------------
    async def _persist(self) -> None:
        """Snapshot now (on the loop), write in the executor; returns once it is on disk."""
        text = _serialize(self._state, self._json_cache)
        try:
            await self._loop.run_in_executor(self._executor, _write_atomically, self.path, text)
        except OSError as e:  # out of descriptors, a full or failing disk: this change fails
            log.error("Writing %s failed: %s", self.path, e)
            raise TopicError(ErrorCode.KAFKA_STORAGE_ERROR, f"writing the cluster metadata failed: {e}") from e

    async def update_acls(self, sections: list[JsonObject]) -> None:
        """The standalone ACL store's whole content, answered once on disk."""
        self._state.acls = sections
        await self._persist()

    async def persist_features(self, levels: dict[str, int], epoch: int) -> None:
        """The finalized feature levels (broker/features.py), answered once on disk."""
        self._state.finalized_features, self._state.features_epoch = levels, epoch
        await self._persist()

    @property
    def finalized_features(self) -> tuple[dict[str, int] | None, int]:
        return self._state.finalized_features, self._state.features_epoch

    @property
    def acls(self) -> list[JsonObject]:
        return self._state.acls

    # -- decisions ------------------------------------------------------------------------------
    def _live_ids(self) -> list[int]:
        return [b.node_id for b in self._live_brokers]

    def _assign(self, first: int, count: int, rf: int) -> dict[int, PartitionInfo]:
        """Round-robin replica assignment; the first replica leads at epoch 0."""
        live = self._live_ids()
        out = {}
        for p in range(first, first + count):
            reps = [live[(p + i) % len(live)] for i in range(rf)]
            out[p] = PartitionInfo(reps[0], 0, reps, list(reps))
        return out

    def _states(self, info: TopicInfo, partitions: list[int] | None = None,
                delete: bool = False) -> list[PartitionState]:
        out = []
        for p in (sorted(info.partitions) if partitions is None else partitions):
            pi = info.partitions[p]
            out.append(PartitionState(info.name, p, info.topic_id,
                                      LEADER_DURING_DELETE if delete else pi.leader, pi.leader_epoch,
                                      pi.partition_epoch, tuple(pi.replicas), tuple(pi.isr),
                                      is_new=not delete, delete_partition=delete))
        return out

    def _validate_new_topic(self, name: str, partitions: int, replication_factor: int,
                            assignments: dict[int, list[int]] | None) -> dict[int, PartitionInfo]:
        try:
            validate_topic_name(name)
        except InvalidTopicName as e:
            raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, str(e)) from None
        if name in self._topics:
            raise TopicError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        norm = unify_collision_chars(name)
        for other in self._topics:
            if unify_collision_chars(other) == norm:
                raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Topic '{name}' collides with existing topic: {other}")
        live = self._live_ids()
        if assignments:
            if sorted(assignments) != list(range(len(assignments))):
                raise TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                 "Partitions should be a consecutive 0-based integer sequence")
            for reps in assignments.values():
                if not reps or len(set(reps)) != len(reps):
                    raise TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Duplicate replica assignment found: {reps}")
                if any(r not in live for r in reps):
                    raise TopicError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                     f"Replica assignment {reps} has brokers that are not alive")
            return {p: PartitionInfo(reps[0], 0, list(reps), list(reps)) for p, reps in assignments.items()}
        if partitions <= 0:
            raise TopicError(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
        if replication_factor <= 0:
            raise TopicError(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
        if replication_factor > len(live):
            raise TopicError(ErrorCode.INVALID_REPLICATION_FACTOR,
                             f"Replication factor: {replication_factor} larger than available brokers: {len(live)}.")
        return self._assign(0, partitions, replication_factor)

    # -- changes ------------------------------------------------------------------------------
    async def create_topic(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str],
                           assignments: dict[int, list[int]] | None = None,
                           validate_only: bool = False) -> TopicInfo:
        """Create a topic (CreateTopics, auto-creation); raises TopicError."""
        parts = self._validate_new_topic(name, partitions, replication_factor, assignments)
        info = TopicInfo(name, new_topic_id(), parts, dict(configs), name in INTERNAL_TOPICS)
        if validate_only:
            return info
        self._topics[name] = info
        done = self._creating[name] = self._loop.create_future()
        try:
            try:
                await self._persist()
            except BaseException:
                self._topics.pop(name, None)
                raise
            # the logs are made off the loop (see ReplicaManager.prepare_logs); the topic is
            # published once all of them exist
            await self._publish(info, self._states(info), None)
        finally:
            self._creating.pop(name, None)
            done.set_result(None)
        log.info("Created topic %s with topic id %s, %d partitions and replication factor %d",
                 name, topic_id_str(info.topic_id), len(parts), info.replication_factor)
        return info

    async def _publish(self, info: TopicInfo, states: list[PartitionState], previous: TopicInfo | None) -> None:
        """Make the new partitions' logs (off the loop), then publish ``info`` and host them;
        when the logs cannot be made, go back to ``previous`` (see ``_undo``)."""
        try:
            await self.replica_manager.prepare_logs(states, {info.name: info.configs})
        except StorageError as e:
            await self._undo(info.name, previous, e)
        # hosted before they are announced, as Kafka's LeaderAndIsr precedes UpdateMetadata
        await self.replica_manager.apply_partition_states_async(states, {info.name: info.configs}, prepared=True)
        self.cache.update(topics=[info])

    async def _undo(self, name: str, previous: TopicInfo | None, err: StorageError) -> None:
        """The logs of a change could not be created (none were): forget the change and
        answer its request with the storage error. Kafka's brokers report such a failure
        per partition (KAFKA_STORAGE_ERROR) and go on serving; so does this one."""
        if previous is None:
            self._topics.pop(name, None)
        else:
            self._topics[name] = previous
        await self._persist()
        log.error("Could not create the logs of topic %s: %s", name, err)
        raise TopicError(ErrorCode.KAFKA_STORAGE_ERROR, str(err)) from err

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> TopicInfo:
        """Metadata's auto-creation: here the same as CreateTopics (a ZooKeeper-mode admin
        manager differs: any broker may auto-create, only the controller answers CreateTopics)."""
        return await self.create_topic(name, partitions, replication_factor, configs)

    async def ensure_offsets_topic(self) -> None:
        """Create ``__consumer_offsets`` if missing, as Kafka does on the first FindCoordinator:
        offsets.topic.num.partitions partitions, offsets.topic.replication.factor capped by
        the live brokers, compacted. Returns once it exists and its partitions are hosted."""
        cfg = self.config
        await self._ensure_internal_topic(GROUP_METADATA_TOPIC_NAME, cfg["offsets.topic.num.partitions"],
                                          cfg["offsets.topic.replication.factor"],
                                          offsets_topic_configs(cfg))

    async def ensure_transaction_state_topic(self) -> None:
        """Create ``__transaction_state`` if missing, as Kafka does on the first FindCoordinator
        for a transactional id: transaction.state.log.num.partitions partitions, the replication
        factor capped by the live brokers, compacted, min.insync.replicas from
        transaction.state.log.min.isr."""
        cfg = self.config
        await self._ensure_internal_topic(TRANSACTION_STATE_TOPIC_NAME, cfg["transaction.state.log.num.partitions"],
                                          cfg["transaction.state.log.replication.factor"],
                                          transaction_state_topic_configs(cfg))

    async def ensure_share_group_state_topic(self) -> None:
        """Create ``__share_group_state`` if missing, as Kafka does on the first FindCoordinator
        for a share partition key (see ensure_transaction_state_topic)."""
        cfg = self.config
        await self._ensure_internal_topic(SHARE_GROUP_STATE_TOPIC_NAME, cfg["share.coordinator.state.topic.num.partitions"],
                                          cfg["share.coordinator.state.topic.replication.factor"],
                                          share_group_state_topic_configs(cfg))

    async def _ensure_internal_topic(self, name: str, partitions: int, replication_factor: int,
                                     configs: dict[str, str]) -> None:
        pending = self._creating.get(name)
        if pending is not None:
            await asyncio.shield(pending)
            return
        if name in self._topics:
            return
        rf = max(1, min(replication_factor, len(self._live_brokers)))
        await self.create_topic(name, partitions, rf, configs)

    async def delete_topic(self, name: str) -> TopicInfo:
        info = self._topics.pop(name, None)
        if info is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")
        try:
            await self._persist()
        except TopicError:
            self._topics[name] = info
            raise
        self.cache.update(deleted_topics=[name])
        self.replica_manager.apply_partition_states(self._states(info, delete=True))
        log.info("Deleted topic %s with topic id %s", name, topic_id_str(info.topic_id))
        return info

    async def create_partitions(self, name: str, total: int, validate_only: bool = False) -> TopicInfo:
        info = self._topics.get(name)
        if info is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        cur = len(info.partitions)
        if total < cur:
            raise TopicError(ErrorCode.INVALID_PARTITIONS,
                             f"Topic currently has {cur} partitions, which is higher than the requested {total}.")
        if total == cur:
            raise TopicError(ErrorCode.INVALID_PARTITIONS, f"Topic already has {cur} partitions.")
        if validate_only:
            return info
        rf = min(info.replication_factor or 1, len(self._live_brokers))
        new = TopicInfo(info.name, info.topic_id, {**info.partitions, **self._assign(cur, total - cur, rf)},
                        info.configs, info.is_internal)
        self._topics[name] = new
        await self._persist()
        await self._publish(new, self._states(new, list(range(cur, total))), info)
        log.info("Increased partition count of topic %s from %d to %d", name, cur, total)
        return new

    async def alter_topic_config(self, name: str, configs: dict[str, str]) -> None:
        """Replace a topic's config overrides (already validated by the caller)."""
        info = self._topics.get(name)
        if info is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
        new = TopicInfo(info.name, info.topic_id, info.partitions, dict(configs), info.is_internal)
        self._topics[name] = new
        await self._persist()
        self.cache.update(topics=[new])
        self.replica_manager.update_topic_config(new)
        log.info("Updated configs of topic %s: %s", name, configs)

    async def alter_broker_configs(self, configs: dict[str, str], entity_name: str | None = None) -> None:
        """Replace the broker's own dynamic configs, or with ``entity_name`` "<default>" the
        cluster-wide default's (validated by the caller), and re-derive every topic's log
        config from them."""
        if entity_name == DEFAULT_BROKER_ENTITY:
            self._state.default_broker_configs = dict(configs)
        else:
            self._state.broker_configs = dict(configs)
        await self._persist()
        self.config.set_dynamic(self._state.default_broker_configs, self._state.broker_configs)
        for info in self._topics.values():
            self.replica_manager.update_topic_config(info)

    async def fetch_entity_configs(self, entity_type: str, entity_name: str) -> dict[str, str]:
        """A user or client entity's configs as stored (this process is their only writer)."""
        return dict(self.entity_configs.get(entity_type, entity_name))

    async def alter_entity_configs(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
        """Replace a user or client entity's configs (``entity_name`` sanitized, e.g.
        ``alice/clients/c1``; validated by the caller; empty removes the entity), answered
        once on disk; ``entity_configs`` listeners hear of it then."""
        previous = self.entity_configs.get(entity_type, entity_name)
        by_name = self._state.entity_configs.setdefault(entity_type, {})
        if configs:
            by_name[entity_name] = dict(configs)
        else:
            by_name.pop(entity_name, None)
        try:
            await self._persist()
        except TopicError:
            self.entity_configs.set(entity_type, entity_name, previous)
            raise
        self.entity_configs.set(entity_type, entity_name, configs)
        log.info("Updated configs of %s/%s: %s", entity_type, entity_name, sorted(configs))

    async def next_producer_id(self) -> int:
        """Producer ids come from blocks whose end is persisted before any id of the block is
        handed out, so an id is never reused after a restart (logs keep producer state by id)."""
        while self._producer_id_write is not None:
            await asyncio.shield(self._producer_id_write)
        if self._producer_id_next >= self._state.producer_id_block_end:
            self._state.producer_id_block_end = self._producer_id_next + PRODUCER_ID_BLOCK
            self._producer_id_write = fut = self._loop.create_future()
            try:
                await self._persist()
            finally:
                self._producer_id_write = None
                fut.set_result(None)
        pid = self._producer_id_next
        self._producer_id_next += 1
        return pid

