"""What a standalone broker answers as its own controller: ElectLeaders (43),
AlterPartitionReassignments (45) and ListPartitionReassignments (46).

Apache Kafka's single node (a combined KRaft broker and controller) answers
``kafka-leader-election.sh``; so does a standalone kafpy broker. Every partition has one
replica, this broker, so there is nothing to elect: a partition led by its replica is
ELECTION_NOT_NEEDED, one without a leader (its log dir failed) has no other replica to take
over (PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE for an unclean
election), and the answer has the KRaft controller's shape and messages
(``metadata/controller/partition_change_manager.elect_leaders_response``).

``kafka-reassign-partitions.sh`` works as against Apache's single node: no reassignment is
ever in progress (the list is empty, a cancel is NO_REASSIGNMENT_IN_PROGRESS), a plan that
keeps every partition on this broker is accepted with nothing to move, and one naming any
other broker is INVALID_REPLICA_ASSIGNMENT, the controller's own check and messages
(``replication_control_manager.validate_manual_assignment``), since this broker is the only
one registered.

Registered only on a standalone broker (``broker/apis.py``): a ZooKeeper-mode broker asks
its cluster controller (``handlers/control.py``), a KRaft broker forwards the request.
Authorization (ALTER on the cluster; DESCRIBE to list reassignments) is the rules', in
``broker/authorization_rules.py``.
"""
from __future__ import annotations

from kafpy.metadata.controller.controller_result import ApiError, ControllerError
from kafpy.metadata.controller.partition_change_manager import (
    ELECTION_NOT_NEEDED, ELIGIBLE_LEADERS_NOT_AVAILABLE, NO_REASSIGNMENT, PREFERRED_LEADER_NOT_AVAILABLE,
    elect_leaders_response, no_such_partition, no_such_topic, reassignment_target_missing)
from kafpy.metadata.controller.replication_control_manager import validate_manual_assignment
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ElectLeadersRequest,
    ElectLeadersResponse, ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse)

from kafpy.broker.handler import Handler, RequestContext

UNCLEAN = 1


async def handle_elect_leaders(ctx: RequestContext, req: ElectLeadersRequest) -> ElectLeadersResponse:
    md = ctx.services.metadata_cache
    unclean = ctx.api_version >= 1 and req.election_type == UNCLEAN

    def elect(topic: str, partition_id: int) -> ApiError:
        info = md.topic(topic)
        if info is None:
            return no_such_topic(topic)
        part = info.partitions.get(partition_id)
        if part is None:
            return no_such_partition(topic, partition_id)
        if part.leader >= 0 and (unclean or part.leader == (part.replicas or [-1])[0]):
            return ELECTION_NOT_NEEDED
        return ELIGIBLE_LEADERS_NOT_AVAILABLE if unclean else PREFERRED_LEADER_NOT_AVAILABLE
    every = [(name, sorted(info.partitions)) for name, info in sorted(md.topics().items())] \
        if req.topic_partitions is None else []
    response = elect_leaders_response(req, every, elect)
    response.throttle_time_ms = 0
    response.error_code = ErrorCode.NONE
    return response


async def handle_alter_partition_reassignments(ctx: RequestContext, req: AlterPartitionReassignmentsRequest
                                               ) -> AlterPartitionReassignmentsResponse:
    md = ctx.services.metadata_cache
    own_id = ctx.services.broker_id
    R = AlterPartitionReassignmentsResponse

    def reassign(topic: str, target: AlterPartitionReassignmentsRequest.ReassignablePartition) -> ApiError:
        info = md.topic(topic)
        try:
            if info is None or target.partition_index not in info.partitions:
                raise reassignment_target_missing(topic, target.partition_index, topic_known=info is not None)
            if target.replicas is None:
                raise NO_REASSIGNMENT
            # only this broker is registered: a valid target is [own_id], the current replicas
            validate_manual_assignment(list(target.replicas), lambda b: b == own_id, None)
        except ControllerError as e:
            return e.api_error
        return ApiError()

    response = R(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
                 allow_replication_factor_change=req.allow_replication_factor_change)
    for topic in req.topics:
        out = R.ReassignableTopicResponse(name=topic.name)
        for target in topic.partitions:
            error = reassign(topic.name, target)
            out.partitions.append(R.ReassignablePartitionResponse(
                partition_index=target.partition_index, error_code=int(error.error), error_message=error.message))
        response.responses.append(out)
    return response


async def handle_list_partition_reassignments(ctx: RequestContext, req: ListPartitionReassignmentsRequest
                                              ) -> ListPartitionReassignmentsResponse:
    """Nothing is ever being reassigned on a single broker: every topic asked (known or not,
    as Kafka's controller skips unknown ones) is left out."""
    return ListPartitionReassignmentsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None,
                                              topics=[])


HANDLERS = [
    Handler(ApiKey.ELECT_LEADERS, 0, 2, handle_elect_leaders),
    Handler(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, 1, handle_alter_partition_reassignments),
    Handler(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, 0, handle_list_partition_reassignments),
]
