"""What a standalone broker answers as its own controller: ElectLeaders (43).

Apache Kafka's single node (a combined KRaft broker and controller) answers
``kafka-leader-election.sh``; so does a standalone kafpy broker. Every partition has one
replica, this broker, so there is nothing to elect: a partition led by its replica is
ELECTION_NOT_NEEDED, one without a leader (its log dir failed) has no other replica to take
over (PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE for an unclean
election), and the answer has the KRaft controller's shape and messages
(``metadata/controller/partition_change_manager.elect_leaders_response``).

Registered only on a standalone broker (``broker/apis.py``): a ZooKeeper-mode broker asks
its cluster controller (``handlers/control.py``), a KRaft broker forwards the request.
Authorization (ALTER on the cluster) is the rule's, in ``broker/authorization_rules.py``.
"""
from __future__ import annotations

from kafpy.metadata.controller.controller_result import ApiError
from kafpy.metadata.controller.partition_change_manager import (
    ELECTION_NOT_NEEDED, ELIGIBLE_LEADERS_NOT_AVAILABLE, PREFERRED_LEADER_NOT_AVAILABLE, elect_leaders_response,
    no_such_partition, no_such_topic)
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ElectLeadersRequest, ElectLeadersResponse

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


HANDLERS = [
    Handler(ApiKey.ELECT_LEADERS, 0, 2, handle_elect_leaders),
]
