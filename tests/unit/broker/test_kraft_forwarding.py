"""A KRaft broker's registry forwards the admin APIs to the active controller inside an
Envelope carrying the client's principal and address (answering NOT_CONTROLLER in every entry
when none answers, UNKNOWN_SERVER_ERROR when the Envelope itself fails), and its registration lists its listeners at
their bound ports, the features it supports and its log dirs."""
from __future__ import annotations

import asyncio

from kafpy.protocol import codec
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (CreateTopicsRequest, CreateTopicsResponse, EnvelopeRequest, EnvelopeResponse,
                                     RequestHeader)

from kafpy.broker.config import KafkaConfig
from kafpy.broker.handler import RequestContext
from kafpy.broker.kraft_controller_channel import ControllerChannel, ControllerUnavailable
from kafpy.broker.kraft_forwarding import FORWARDED, kraft_registry
from kafpy.broker.kraft_registration import registration_request
from kafpy.broker.security.principal import KafkaPrincipal
from kafpy.broker.security.principal_serde import deserialize


class FakeChannel:
    def __init__(self, answer: Message | None) -> None:
        self.answer = answer
        self.sent: list[tuple[ApiKey, Message, int | None]] = []

    async def send(self, api_key: ApiKey, body: Message, version: int | None = None,
                   timeout_ms: int | None = None) -> Message:
        self.sent.append((api_key, body, version))
        if self.answer is None:
            raise ControllerUnavailable("no active controller is known yet")
        return self.answer


def forward(channel: FakeChannel, request: CreateTopicsRequest, version: int,
            principal: KafkaPrincipal = KafkaPrincipal.user("ANONYMOUS")) -> Message | None:
    registry = kraft_registry(lambda: channel)  # type: ignore[arg-type, return-value]  # the fake channel
    handler = registry.handler_for(ApiKey.CREATE_TOPICS, version)
    assert handler is not None
    header = RequestHeader(request_api_key=ApiKey.CREATE_TOPICS, request_api_version=version, correlation_id=1,
                           client_id="admin")
    ctx = RequestContext(None, header, "127.0.0.1", 1, "c", "PLAINTEXT", principal)  # type: ignore[arg-type]  # no services needed

    async def call() -> Message | None:
        return await handler.func(ctx, request)
    return asyncio.run(call())


def test_admin_apis_go_to_the_controller_as_sent() -> None:
    registry = kraft_registry(lambda: FakeChannel(None))  # type: ignore[arg-type, return-value]  # the fake channel
    for key in FORWARDED:
        assert registry.handler_for(key, 0) is not None
    request = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(name="t", num_partitions=1,
                                                                             replication_factor=1)])
    answer = CreateTopicsResponse(topics=[CreateTopicsResponse.CreatableTopicResult(name="t", error_code=17)])
    frame = codec.encode_response(ApiKey.CREATE_TOPICS, 7, 1, answer)[4:]
    channel = FakeChannel(EnvelopeResponse(error_code=0, response_data=frame))
    response = forward(channel, request, 7, KafkaPrincipal.user("alice"))
    assert isinstance(response, CreateTopicsResponse)
    assert [(t.name, t.error_code) for t in response.topics] == [("t", 17)]
    ((key, envelope, _),) = channel.sent
    assert key == ApiKey.ENVELOPE and isinstance(envelope, EnvelopeRequest)
    header, inner = codec.decode_request(envelope.request_data)
    assert (header.request_api_key, header.request_api_version, header.client_id) == (ApiKey.CREATE_TOPICS, 7, "admin")
    assert inner == request
    assert deserialize(envelope.request_principal or b"") == KafkaPrincipal.user("alice")
    assert envelope.client_host_address == bytes([127, 0, 0, 1])


def test_an_envelope_error_is_answered_unknown_server_error() -> None:
    """Kafka's ForwardingManager: the client does not see the Envelope's own error."""
    request = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(name="t", num_partitions=1,
                                                                             replication_factor=1)])
    channel = FakeChannel(EnvelopeResponse(error_code=int(ErrorCode.CLUSTER_AUTHORIZATION_FAILED)))
    response = forward(channel, request, 7)
    assert isinstance(response, CreateTopicsResponse)
    assert [(t.name, t.error_code) for t in response.topics] == [("t", ErrorCode.UNKNOWN_SERVER_ERROR)]


def test_no_controller_answers_not_controller_per_topic() -> None:
    request = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(name="t", num_partitions=1,
                                                                             replication_factor=1)])
    response = forward(FakeChannel(None), request, 5)
    assert isinstance(response, CreateTopicsResponse)
    assert [(t.name, t.error_code) for t in response.topics] == [("t", ErrorCode.NOT_CONTROLLER)]


def test_the_controller_channel_follows_the_raft_leader() -> None:
    leader: list[int | None] = [None]
    channel = ControllerChannel(1, {3000: ("h", 1), 3001: ("h", 2)}, lambda: leader[0], purpose="t",
                                request_timeout_ms=1000, listener_name="CONTROLLER")
    assert channel.active_controller() is None
    leader[0] = 3001
    node = channel.active_controller()
    assert node is not None and (node.node_id, node.port) == (3001, 2)
    leader[0] = 7  # not a voter (an observer never leads)
    assert channel.active_controller() is None


def test_registration_lists_listeners_features_and_log_dirs() -> None:
    config = KafkaConfig({"process.roles": "broker", "node.id": "4", "controller.quorum.voters": "3000@h:1",
                          "controller.listener.names": "CONTROLLER", "listeners": "PLAINTEXT://:0,SSL://127.0.0.1:9443",
                          "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT",
                          "broker.rack": "r1"})
    request = registration_request(config, "cid", b"i" * 16, {"PLAINTEXT": 45678}, "host.example", [b"d" * 16])
    assert [(li.name, li.host, li.port, li.security_protocol) for li in request.listeners] == [
        ("PLAINTEXT", "host.example", 45678, 0), ("SSL", "127.0.0.1", 9443, 1)]
    features = {f.name: (f.min_supported_version, f.max_supported_version) for f in request.features}
    assert features["metadata.version"][0] == 7 and features["metadata.version"][1] >= 27
    assert features["kraft.version"] == (0, 1) and features["transaction.version"] == (0, 2)
    assert (request.broker_id, request.cluster_id, request.rack, request.log_dirs) == (4, "cid", "r1", [b"d" * 16])
    assert request.incarnation_id == b"i" * 16
    assert request.previous_broker_epoch == -1  # no clean shutdown recorded one
    again = registration_request(config, "cid", b"j" * 16, {"PLAINTEXT": 45678}, "host.example", [b"d" * 16], 42)
    assert again.previous_broker_epoch == 42
