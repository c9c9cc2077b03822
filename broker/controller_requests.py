"""The admin and broker-lifecycle requests a KRaft controller serves through the quorum
controller (what Kafka's ``ControllerApis`` hands to ``QuorumController``): writes go through
the ``ControllerEventManager`` (answered once their records commit, NOT_CONTROLLER on a
controller that is not active), reads answer from the committed image.

Who calls it: ``kafpy.broker.controller_apis.ControllerApis`` for each request of an API in
``WRITE_APIS`` or ``READ_APIS``. A manager's ``ControllerError`` (Kafka's ``ApiException`` for
the whole request) becomes the request's error response with that code everywhere, as
Kafka's ``getErrorResponse`` does.

DescribeClientQuotas is not a controller API in Kafka 4.4 (its spec lists broker listeners
only), so it is not served here either.

ACLs: Kafka's controller without an authorizer answers CreateAcls, DeleteAcls and
DescribeAcls with SECURITY_DISABLED; with the ``StandardAuthorizer`` CreateAcls and DeleteAcls
become AccessControlEntryRecord / RemoveAccessControlEntryRecord (``AclControlManager``) and
DescribeAcls answers from the ACLs of the image (who may ask is checked before, by
``kafpy.broker.controller_authorization``).
"""
from __future__ import annotations

import logging
from typing import Awaitable, Callable, TypeVar

from kafpy.metadata.controller.controller_result import ApiError, ControllerError, ControllerResult
from kafpy.metadata.controller.quorum_controller import QuorumController
from kafpy.metadata.image.configs import ConfigResource
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.protocol import messages as M

from kafpy.broker.controller_configs import describe_configs
from kafpy.broker.controller_events import ControllerEventManager
from kafpy.broker.config import KafkaConfig
from kafpy.broker.error_responses import error_response
from kafpy.broker.handlers.acls import acl_management_disabled, describe_acls
from kafpy.broker.security.authorizer import Authorizer

CLUSTER_METADATA_TOPIC = "__cluster_metadata"

log = logging.getLogger("org.apache.kafka.controller.QuorumController")

Handler = Callable[[Message, int], Awaitable[Message]]
_M = TypeVar("_M", bound=Message)
_R = TypeVar("_R")

WRITE_APIS: tuple[ApiKey, ...] = (
    ApiKey.BROKER_REGISTRATION, ApiKey.BROKER_HEARTBEAT, ApiKey.CONTROLLER_REGISTRATION,
    ApiKey.UNREGISTER_BROKER, ApiKey.CREATE_TOPICS, ApiKey.DELETE_TOPICS, ApiKey.CREATE_PARTITIONS,
    ApiKey.INCREMENTAL_ALTER_CONFIGS, ApiKey.ALTER_CONFIGS, ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
    ApiKey.ALTER_CLIENT_QUOTAS, ApiKey.ALLOCATE_PRODUCER_IDS, ApiKey.ALTER_PARTITION,
    ApiKey.ELECT_LEADERS, ApiKey.ALTER_PARTITION_REASSIGNMENTS, ApiKey.UPDATE_FEATURES,
)
# the writes only brokers send, straight to the controller (never forwarded in an Envelope)
BROKER_WRITE_APIS: tuple[ApiKey, ...] = (ApiKey.ASSIGN_REPLICAS_TO_DIRS,)
READ_APIS: tuple[ApiKey, ...] = (
    ApiKey.DESCRIBE_CONFIGS, ApiKey.LIST_PARTITION_REASSIGNMENTS,
    ApiKey.CREATE_ACLS, ApiKey.DELETE_ACLS, ApiKey.DESCRIBE_ACLS,
)


def refusal(api_key: int, version: int, request: Message, error: ApiError) -> Message:
    """The whole request refused with ``error`` (its message where the response has one)."""
    response = error_response(api_key, version, request, error.error)
    assert response is not None
    if error.message is not None and hasattr(response, "error_message"):
        response.error_message = error.message
    return response


class ControllerRequests:
    """Keeps the quorum controller, its event manager and the node's config; one method per
    API, each ``(request, version) -> response``."""

    def __init__(self, controller: QuorumController, events: ControllerEventManager, config: KafkaConfig,
                 authorizer: Authorizer | None = None) -> None:
        self.controller = controller
        self.events = events
        self.config = config
        self.authorizer = authorizer
        c = controller
        self._ops: dict[int, Callable[[Message, int], Callable[[int], ControllerResult[Message]]]] = {
            ApiKey.BROKER_REGISTRATION: lambda r, v: lambda now: c.cluster.register_broker(
                _as(r, M.BrokerRegistrationRequest), c.metadata.next_write_offset(), now),
            ApiKey.BROKER_HEARTBEAT: lambda r, v: lambda now: c.replication.process_broker_heartbeat(
                _as(r, M.BrokerHeartbeatRequest), now),
            ApiKey.CONTROLLER_REGISTRATION: lambda r, v: lambda now: _answer(
                c.cluster.register_controller(_as(r, M.ControllerRegistrationRequest)),
                M.ControllerRegistrationResponse(error_code=0)),
            ApiKey.UNREGISTER_BROKER: lambda r, v: lambda now: _answer(
                c.replication.unregister_broker(_as(r, M.UnregisterBrokerRequest).broker_id),
                M.UnregisterBrokerResponse(error_code=0)),
            ApiKey.CREATE_TOPICS: lambda r, v: self._create_topics(_as(r, M.CreateTopicsRequest)),
            ApiKey.DELETE_TOPICS: lambda r, v: self._delete_topics(_as(r, M.DeleteTopicsRequest), v),
            ApiKey.CREATE_PARTITIONS: lambda r, v: self._create_partitions(_as(r, M.CreatePartitionsRequest)),
            ApiKey.INCREMENTAL_ALTER_CONFIGS: lambda r, v: lambda now: _config_results(
                c.configs.incremental_alter_configs(_as(r, M.IncrementalAlterConfigsRequest)),
                M.IncrementalAlterConfigsResponse),
            ApiKey.ALTER_CONFIGS: lambda r, v: lambda now: _config_results(
                c.configs.legacy_alter_configs(_as(r, M.AlterConfigsRequest)), M.AlterConfigsResponse),
            ApiKey.ALTER_USER_SCRAM_CREDENTIALS: lambda r, v: lambda now: c.scram.alter_credentials(
                _as(r, M.AlterUserScramCredentialsRequest)),
            ApiKey.ALTER_CLIENT_QUOTAS: lambda r, v: lambda now: c.quotas.alter_client_quotas(
                _as(r, M.AlterClientQuotasRequest)),
            ApiKey.ALLOCATE_PRODUCER_IDS: lambda r, v: lambda now: c.producer_ids.generate_next_producer_id(
                _as(r, M.AllocateProducerIdsRequest)),
            ApiKey.ALTER_PARTITION: lambda r, v: lambda now: c.partitions.alter_partition(
                _as(r, M.AlterPartitionRequest), v),
            ApiKey.ASSIGN_REPLICAS_TO_DIRS: lambda r, v: lambda now: c.partitions.assign_replicas_to_dirs(
                _as(r, M.AssignReplicasToDirsRequest)),
            ApiKey.ELECT_LEADERS: lambda r, v: lambda now: c.partitions.elect_leaders(_as(r, M.ElectLeadersRequest)),
            ApiKey.ALTER_PARTITION_REASSIGNMENTS: lambda r, v: lambda now: c.partitions.alter_partition_reassignments(
                _as(r, M.AlterPartitionReassignmentsRequest)),
            ApiKey.UPDATE_FEATURES: lambda r, v: lambda now: _update_features(
                c.features.update_features(_as(r, M.UpdateFeaturesRequest), v), _as(r, M.UpdateFeaturesRequest), v),
        }
        if authorizer is not None:  # Kafka's StandardAuthorizer writes ACLs through the controller
            self._ops[ApiKey.CREATE_ACLS] = lambda r, v: lambda now: _answer(
                c.acls.create_acls(_as(r, M.CreateAclsRequest)), None)
            self._ops[ApiKey.DELETE_ACLS] = lambda r, v: lambda now: _answer(
                c.acls.delete_acls(_as(r, M.DeleteAclsRequest)), None)

    async def handle(self, api_key: int, version: int, request: Message) -> Message:
        try:
            if api_key in self._ops:
                make = self._ops[api_key]
                return await self.events.write(ApiKey(api_key).name, make(request, version))
            return self._read(api_key, version, request)
        except ControllerError as e:
            # Kafka's QuorumController logs every refused operation with its reason (the
            # response of some, BrokerRegistration's, has no room for the message)
            log.info("%s: event failed with %s. Exception message: %s", ApiKey(api_key).name, e.error.name,
                     e.api_error.message)
            return refusal(api_key, version, request, e.api_error)

    # -- reads ---------------------------------------------------------------------------------

    def _read(self, api_key: int, version: int, request: Message) -> Message:
        c = self.controller
        if isinstance(request, M.DescribeConfigsRequest):
            return describe_configs(c.metadata.image, self.config, request, version)
        if isinstance(request, M.ListPartitionReassignmentsRequest):
            return c.partitions.list_partition_reassignments(request)
        if isinstance(request, M.DescribeAclsRequest) and self.authorizer is not None:
            return describe_acls(self.authorizer, request, version)
        if isinstance(request, (M.CreateAclsRequest, M.DeleteAclsRequest, M.DescribeAclsRequest)):
            return acl_management_disabled(request)   # each creation or filter: SECURITY_DISABLED
        raise ValueError(f"api key {api_key} is not served by the quorum controller")

    # -- writes with Kafka's ControllerApis checks around the manager ---------------------------

    def _create_topics(self, request: M.CreateTopicsRequest) -> Callable[[int], ControllerResult[Message]]:
        """Duplicates and ``__cluster_metadata`` are answered INVALID_REQUEST, the rest go to
        the manager (Kafka's ``ControllerApis.createTopics``)."""
        names: set[str] = set()
        duplicates: set[str] = set()
        for t in request.topics:
            if t.name in duplicates:
                continue
            if t.name in names:
                names.discard(t.name)
                duplicates.add(t.name)
            else:
                names.add(t.name)
        allowed = names - {CLUSTER_METADATA_TOPIC}
        effective = M.CreateTopicsRequest(topics=[t for t in request.topics if t.name in allowed],
                                          timeout_ms=request.timeout_ms, validate_only=request.validate_only)
        R = M.CreateTopicsResponse.CreatableTopicResult

        def op(now: int) -> ControllerResult[Message]:
            result = self.controller.replication.create_topics(effective)
            response = result.response
            for name in sorted(duplicates):
                response.topics.append(R(name=name, error_code=int(ErrorCode.INVALID_REQUEST),
                                         error_message="Duplicate topic name."))
            if CLUSTER_METADATA_TOPIC in names:
                response.topics.append(R(name=CLUSTER_METADATA_TOPIC, error_code=int(ErrorCode.INVALID_REQUEST),
                                         error_message=f"Creation of internal topic {CLUSTER_METADATA_TOPIC} "
                                                       "is prohibited."))
            return ControllerResult(result.records, response, result.is_atomic)
        return op

    def _delete_topics(self, request: M.DeleteTopicsRequest, version: int
                       ) -> Callable[[int], ControllerResult[Message]]:
        """Kafka's ``ControllerApis.deleteTopics``: refused when ``delete.topic.enable`` is
        false; by name (v0-5 ``topic_names``, v6+ ``topics`` with a name) or by id (v6+),
        duplicates and a topic given by both name and id answered INVALID_REQUEST."""
        if not self.config.values["delete.topic.enable"]:
            raise ControllerError(ErrorCode.INVALID_REQUEST if version < 3 else ErrorCode.TOPIC_DELETION_DISABLED,
                                  "Topic deletion is disabled." if version < 3 else None)
        R = M.DeleteTopicsResponse.DeletableTopicResult
        refused: list[M.DeleteTopicsResponse.DeletableTopicResult] = []
        names: dict[str, int] = {}
        ids: dict[bytes, int] = {}
        for name in request.topic_names if version <= 5 else ():
            names[name] = names.get(name, 0) + 1
        for t in request.topics if version >= 6 else ():
            if t.name is None and t.topic_id == ZERO_UUID:
                refused.append(R(name=None, topic_id=ZERO_UUID, error_code=int(ErrorCode.INVALID_REQUEST),
                                 error_message="Neither topic name nor id were specified."))
            elif t.name is None:
                ids[t.topic_id] = ids.get(t.topic_id, 0) + 1
            elif t.topic_id == ZERO_UUID:
                names[t.name] = names.get(t.name, 0) + 1
            else:
                refused.append(R(name=t.name, topic_id=t.topic_id, error_code=int(ErrorCode.INVALID_REQUEST),
                                 error_message="You may not specify both topic name and topic id."))
        refused += [R(name=n, topic_id=ZERO_UUID, error_code=int(ErrorCode.INVALID_REQUEST),
                      error_message="Duplicate topic name.") for n, k in names.items() if k > 1]
        refused += [R(name=None, topic_id=i, error_code=int(ErrorCode.INVALID_REQUEST),
                      error_message="Duplicate topic id.") for i, k in ids.items() if k > 1]

        def op(now: int) -> ControllerResult[Message]:
            image = self.controller.metadata.image
            by_id = [i for i, k in ids.items() if k == 1]
            by_name = []
            for n, k in names.items():
                found = image.topic(n) if k == 1 else None
                if found is not None and found.id in by_id:
                    by_id.remove(found.id)
                    refused.append(R(name=n, topic_id=found.id, error_code=int(ErrorCode.INVALID_REQUEST),
                                     error_message="The provided topic name maps to an ID that was already "
                                                   "supplied."))
                elif k == 1:
                    by_name.append(n)
            result = self.controller.replication.delete_topics(by_name, by_id)
            return ControllerResult(result.records, M.DeleteTopicsResponse(responses=result.response + refused),
                                    result.is_atomic)
        return op

    def _create_partitions(self, request: M.CreatePartitionsRequest) -> Callable[[int], ControllerResult[Message]]:
        """Duplicate names are answered INVALID_REQUEST, the rest go to the manager."""
        counts: dict[str, int] = {}
        for t in request.topics:
            counts[t.name] = counts.get(t.name, 0) + 1
        R = M.CreatePartitionsResponse.CreatePartitionsTopicResult
        duplicates = [R(name=n, error_code=int(ErrorCode.INVALID_REQUEST), error_message="Duplicate topic name.")
                      for n, k in counts.items() if k > 1]
        effective = M.CreatePartitionsRequest(topics=[t for t in request.topics if counts[t.name] == 1],
                                              timeout_ms=request.timeout_ms, validate_only=request.validate_only)

        def op(now: int) -> ControllerResult[Message]:
            result = self.controller.replication.create_partitions(effective)
            result.response.results.extend(duplicates)
            return ControllerResult(result.records, result.response, result.is_atomic)
        return op


def _as(request: Message, cls: type[_M]) -> _M:
    assert isinstance(request, cls)
    return request


def _answer(result: ControllerResult[_R], response: Message | None) -> ControllerResult[Message]:
    """``result`` answered ``response`` (None: its own response, a ``Message``)."""
    if response is None:
        assert isinstance(result.response, Message)
        response = result.response
    return ControllerResult(result.records, response, result.is_atomic)


def _config_results(result: ControllerResult[dict[ConfigResource, ApiError]],
                    response_cls: type[M.IncrementalAlterConfigsResponse] | type[M.AlterConfigsResponse]
                    ) -> ControllerResult[Message]:
    """The per-resource errors as (Incremental)AlterConfigsResponse responses."""
    if response_cls is M.IncrementalAlterConfigsResponse:
        IR = M.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse
        inc = M.IncrementalAlterConfigsResponse(responses=[
            IR(error_code=int(e.error), error_message=e.message, resource_type=int(r.type), resource_name=r.name)
            for r, e in result.response.items()])
        return ControllerResult(result.records, inc, result.is_atomic)
    LR = M.AlterConfigsResponse.AlterConfigsResourceResponse
    legacy = M.AlterConfigsResponse(responses=[
        LR(error_code=int(e.error), error_message=e.message, resource_type=int(r.type), resource_name=r.name)
        for r, e in result.response.items()])
    return ControllerResult(result.records, legacy, result.is_atomic)


def _update_features(result: ControllerResult[ApiError], request: M.UpdateFeaturesRequest,
                     version: int) -> ControllerResult[Message]:
    """Kafka 4.4's QuorumController: a refusal is the top-level error only, its message
    prefixed to say that nothing changed; a success lists each feature asked for below v2
    (error NONE, message "NONE": Kafka's ``Errors.NONE.message()``)."""
    error = result.response
    R = M.UpdateFeaturesResponse.UpdatableFeatureResult
    if not error.is_success():
        response = M.UpdateFeaturesResponse(
            error_code=int(error.error), error_message="The update failed for all features since the following "
                                                       f"feature had an error: {error.message}")
        return ControllerResult(result.records, response, result.is_atomic)
    response = M.UpdateFeaturesResponse(
        error_code=0, error_message=None,
        results=[R(feature=u.feature, error_code=0, error_message="NONE")
                 for u in request.feature_updates] if version <= 1 else [])
    return ControllerResult(result.records, response, result.is_atomic)
