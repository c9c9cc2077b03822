"""One broker with PLAINTEXT, SSL, SSL with client certificates required, SASL_PLAINTEXT and
SASL_SSL listeners (PLAIN from the JAAS config, SCRAM users made through
AlterUserScramCredentials and Apache's kafka-configs), tried with kafka-python, confluent-kafka
(librdkafka), aiokafka and Apache's console producer (3.9) and consumer (4.x): every client
kind over every listener type, then each way a connection is refused.

Lean by design: one broker for the module, certificates made once per session, consumers
assigned to their partition (no group join) except one group consumer per client kind, and
the refused clients all tried at once."""
from __future__ import annotations

import asyncio
import socket
import ssl
import struct
import subprocess
import time
import uuid
from pathlib import Path
from typing import Iterator, cast

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KpTopicPartition
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka import TopicPartition as AioTopicPartition

from tests.support import process, wire
from tests.support.kafka_dist import popen_tool, run_tool
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK, free_ports

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
LISTENERS = ("PLAINTEXT", "SSL", "MTLS", "SASL_PLAINTEXT", "SASL_SSL")
EXPECTED = [b"v%d" % i for i in range(20)]
SASL_HANDSHAKE = 17
WAIT_S = 30.0   # upper bound for a client to get what it waits for; never reached when all is well


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory, certs: Path) -> Iterator[tuple[KafpyBroker, dict[str, int]]]:
    work = tmp_path_factory.mktemp("kafpy-sec")
    ports = dict(zip(LISTENERS, free_ports(len(LISTENERS))))
    listeners = ",".join(f"{n}://{LOOPBACK}:{p}" for n, p in ports.items())
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", port=ports["PLAINTEXT"], overrides={
        "listeners": listeners, "advertised.listeners": listeners,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
                                          "SASL_SSL:SASL_SSL",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs / "server-keystore.pem",
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs / "ca.pem",
        "listener.name.mtls.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        "offsets.topic.replication.factor": 1, "offsets.topic.num.partitions": 1,
        "group.initial.rebalance.delay.ms": 0,
    })
    b.start()
    try:
        yield b, ports
    finally:
        b.stop()


def _roundtrip_kafka_python(port: int, group: bool = False, **security: object) -> list[bytes]:
    topic = f"kp-{uuid.uuid4().hex[:8]}"
    p = KafkaProducer(bootstrap_servers=f"{LOOPBACK}:{port}", **security)
    for i in range(20):
        p.send(topic, b"v%d" % i)
    p.flush()
    p.close()
    c = KafkaConsumer(bootstrap_servers=f"{LOOPBACK}:{port}", auto_offset_reset="earliest",
                      group_id=topic if group else None, **security)
    if group:
        c.subscribe([topic])
    else:
        c.assign([KpTopicPartition(topic, 0)])
    values: list[bytes] = []
    deadline = time.monotonic() + WAIT_S
    while len(values) < 20 and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=500).values():
            values += [r.value for r in records]
    c.close()
    return values


def _roundtrip_librdkafka(port: int, conf: dict[str, str], group: bool = False) -> list[bytes]:
    topic = f"rd-{uuid.uuid4().hex[:8]}"
    base = {"bootstrap.servers": f"{LOOPBACK}:{port}", **conf}
    p = Producer(base)
    for i in range(20):
        p.produce(topic, b"v%d" % i)
    assert p.flush(WAIT_S) == 0
    c = Consumer({**base, "group.id": topic, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    if group:
        c.subscribe([topic])
    else:
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    values: list[bytes] = []
    deadline = time.monotonic() + WAIT_S
    while len(values) < 20 and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            values.append(cast(bytes, m.value()))   # the test's records all have values
    c.close()
    return values


def test_kafka_python_over_every_listener_type(broker, certs):
    b, ports = broker
    tls = {"ssl_cafile": str(certs / "ca.pem")}
    plain = {"sasl_mechanism": "PLAIN", "sasl_plain_username": "alice", "sasl_plain_password": "alice-secret"}
    assert _roundtrip_kafka_python(ports["SSL"], security_protocol="SSL", **tls) == EXPECTED
    assert _roundtrip_kafka_python(ports["SASL_PLAINTEXT"], security_protocol="SASL_PLAINTEXT", **plain) == EXPECTED
    assert _roundtrip_kafka_python(ports["SASL_SSL"], group=True, security_protocol="SASL_SSL", **plain,
                                   **tls) == EXPECTED
    assert _roundtrip_kafka_python(ports["MTLS"], security_protocol="SSL", ssl_certfile=str(certs / "alice.pem"),
                                   ssl_keyfile=str(certs / "alice.key"), **tls) == EXPECTED


def test_scram_users_made_with_the_admin_api_log_in_with_librdkafka(broker, certs):
    b, ports = broker
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    futures = admin.alter_user_scram_credentials([
        UserScramCredentialUpsertion("bob", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), b"bob-secret"),
        UserScramCredentialUpsertion("carol", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), b"c-secret"),
    ])
    for f in futures.values():
        f.result(WAIT_S)
    described = {u: f.result(WAIT_S) for u, f in admin.describe_user_scram_credentials(["bob", "carol"]).items()}
    assert described["carol"].scram_credential_infos[0].iterations == 8192
    tls = {"ssl.ca.location": str(certs / "ca.pem")}
    bob = {"sasl.mechanism": "SCRAM-SHA-256", "sasl.username": "bob", "sasl.password": "bob-secret"}
    carol = {"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "carol", "sasl.password": "c-secret"}
    plain = {"sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-secret"}
    assert _roundtrip_librdkafka(ports["SASL_SSL"], {"security.protocol": "SASL_SSL", **bob, **tls}) == EXPECTED
    assert _roundtrip_librdkafka(ports["SASL_PLAINTEXT"], {"security.protocol": "SASL_PLAINTEXT", **bob}) == EXPECTED
    assert _roundtrip_librdkafka(ports["SASL_SSL"], {"security.protocol": "SASL_SSL", **carol, **tls},
                                 group=True) == EXPECTED
    assert _roundtrip_librdkafka(ports["SASL_PLAINTEXT"], {"security.protocol": "SASL_PLAINTEXT", **plain}) == EXPECTED
    assert _roundtrip_librdkafka(ports["MTLS"], {"security.protocol": "SSL", "ssl.certificate.location":
                                                 str(certs / "alice.pem"), "ssl.key.location": str(certs / "alice.key"),
                                                 **tls}) == EXPECTED


def _librdkafka_errors(port: int, confs: dict[str, dict[str, str]]) -> dict[str, str]:
    """The errors librdkafka reports for each client of ``confs`` (all started at once), each
    waited for until its first error; '' for a client that got none within WAIT_S, and
    "SERVED" in it for one whose DescribeCluster was answered."""
    errors: dict[str, list[str]] = {name: [] for name in confs}
    admins = {name: AdminClient({"bootstrap.servers": f"{LOOPBACK}:{port}", "reconnect.backoff.max.ms": 1000,
                                 # confluent-kafka's type hints leave out the callbacks (error_cb)
                                 "error_cb": lambda e, n=name: errors[n].append(str(e)),  # type: ignore[dict-item]
                                 **conf})
              for name, conf in confs.items()}
    futures = {name: a.describe_cluster(request_timeout=WAIT_S) for name, a in admins.items()}
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and not all(errors.values()):
        for a in admins.values():
            a.poll(0.1)   # error_cb is served by poll
    for name, f in futures.items():
        if f.done():
            errors[name].append(str(f.exception()) if f.exception() is not None else "SERVED")
    return {name: " | ".join(e) for name, e in errors.items()}


def test_bad_logins_are_refused_with_kafkas_message(broker):
    b, ports = broker
    sasl = {"security.protocol": "SASL_PLAINTEXT"}
    errors = _librdkafka_errors(ports["SASL_PLAINTEXT"], {
        "wrong password": {**sasl, "sasl.mechanism": "PLAIN", "sasl.username": "alice", "sasl.password": "wrong"},
        "unknown user": {**sasl, "sasl.mechanism": "PLAIN", "sasl.username": "nobody", "sasl.password": "x"},
        "unknown scram user": {**sasl, "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": "nobody",
                               "sasl.password": "x"},
    })
    assert not any("SERVED" in e for e in errors.values())
    assert "Authentication failed: Invalid username or password" in errors["wrong password"]
    assert "Authentication failed: Invalid username or password" in errors["unknown user"]
    assert ("Authentication failed during authentication due to invalid credentials with SASL mechanism "
            "SCRAM-SHA-256") in errors["unknown scram user"]
    assert _roundtrip_librdkafka(b.port, {}) == EXPECTED   # and the broker keeps serving


def test_untrusted_and_missing_certificates_and_plaintext_on_tls_are_refused(broker, certs):
    b, ports = broker
    tls = {"security.protocol": "SSL", "ssl.ca.location": str(certs / "ca.pem")}
    mtls = _librdkafka_errors(ports["MTLS"], {
        "untrusted client": {**tls, "ssl.certificate.location": str(certs / "mallory.pem"),
                             "ssl.key.location": str(certs / "mallory.key")},
        "no client certificate": tls,
    })
    ssl_port = _librdkafka_errors(ports["SSL"], {
        "untrusted server": {"security.protocol": "SSL", "ssl.ca.location": str(certs / "rogue-ca.pem")},
        "plaintext client": {"security.protocol": "PLAINTEXT"},
    })
    # TLS 1.3: the server refuses the client's certificate after the client's side of the
    # handshake is done, so librdkafka sees the connection dropped rather than a handshake error
    for refused in (mtls["untrusted client"], mtls["no client certificate"], ssl_port["plaintext client"]):
        assert "brokers are down" in refused and "SERVED" not in refused
    # librdkafka words it "SSL handshake failed: ..." or "...certificate verify failed (after N ms
    # in state SSL_HANDSHAKE)", depending on when the error is read
    untrusted = ssl_port["untrusted server"]
    assert ("SSL handshake failed" in untrusted or "certificate verify failed" in untrusted) \
        and "SERVED" not in untrusted, untrusted
    assert _roundtrip_kafka_python(ports["SSL"], security_protocol="SSL", ssl_cafile=str(certs / "ca.pem")) == EXPECTED


def _sasl_exchange(port: int, frames: list[bytes]) -> list[bytes | None]:
    """Sends ``frames`` one at a time on one connection; each one's response frame, or None
    once the broker has closed the connection without answering."""
    answers: list[bytes | None] = []
    with socket.create_connection((LOOPBACK, port), timeout=WAIT_S) as sock:
        for i, frame in enumerate(frames):
            try:
                sock.sendall(frame)
                answers.append(wire.read_frame(sock))
            except (ConnectionError, OSError):
                answers += [None] * (len(frames) - i)
                break
    return answers


def test_requests_out_of_order_in_the_sasl_exchange_close_the_connection_as_kafka_does(broker):
    """SaslServerAuthenticator: before SaslHandshake only one ApiVersions and SaslHandshake
    are read, anything else closes without an answer; after it only SaslAuthenticate, anything
    else is answered ILLEGAL_SASL_STATE (34) and closed."""
    b, ports = broker
    port = ports["SASL_PLAINTEXT"]
    versions = wire.encode_request(wire.API_VERSIONS, 0, 1)
    metadata = wire.encode_request(wire.METADATA, 0, 2, struct.pack(">i", 0))
    handshake = wire.encode_request(SASL_HANDSHAKE, 1, 3, struct.pack(">h", 5) + b"PLAIN")
    assert _sasl_exchange(port, [metadata, versions]) == [None, None]
    first, second = _sasl_exchange(port, [versions, versions])
    assert first is not None and first[4:6] == b"\0\0" and second is None
    ok, refused, after = _sasl_exchange(port, [handshake, versions, versions])
    assert ok is not None and ok[4:6] == b"\0\0"
    assert refused is not None and struct.unpack(">ih", refused[:6]) == (1, 34) and after is None
    assert _sasl_exchange(port, [handshake, metadata])[1] is None


def _java_config(path: Path, certs: Path, sasl_user: str | None = None) -> Path:
    lines = ["ssl.truststore.type=PEM", f"ssl.truststore.location={certs / 'ca.pem'}"]
    if sasl_user is None:
        lines.append("security.protocol=SSL")
    else:
        lines += ["security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256",
                  "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                  f'username="{sasl_user}" password="dora-secret";']
    path.write_text("\n".join(lines) + "\n")
    return path


async def _aiokafka_roundtrip(ports: dict[str, int], certs: Path) -> list[bytes]:
    """aiokafka produces over SASL_SSL as dora (SCRAM-SHA-256) and reads back over SSL."""
    topic = f"aio-{uuid.uuid4().hex[:8]}"
    ctx = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    p = AIOKafkaProducer(bootstrap_servers=f"{LOOPBACK}:{ports['SASL_SSL']}", security_protocol="SASL_SSL",
                         ssl_context=ctx, sasl_mechanism="SCRAM-SHA-256", sasl_plain_username="dora",
                         sasl_plain_password="dora-secret")
    await p.start()
    try:
        for v in EXPECTED:
            await p.send(topic, v, partition=0)
        await p.flush()
    finally:
        await p.stop()
    c = AIOKafkaConsumer(bootstrap_servers=f"{LOOPBACK}:{ports['SSL']}", security_protocol="SSL", ssl_context=ctx,
                         auto_offset_reset="earliest")
    await c.start()
    try:
        c.assign([AioTopicPartition(topic, 0)])
        values: list[bytes] = []
        async with asyncio.timeout(WAIT_S):  # type: ignore[attr-defined]  # Python 3.11+ (mypy reads as 3.10)
            while len(values) < len(EXPECTED):
                for records in (await c.getmany(timeout_ms=500)).values():
                    values += [r.value for r in records]
        return values
    finally:
        await c.stop()


def test_a_user_made_with_kafka_configs_logs_in_with_java_clients_and_aiokafka(broker, certs, tmp_path):
    """Apache's kafka-configs makes dora's SCRAM-SHA-256 credential; the 3.9 console producer
    writes as dora over SASL_SSL while the 4.x console consumer reads over SSL; aiokafka does
    the same."""
    b, ports = broker
    run_tool("4", "kafka-configs", ["--bootstrap-server", b.bootstrap, "--alter", "--add-config",
                                    "SCRAM-SHA-256=[iterations=4096,password=dora-secret]",
                                    "--entity-type", "users", "--entity-name", "dora"])
    topic = f"java-{uuid.uuid4().hex[:8]}"
    consumer = popen_tool("4", "kafka-console-consumer", [
        "--bootstrap-server", f"{LOOPBACK}:{ports['SSL']}", "--topic", topic, "--from-beginning",
        "--max-messages", "3", "--timeout-ms", "20000",
        "--consumer.config", _java_config(tmp_path / "ssl.properties", certs)], stdin=subprocess.DEVNULL)
    try:
        producer = run_tool("3.9", "kafka-console-producer", [
            "--bootstrap-server", f"{LOOPBACK}:{ports['SASL_SSL']}", "--topic", topic,
            "--producer.config", _java_config(tmp_path / "sasl.properties", certs, "dora")],
            input="j1\nj2\nj3\n", check=False)
        out, err = consumer.communicate(timeout=60)
    finally:
        if consumer.poll() is None:
            process.terminate(consumer)
    assert producer.returncode == 0, producer.stderr[-2000:]
    assert [line for line in out.splitlines() if line.startswith("j")] == ["j1", "j2", "j3"], err[-2000:]
    assert asyncio.run(_aiokafka_roundtrip(ports, certs)) == EXPECTED
