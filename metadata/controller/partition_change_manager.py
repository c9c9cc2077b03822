"""AlterPartition, ElectLeaders, partition reassignments and AssignReplicasToDirs: the part of Kafka's
``ReplicationControlManager`` that changes existing partitions on request.

Who calls it: the quorum controller (AlterPartition from partition leaders; ElectLeaders,
AlterPartitionReassignments, ListPartitionReassignments from admins; AssignReplicasToDirs
from brokers). Every change goes
through ``PartitionChangeBuilder`` and takes effect when its PartitionChangeRecord is
replayed; the ISR rules and error codes are the ones Kafka's controller applies."""

from __future__ import annotations

import logging
from typing import Callable, Iterable

from kafpy.metadata.controller.controller_result import ApiError, ControllerError, ControllerResult
from kafpy.metadata.controller.partition_change_builder import (
    DIRECTORY_ASSIGNMENT_LEVEL, Election, PartitionChangeBuilder,
)
from kafpy.metadata.controller.replication_control_manager import ReplicationControlManager
from kafpy.metadata.image.partition import LeaderRecoveryState, PartitionRegistration
from kafpy.metadata.image.topics import TopicImage
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsResponse,
    AlterPartitionRequest,
    AlterPartitionResponse,
    AssignReplicasToDirsRequest,
    AssignReplicasToDirsResponse,
    ElectLeadersRequest,
    ElectLeadersResponse,
    ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse,
    Message,
)

log = logging.getLogger(__name__)

# Cancelling where nothing is being reassigned: the controller throws with the error's own
# description, and ApiError.fromThrowable leaves out a message that merely repeats it, so
# Kafka 4.4 answers with no message (seen side by side: test_reassign_partitions_standalone)
NO_REASSIGNMENT = ControllerError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS)

# Kafka's ApiError(Errors.X) carries X's description as its message, and ElectLeaders
# answers with it (kafka-leader-election.sh prints it).
ELECTION_NOT_NEEDED = ApiError(ErrorCode.ELECTION_NOT_NEEDED, "Leader election not needed for topic partition.")
PREFERRED_LEADER_NOT_AVAILABLE = ApiError(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
                                          "The preferred leader was not available.")
ELIGIBLE_LEADERS_NOT_AVAILABLE = ApiError(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
                                          "Eligible topic partition leaders are not available.")


def reassignment_target_missing(topic: str, partition_id: int, topic_known: bool) -> ControllerError:
    """AlterPartitionReassignments' refusal of a topic or partition the metadata lacks."""
    return ControllerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Unable to find partition {topic}:{partition_id}."
                           if topic_known else f"Unable to find a topic named {topic}.")


def no_such_topic(topic: str) -> ApiError:
    """ElectLeaders' answer for a topic the metadata does not hold (Kafka's message)."""
    return ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such topic as {topic}")


def no_such_partition(topic: str, partition_id: int) -> ApiError:
    """ElectLeaders' answer for a partition the topic does not have (Kafka's message)."""
    return ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"No such partition as {topic}-{partition_id}")


def elect_leaders_response(request: ElectLeadersRequest, every_partition: Iterable[tuple[str, Iterable[int]]],
                           elect: Callable[[str, int], ApiError]) -> ElectLeadersResponse:
    """Kafka's ``electLeaders`` answer, ``elect(topic, partition)`` deciding each partition.
    No topics asked: each topic of ``every_partition`` is listed, with the partitions whose
    answer is not ELECTION_NOT_NEEDED (none, often); else every partition asked, in request
    order. Also answers a standalone broker's ElectLeaders (broker/handlers/standalone.py)."""
    R, PR = ElectLeadersResponse.ReplicaElectionResult, ElectLeadersResponse.PartitionResult
    response = ElectLeadersResponse()
    if request.topic_partitions is None:
        wanted: Iterable[tuple[str, Iterable[int]]] = every_partition
    else:
        wanted = [(t.topic, t.partitions) for t in request.topic_partitions]
    for name, partition_ids in wanted:
        result = R(topic=name)
        response.replica_election_results.append(result)
        for partition_id in partition_ids:
            error = elect(name, partition_id)
            if request.topic_partitions is None and error.error == ErrorCode.ELECTION_NOT_NEEDED:
                continue  # electing every leader reports only the partitions it tried
            result.partition_result.append(PR(partition_id=partition_id, error_code=int(error.error),
                                              error_message=error.message))
    return response


class PartitionChangeManager:
    """Reads topics, brokers and configs through the ``ReplicationControlManager``."""

    def __init__(self, replication: ReplicationControlManager) -> None:
        self.replication = replication
        self.cluster = replication.cluster

    def _builder(self, topic: TopicImage, partition_id: int,
                 partition: PartitionRegistration) -> PartitionChangeBuilder:
        return self.replication.builder(topic, partition_id, partition, self.cluster.is_active)

    # -- AssignReplicasToDirs -----------------------------------------------------------------

    def assign_replicas_to_dirs(self, request: AssignReplicasToDirsRequest
                                ) -> ControllerResult[AssignReplicasToDirsResponse]:
        """Kafka's ``handleAssignReplicasToDirs``: a broker names the log directory of each of its
        replicas (an Apache Kafka broker rolled into KRaft mode after a ZooKeeper migration does
        it for every replica, whose directory the copy left MIGRATING); a PartitionChangeRecord
        for each partition whose directory changes. STALE_BROKER_EPOCH for the whole request
        when its broker epoch is not the current one (raised).

        Not done: Kafka also moves leadership off replicas assigned to a directory the broker
        registered as offline; kafpy's brokers report no offline directories."""
        if self.replication.features.metadata_version() < DIRECTORY_ASSIGNMENT_LEVEL:
            raise ControllerError(ErrorCode.UNSUPPORTED_VERSION, "Directory assignment is not supported yet.")
        broker_id = request.broker_id
        self.cluster.check_broker_epoch(broker_id, request.broker_epoch)
        image = self.replication.metadata.image
        records: list[Message] = []
        changed: dict[tuple[bytes, int], PartitionRegistration] = {}
        R = AssignReplicasToDirsResponse
        response = R()
        for directory in request.directories:
            out_dir = R.DirectoryData(id=directory.id)
            response.directories.append(out_dir)
            for topic_data in directory.topics:
                topic = image.topic_by_id(topic_data.topic_id)
                out_topic = R.TopicData(topic_id=topic_data.topic_id)
                out_dir.topics.append(out_topic)
                if topic is None:
                    log.warning("AssignReplicasToDirsRequest from broker %d references unknown topic ID %s",
                                broker_id, topic_data.topic_id.hex())
                for data in topic_data.partitions:
                    index = data.partition_index
                    error = ErrorCode.UNKNOWN_TOPIC_ID if topic is None else ErrorCode.NONE
                    if topic is not None:
                        partition = changed.get((topic.id, index)) or topic.partitions.get(index)
                        if partition is None:
                            log.warning("AssignReplicasToDirsRequest from broker %d references unknown partition "
                                        "%s-%d", broker_id, topic.name, index)
                            error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                        elif broker_id not in partition.replicas:
                            log.warning("AssignReplicasToDirsRequest from broker %d references non assigned "
                                        "partition %s-%d", broker_id, topic.name, index)
                            error = ErrorCode.NOT_LEADER_OR_FOLLOWER
                        else:
                            builder = self._builder(topic, index, partition)
                            builder.set_target_directories({broker_id: directory.id})
                            record = builder.build()
                            if record is not None:
                                records.append(record)
                                changed[(topic.id, index)] = partition.merge(record)
                    out_topic.partitions.append(R.PartitionData(partition_index=index, error_code=int(error)))
        return ControllerResult.of(records, response)

    # -- AlterPartition ----------------------------------------------------------------------

    def alter_partition(self, request: AlterPartitionRequest,
                        version: int) -> ControllerResult[AlterPartitionResponse]:
        """ISR changes from a partition leader; STALE_BROKER_EPOCH for the whole request when
        its broker epoch is not the current one (raised)."""
        self.cluster.check_broker_epoch(request.broker_id, request.broker_epoch)
        records: list[Message] = []
        response = AlterPartitionResponse()
        P = AlterPartitionResponse.PartitionData
        image = self.replication.metadata.image
        for topic_data in request.topics:
            topic = (image.topic_by_id(topic_data.topic_id) if version > 1
                     else image.topic(topic_data.topic_name))
            out = AlterPartitionResponse.TopicData(topic_name=topic_data.topic_name,
                                                   topic_id=topic_data.topic_id)
            response.topics.append(out)
            if topic is None:
                error = ErrorCode.UNKNOWN_TOPIC_ID if version > 1 else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                out.partitions += [P(partition_index=p.partition_index, error_code=int(error))
                                   for p in topic_data.partitions]
                continue
            for data in topic_data.partitions:
                partition = topic.partitions.get(data.partition_index)
                new_isr = ([b.broker_id for b in data.new_isr_with_epochs] if version >= 3
                           else list(data.new_isr))
                epochs = ([(b.broker_id, b.broker_epoch) for b in data.new_isr_with_epochs]
                          if version >= 3 else [(b, -1) for b in data.new_isr])
                error = self._validate(request.broker_id, topic, data, partition, new_isr, epochs, version)
                if error != ErrorCode.NONE or partition is None:
                    out.partitions.append(P(partition_index=data.partition_index, error_code=int(error)))
                    continue
                builder = self._builder(topic, data.partition_index, partition)
                if self.replication.configs.unclean_leader_election_enabled_for_topic(topic.name):
                    builder.set_election(Election.UNCLEAN)
                builder.set_target_isr(new_isr)
                builder.set_target_leader_recovery_state(LeaderRecoveryState.of(data.leader_recovery_state))
                record = builder.build()
                if record is not None:
                    records.append(record)
                    partition = partition.merge(record)
                    if record.leader not in (request.broker_id, -2):
                        # the ISR change completed a reassignment that moved the leader
                        error = ErrorCode.NEW_LEADER_ELECTED if version > 1 else ErrorCode.FENCED_LEADER_EPOCH
                        out.partitions.append(P(partition_index=data.partition_index,
                                                error_code=int(error)))
                        continue
                out.partitions.append(P(
                    partition_index=data.partition_index, error_code=0, leader_id=partition.leader,
                    leader_epoch=partition.leader_epoch, isr=list(partition.isr),
                    leader_recovery_state=int(partition.leader_recovery_state),
                    partition_epoch=partition.partition_epoch))
        return ControllerResult.of(records, response)

    def _validate(self, broker_id: int, topic: TopicImage,
                  data: AlterPartitionRequest.PartitionData,
                  partition: PartitionRegistration | None, new_isr: list[int],
                  epochs: list[tuple[int, int]], version: int) -> ErrorCode:
        """Kafka's ``validateAlterPartitionData``, in its order."""
        name = f"{topic.name}-{data.partition_index}"
        if partition is None:
            log.info("Rejecting AlterPartition request for unknown partition %s.", name)
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        if data.leader_epoch > partition.leader_epoch or data.partition_epoch > partition.partition_epoch:
            return ErrorCode.NOT_CONTROLLER
        if data.leader_epoch < partition.leader_epoch:
            return ErrorCode.FENCED_LEADER_EPOCH
        if broker_id != partition.leader:
            log.info("Rejecting AlterPartition request from node %d for %s because the current "
                     "leader is %d.", broker_id, name, partition.leader)
            return ErrorCode.INVALID_REQUEST
        if data.partition_epoch < partition.partition_epoch:
            log.info("Rejecting AlterPartition request from node %d for %s because the current "
                     "partition epoch is %d, not %d.", broker_id, name, partition.partition_epoch,
                     data.partition_epoch)
            return ErrorCode.INVALID_UPDATE_VERSION
        if len(set(new_isr)) != len(new_isr) or any(r not in partition.replicas for r in new_isr):
            log.error("Rejecting AlterPartition request from node %d for %s because it specified "
                      "an invalid ISR %s.", broker_id, name, new_isr)
            return ErrorCode.INVALID_REQUEST
        if partition.leader not in new_isr:
            log.error("Rejecting AlterPartition request from node %d for %s because it specified "
                      "an invalid ISR %s that doesn't include itself.", broker_id, name, new_isr)
            return ErrorCode.INVALID_REQUEST
        recovery = data.leader_recovery_state
        if recovery == LeaderRecoveryState.RECOVERING and len(new_isr) > 1:
            return ErrorCode.INVALID_REQUEST
        if (partition.leader_recovery_state == LeaderRecoveryState.RECOVERED
                and recovery == LeaderRecoveryState.RECOVERING):
            return ErrorCode.INVALID_REQUEST
        ineligible = self._ineligible_replicas(epochs)
        if ineligible:
            log.info("Rejecting AlterPartition request from node %d for %s because it specified "
                     "ineligible replicas %s in the new ISR %s.", broker_id, name, ineligible, new_isr)
            return ErrorCode.INELIGIBLE_REPLICA if version > 1 else ErrorCode.OPERATION_NOT_ATTEMPTED
        return ErrorCode.NONE

    def _ineligible_replicas(self, epochs: list[tuple[int, int]]) -> list[str]:
        out: list[str] = []
        for broker_id, epoch in epochs:
            reg = self.cluster.registration(broker_id)
            if reg is None:
                out.append(f"{broker_id} (not registered)")
            elif reg.in_controlled_shutdown:
                out.append(f"{broker_id} (shutting down)")
            elif reg.fenced:
                out.append(f"{broker_id} (fenced)")
            elif epoch != -1 and reg.epoch != epoch:
                out.append(f"{broker_id} (broker epoch mismatch: requested={epoch} VS "
                           f"expected={reg.epoch})")
        return out

    # -- ElectLeaders ------------------------------------------------------------------------

    def elect_leaders(self, request: ElectLeadersRequest) -> ControllerResult[ElectLeadersResponse]:
        """Preferred (type 0) or unclean (type 1) elections; no topic list: every partition."""
        election = Election.UNCLEAN if request.election_type == 1 else Election.PREFERRED
        records: list[Message] = []
        every = [(t.name, sorted(t.partitions)) for t in self.replication.topics()] \
            if request.topic_partitions is None else []
        response = elect_leaders_response(
            request, every, lambda name, partition_id: self._elect_leader(name, partition_id, election, records))
        return ControllerResult.of(records, response)

    def _elect_leader(self, name: str, partition_id: int, election: Election,
                      records: list[Message]) -> ApiError:
        topic = self.replication.topic(name)
        if topic is None:
            return no_such_topic(name)
        partition = topic.partitions.get(partition_id)
        if partition is None:
            return no_such_partition(name, partition_id)
        if ((election == Election.PREFERRED and partition.leader == partition.replicas[0])
                or (election == Election.UNCLEAN and partition.has_leader())):
            return ELECTION_NOT_NEEDED
        builder = self._builder(topic, partition_id, partition).set_election(election)
        record = builder.build()
        if record is None:
            if election == Election.PREFERRED:
                return PREFERRED_LEADER_NOT_AVAILABLE
            return ELIGIBLE_LEADERS_NOT_AVAILABLE
        records.append(record)
        return ApiError()

    # -- reassignments -----------------------------------------------------------------------

    def alter_partition_reassignments(self, request: AlterPartitionReassignmentsRequest
                                      ) -> ControllerResult[AlterPartitionReassignmentsResponse]:
        records: list[Message] = []
        allow_rf_change = request.allow_replication_factor_change   # v1 (KIP-1101); v0: true
        response = AlterPartitionReassignmentsResponse(error_message=None,
                                                       allow_replication_factor_change=allow_rf_change)
        for topic in request.topics:
            out = AlterPartitionReassignmentsResponse.ReassignableTopicResponse(name=topic.name)
            for target in topic.partitions:
                try:
                    self._alter_partition_reassignment(topic.name, target, records, allow_rf_change)
                    error = ApiError()
                except ControllerError as e:
                    error = e.api_error
                out.partitions.append(AlterPartitionReassignmentsResponse.ReassignablePartitionResponse(
                    partition_index=target.partition_index, error_code=int(error.error),
                    error_message=error.message))
            response.responses.append(out)
        return ControllerResult.atomic_of(records, response)

    def _alter_partition_reassignment(
            self, name: str, target: AlterPartitionReassignmentsRequest.ReassignablePartition,
            records: list[Message], allow_rf_change: bool = True) -> None:
        topic = self.replication.topic(name)
        if topic is None:
            raise reassignment_target_missing(name, target.partition_index, topic_known=False)
        partition = topic.partitions.get(target.partition_index)
        if partition is None:
            raise reassignment_target_missing(name, target.partition_index, topic_known=True)
        builder = self._builder(topic, target.partition_index, partition)
        if target.replicas is None:
            if not (partition.adding_replicas or partition.removing_replicas):
                raise NO_REASSIGNMENT
            # revert: the replicas being added leave replicas and ISR
            replicas = [r for r in partition.replicas if r not in partition.adding_replicas]
            isr = [r for r in partition.isr if r not in partition.adding_replicas]
            unclean = self.replication.configs.unclean_leader_election_enabled_for_topic(name)
            if not isr:
                if not unclean:
                    raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                          f"Unable to revert partition assignment for "
                                          f"{name}:{target.partition_index} because it would "
                                          "require an unclean leader election.")
                isr = replicas[:1]
            if unclean:
                builder.set_election(Election.UNCLEAN)
            builder.set_target_isr(isr).set_target_replicas(replicas)
            builder.set_target_removing([]).set_target_adding([])
        else:
            self.replication.validate_manual_partition_assignment(target.replicas, None)
            if not allow_rf_change:
                # the replication factor a reassignment in progress leads to, else the current one
                if partition.adding_replicas or partition.removing_replicas:
                    factor = len((set(partition.replicas) | set(partition.adding_replicas))
                                 - set(partition.removing_replicas))
                else:
                    factor = len(partition.replicas)
                if factor != len(target.replicas):
                    raise ControllerError(ErrorCode.INVALID_REPLICATION_FACTOR,
                                          f"The replication factor is changed from {factor} to {len(target.replicas)}")
            current = list(partition.replicas)
            removing = [r for r in current if r not in target.replicas]
            adding = [r for r in target.replicas if r not in current]
            replicas = list(target.replicas) + removing
            if replicas != current:
                builder.set_target_replicas(replicas)
            if removing:
                builder.set_target_removing(removing)
            if adding:
                builder.set_target_adding(adding)
        record = builder.build()
        if record is not None:
            records.append(record)

    def list_partition_reassignments(self, request: ListPartitionReassignmentsRequest
                                     ) -> ListPartitionReassignmentsResponse:
        """The partitions being reassigned (read-only: no records)."""
        L = ListPartitionReassignmentsResponse
        response = L(error_message=None)
        if request.topics is None:
            wanted = [(t, sorted(t.partitions)) for t in self.replication.topics()]
        else:
            wanted = []
            for asked in request.topics:
                found = self.replication.topic(asked.name)
                if found is not None:
                    wanted.append((found, list(asked.partition_indexes)))
        for topic, partition_ids in wanted:
            ongoing = []
            for p in partition_ids:
                reg = topic.partitions.get(p)
                if reg is not None and (reg.adding_replicas or reg.removing_replicas):
                    ongoing.append(L.OngoingPartitionReassignment(
                        partition_index=p, replicas=list(reg.replicas),
                        adding_replicas=list(reg.adding_replicas),
                        removing_replicas=list(reg.removing_replicas)))
            if ongoing:
                response.topics.append(L.OngoingTopicReassignment(name=topic.name, partitions=ongoing))
        return response
