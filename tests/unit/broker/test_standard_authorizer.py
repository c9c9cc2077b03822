"""KRaft authorization: the ZooKeeper-mode matcher over the ACLs of the metadata image
(``ImageAclStore``), Kafka's StandardAuthorizer readiness (only super users before the initial
load; held requests on ordinary listeners, UNKNOWN_SERVER_ERROR on early-start ones), the
class names a KRaft node accepts, the Envelope's principal serde and the controller's rules."""
from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from kafpy.broker.authorization import guard
from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.controller_authorization import Caller, ControllerAuthorizer
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import AclOperation as Op, ResourceType as RT
from kafpy.broker.security.image_acl_store import AclsNotWritable, ImageAclStore
from kafpy.broker.security.principal import KafkaPrincipal
from kafpy.broker.security.principal_serde import PrincipalSerdeError, deserialize, serialize
from kafpy.broker.security.standard_authorizer import (STANDARD_AUTHORIZER, AuthorizerNotReady, StandardAuthorizer,
                                                       create_kraft_authorizer)
from kafpy.metadata.image.acls import AclsImage, StandardAcl
from kafpy.metadata.image.maps import frozen
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol import messages as M

ALICE, BOB, ADMIN = "User:alice", "User:bob", "User:admin"
TOPIC, CLUSTER, LITERAL, PREFIXED = 2, 4, 3, 4
READ, WRITE, ALTER, DESCRIBE, CLUSTER_ACTION = 3, 4, 7, 8, 9
DENY, ALLOW = 2, 3


def acl(rtype: int, name: str, principal: str, op: int, permission: int = ALLOW, pattern: int = LITERAL
        ) -> StandardAcl:
    return StandardAcl(rtype, name, pattern, principal, "*", op, permission)


def image(*acls: StandardAcl) -> AclsImage:
    return AclsImage(frozen({bytes([i]) * 16: a for i, a in enumerate(acls, 1)}))


def authorizer(**config: str) -> tuple[StandardAuthorizer, ImageAclStore]:
    store = ImageAclStore()
    az = create_kraft_authorizer(KafkaConfig({"authorizer.class.name": STANDARD_AUTHORIZER, **config}), store)
    assert isinstance(az, StandardAuthorizer)
    asyncio.run(az.start())
    return az, store


def test_the_image_acls_decide_as_in_zookeeper_mode() -> None:
    az, store = authorizer()
    store.publish(image(acl(TOPIC, "orders", ALICE, WRITE), acl(TOPIC, "ord", BOB, READ, pattern=PREFIXED),
                        acl(TOPIC, "orders", BOB, READ, DENY)))
    assert az.authorize(ALICE, "h", Op.WRITE, RT.TOPIC, "orders")
    assert az.authorize(ALICE, "h", Op.DESCRIBE, RT.TOPIC, "orders")  # WRITE implies DESCRIBE
    assert not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "orders")
    assert az.authorize(BOB, "h", Op.READ, RT.TOPIC, "ordinary")      # the prefixed ACL
    assert not az.authorize(BOB, "h", Op.READ, RT.TOPIC, "orders")    # DENY wins
    assert not az.authorize(BOB, "h", Op.READ, RT.TOPIC, "other")     # no ACL, no allow.everyone


def test_a_later_image_replaces_the_acls_and_the_same_image_changes_nothing() -> None:
    az, store = authorizer()
    first = image(acl(TOPIC, "t", ALICE, READ))
    store.publish(first)
    assert az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
    version = az.acl_version
    store.publish(first)
    assert az.acl_version == version
    store.publish(image(acl(TOPIC, "u", ALICE, READ)))
    assert not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
    assert az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "u")
    assert [(b.pattern.name, b.entry.principal) for b in az.bindings()] == [("u", ALICE)]


def test_allow_everyone_and_super_users() -> None:
    az, store = authorizer(**{"allow.everyone.if.no.acl.found": "true", "super.users": f"{ADMIN};User:broker"})
    store.publish(image(acl(TOPIC, "locked", ALICE, READ)))
    assert az.authorize(BOB, "h", Op.WRITE, RT.TOPIC, "open")
    assert not az.authorize(BOB, "h", Op.READ, RT.TOPIC, "locked")
    assert az.authorize("User:broker", "h", Op.READ, RT.TOPIC, "locked")


def test_only_super_users_are_answered_before_the_initial_load() -> None:
    az, store = authorizer(**{"super.users": ADMIN})
    assert not az.ready
    assert az.authorize(ADMIN, "h", Op.ALTER, RT.CLUSTER, "kafka-cluster")
    with pytest.raises(AuthorizerNotReady):
        az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
    with pytest.raises(AuthorizerNotReady):
        az.authorize_by_resource_type(ALICE, "h", Op.READ, RT.TOPIC)
    store.publish(image())
    assert az.ready and not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")


def test_acls_are_not_written_through_the_image_store() -> None:
    with pytest.raises(AclsNotWritable):
        asyncio.run(ImageAclStore().update(None, lambda e: e))  # type: ignore[arg-type]  # never reached


def test_class_names_a_kraft_node_accepts() -> None:
    store = ImageAclStore()
    assert create_kraft_authorizer(KafkaConfig({}), store) is None
    for zk_class in ("kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer",
                     "no.such.Authorizer"):
        with pytest.raises(ConfigError, match="cannot be found"):
            create_kraft_authorizer(KafkaConfig({"authorizer.class.name": zk_class}), store)


def test_the_envelope_principal_is_kafkas_default_principal_data() -> None:
    data = serialize(KafkaPrincipal.user("alice"))
    # version 0, compact "User", compact "alice", tokenAuthenticated false, no tagged fields
    assert data == b"\x00\x00" + b"\x05User" + b"\x06alice" + b"\x00" + b"\x00"
    assert deserialize(data) == KafkaPrincipal.user("alice")
    assert deserialize(serialize(KafkaPrincipal("Group", "x:y"))) == KafkaPrincipal("Group", "x:y")
    for bad in (b"", b"\x00\x01\x05User\x06alice\x00\x00", b"\x00\x00\x05Us"):
        with pytest.raises(PrincipalSerdeError):
            deserialize(bad)


# -- the broker's guard while the authorizer is not ready -------------------------------------
def metadata_ctx(listener: str, principal: KafkaPrincipal) -> RequestContext:
    header = M.RequestHeader(request_api_key=ApiKey.DESCRIBE_ACLS, request_api_version=3, correlation_id=1,
                             client_id="c")
    return RequestContext(None, header, "127.0.0.1", 1, "c", listener, principal)  # type: ignore[arg-type]  # unused


def test_requests_wait_for_the_initial_load_except_on_early_start_listeners() -> None:
    az, store = authorizer(**{"super.users": ADMIN})
    served: list[str] = []

    async def handler(ctx: RequestContext, req: Message) -> Message:
        served.append(ctx.listener)
        return M.DescribeAclsResponse(error_code=0)
    guarded = guard(Handler(ApiKey.DESCRIBE_ACLS, 0, 3, handler), az, early_start={"EARLY"})
    request = M.DescribeAclsRequest(resource_type_filter=1, pattern_type_filter=1, operation=1, permission_type=1)

    async def run() -> None:
        early = await guarded.func(metadata_ctx("EARLY", KafkaPrincipal.user("alice")), request)
        assert isinstance(early, M.DescribeAclsResponse) and early.error_code == ErrorCode.UNKNOWN_SERVER_ERROR
        by_admin = await guarded.func(metadata_ctx("EARLY", KafkaPrincipal.user("admin")), request)
        assert isinstance(by_admin, M.DescribeAclsResponse) and by_admin.error_code == 0
        held = asyncio.ensure_future(guarded.func(metadata_ctx("PLAINTEXT", KafkaPrincipal.user("alice")), request))
        await asyncio.sleep(0.05)
        assert not held.done()
        store.publish(image(acl(CLUSTER, "kafka-cluster", ALICE, DESCRIBE)))
        answer = await asyncio.wait_for(held, 5)
        assert isinstance(answer, M.DescribeAclsResponse) and answer.error_code == 0
    asyncio.run(run())
    assert served == ["EARLY", "PLAINTEXT"]


# -- the controller's rules -------------------------------------------------------------------
def _empty_image(acls: AclsImage) -> MetadataImage:
    return replace(EMPTY_IMAGE, acls=acls)


def ask(ca: ControllerAuthorizer, key: ApiKey, version: int, request: Message, who: str) -> Message | None:
    header = M.RequestHeader(request_api_key=key, request_api_version=version, correlation_id=1, client_id="c")

    async def served(ctx: RequestContext, req: Message) -> Message:
        return M.VoteResponse(error_code=0) if key == ApiKey.VOTE else M.DescribeClusterResponse(error_code=0)
    return asyncio.run(ca.run(header, request, Caller(KafkaPrincipal.from_string(who), "127.0.0.1", "CONTROLLER"),
                              served))


def test_the_controller_asks_cluster_action_for_raft_and_alter_for_describe_cluster() -> None:
    acls = image(acl(CLUSTER, "kafka-cluster", ALICE, CLUSTER_ACTION), acl(CLUSTER, "kafka-cluster", BOB, ALTER))
    ca = ControllerAuthorizer(*authorizer_pair(), lambda: _empty_image(acls), lambda: True)
    vote = M.VoteRequest()
    assert getattr(ask(ca, ApiKey.VOTE, 1, vote, ALICE), "error_code") == 0
    assert getattr(ask(ca, ApiKey.VOTE, 1, vote, BOB), "error_code") == ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    describe = M.DescribeClusterRequest(endpoint_type=2)
    assert getattr(ask(ca, ApiKey.DESCRIBE_CLUSTER, 1, describe, BOB), "error_code") == 0
    assert getattr(ask(ca, ApiKey.DESCRIBE_CLUSTER, 1, describe, ALICE), "error_code") == \
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED


def test_the_controller_answers_only_super_users_until_it_caught_up() -> None:
    acls = image(acl(CLUSTER, "kafka-cluster", ALICE, CLUSTER_ACTION))
    caught_up = [False]
    ca = ControllerAuthorizer(*authorizer_pair(), lambda: _empty_image(acls), lambda: caught_up[0])
    assert getattr(ask(ca, ApiKey.VOTE, 1, M.VoteRequest(), ALICE), "error_code") == ErrorCode.UNKNOWN_SERVER_ERROR
    assert getattr(ask(ca, ApiKey.VOTE, 1, M.VoteRequest(), ADMIN), "error_code") == 0
    caught_up[0] = True
    assert getattr(ask(ca, ApiKey.VOTE, 1, M.VoteRequest(), ALICE), "error_code") == 0


def authorizer_pair() -> tuple[StandardAuthorizer, ImageAclStore]:
    return authorizer(**{"super.users": ADMIN})
