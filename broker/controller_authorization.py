"""Authorization on a KRaft controller's listeners (Kafka's ``ControllerApis`` checks), with
the node's ``StandardAuthorizer`` over the ACLs the quorum controller has replayed.

The raft and broker-lifecycle APIs (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch,
FetchSnapshot, BrokerRegistration, BrokerHeartbeat, ControllerRegistration, UpdateRaftVoter,
AlterPartition, AllocateProducerIds, AssignReplicasToDirs, and the Envelope itself) need
CLUSTER_ACTION on the cluster; DescribeCluster needs ALTER on the cluster (Kafka asks more on a
controller than on a broker); the admin APIs a broker forwards are judged by the same rules a
broker applies (``kafpy.broker.authorization_rules.RULES``: one rule per API for both). A
forwarded request inside an Envelope is judged as the principal and client address the
Envelope carries, once the broker that sent it was allowed CLUSTER_ACTION.

Controller listeners are early-start listeners (Kafka's): before the controller has replayed
the log up to the high watermark it knew at start (its initial ACL load), a super user is
served and anyone else is answered UNKNOWN_SERVER_ERROR.

Who calls it: ``kafpy.broker.controller_apis.ControllerApis`` for each request, when an
authorizer is configured.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, cast

from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.topics import TopicImage
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import RequestHeader

from kafpy.broker.authorization_rules import RULES
from kafpy.broker.authz_check import AuthzCheck, Next, Response, RuleCall, no_check
from kafpy.broker.error_responses import error_response
from kafpy.broker.handler import RequestContext
from kafpy.broker.security.acl import AclOperation as Op
from kafpy.broker.security.authorizer import Authorizer
from kafpy.broker.security.image_acl_store import ImageAclStore
from kafpy.broker.security.principal import KafkaPrincipal

if TYPE_CHECKING:
    from kafpy.broker.services import BrokerServices

# the admin APIs judged per resource or with their own answer: the broker's rule for each
_SHARED = (
    ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS, ApiKey.INCREMENTAL_ALTER_CONFIGS,
    ApiKey.ALTER_CONFIGS, ApiKey.DESCRIBE_CONFIGS, ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.DESCRIBE_ACLS,
    ApiKey.ALTER_USER_SCRAM_CREDENTIALS, ApiKey.ALTER_CLIENT_QUOTAS,
)
CLUSTER_ACTION_APIS = (
    ApiKey.FETCH, ApiKey.VOTE, ApiKey.BEGIN_QUORUM_EPOCH, ApiKey.END_QUORUM_EPOCH, ApiKey.FETCH_SNAPSHOT,
    ApiKey.BROKER_REGISTRATION, ApiKey.BROKER_HEARTBEAT, ApiKey.CONTROLLER_REGISTRATION, ApiKey.UPDATE_RAFT_VOTER,
    ApiKey.ASSIGN_REPLICAS_TO_DIRS, ApiKey.ALTER_PARTITION, ApiKey.ALLOCATE_PRODUCER_IDS, ApiKey.ENVELOPE,
)
ALTER_APIS = (
    ApiKey.ELECT_LEADERS, ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.UPDATE_FEATURES, ApiKey.UNREGISTER_BROKER,
    ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER,
    ApiKey.DESCRIBE_CLUSTER,  # Kafka asks more on a controller than on a broker (DESCRIBE there)
)
DESCRIBE_APIS = (ApiKey.DESCRIBE_QUORUM, ApiKey.LIST_PARTITION_REASSIGNMENTS)


def controller_cluster_rule(op: Op) -> RuleCall:
    """Allowed only with ``op`` on the cluster; otherwise the whole request refused with
    CLUSTER_AUTHORIZATION_FAILED in every error field (Kafka's ``authorizeClusterOperation``
    throws and the request's ``getErrorResponse`` answers, per partition where it has them)."""
    async def rule(az: AuthzCheck, ctx: RequestContext, req: Message, func: Next) -> Response:
        if az.cluster(op):
            return await func(ctx, req)
        return error_response(ctx.header.request_api_key, ctx.api_version, req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    return rule


CONTROLLER_RULES: dict[int, RuleCall] = {
    **{int(k): cast(RuleCall, RULES[k]) for k in _SHARED},
    **{int(k): controller_cluster_rule(Op.CLUSTER_ACTION) for k in CLUSTER_ACTION_APIS},
    **{int(k): controller_cluster_rule(Op.ALTER) for k in ALTER_APIS},
    **{int(k): controller_cluster_rule(Op.DESCRIBE) for k in DESCRIBE_APIS},
    int(ApiKey.API_VERSIONS): no_check,
}


class ImageTopics:
    """The topic lookups a rule makes (by name, by id), answered from the controller's image."""

    def __init__(self, image: Callable[[], MetadataImage]) -> None:
        self._image = image

    def topic(self, name: str) -> TopicImage | None:
        return self._image().topic(name)

    def topic_by_id(self, topic_id: bytes) -> TopicImage | None:
        return self._image().topic_by_id(topic_id)

    def topic_name(self, topic_id: bytes) -> str | None:
        info = self._image().topic_by_id(topic_id)
        return info.name if info is not None else None


@dataclass
class ControllerServices:
    """What a rule reads of ``ctx.services`` on a controller."""

    metadata_cache: ImageTopics
    authorizer: Authorizer


@dataclass(frozen=True)
class Caller:
    """Who a request is judged as: the connection's principal and address, or an Envelope's."""

    principal: KafkaPrincipal
    host: str
    listener: str


class ControllerAuthorizer:
    """Keeps the authorizer, its image store and the controller's image and load state."""

    def __init__(self, authorizer: Authorizer, store: ImageAclStore, image: Callable[[], MetadataImage],
                 caught_up: Callable[[], bool]) -> None:
        self.authorizer = authorizer
        self.store = store
        self.image = image
        self.caught_up = caught_up
        self.services = ControllerServices(ImageTopics(image), authorizer)

    def refresh(self) -> None:
        """Take the ACLs of the image the controller has replayed (a no-op when unchanged);
        the first time it has caught up is the initial load."""
        if self.store.loaded or self.caught_up():
            self.store.publish(self.image().acls)

    async def run(self, header: RequestHeader, request: Message, caller: Caller, handler: Next) -> Response:
        """``handler``'s answer behind the API's rule, or the refusal."""
        self.refresh()
        key = header.request_api_key
        rule = CONTROLLER_RULES.get(key)
        if rule is None:  # an API served on a controller listener must have a rule
            return error_response(key, header.request_api_version, request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
        ctx = RequestContext(cast("BrokerServices", self.services), header, caller.host, 0, "controller",
                             caller.listener, caller.principal)
        if rule is not no_check and not self.authorizer.ready and not self.authorizer.is_super_user(str(caller.principal)):
            return error_response(key, header.request_api_version, request, ErrorCode.UNKNOWN_SERVER_ERROR)
        return await rule(AuthzCheck(ctx, self.authorizer), ctx, request, handler)
