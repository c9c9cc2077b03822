"""One broker with PLAINTEXT, SSL, SSL with client certificates required, SASL_PLAINTEXT and
SASL_SSL listeners (PLAIN from the JAAS config, SCRAM users made through
AlterUserScramCredentials), tried with kafka-python and confluent-kafka (librdkafka).
Certificates are made for the module with the openssl command line."""
from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Iterator

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
from kafka import KafkaConsumer, KafkaProducer

from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK, free_ports

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
LISTENERS = ("PLAINTEXT", "SSL", "MTLS", "SASL_PLAINTEXT", "SASL_SSL")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _make_certs(d: Path) -> None:
    for ca in ("ca", "rogue-ca"):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.pem",
                 "-days", "2", "-subj", f"/CN=kafpy-test-{ca}", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, subj, ca in (("server", "/CN=localhost", "ca"), ("alice", "/O=acme/OU=eng/CN=alice", "ca"),
                           ("mallory", "/CN=mallory", "rogue-ca")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", subj, cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
                 "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext", cwd=d)
    (d / "server-keystore.pem").write_text((d / "server.key").read_text() + (d / "server.pem").read_text())


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KafpyBroker, dict[str, int], Path]]:
    work = tmp_path_factory.mktemp("kafpy-sec")
    certs = work / "certs"
    certs.mkdir()
    _make_certs(certs)
    ports = dict(zip(LISTENERS, free_ports(len(LISTENERS))))
    listeners = ",".join(f"{n}://{LOOPBACK}:{p}" for n, p in ports.items())
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", port=ports["PLAINTEXT"], start_timeout=150, overrides={
        "listeners": listeners, "advertised.listeners": listeners,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "SASL_SSL:SASL_SSL",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs / "server-keystore.pem",
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs / "ca.pem",
        "listener.name.mtls.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        "offsets.topic.replication.factor": 1, "group.initial.rebalance.delay.ms": 0,
    })
    b.start()
    try:
        yield b, ports, certs
    finally:
        b.stop()


def _roundtrip_kafka_python(port: int, **security: object) -> list[bytes]:
    topic = f"kp-{uuid.uuid4().hex[:8]}"
    p = KafkaProducer(bootstrap_servers=f"{LOOPBACK}:{port}", **security)
    for i in range(20):
        p.send(topic, b"v%d" % i)
    p.flush()
    p.close()
    c = KafkaConsumer(topic, bootstrap_servers=f"{LOOPBACK}:{port}", auto_offset_reset="earliest",
                      consumer_timeout_ms=10000, **security)
    values = [m.value for m in c]
    c.close()
    return values


def _roundtrip_librdkafka(port: int, conf: dict[str, str]) -> list[bytes]:
    topic = f"rd-{uuid.uuid4().hex[:8]}"
    base = {"bootstrap.servers": f"{LOOPBACK}:{port}", **conf}
    p = Producer(base)
    for i in range(20):
        p.produce(topic, b"v%d" % i)
    assert p.flush(30) == 0
    c = Consumer({**base, "group.id": topic, "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    values: list[bytes] = []
    for _ in range(60):
        m = c.poll(1.0)
        if m is not None and m.error() is None:
            values.append(m.value())
        if len(values) == 20:
            break
    c.close()
    return values


EXPECTED = [b"v%d" % i for i in range(20)]


def test_kafka_python_over_ssl_and_sasl_plain(broker):
    b, ports, certs = broker
    tls = {"ssl_cafile": str(certs / "ca.pem")}
    plain = {"sasl_mechanism": "PLAIN", "sasl_plain_username": "alice", "sasl_plain_password": "alice-secret"}
    assert _roundtrip_kafka_python(ports["SSL"], security_protocol="SSL", **tls) == EXPECTED
    assert _roundtrip_kafka_python(ports["SASL_PLAINTEXT"], security_protocol="SASL_PLAINTEXT", **plain) == EXPECTED
    assert _roundtrip_kafka_python(ports["SASL_SSL"], security_protocol="SASL_SSL", **plain, **tls) == EXPECTED
    assert _roundtrip_kafka_python(ports["MTLS"], security_protocol="SSL", ssl_certfile=str(certs / "alice.pem"),
                                   ssl_keyfile=str(certs / "alice.key"), **tls) == EXPECTED


def test_scram_users_made_with_the_admin_api_log_in_with_librdkafka(broker):
    b, ports, certs = broker
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    futures = admin.alter_user_scram_credentials([
        UserScramCredentialUpsertion("bob", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"bob-secret"),
        UserScramCredentialUpsertion("carol", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), b"c-secret"),
    ])
    for f in futures.values():
        f.result(30)
    described = {u: f.result(30) for u, f in admin.describe_user_scram_credentials(["bob", "carol"]).items()}
    assert described["carol"].scram_credential_infos[0].iterations == 8192
    tls = {"ssl.ca.location": str(certs / "ca.pem")}
    for mech, user, pw in (("SCRAM-SHA-256", "bob", "bob-secret"), ("SCRAM-SHA-512", "carol", "c-secret")):
        conf = {"sasl.mechanism": mech, "sasl.username": user, "sasl.password": pw}
        assert _roundtrip_librdkafka(ports["SASL_SSL"], {"security.protocol": "SASL_SSL", **conf, **tls}) == EXPECTED
        assert _roundtrip_librdkafka(ports["SASL_PLAINTEXT"], {"security.protocol": "SASL_PLAINTEXT", **conf}) == EXPECTED
    plain = {"sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-secret"}
    assert _roundtrip_librdkafka(ports["SASL_SSL"], {"security.protocol": "SASL_SSL", **plain, **tls}) == EXPECTED
    assert _roundtrip_librdkafka(ports["MTLS"], {"security.protocol": "SSL", "ssl.certificate.location":
                                                 str(certs / "alice.pem"), "ssl.key.location": str(certs / "alice.key"),
                                                 **tls}) == EXPECTED


def _librdkafka_error(port: int, conf: dict[str, str]) -> str:
    """The error librdkafka reports when listing topics fails (or '' if it succeeds)."""
    errors: list[str] = []
    admin = AdminClient({"bootstrap.servers": f"{LOOPBACK}:{port}", "error_cb": lambda e: errors.append(str(e)),
                         "reconnect.backoff.max.ms": 1000, **conf})
    try:
        admin.list_topics(timeout=5)
    except KafkaException as e:
        errors.append(str(e))
    admin.poll(1)   # error_cb is served by poll
    return " | ".join(errors)


@pytest.mark.parametrize("mech,user,password,expect", [
    ("PLAIN", "alice", "wrong", "Authentication failed: Invalid username or password"),
    ("PLAIN", "nobody", "x", "Authentication failed: Invalid username or password"),
    ("SCRAM-SHA-256", "nobody", "x", "Authentication failed during authentication due to invalid credentials "
                                     "with SASL mechanism SCRAM-SHA-256"),
])
def test_bad_logins_are_refused_with_kafkas_message(broker, mech, user, password, expect):
    b, ports, _ = broker
    err = _librdkafka_error(ports["SASL_PLAINTEXT"], {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mech,
                                                      "sasl.username": user, "sasl.password": password})
    assert expect in err
    assert _roundtrip_kafka_python(b.port) == EXPECTED   # and the broker keeps serving


def test_untrusted_and_missing_certificates_and_plaintext_on_tls_are_refused(broker):
    b, ports, certs = broker
    tls = {"security.protocol": "SSL", "ssl.ca.location": str(certs / "ca.pem")}
    # TLS 1.3: the server refuses the client's certificate after the client's side of the
    # handshake is done, so librdkafka sees the connection dropped rather than a handshake error
    assert "Failed to get metadata" in _librdkafka_error(ports["MTLS"], {
        **tls, "ssl.certificate.location": str(certs / "mallory.pem"), "ssl.key.location": str(certs / "mallory.key")})
    assert "Failed to get metadata" in _librdkafka_error(ports["MTLS"], tls)
    assert "SSL handshake failed" in _librdkafka_error(ports["SSL"], {"security.protocol": "SSL",
                                                                      "ssl.ca.location": str(certs / "rogue-ca.pem")})
    assert "Failed to get metadata" in _librdkafka_error(ports["SSL"], {"security.protocol": "PLAINTEXT"})
    assert _roundtrip_kafka_python(ports["SSL"], security_protocol="SSL", ssl_cafile=str(certs / "ca.pem")) == EXPECTED
