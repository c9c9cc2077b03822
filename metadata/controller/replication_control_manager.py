"""Topics, partitions and the brokers' effect on them, as Kafka's ``ReplicationControlManager``.

Who calls it: the quorum controller for CreateTopics, DeleteTopics, CreatePartitions,
BrokerHeartbeat, UnregisterBroker and, when a session expires, ``maybe_fence_one_stale_broker``;
AlterPartition, ElectLeaders and reassignments are in ``partition_change_manager``. Reads the
replicated image; every change is a record (TopicRecord, ConfigRecord, PartitionRecord,
PartitionChangeRecord, RemoveTopicRecord, BrokerRegistrationChangeRecord, UnregisterBrokerRecord)
that takes effect on replay. New topic ids come from the ``new_uuid`` callable passed in."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from kafpy.metadata.controller.broker_heartbeat_manager import BrokerControlState
from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.configuration_control_manager import (
    ConfigurationControlManager,
    OpType,
)
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ApiError, ControllerError, ControllerResult
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager
from kafpy.metadata.controller.partition_change_builder import (
    DIRECTORY_ASSIGNMENT_LEVEL,
    Election,
    PartitionChangeBuilder,
)
from kafpy.metadata.controller.striped_replica_placer import StripedReplicaPlacer, UsableBroker
from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.partition import (
    NO_LEADER,
    UNASSIGNED,
    LeaderRecoveryState,
    PartitionRegistration,
)
from kafpy.metadata.image.topics import TopicImage
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationChangeRecord,
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreateTopicsRequest,
    CreateTopicsResponse,
    DeleteTopicsResponse,
    Message,
    PartitionRecord,
    RemoveTopicRecord,
    TopicRecord,
    UnregisterBrokerRecord,
)
from kafpy.protocol.topics import (
    InvalidTopicName,
    has_collision_chars,
    unify_collision_chars,
    validate_topic_name,
)

log = logging.getLogger(__name__)

UNKNOWN_TOPIC_ID_MESSAGE = "This server does not host this topic ID."
UNKNOWN_TOPIC_MESSAGE = "This server does not host this topic-partition."
ELR_FEATURE = "eligible.leader.replicas.version"
ELR_METADATA_VERSION = 23  # 4.0-IV1
MIN_ISR_CONFIG = "min.insync.replicas"
CORDONED_LOG_DIRS_LEVEL = 30  # 4.3-IV0
# BrokerRegistrationChangeRecord: Kafka's BrokerRegistrationFencingChange / InControlledShutdownChange
FENCE, UNFENCE, IN_CONTROLLED_SHUTDOWN = 1, -1, 1


def validate_manual_assignment(replicas: list[int], registered: Callable[[int], bool], rf: int | None) -> None:
    """Kafka's ``validateManualPartitionAssignment``: ``replicas`` names registered brokers, each
    once, ``rf`` of them when ``rf`` is given; else ControllerError(INVALID_REPLICA_ASSIGNMENT)
    with Kafka's message. Also a standalone broker's check (``broker/handlers/standalone.py``),
    where the only registered broker is itself."""
    def invalid(message: str) -> ControllerError:
        return ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, message)
    if not replicas:
        raise invalid("The manual partition assignment includes an empty replica list.")
    previous: int | None = None
    for broker_id in sorted(replicas):
        if not registered(broker_id):
            raise invalid(f"The manual partition assignment includes broker {broker_id}, "
                          "but no such broker is registered.")
        if broker_id == previous:
            raise invalid(f"The manual partition assignment includes the broker {previous} "
                          "more than once.")
        previous = broker_id
    if rf is not None and len(replicas) != rf:
        raise invalid(f"The manual partition assignment includes a partition with "
                      f"{len(replicas)} replica(s), but this is not consistent with previous "
                      f"partitions, which have {rf} replica(s).")


class ReplicationControlManager:
    """The managers it reads, the replica placer, and the defaults of num.partitions and
    default.replication.factor."""

    def __init__(self, metadata: ControllerMetadata, features: FeatureControlManager,
                 cluster: ClusterControlManager, configs: ConfigurationControlManager,
                 placer: StripedReplicaPlacer, new_uuid: Callable[[], bytes],
                 default_num_partitions: int = 1, default_replication_factor: int = 1) -> None:
        self.metadata = metadata
        self.features = features
        self.cluster = cluster
        self.configs = configs
        self.placer = placer
        self.new_uuid = new_uuid
        self.default_num_partitions = default_num_partitions
        self.default_replication_factor = default_replication_factor

    # -- reads -------------------------------------------------------------------------------

    def topic(self, name: str) -> TopicImage | None:
        return self.metadata.image.topic(name)

    def topics(self) -> list[TopicImage]:
        return sorted(self.metadata.image.topics.topics_by_id.values(), key=lambda t: t.name)

    def partitions_where(self, test: Callable[[PartitionRegistration], bool]
                         ) -> list[tuple[TopicImage, int, PartitionRegistration]]:
        return [(t, p, reg) for t in self.topics() for p, reg in sorted(t.partitions.items())
                if test(reg)]

    def has_leaderships(self, broker_id: int) -> bool:
        return any(True for _ in self.metadata.image.partitions_led_by(broker_id))

    def default_dir(self, broker_id: int) -> bytes:
        """The broker's only directory, else UNASSIGNED (Kafka's ``defaultDir``)."""
        reg = self.cluster.registration(broker_id)
        return reg.directories[0] if reg is not None and len(reg.directories) == 1 else UNASSIGNED

    def elr_enabled(self) -> bool:
        """Eligible leader replicas: the eligible.leader.replicas.version feature finalized at
        1 or more, on a metadata.version that has them (4.0-IV1)."""
        level = self.features.finalized_features().get(ELR_FEATURE, 0)
        return level >= 1 and self.features.metadata_version() >= ELR_METADATA_VERSION

    def topic_effective_min_isr(self, topic: TopicImage) -> int:
        """min.insync.replicas of the topic, else the cluster default, else 1; at most the
        replication factor (Kafka's ``getTopicEffectiveMinIsr``)."""
        value = (self.configs.topic_config(topic.name, MIN_ISR_CONFIG)
                 or self.configs.cluster_config(MIN_ISR_CONFIG) or "1")
        first = topic.partitions.get(0)
        replication_factor = len(first.replicas) if first is not None else 1
        return min(int(value), replication_factor)

    def builder(self, topic: TopicImage, partition_id: int, partition: PartitionRegistration,
                is_acceptable_leader: Callable[[int], bool]) -> PartitionChangeBuilder:
        """A PartitionChangeBuilder with this cluster's metadata.version, ELR and min ISR."""
        return PartitionChangeBuilder(
            partition, topic.id, partition_id, is_acceptable_leader,
            self.features.metadata_version(), self.default_dir,
            min_isr=self.topic_effective_min_isr(topic), elr_enabled=self.elr_enabled())

    def usable_brokers(self) -> list[UsableBroker]:
        return [UsableBroker(b.id, b.rack, b.fenced)
                for _, b in sorted(self.metadata.image.cluster.brokers.items())
                if not b.in_controlled_shutdown]

    # -- CreateTopics ------------------------------------------------------------------------

    def create_topics(self, request: CreateTopicsRequest) -> ControllerResult[CreateTopicsResponse]:
        """TopicRecord, its ConfigRecords, then its PartitionRecords, per topic created; all
        in one atomic batch (none when validate-only)."""
        errors: dict[str, ApiError] = {}
        records: list[Message] = []
        successes: dict[str, CreateTopicsResponse.CreatableTopicResult] = {}
        existing_collisions = {unify_collision_chars(t.name): t.name for t in self.topics()
                               if has_collision_chars(t.name)}
        for topic in request.topics:
            try:
                validate_topic_name(topic.name)
            except InvalidTopicName as e:
                errors[topic.name] = ApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, str(e))
                continue
            if has_collision_chars(topic.name):
                other = existing_collisions.get(unify_collision_chars(topic.name))
                if other is not None and other != topic.name:
                    errors[topic.name] = ApiError(
                        ErrorCode.INVALID_TOPIC_EXCEPTION,
                        f"Topic '{topic.name}' collides with existing topic: {other}")
        for topic in request.topics:
            if self.topic(topic.name) is not None:
                errors[topic.name] = ApiError(ErrorCode.TOPIC_ALREADY_EXISTS,
                                              f"Topic '{topic.name}' already exists.")
        for topic in request.topics:
            if topic.name in errors:
                continue
            config_records: list[Message] = []
            if topic.configs:
                ops: dict[str, tuple[OpType | None, str | None]] = {
                    c.name: (OpType.SET, c.value) for c in topic.configs}
                config_result = self.configs.incremental_alter_config(
                    ConfigResource(ConfigResourceType.TOPIC, topic.name), ops, new_resource=True)
                if not config_result.response.is_success():
                    errors[topic.name] = config_result.response
                    continue
                config_records = config_result.records
            try:
                error = self._create_topic(topic, records, successes, config_records)
            except ControllerError as e:
                error = e.api_error
            if not error.is_success():
                errors[topic.name] = error
        response = CreateTopicsResponse()
        for topic in request.topics:
            failed = errors.get(topic.name)
            if failed is not None:
                response.topics.append(CreateTopicsResponse.CreatableTopicResult(
                    name=topic.name, error_code=int(failed.error), error_message=failed.message))
            else:
                response.topics.append(successes[topic.name])
        log.info("%sCreateTopics result(s): %s", "Validate-only " if request.validate_only else "",
                 ", ".join(f"{t.name}: {ErrorCode(t.error_code).name}" for t in response.topics))
        return ControllerResult.atomic_of([] if request.validate_only else records, response)

    def _create_topic(self, topic: CreateTopicsRequest.CreatableTopic, records: list[Message],
                      successes: dict[str, CreateTopicsResponse.CreatableTopicResult],
                      config_records: list[Message]) -> ApiError:
        new_parts: dict[int, PartitionRegistration] = {}
        if topic.assignments:
            if topic.replication_factor != -1:
                return ApiError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was "
                                "specified, but replication factor was not set to -1.")
            if topic.num_partitions != -1:
                return ApiError(ErrorCode.INVALID_REQUEST, "A manual partition assignment was "
                                "specified, but numPartitions was not set to -1.")
            rf: int | None = None
            for assignment in topic.assignments:
                if assignment.partition_index in new_parts:
                    return ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                    "Found multiple manual partition assignments for partition "
                                    f"{assignment.partition_index}")
                self.validate_manual_partition_assignment(assignment.broker_ids, rf)
                rf = len(assignment.broker_ids)
                isr = [b for b in assignment.broker_ids if self.cluster.is_active(b)]
                if not isr:
                    return ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                    "All brokers specified in the manual partition assignment for "
                                    f"partition {assignment.partition_index} are fenced or in "
                                    "controlled shutdown.")
                new_parts[assignment.partition_index] = self._new_partition(assignment.broker_ids, isr)
            if any(i not in new_parts for i in range(len(new_parts))):
                return ApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                "partitions should be a consecutive 0-based integer sequence")
        elif topic.replication_factor < -1 or topic.replication_factor == 0:
            return ApiError(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be "
                            "larger than 0, or -1 to use the default value.")
        elif topic.num_partitions < -1 or topic.num_partitions == 0:
            return ApiError(ErrorCode.INVALID_PARTITIONS,
                            "Number of partitions was set to an invalid non-positive value.")
        else:
            num_partitions = (self.default_num_partitions if topic.num_partitions == -1
                              else topic.num_partitions)
            rf_ = (self.default_replication_factor if topic.replication_factor == -1
                   else topic.replication_factor)
            try:
                placements = self.placer.place(num_partitions, rf_, self.usable_brokers())
            except ControllerError as e:
                return ApiError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                f"Unable to replicate the partition {rf_} time(s): {e}")
            for partition_id, replicas in enumerate(placements):
                isr = [b for b in replicas if self.cluster.is_active(b)]
                if not isr:
                    return ApiError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                    f"Unable to replicate the partition {rf_} time(s): All brokers "
                                    "are currently fenced or in controlled shutdown.")
                new_parts[partition_id] = self._new_partition(replicas, isr)
        topic_id = self.new_uuid()
        first = new_parts[min(new_parts)]
        successes[topic.name] = CreateTopicsResponse.CreatableTopicResult(
            name=topic.name, topic_id=topic_id, error_code=0, error_message=None,
            num_partitions=len(new_parts), replication_factor=len(first.replicas),
            configs=[CreateTopicsResponse.CreatableTopicConfigs(
                name=c.name, value=c.value, read_only=False, config_source=1, is_sensitive=False)
                for c in topic.configs])
        records.append(TopicRecord(name=topic.name, topic_id=topic_id))
        records += config_records
        for partition_id in sorted(new_parts):
            records.append(self._partition_record(topic_id, partition_id, new_parts[partition_id]))
        return ApiError()

    def validate_manual_partition_assignment(self, replicas: list[int], rf: int | None) -> None:
        """Kafka's ``validateManualPartitionAssignment``."""
        validate_manual_assignment(replicas, lambda b: self.cluster.registration(b) is not None, rf)

    def _new_partition(self, replicas: list[int], isr: list[int]) -> PartitionRegistration:
        return PartitionRegistration(
            replicas=tuple(replicas), directories=tuple(self.default_dir(b) for b in replicas),
            isr=tuple(isr), removing_replicas=(), adding_replicas=(), leader=isr[0],
            leader_recovery_state=LeaderRecoveryState.RECOVERED, leader_epoch=0,
            partition_epoch=0)

    def _partition_record(self, topic_id: bytes, partition_id: int,
                          p: PartitionRegistration) -> PartitionRecord:
        with_dirs = self.features.metadata_version() >= DIRECTORY_ASSIGNMENT_LEVEL
        return PartitionRecord(
            partition_id=partition_id, topic_id=topic_id, replicas=list(p.replicas),
            isr=list(p.isr), removing_replicas=[], adding_replicas=[], leader=p.leader,
            leader_recovery_state=int(p.leader_recovery_state), leader_epoch=p.leader_epoch,
            partition_epoch=p.partition_epoch,
            directories=list(p.directories) if with_dirs else [])

    # -- DeleteTopics ------------------------------------------------------------------------

    def delete_topics(self, names: Iterable[str] = (), ids: Iterable[bytes] = ()
                      ) -> ControllerResult[list[DeleteTopicsResponse.DeletableTopicResult]]:
        """A RemoveTopicRecord per existing topic, by name or by id."""
        R = DeleteTopicsResponse.DeletableTopicResult
        records: list[Message] = []
        results: list[DeleteTopicsResponse.DeletableTopicResult] = []
        for name in names:
            found = self.topic(name)
            if found is None:
                results.append(R(name=name, error_code=int(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
                                 error_message=UNKNOWN_TOPIC_MESSAGE))
                continue
            records.append(RemoveTopicRecord(topic_id=found.id))
            results.append(R(name=name, topic_id=found.id, error_code=0, error_message=None))
        for topic_id in ids:
            by_id = self.metadata.image.topic_by_id(topic_id)
            if by_id is None:
                results.append(R(name=None, topic_id=topic_id,
                                 error_code=int(ErrorCode.UNKNOWN_TOPIC_ID),
                                 error_message=UNKNOWN_TOPIC_ID_MESSAGE))
                continue
            records.append(RemoveTopicRecord(topic_id=topic_id))
            results.append(R(name=by_id.name, topic_id=topic_id, error_code=0, error_message=None))
        return ControllerResult.atomic_of(records, results)

    # -- CreatePartitions --------------------------------------------------------------------

    def create_partitions(self, request: CreatePartitionsRequest
                          ) -> ControllerResult[CreatePartitionsResponse]:
        records: list[Message] = []
        response = CreatePartitionsResponse()
        R = CreatePartitionsResponse.CreatePartitionsTopicResult
        for topic in request.topics:
            try:
                self._create_partitions_for_topic(topic, records)
            except ControllerError as e:
                response.results.append(R(name=topic.name, error_code=int(e.error),
                                          error_message=e.api_error.message))
                continue
            response.results.append(R(name=topic.name, error_code=0, error_message=None))
        return ControllerResult.atomic_of([] if request.validate_only else records, response)

    def _create_partitions_for_topic(self, topic: CreatePartitionsRequest.CreatePartitionsTopic,
                                     records: list[Message]) -> None:
        found = self.topic(topic.name)
        if found is None:   # Kafka throws it without a message: the answer has none
            raise ControllerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
        start = len(found.partitions)
        if topic.count < start:
            raise ControllerError(ErrorCode.INVALID_PARTITIONS,
                                  f"The topic {topic.name} currently has {start} partition(s); "
                                  f"{topic.count} would not be an increase.")
        if topic.count == start:
            raise ControllerError(ErrorCode.INVALID_PARTITIONS,
                                  f"Topic already has {start} partition(s).")
        additional = topic.count - start
        if topic.assignments and len(topic.assignments) != additional:
            raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  f"Attempted to add {additional} additional partition(s), but "
                                  f"only {len(topic.assignments)} assignment(s) were specified.")
        rf = len(found.partitions[0].replicas) if 0 in found.partitions else 1
        if topic.assignments:
            placements = []
            for assignment in topic.assignments:
                self.validate_manual_partition_assignment(assignment.broker_ids, rf)
                placements.append(list(assignment.broker_ids))
        else:
            try:
                placements = self.placer.place(additional, rf, self.usable_brokers())
            except ControllerError as e:
                raise ControllerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                      f"Unable to replicate the partition {rf} time(s): {e}") from None
        for offset, replicas in enumerate(placements):
            isr = [b for b in replicas if self.cluster.is_active(b)]
            if not isr:
                raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                      "All brokers specified in the manual partition assignment "
                                      f"for partition {start + offset} are fenced or in "
                                      "controlled shutdown.")
            records.append(self._partition_record(found.id, start + offset,
                                                  self._new_partition(replicas, isr)))

    # -- brokers: heartbeats, fencing, controlled shutdown, unregistration -------------------

    def generate_leader_and_isr_updates(
            self, context: str, broker_to_remove: int, broker_to_add: int, records: list[Message],
            partitions: list[tuple[TopicImage, int, PartitionRegistration]]) -> None:
        """A PartitionChangeRecord for each partition whose leader or ISR must change because
        ``broker_to_remove`` leaves (never an acceptable leader, dropped from the ISR) or
        ``broker_to_add`` comes back (acceptable even though the image still shows it
        fenced)."""
        def acceptable(r: int) -> bool:
            return r != broker_to_remove and (r == broker_to_add or self.cluster.is_active(r))
        before = len(records)
        for topic, partition_id, partition in partitions:
            builder = self.builder(topic, partition_id, partition, acceptable)
            if self.configs.unclean_leader_election_enabled_for_topic(topic.name):
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr([r for r in partition.isr if r != broker_to_remove])
            record = builder.build()
            if record is not None:
                records.append(record)
        if len(records) != before:
            log.info("%s: changing %d partition(s)", context, len(records) - before)

    def handle_broker_fenced(self, broker_id: int, records: list[Message]) -> None:
        reg = self.cluster.registration(broker_id)
        if reg is None:
            raise RuntimeError(f"Can't find broker registration for broker {broker_id}")
        self.generate_leader_and_isr_updates(
            "handleBrokerFenced", broker_id, NO_LEADER, records,
            self.partitions_where(lambda p: broker_id in p.isr))
        records.append(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=reg.epoch,
                                                      fenced=FENCE))

    def handle_broker_unfenced(self, broker_id: int, broker_epoch: int,
                               records: list[Message]) -> None:
        records.append(BrokerRegistrationChangeRecord(broker_id=broker_id,
                                                      broker_epoch=broker_epoch, fenced=UNFENCE))
        self.generate_leader_and_isr_updates(
            "handleBrokerUnfenced", NO_LEADER, broker_id, records,
            self.partitions_where(lambda p: p.leader == NO_LEADER))

    def handle_broker_in_controlled_shutdown(self, broker_id: int, broker_epoch: int,
                                             records: list[Message]) -> None:
        reg = self.cluster.registration(broker_id)
        if reg is not None and not reg.in_controlled_shutdown:
            records.append(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch,
                in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN))
        self.generate_leader_and_isr_updates(
            f"enterControlledShutdown[{broker_id}]", broker_id, NO_LEADER, records,
            self.partitions_where(lambda p: broker_id in p.isr))

    def process_broker_heartbeat(self, request: BrokerHeartbeatRequest, now_ms: int
                                 ) -> ControllerResult[BrokerHeartbeatResponse]:
        """The broker's next lifecycle state and the records moving it there (Kafka's
        ``processBrokerHeartbeat``); raises STALE_BROKER_EPOCH for a wrong epoch."""
        broker_id = request.broker_id
        self.cluster.check_broker_epoch(broker_id, request.broker_epoch)
        register_offset = self.cluster.register_broker_record_offset(broker_id)
        if register_offset is None:
            register_offset = self.metadata.last_offset
        heartbeats = self.cluster.heartbeat_manager
        if broker_id not in heartbeats.brokers:
            reg = self.cluster.registration(broker_id)
            heartbeats.register(broker_id, reg is None or reg.fenced, now_ms)
        current, nxt = heartbeats.calculate_next_broker_state(
            broker_id, request, register_offset, lambda: self.has_leaderships(broker_id))
        records: list[Message] = []
        S = BrokerControlState
        if current != nxt:
            if nxt in (S.FENCED, S.SHUTDOWN_NOW):
                self.handle_broker_fenced(broker_id, records)
            elif nxt == S.UNFENCED:
                self.handle_broker_unfenced(broker_id, request.broker_epoch, records)
            elif nxt == S.CONTROLLED_SHUTDOWN:
                self.handle_broker_in_controlled_shutdown(broker_id, request.broker_epoch, records)
        heartbeats.touch(broker_id, nxt.fenced, request.current_metadata_offset, now_ms)
        if self.features.metadata_version() >= CORDONED_LOG_DIRS_LEVEL:
            self.handle_directories_cordoned(broker_id, request.broker_epoch,
                                             request.cordoned_log_dirs, records)
        if nxt == S.CONTROLLED_SHUTDOWN:
            # complete once every active broker has replayed the last of these records
            heartbeats.maybe_update_controlled_shutdown_offset(
                broker_id, self.metadata.next_write_offset() + max(len(records), 1) - 1)
        return ControllerResult.of(records, BrokerHeartbeatResponse(
            is_caught_up=request.current_metadata_offset >= register_offset,
            is_fenced=nxt.fenced, should_shut_down=nxt.should_shut_down))

    def handle_directories_cordoned(self, broker_id: int, broker_epoch: int,
                                    cordoned: list[bytes] | None, records: list[Message]) -> None:
        """Kafka 4.4's cordoned log directories (KIP-1066): a heartbeat naming them (even
        none) records them when they differ from the registration's (or it has none yet)."""
        if cordoned is None:
            return
        reg = self.cluster.registration(broker_id)
        if reg is None:
            return
        if reg.cordoned_directories is None or set(reg.cordoned_directories) != set(cordoned):
            records.append(BrokerRegistrationChangeRecord(
                broker_id=broker_id, broker_epoch=broker_epoch, cordoned_log_dirs=list(cordoned)))

    def maybe_fence_one_stale_broker(self, now_ms: int) -> ControllerResult[None]:
        """Fence the broker whose session expired longest ago, if any."""
        records: list[Message] = []
        broker_id = self.cluster.heartbeat_manager.find_one_stale_broker(now_ms)
        if broker_id is not None and self.cluster.registration(broker_id) is not None:
            log.info("Fencing broker %d because its session has timed out.", broker_id)
            self.handle_broker_fenced(broker_id, records)
            self.cluster.heartbeat_manager.fence(broker_id)
        return ControllerResult.of(records, None)

    def unregister_broker(self, broker_id: int) -> ControllerResult[None]:
        reg = self.cluster.registration(broker_id)
        if reg is None:
            raise ControllerError(ErrorCode.BROKER_ID_NOT_REGISTERED,
                                  f"Broker ID {broker_id} is not currently registered")
        records: list[Message] = []
        self.generate_leader_and_isr_updates(
            "handleBrokerUnregistered", broker_id, NO_LEADER, records,
            self.partitions_where(lambda p: broker_id in p.isr))
        records.append(UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=reg.epoch))
        return ControllerResult.atomic_of(records, None)
