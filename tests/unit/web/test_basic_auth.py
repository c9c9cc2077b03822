"""HTTP Basic credentials, the broker's SASL users behind them and the ACLs an HTTP route needs."""
from __future__ import annotations

import asyncio
import base64

from kafpy.broker.http_acls import body_needs, route_needs, subject_topic
from kafpy.broker.http_auth import VERIFIED_TTL_S, SaslUsers
from kafpy.broker.security.acl import AclOperation as Op
from kafpy.broker.security.acl import ResourceType as RT
from kafpy.broker.security.scram import new_credential
from kafpy.web.basic_auth import parse_basic


def _basic(text: str) -> str:
    return "Basic " + base64.b64encode(text.encode()).decode()


def test_basic_header_parsing():
    assert parse_basic(_basic("alice:pa:ss")) == ("alice", "pa:ss")
    assert parse_basic("basic " + base64.b64encode(b"bob:").decode()) == ("bob", "")
    for bad in (None, "", "Bearer abc", "Basic", "Basic !!!", _basic("no-colon"), _basic(":pw")):
        assert parse_basic(bad) is None, bad


class _Users:
    def __init__(self) -> None:
        self.creds = {"bob": {"SCRAM-SHA-512": new_credential("SCRAM-SHA-512", "bob-secret")}}
        self.refreshes = 0

    async def refresh(self, user: str) -> None:
        self.refreshes += 1

    def credential(self, user: str, mechanism: str):
        return self.creds.get(user, {}).get(mechanism)


def test_plain_and_scram_users_and_the_verified_cache():
    now = [0.0]
    store = _Users()
    users = SaslUsers({"alice": "alice-secret"}, store, clock=lambda: now[0])
    run = lambda u, p: asyncio.run(users.authenticate(u, p))   # noqa: E731
    assert run("alice", "alice-secret") and not run("alice", "wrong")
    assert run("bob", "bob-secret") and not run("bob", "wrong") and not run("carol", "x")
    before = store.refreshes
    assert run("bob", "bob-secret") and store.refreshes == before   # remembered
    del store.creds["bob"]
    now[0] += VERIFIED_TTL_S
    assert not run("bob", "bob-secret")   # a deleted credential stops working after the TTL
    assert not asyncio.run(SaslUsers({}, None).authenticate("bob", "bob-secret"))


def test_route_and_body_needs():
    assert subject_topic("orders-value") == "orders" and subject_topic("orders-key") == "orders"
    assert subject_topic("com.acme.Order") == "com.acme.Order" and subject_topic("-value") == "-value"
    assert route_needs("POST", "/topics/{topic}", {"topic": "t"}) == [(RT.TOPIC, "t", Op.WRITE)]
    assert route_needs("POST", "/subjects/{subject}/versions", {"subject": "t-value"}) == [(RT.TOPIC, "t", Op.WRITE)]
    assert route_needs("GET", "/subjects/{subject}/versions", {"subject": "t-value"}) == [(RT.TOPIC, "t", Op.READ)]
    assert route_needs("PUT", "/config", {}) == [(RT.CLUSTER, "kafka-cluster", Op.ALTER_CONFIGS)]
    assert route_needs("GET", "/subjects", {}) == [] and route_needs("GET", "/status", {}) == []
    inst = "/consumers/{group}/instances/{instance}"
    assert route_needs("GET", inst + "/records", {"group": "g", "instance": "i"}) == [(RT.GROUP, "g", Op.READ)]
    assert body_needs("POST", inst + "/subscription", {"topics": ["a", "b"]}) == [
        (RT.TOPIC, "a", Op.READ), (RT.TOPIC, "b", Op.READ)]
    assert body_needs("POST", inst + "/assignments", {"partitions": [{"topic": "a", "partition": 0}]}) == [
        (RT.TOPIC, "a", Op.READ)]
    assert body_needs("POST", "/v3/clusters/{cluster_id}/topics", {"topic_name": "n"}) == [(RT.TOPIC, "n", Op.CREATE)]
    assert body_needs("POST", inst + "/subscription", ["junk"]) == []


def test_a_route_narrowing_its_parameter_keeps_its_rule():
    # the registry routes subjects with "{subject:[^/]+}" so that %2F, { and } pass: the rule
    # must still be found, or the route would need nothing
    assert route_needs("GET", "/subjects/{subject:[^/]+}/versions", {"subject": "t-value"}) == [
        (RT.TOPIC, "t", Op.READ)]
    assert route_needs("GET", "/subjects/{subject:[^/]+}/metadata", {"subject": "t-value"}) == [
        (RT.TOPIC, "t", Op.READ)]
