"""HTTP Basic authentication and ACLs on the broker's HTTP stack
(``kafpy.http.authentication.method=BASIC``), on a broker whose inter-broker listener is
SASL_PLAINTEXT and whose PLAINTEXT listener's User:ANONYMOUS has no right: the registry and the
proxy reach the cluster as the broker's own SASL user (they would fail on PLAINTEXT), logins
are the broker's PLAIN (JAAS) and SCRAM users, rights the broker's ACLs (made with the admin
API as a super user)."""
from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request

from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType, ScramCredentialInfo, ScramMechanism,
                                   UserScramCredentialUpsertion)
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

from kafpy._ports import LOOPBACK, free_ports

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
SCHEMA = json.dumps({"type": "record", "name": "Reading", "fields": [{"name": "rig", "type": "string"}]})
WAIT_S = 90.0


def _http(method: str, url: str, body: dict | None = None, user: tuple[str, str] | None = None,
          content_type: str = "application/vnd.kafka.json.v2+json") -> tuple[int, dict, object]:
    headers = {"Content-Type": content_type}
    if user is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode()
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def _until(what: str, fn):
    deadline = time.monotonic() + WAIT_S
    while True:
        got = fn()
        if got:
            return got
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.3)


def _allow(admin: AdminClient, rtype: ResourceType, name: str, principal: str, op: AclOperation) -> None:
    binding = AclBinding(rtype, name, ResourcePatternType.LITERAL, principal, "*", op, AclPermissionType.ALLOW)
    for f in admin.create_acls([binding]).values():
        f.result(timeout=30)


def test_basic_auth_with_sasl_users_and_acls(broker_factory):
    plain_port, sasl_port, http_port = free_ports(3)
    listeners = f"PLAINTEXT://{LOOPBACK}:{plain_port},SASL_PLAINTEXT://{LOOPBACK}:{sasl_port}"
    broker_factory({
        "listeners": listeners, "advertised.listeners": listeners,
        "inter.broker.listener.name": "SASL_PLAINTEXT", "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:admin",
        "allow.everyone.if.no.acl.found": "false", "offsets.topic.replication.factor": "1",
        "kafpy.http.listeners": f"http://{LOOPBACK}:{http_port}", "kafpy.http.authentication.method": "BASIC",
        "kafpy.schema.registry.enable": "true", "kafpy.rest.proxy.enable": "true"}, port=plain_port)
    url = f"http://{LOOPBACK}:{http_port}"
    admin = AdminClient({"bootstrap.servers": f"{LOOPBACK}:{sasl_port}", "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "PLAIN", "sasl.username": "admin", "sasl.password": "admin-secret"})
    admin.create_topics([NewTopic("readings", 1, 1)])["readings"].result(timeout=30)
    upsert = UserScramCredentialUpsertion("bob", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                                          b"bob-secret")
    for f in admin.alter_user_scram_credentials([upsert]).values():
        f.result(timeout=30)
    alice, bob = ("alice", "alice-secret"), ("bob", "bob-secret")
    produce = f"{url}/topics/readings"
    records = {"records": [{"value": {"rig": "a"}}]}

    # no credentials, a wrong password, an unknown user: 401 with the challenge; /metrics is open
    for user in (None, ("alice", "wrong"), ("nobody", "x"), ("bob", "wrong")):
        status, headers, _ = _http("POST", produce, records, user)
        assert status == 401 and headers["WWW-Authenticate"] == 'Basic realm="kafpy"', (user, status)
    status, _, body = _http("GET", f"{url}/metrics")
    assert status == 200 and b"kafka_server_brokertopicmetrics" in body
    assert _http("GET", f"{url}/status")[0] == 401

    # a PLAIN user without an ACL is refused (403, 40301), then WRITE on the topic lets it produce
    status, _, body = _http("POST", produce, records, alice)
    assert status == 403 and json.loads(body)["error_code"] == 40301
    _allow(admin, ResourceType.TOPIC, "readings", "User:alice", AclOperation.WRITE)
    status, _, body = _until("alice may produce", lambda: (lambda r: r if r[0] == 200 else None)(
        _http("POST", produce, records, alice)))
    assert json.loads(body)["offsets"][0]["error_code"] is None, body
    assert _http("GET", f"{url}/status", user=alice)[0] == 200
    # producing to a missing topic creates it: WRITE alone is not enough, CREATE is needed too
    _allow(admin, ResourceType.TOPIC, "fresh", "User:alice", AclOperation.WRITE)
    assert _until("alice may write fresh", lambda: _http("POST", f"{url}/topics/fresh", records, alice)[0] == 403
                  and admin.list_topics(timeout=30).topics.get("fresh") is None)
    _allow(admin, ResourceType.TOPIC, "fresh", "User:alice", AclOperation.CREATE)
    _until("alice may create fresh", lambda: _http("POST", f"{url}/topics/fresh", records, alice)[0] == 200)

    # a SCRAM user registers a schema for readings-value only with WRITE on readings
    client = SchemaRegistryClient({"url": url, "basic.auth.user.info": "bob:bob-secret"})

    def register():
        try:
            return client.register_schema("readings-value", Schema(SCHEMA, "AVRO"))
        except SchemaRegistryError as e:
            if e.http_status_code == 403:
                return -403
            return None   # 50001 while the registry reads _schemas
    assert _until("the registry answers bob", register) == -403
    _allow(admin, ResourceType.TOPIC, "readings", "User:bob", AclOperation.WRITE)
    schema_id = _until("bob may register", lambda: (lambda r: r if r and r > 0 else None)(register()))
    # reading the subject needs READ on the topic: alice has only WRITE
    versions = f"{url}/subjects/readings-value/versions"
    assert _http("GET", versions, user=alice, content_type="application/json")[0] == 403
    _allow(admin, ResourceType.TOPIC, "readings", "User:alice", AclOperation.READ)
    status, _, body = _until("alice may read the subject", lambda: (lambda r: r if r[0] == 200 else None)(
        _http("GET", versions, user=alice, content_type="application/json")))
    assert json.loads(body) == [1]
    # global compatibility needs ALTER_CONFIGS on the cluster
    assert _http("PUT", f"{url}/config", {"compatibility": "NONE"}, bob,
                 "application/vnd.schemaregistry.v1+json")[0] == 403
    assert SchemaRegistryClient({"url": url, "basic.auth.user.info": "admin:admin-secret"}).get_schema(
        schema_id).schema_type == "AVRO"


def test_registry_and_proxy_over_an_ssl_inter_broker_listener(broker_factory, tmp_path_factory):
    """The inter-broker listener is SSL with client certificates required and PLAINTEXT's
    User:ANONYMOUS has no right: the registry and the proxy work only if their clients use the
    broker's keystore and trust store (their principal is the broker's certificate's,
    User:CN=localhost); the HTTP listener is https with the same keystore."""
    from tests.integration.security.certs import make_certs
    certs = make_certs(tmp_path_factory.mktemp("certs"))
    plain_port, ssl_port, http_port = free_ports(3)
    listeners = f"PLAINTEXT://{LOOPBACK}:{plain_port},SSL://{LOOPBACK}:{ssl_port}"
    broker_factory({
        "listeners": listeners, "advertised.listeners": listeners, "inter.broker.listener.name": "SSL",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs / "server-keystore.pem",
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs / "ca.pem",
        "listener.name.ssl.ssl.client.auth": "required",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:CN=localhost",
        "allow.everyone.if.no.acl.found": "false", "offsets.topic.replication.factor": "1",
        "kafpy.http.listeners": f"https://{LOOPBACK}:{http_port}",
        "kafpy.schema.registry.enable": "true", "kafpy.rest.proxy.enable": "true"}, port=plain_port)
    url = f"https://{LOOPBACK}:{http_port}"
    client = SchemaRegistryClient({"url": url, "ssl.ca.location": str(certs / "ca.pem")})

    def register():
        try:
            return client.register_schema("secured-value", Schema(SCHEMA, "AVRO"))
        except SchemaRegistryError:
            return None   # 50001 until the registry has read _schemas through the SSL listener
    schema_id = _until("the registry registers over SSL", register)
    assert client.get_schema(schema_id).schema_type == "AVRO"
    import ssl
    ctx = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    req = urllib.request.Request(f"{url}/topics/secured", method="POST",
                                 data=json.dumps({"records": [{"value": {"rig": "a"}}]}).encode(),
                                 headers={"Content-Type": "application/vnd.kafka.json.v2+json"})
    with urllib.request.urlopen(req, timeout=30, context=ctx) as r:
        assert json.loads(r.read())["offsets"][0]["error_code"] is None
