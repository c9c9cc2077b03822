"""The admin side of a ZooKeeper-mode broker (Kafka's AdminZkClient, ZkAdminManager,
ZkConfigManager and the ZK AutoTopicCreationManager), with the same async methods as
``kafpy.broker.controller.StandaloneController`` so ``BrokerServices.controller`` may be either.

Topic creation writes ``/config/topics/<t>`` then ``/brokers/topics/<t>`` (topic id
included) and waits, bounded, until the metadata cache — fed by the controller's
UpdateMetadata — shows a leader for every partition. CreateTopics, DeleteTopics and
CreatePartitions are answered only by the active controller (others: NOT_CONTROLLER, so
clients re-read Metadata's controller id); auto-creation (``auto_create_topic``, the offsets
topic) and config changes work from any broker, as in Kafka. Config changes are stored whole
and announced with a ``/config/changes`` notification; every broker follows the
notifications and applies them to its metadata cache, dynamic broker config and logs, and
user and client entity configs (quotas) to ``entity_configs``.

Who may call it: request handlers, the group coordinator and the broker (``start``,
``shutdown``), on the event loop. Nothing on disk: ZooKeeper is the store.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from kazoo.exceptions import KazooException
from kazoo.protocol.states import EventType, WatchedEvent

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import (GROUP_METADATA_TOPIC_NAME, INTERNAL_TOPICS, SHARE_GROUP_STATE_TOPIC_NAME,
                             TRANSACTION_STATE_TOPIC_NAME, InvalidTopicName,
                             unify_collision_chars, validate_topic_name)

from kafpy.replication.config import BrokerConfigView
from kafpy.replication.internal_topics import (offsets_topic_configs, share_group_state_topic_configs,
                                               transaction_state_topic_configs)
from kafpy.replication.metadata_cache import MetadataCache, PartitionInfo, TopicError, TopicInfo, new_topic_id
from kafpy.replication import zk_data as zd
from kafpy.replication.assignment import (AssignmentError, BrokerMetadata, assign_replicas_to_brokers,
                                    new_partitions_assignment, validate_topic_assignment)
from kafpy.replication.controller import KafkaController
from kafpy.replication.zk_client import MATCH_ANY_VERSION, KafkaZkClient, NodeExistsError, SessionState

if TYPE_CHECKING:
    from kafpy.replication.replica_manager import ReplicaManager

log = logging.getLogger("kafka.server.ZkAdminManager")

POLL_S = 0.05
UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable"
DEFAULT_WAIT_MS = 30000


def offsets_topic_replication_factor(configured: int, live_brokers: int,
                                     topic: str = "offsets topic",
                                     setting: str = "offsets.topic.replication.factor") -> int:
    """The replication factor ``__consumer_offsets`` is created with: the configured one, never
    capped. With fewer live brokers Kafka 3.x refuses (its FindCoordinator answers
    COORDINATOR_NOT_AVAILABLE until enough brokers registered), so a cluster that is still
    starting does not end up with an under-replicated offsets topic for good."""
    if live_brokers < configured:
        raise TopicError(ErrorCode.INVALID_REPLICATION_FACTOR,
                         f"Number of alive brokers '{live_brokers}' does not meet the required replication factor "
                         f"'{configured}' for the {topic} (configured via '{setting}'). "
                         "This error can be ignored if the cluster is starting up and not all brokers are up yet.")
    return configured


class EntityConfigStore(Protocol):
    """Where user and client entity configs read from ZooKeeper go (the broker's
    EntityConfigs, which tells its listeners)."""

    def get(self, entity_type: str, entity_name: str) -> dict[str, str]: ...

    def set(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None: ...


EntityConfigStoreT = TypeVar("EntityConfigStoreT", bound=EntityConfigStore)


class TopicCreator(Protocol):
    """What creates the topics a broker makes itself while a KRaft controller rules a
    migration (kafpy.broker.kraft_admin's KRaftAdminController, through CreateTopics)."""

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> TopicInfo: ...


class ZkAdminManager(Generic[EntityConfigStoreT]):
    def __init__(self, config: BrokerConfigView, zk: KafkaZkClient, metadata_cache: MetadataCache,
                 controller: KafkaController, clock: Callable[[], float],
                 loop: asyncio.AbstractEventLoop, entity_configs: EntityConfigStoreT,
                 replica_manager: "ReplicaManager | None" = None, wait_ms: int = DEFAULT_WAIT_MS) -> None:
        """``entity_configs`` is the broker's store of user and client configs, filled here
        from ZooKeeper (the broker's quotas listen to it)."""
        self.config = config
        self.zk = zk
        self.cache = metadata_cache
        self.controller = controller
        self.clock = clock
        self.loop = loop
        self.replica_manager = replica_manager
        self.wait_ms = wait_ms
        self.broker_id = config.broker_id
        self._topic_configs: dict[str, dict[str, str]] = {}
        self.entity_configs: EntityConfigStoreT = entity_configs
        self._last_change = -1
        self._changes_lock = asyncio.Lock()
        self._creating: dict[str, asyncio.Future] = {}
        self._pid_next = 0
        self._pid_end = 0  # exclusive end of the current producer-id block
        self._pid_lock = asyncio.Lock()
        self._started = False
        # KIP-866: during a migration, once a KRaft controller rules, the topics this broker
        # creates itself (Metadata's auto-creation, the coordinators' internal topics) go to
        # that controller as Kafka 3.9's AutoTopicCreationManager sends them: written to
        # ZooKeeper, no controller would act on them. The broker sets it; None otherwise.
        self.kraft_creator: Callable[[], TopicCreator | None] = lambda: None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Load topic and broker configs and follow ``/config/changes`` from now on."""
        self._started = True
        self.zk.add_session_listener(self._on_session_state)
        for topic in await self.zk.get_children(zd.config_entity_type_path(zd.ConfigType.TOPIC)):
            self._topic_configs[topic] = await self.zk.get_entity_config(zd.ConfigType.TOPIC, topic)
        await self._reload_broker_configs()
        await self._load_entity_configs()
        children = await self.zk.get_children(zd.CONFIG_CHANGES_PATH, self._on_changes_watch)
        seqs = [zd.sequence_number(c, zd.CONFIG_CHANGE_PREFIX) for c in children
                if c.startswith(zd.CONFIG_CHANGE_PREFIX)]
        self._last_change = max(seqs, default=-1)

    async def shutdown(self) -> None:
        self._started = False
        self.zk.remove_session_listener(self._on_session_state)

    def topic_config(self, topic: str) -> dict[str, str]:
        """A topic's config overrides as stored in ZooKeeper (for whoever builds TopicInfos
        from UpdateMetadata, which carries no configs)."""
        return dict(self._topic_configs.get(topic, {}))

    # ------------------------------------------------------------------ config changes
    def _on_changes_watch(self, event: WatchedEvent) -> None:
        # EventType.NONE: the session ended and took the watch along; _on_session_state
        # follows the notifications again in the next session.
        if self._started and event.type != EventType.NONE:
            self.loop.create_task(self._process_changes())

    def _on_session_state(self, state: SessionState) -> None:
        """A new session after an expiry has none of the old one's watches: watch
        ``/config/changes`` again and apply what was announced meanwhile, as Kafka's
        ZkNodeChangeNotificationListener does after a session is re-initialized."""
        if self._started and state is SessionState.NEW_SESSION:
            self.loop.create_task(self._process_changes())

    async def _process_changes(self) -> None:
        async with self._changes_lock:
            children = await self.zk.get_children(zd.CONFIG_CHANGES_PATH, self._on_changes_watch)
            for child in sorted(children):
                if not child.startswith(zd.CONFIG_CHANGE_PREFIX):
                    continue
                seq = zd.sequence_number(child, zd.CONFIG_CHANGE_PREFIX)
                if seq <= self._last_change:
                    continue
                data, _ = await self.zk.get_data(f"{zd.CONFIG_CHANGES_PATH}/{child}")
                self._last_change = seq
                if data is None:
                    continue
                try:
                    entity_type, _, name = zd.decode_config_change(data).partition("/")
                except zd.ZkDataError:
                    log.warning("Ignoring malformed config change %s", child)
                    continue
                if entity_type == zd.ConfigType.TOPIC:
                    configs = await self.zk.get_entity_config(entity_type, name)
                    await self._apply_topic_config(name, configs)
                    if configs.get(UNCLEAN_LEADER_ELECTION_ENABLE, "").strip().lower() == "true":
                        # Kafka's TopicConfigHandler: the controller elects for the topic at once
                        self.controller.enable_topic_unclean_leader_election(name)
                elif entity_type == zd.ConfigType.BROKER and name in (zd.DEFAULT_BROKER_ENTITY, str(self.broker_id)):
                    await self._reload_broker_configs()
                    self._refresh_all_topic_logs()
                elif entity_type in (zd.ConfigType.USER, zd.ConfigType.CLIENT, zd.ConfigType.GROUP):
                    self.entity_configs.set(entity_type, name, await self.zk.get_entity_config(entity_type, name))

    async def _apply_topic_config(self, topic: str, configs: dict[str, str]) -> None:
        self._topic_configs[topic] = dict(configs)
        info = self.cache.topic(topic)
        if info is None:
            return
        new = dataclasses.replace(info, configs=dict(configs))
        self.cache.update(topics=[new])
        if self.replica_manager is not None:
            self.replica_manager.update_topic_config(new)
        log.info("Processing override for entityPath: topics/%s with config: %s", topic, configs)

    async def _reload_broker_configs(self) -> None:
        """The dynamic broker configs (``<default>`` then this broker's); turning
        unclean.leader.election.enable on has the controller elect at once, as Kafka's
        DynamicLogConfig.reconfigure does."""
        default = await self.zk.get_entity_config(zd.ConfigType.BROKER, zd.DEFAULT_BROKER_ENTITY)
        own = await self.zk.get_entity_config(zd.ConfigType.BROKER, str(self.broker_id))
        was_unclean = bool(self.config[UNCLEAN_LEADER_ELECTION_ENABLE])
        self.config.set_dynamic(default, own)
        if not was_unclean and self.config[UNCLEAN_LEADER_ELECTION_ENABLE]:
            self.controller.enable_default_unclean_leader_election()

    async def _load_entity_configs(self) -> None:
        """Every ``/config/users/<u>``, ``/config/users/<u>/clients/<c>`` and
        ``/config/clients/<c>`` (names as stored: sanitized)."""
        for user in await self.zk.get_children(zd.config_entity_type_path(zd.ConfigType.USER)):
            configs = await self.zk.get_entity_config(zd.ConfigType.USER, user)
            if configs:
                self.entity_configs.set(zd.ConfigType.USER, user, configs)
            clients_path = f"{zd.config_entity_path(zd.ConfigType.USER, user)}/{zd.ConfigType.CLIENT}"
            for client in await self.zk.get_children(clients_path):
                name = f"{user}/{zd.ConfigType.CLIENT}/{client}"
                configs = await self.zk.get_entity_config(zd.ConfigType.USER, name)
                if configs:
                    self.entity_configs.set(zd.ConfigType.USER, name, configs)
        for entity_type in (zd.ConfigType.CLIENT, zd.ConfigType.GROUP):
            for name in await self.zk.get_children(zd.config_entity_type_path(entity_type)):
                configs = await self.zk.get_entity_config(entity_type, name)
                if configs:
                    self.entity_configs.set(entity_type, name, configs)

    def _refresh_all_topic_logs(self) -> None:
        if self.replica_manager is not None:
            for info in self.cache.topics().values():
                self.replica_manager.update_topic_config(info)

    # ------------------------------------------------------------------ helpers
    def _require_controller(self) -> None:
        if not self.controller.is_active:
            raise TopicError(ErrorCode.NOT_CONTROLLER, "This is not the correct controller for this cluster.")

    @contextlib.contextmanager
    def _zookeeper_errors(self, what: str, controller_only: bool = False) -> Iterator[None]:
        """Turn a ZooKeeper failure during ``what`` into Kafka's answer instead of a broken
        connection: NOT_CONTROLLER when this broker stopped being the controller meanwhile
        (its session expired: the client retries with the new one), else UNKNOWN_SERVER_ERROR,
        as Kafka's ZkAdminManager answers an exception from its ZooKeeper client."""
        try:
            yield
        except KazooException as e:
            log.warning("ZooKeeper failed during %s: %s", what, type(e).__name__)
            if controller_only and not self.controller.is_active:
                raise TopicError(ErrorCode.NOT_CONTROLLER,
                                 "This is not the correct controller for this cluster.") from None
            raise TopicError(ErrorCode.UNKNOWN_SERVER_ERROR,
                             f"ZooKeeper failed during {what}: {type(e).__name__}") from None

    async def _brokers(self) -> list[BrokerMetadata]:
        brokers = await self.zk.get_all_brokers_and_epochs()
        return [BrokerMetadata(b, reg.rack) for b, (reg, _) in sorted(brokers.items())]

    async def _wait_for(self, done: Callable[[], bool], what: str) -> None:
        deadline = self.clock() + self.wait_ms / 1000
        while not done():
            if self.clock() >= deadline:
                raise TopicError(ErrorCode.REQUEST_TIMED_OUT, f"Timed out waiting for {what}.")
            await asyncio.sleep(POLL_S)

    def _has_leaders(self, name: str, count: int) -> bool:
        info = self.cache.topic(name)
        return info is not None and len(info.partitions) >= count and all(
            p.leader >= 0 for p in info.partitions.values())

    # ------------------------------------------------------------------ topics
    async def create_topic(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str],
                           assignments: dict[int, list[int]] | None = None,
                           validate_only: bool = False) -> TopicInfo:
        """CreateTopics: only on the active controller; raises TopicError."""
        self._require_controller()
        with self._zookeeper_errors(f"the creation of topic {name}", controller_only=True):
            return await self._create(name, partitions, replication_factor, configs, assignments, validate_only)

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> TopicInfo:
        """Metadata's auto-creation: from any broker, as Kafka's ZK auto-topic creation (or
        through the KRaft controller of a migration, see ``kraft_creator``)."""
        creator = self.kraft_creator()
        if creator is not None:
            return await creator.auto_create_topic(name, partitions, replication_factor, configs)
        pending = self._creating.get(name)
        if pending is not None:
            await asyncio.shield(pending)
        else:
            done = self._creating[name] = self.loop.create_future()
            try:
                with self._zookeeper_errors(f"the creation of topic {name}"):
                    await self._create(name, partitions, replication_factor, configs, None, False,
                                       exists_ok=True)
            finally:
                self._creating.pop(name, None)
                done.set_result(None)
        info = self.cache.topic(name)
        if info is None:
            raise TopicError(ErrorCode.LEADER_NOT_AVAILABLE, f"Topic {name} is being created.")
        return info

    async def _create(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str],
                      assignments: dict[int, list[int]] | None, validate_only: bool,
                      exists_ok: bool = False) -> TopicInfo:
        try:
            validate_topic_name(name)
        except InvalidTopicName as e:
            raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION, str(e)) from None
        existing = await self.zk.get_all_topics()
        if name in existing:
            if not exists_ok:
                raise TopicError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
            await self._wait_for(lambda: self.cache.topic(name) is not None, f"topic {name}")
            return self._known_topic(name)
        norm = unify_collision_chars(name)
        for other in existing:
            if unify_collision_chars(other) == norm:
                raise TopicError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                                 f"Topic '{name}' collides with existing topic: {other}")
        brokers = await self._brokers()
        try:
            if assignments:
                validate_topic_assignment(assignments)
                live = {b.id for b in brokers}
                for p, reps in assignments.items():
                    if not set(reps) <= live:
                        raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                              f"Replica assignment {reps} for partition {p} has brokers "
                                              "that are not alive")
                replicas = {p: list(r) for p, r in assignments.items()}
            else:
                replicas = assign_replicas_to_brokers(brokers, partitions, replication_factor)
        except AssignmentError as e:
            raise TopicError(e.error_code, str(e)) from None
        topic_id = new_topic_id()
        info = TopicInfo(name, topic_id, {p: PartitionInfo(-1, -1, r, []) for p, r in sorted(replicas.items())},
                         dict(configs), name in INTERNAL_TOPICS)
        if validate_only:
            return info
        await self.zk.set_or_create_entity_config(zd.ConfigType.TOPIC, name, configs)
        try:
            await self.zk.create_topic_assignment(name, zd.TopicAssignment.of(zd.topic_id_to_str(topic_id), replicas))
        except NodeExistsError:
            if not exists_ok:
                raise TopicError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.") from None
        self._topic_configs[name] = dict(configs)
        log.info("Creating topic %s with configuration %s and initial partition assignment %s",
                 name, configs, replicas)
        await self._wait_for(lambda: self._has_leaders(name, len(replicas)), f"leaders of topic {name}")
        return self.cache.topic(name) or info

    async def ensure_offsets_topic(self) -> None:
        """Create ``__consumer_offsets`` if missing (from any broker) with exactly
        offsets.topic.replication.factor replicas; returns once its partitions have leaders.
        Raises TopicError while fewer brokers are alive (see ``offsets_topic_replication_factor``)."""
        cfg = self.config
        await self._ensure_internal_topic(GROUP_METADATA_TOPIC_NAME, cfg["offsets.topic.num.partitions"],
                                          cfg["offsets.topic.replication.factor"], offsets_topic_configs(cfg),
                                          "offsets topic", "offsets.topic.replication.factor")

    async def ensure_transaction_state_topic(self) -> None:
        """Create ``__transaction_state`` if missing (from any broker) with exactly
        transaction.state.log.replication.factor replicas, refused while fewer brokers are alive."""
        cfg = self.config
        await self._ensure_internal_topic(TRANSACTION_STATE_TOPIC_NAME, cfg["transaction.state.log.num.partitions"],
                                          cfg["transaction.state.log.replication.factor"],
                                          transaction_state_topic_configs(cfg), "transactions state topic",
                                          "transaction.state.log.replication.factor")

    async def ensure_share_group_state_topic(self) -> None:
        """Create ``__share_group_state`` if missing (from any broker) with exactly
        share.coordinator.state.topic.replication.factor replicas, refused while fewer brokers are alive."""
        cfg = self.config
        await self._ensure_internal_topic(SHARE_GROUP_STATE_TOPIC_NAME, cfg["share.coordinator.state.topic.num.partitions"],
                                          cfg["share.coordinator.state.topic.replication.factor"],
                                          share_group_state_topic_configs(cfg), "share group state topic",
                                          "share.coordinator.state.topic.replication.factor")

    async def _ensure_internal_topic(self, name: str, partitions: int, replication_factor: int,
                                     configs: dict[str, str], label: str, setting: str) -> None:
        if self._has_leaders(name, 1):
            return
        live = len(await self.zk.get_children(zd.BROKER_IDS_PATH))
        rf = offsets_topic_replication_factor(replication_factor, live, label, setting)
        await self.auto_create_topic(name, partitions, rf, configs)
        await self._wait_for(lambda: self._has_leaders(name, 1), f"leaders of topic {name}")

    async def delete_topic(self, name: str) -> TopicInfo:
        """DeleteTopics: mark for deletion and wait until the topic leaves the cache."""
        self._require_controller()
        info = self.cache.topic(name)
        with self._zookeeper_errors(f"the deletion of topic {name}", controller_only=True):
            if name not in await self.zk.get_all_topics() or info is None:
                raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                 "This server does not host this topic-partition.")
            try:
                await self.zk.create_delete_topic_path(name)
            except NodeExistsError:
                log.info("Topic %s is already marked for deletion", name)
        await self._wait_for(lambda: self.cache.topic(name) is None, f"deletion of topic {name}")
        return info

    async def create_partitions(self, name: str, total: int, validate_only: bool = False) -> TopicInfo:
        self._require_controller()
        with self._zookeeper_errors(f"the creation of partitions of {name}", controller_only=True):
            return await self._create_partitions(name, total, validate_only)

    async def _create_partitions(self, name: str, total: int, validate_only: bool) -> TopicInfo:
        current = await self.zk.get_topic_assignment(name)
        if current is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        existing = {p: a.replicas for p, a in current.partitions.items()}
        try:  # also refuses a count that is not an increase (INVALID_PARTITIONS)
            added = new_partitions_assignment(name, existing, await self._brokers(), total)
        except AssignmentError as e:
            raise TopicError(e.error_code, str(e)) from None
        info = self.cache.topic(name)
        if validate_only:
            return info if info is not None else TopicInfo(name, bytes(16), {}, {})
        new = zd.TopicAssignment(current.topic_id, {**current.partitions,
                                                    **zd.TopicAssignment.of(None, added).partitions})
        epoch_zk_version = self.controller.ctx.epoch_zk_version if self.controller.is_active else MATCH_ANY_VERSION
        await self.zk.set_topic_assignment(name, new, epoch_zk_version)
        log.info("Creating %d partitions for '%s' with the following replica assignment: %s",
                 len(added), name, added)
        await self._wait_for(lambda: self._has_leaders(name, total), f"leaders of the new partitions of {name}")
        return self._known_topic(name)

    def _known_topic(self, name: str) -> TopicInfo:
        """The cached topic ``_wait_for`` has just seen (KafkaError if it went meanwhile)."""
        info = self.cache.topic(name)
        if info is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' disappeared.")
        return info

    # ------------------------------------------------------------------ configs
    async def alter_topic_config(self, name: str, configs: dict[str, str]) -> None:
        """Replace a topic's config overrides (validated by the caller), from any broker."""
        with self._zookeeper_errors(f"the config change of topic {name}"):
            if name not in await self.zk.get_all_topics():
                raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
            await self.zk.change_entity_config(zd.ConfigType.TOPIC, name, configs)
        await self._apply_topic_config(name, configs)

    async def alter_broker_configs(self, configs: dict[str, str], entity_name: str | None = None) -> None:
        """Replace this broker's dynamic configs (``/config/brokers/<id>``, or ``<default>``
        for the cluster-wide entity) and re-derive every topic's log config."""
        entity = entity_name or str(self.broker_id)
        with self._zookeeper_errors(f"the config change of broker {entity}"):
            await self.zk.change_entity_config(zd.ConfigType.BROKER, entity, configs)
            await self._reload_broker_configs()
        self._refresh_all_topic_logs()

    # ------------------------------------------------------------------ producer ids
    async def fetch_entity_configs(self, entity_type: str, entity_name: str) -> dict[str, str]:
        """``/config/<type>/<name>`` as ZooKeeper holds it now, as Kafka's AdminZkClient
        fetchEntityConfig reads it before a change: the cache may not have heard yet of a change
        another broker made (a user's SCRAM credentials share the znode with its quotas, and
        writing quotas over a stale copy would drop them)."""
        with self._zookeeper_errors(f"reading the config of {entity_type}/{entity_name}"):
            return await self.zk.get_entity_config(entity_type, entity_name)

    async def alter_entity_configs(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
        """Replace a user or client entity's configs (``entity_name`` sanitized, e.g.
        ``alice/clients/c1``; validated by the caller), from any broker: stored whole in
        ``/config/<type>/<name>`` and announced on ``/config/changes`` (AdminZkClient.changeConfigs)."""
        with self._zookeeper_errors(f"the config change of {entity_type}/{entity_name}"):
            await self.zk.change_entity_config(entity_type, entity_name, configs)
        self.entity_configs.set(entity_type, entity_name, configs)

    async def next_producer_id(self) -> int:
        """From blocks of 1000 ids claimed in ``/latest_producer_id_block`` (CAS), so no two
        brokers and no restart ever hand out the same id."""
        async with self._pid_lock:
            if self._pid_next >= self._pid_end:
                block = await self.zk.allocate_producer_id_block(self.broker_id)
                self._pid_next, self._pid_end = block.first_id, block.last_id + 1
            pid = self._pid_next
            self._pid_next += 1
            return pid
