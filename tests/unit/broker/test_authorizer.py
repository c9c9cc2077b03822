"""The ACL authorizer's decisions: matching, deny wins, prefixed and wildcard patterns, super
users, implied operations, and ACL management through the in-memory store."""
from __future__ import annotations

import asyncio

from kafpy.broker.security.acl import (AccessControlEntry, AclBinding, AclBindingFilter, AclOperation as Op,
                                 AclPermissionType as Perm, PatternType, ResourcePattern, ResourceType as RT,
                                 validate_binding)
from kafpy.broker.security.acl_store import LocalAclStore
from kafpy.broker.security.authorizer import AclAuthorizer, create_authorizer

ALICE, BOB = "User:alice", "User:bob"


def make(acls=(), **config):
    az = AclAuthorizer({k.replace("_", "."): v for k, v in config.items()})
    for pattern, entries in acls:
        az.apply(pattern, entries)
    return az


def allow(principal, op, host="*"):
    return AccessControlEntry(principal, host, op, Perm.ALLOW)


def deny(principal, op, host="*"):
    return AccessControlEntry(principal, host, op, Perm.DENY)


def topic(name, pattern=PatternType.LITERAL):
    return ResourcePattern(RT.TOPIC, name, pattern)


def test_literal_match_for_principal_operation_and_host():
    az = make([(topic("sensor"), [allow(ALICE, Op.WRITE, host="10.0.0.1")])])
    assert az.authorize(ALICE, "10.0.0.1", Op.WRITE, RT.TOPIC, "sensor")
    assert not az.authorize(ALICE, "10.0.0.2", Op.WRITE, RT.TOPIC, "sensor")
    assert not az.authorize(BOB, "10.0.0.1", Op.WRITE, RT.TOPIC, "sensor")
    assert not az.authorize(ALICE, "10.0.0.1", Op.READ, RT.TOPIC, "sensor")
    assert not az.authorize(ALICE, "10.0.0.1", Op.WRITE, RT.TOPIC, "other")
    assert not az.authorize(ALICE, "10.0.0.1", Op.WRITE, RT.GROUP, "sensor")


def test_deny_wins_over_allow():
    az = make([(topic("*"), [allow("User:*", Op.ALL)]), (topic("secret"), [deny(BOB, Op.READ)])])
    assert az.authorize(BOB, "h", Op.READ, RT.TOPIC, "public")
    assert not az.authorize(BOB, "h", Op.READ, RT.TOPIC, "secret")
    assert az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "secret")
    # a DENY of READ does not deny DESCRIBE, which the wildcard ALL still allows
    assert az.authorize(BOB, "h", Op.DESCRIBE, RT.TOPIC, "secret")


def test_deny_all_denies_every_operation():
    az = make([(topic("t"), [allow(BOB, Op.ALL), deny(BOB, Op.ALL, host="6.6.6.6")])])
    assert az.authorize(BOB, "1.1.1.1", Op.ALTER, RT.TOPIC, "t")
    assert not az.authorize(BOB, "6.6.6.6", Op.DESCRIBE, RT.TOPIC, "t")


def test_prefixed_and_wildcard_patterns():
    az = make([(topic("sensor-", PatternType.PREFIXED), [allow(ALICE, Op.WRITE)]),
               (ResourcePattern(RT.GROUP, "*"), [allow(BOB, Op.READ)])])
    assert az.authorize(ALICE, "h", Op.WRITE, RT.TOPIC, "sensor-rig-1")
    assert not az.authorize(ALICE, "h", Op.WRITE, RT.TOPIC, "sensors")
    assert az.authorize(BOB, "h", Op.READ, RT.GROUP, "alerts")
    assert az.authorize(BOB, "h", Op.READ, RT.GROUP, "anything")


def test_implied_operations():
    az = make([(topic("t"), [allow(ALICE, Op.READ), allow(BOB, Op.ALTER_CONFIGS)])])
    assert az.authorize(ALICE, "h", Op.DESCRIBE, RT.TOPIC, "t")
    assert not az.authorize(ALICE, "h", Op.WRITE, RT.TOPIC, "t")
    assert az.authorize(BOB, "h", Op.DESCRIBE_CONFIGS, RT.TOPIC, "t")
    assert not az.authorize(BOB, "h", Op.DESCRIBE, RT.TOPIC, "t")
    for op in (Op.WRITE, Op.DELETE, Op.ALTER):
        assert make([(topic("t"), [allow(ALICE, op)])]).authorize(ALICE, "h", Op.DESCRIBE, RT.TOPIC, "t")


def test_super_users_and_no_acl_found():
    az = make([(topic("t"), [deny("User:*", Op.ALL)])], super_users="User:admin; User:kafka")
    assert az.authorize("User:admin", "h", Op.WRITE, RT.TOPIC, "t")
    assert az.authorize("User:kafka", "h", Op.CLUSTER_ACTION, RT.CLUSTER, "kafka-cluster")
    assert not az.authorize(ALICE, "h", Op.DESCRIBE, RT.TOPIC, "no-acls")
    open_az = make([(topic("t"), [allow(BOB, Op.READ)])], allow_everyone_if_no_acl_found=True)
    assert open_az.authorize(ALICE, "h", Op.WRITE, RT.TOPIC, "no-acls")
    assert not open_az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")  # t has ACLs: only bob


def test_decision_cache_is_dropped_when_acls_change():
    az = make()
    assert not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
    az.apply(topic("t"), [allow(ALICE, Op.READ)])
    assert az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
    az.apply(topic("t"), [])
    assert not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")


def test_authorize_by_resource_type():
    az = make([(topic("only-this"), [allow(ALICE, Op.WRITE)])])
    assert az.authorize_by_resource_type(ALICE, "h", Op.WRITE, RT.TOPIC)
    assert not az.authorize_by_resource_type(BOB, "h", Op.WRITE, RT.TOPIC)


def test_filters_and_validation():
    b = AclBinding(topic("pre", PatternType.PREFIXED), allow(ALICE, Op.READ))
    assert AclBindingFilter().matches(b)
    assert AclBindingFilter(RT.TOPIC, "pre-x", PatternType.MATCH).matches(b)
    assert not AclBindingFilter(RT.TOPIC, "pre", PatternType.LITERAL).matches(b)
    assert not AclBindingFilter(principal=BOB).matches(b)
    assert validate_binding(b) is None
    assert validate_binding(AclBinding(ResourcePattern(RT.CLUSTER, "x"), allow(ALICE, Op.CREATE)))
    assert validate_binding(AclBinding(ResourcePattern(RT.GROUP, "g"), allow(ALICE, Op.WRITE)))
    assert validate_binding(AclBinding(topic("t"), allow("alice", Op.READ)))


def test_create_describe_delete_through_the_local_store():
    saved = []

    async def persist(sections):
        saved.append(sections)

    async def run():
        az = AclAuthorizer({}, LocalAclStore([], persist))
        await az.start()
        errors = await az.create_acls([AclBinding(topic("t"), allow(ALICE, Op.READ)),
                                       AclBinding(topic("t"), allow(BOB, Op.WRITE))])
        assert errors == [None, None]
        assert az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
        assert saved[-1] == [{"resourceType": "Topic", "name": "t", "patternType": "Literal", "acls": [
            {"principal": ALICE, "permissionType": "Allow", "operation": "Read", "host": "*"},
            {"principal": BOB, "permissionType": "Allow", "operation": "Write", "host": "*"}]}]
        assert len(az.acls(AclBindingFilter(principal=BOB))) == 1
        deleted = await az.delete_acls([AclBindingFilter(principal=ALICE)])
        assert [b.entry.principal for b in deleted[0]] == [ALICE]
        assert not az.authorize(ALICE, "h", Op.READ, RT.TOPIC, "t")
        # a restart reads back what was persisted
        again = AclAuthorizer({}, LocalAclStore(saved[-1], persist))
        await again.start()
        assert again.authorize(BOB, "h", Op.WRITE, RT.TOPIC, "t")
    asyncio.run(run())


class MyAuthorizer(AclAuthorizer):
    pass


def test_authorizer_class_name():
    assert create_authorizer({"authorizer.class.name": ""}, None) is None
    for name in ("kafka.security.authorizer.AclAuthorizer", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"):
        assert type(create_authorizer({"authorizer.class.name": name}, None)) is AclAuthorizer
    custom = create_authorizer({"authorizer.class.name": f"{__name__}.MyAuthorizer"}, None)
    assert type(custom) is MyAuthorizer
