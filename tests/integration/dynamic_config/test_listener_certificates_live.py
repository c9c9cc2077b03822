"""A TLS listener's keystore altered with Apache's kafka-configs.sh on a running
three-broker ZooKeeper cluster (``--entity-name <id>``,
``listener.name.ssl.ssl.keystore.location``), as Kafka's DynamicListenerConfig does it:
each broker's new TLS connections present its new certificate without a restart, a
connection opened before keeps working, Kafka clients connect over TLS with it,
DescribeConfigs reports the listener-prefixed key as DYNAMIC_BROKER_CONFIG, and the
cluster-wide default entity, an unprefixed key and a keystore that does not load are refused;
a store password is kept in ZooKeeper encrypted with password.encoder.secret, and refused
by a broker without one."""
from __future__ import annotations

import json
import socket
import ssl
import subprocess
from typing import cast
from pathlib import Path

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient

from kafpy.protocol import codec
from kafpy.protocol.messages import ApiVersionsRequest, RequestHeader
from tests.integration.cluster.harness import CLUSTER_OVERRIDES, metadata, wait_until
from tests.integration.security.certs import make_certs
from tests.support.kafka_dist import run_tool
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(600)
KEY = "listener.name.ssl.ssl.keystore.location"


def configs(*args: str, check: bool = True):
    return run_tool("4", "kafka-configs", list(args), timeout=120, check=check)


def _renewed_keystore(certs: Path, broker_id: int) -> Path:
    """A new key and certificate for the broker, signed by the same CA, with another subject."""
    name = f"renewed-{broker_id}"
    for args in (("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key"),
                 ("req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=kafpy-{name}"),
                 ("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                  "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext")):
        subprocess.run(["openssl", *args], cwd=certs, check=True, capture_output=True)
    path = certs / f"{name}-keystore.pem"
    path.write_text((certs / f"{name}.key").read_text() + (certs / f"{name}.pem").read_text())
    return path


def _tls(certs: Path, port: int) -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    return ctx.wrap_socket(socket.create_connection((LOOPBACK, port), timeout=10), server_hostname=LOOPBACK)


def _subject_cn(certs: Path, port: int) -> str:
    with _tls(certs, port) as s:
        cert = s.getpeercert()
        assert cert is not None
        subject = cast(tuple[tuple[tuple[str, str], ...], ...], cert["subject"])   # its relative names
        return dict(x[0] for x in subject)["commonName"]


def _api_versions_answered(s: ssl.SSLSocket) -> bool:
    s.sendall(codec.encode_request(RequestHeader(request_api_key=18, request_api_version=0, correlation_id=7,
                                                 client_id="kept"), ApiVersionsRequest()))
    return len(s.recv(4)) == 4


def test_listener_keystore_changes_per_broker_without_restart(zookeeper, broker_factory, tmp_path):
    certs = make_certs(tmp_path)
    brokers, tls_ports = [], []
    for i in range(3):
        plain, secured = free_ports(2)
        listeners = f"PLAINTEXT://{LOOPBACK}:{plain},SSL://{LOOPBACK}:{secured}"
        brokers.append(broker_factory({
            **CLUSTER_OVERRIDES, "broker.id": i, "listeners": listeners, "advertised.listeners": listeners,
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL", "inter.broker.listener.name": "PLAINTEXT",
            "ssl.keystore.type": "PEM", "ssl.keystore.location": certs / "server-keystore.pem",
            **({"password.encoder.secret": "encoder-secret"} if i != 2 else {})},
            port=plain, zookeeper=zookeeper))
        tls_ports.append(secured)
    for b in brokers:
        wait_until(lambda b=b: len(metadata(b).brokers) == 3, 60, f"{b.name} knows the 3 brokers")
    assert [_subject_cn(certs, p) for p in tls_ports] == ["localhost"] * 3
    held = [_tls(certs, p) for p in tls_ports]     # opened before the change

    for i, b in enumerate(brokers):
        new = _renewed_keystore(certs, i)
        configs("--bootstrap-server", b.bootstrap, "--entity-type", "brokers", "--entity-name", str(i), "--alter",
                "--add-config", f"{KEY}={new}")
    for i, port in enumerate(tls_ports):
        wait_until(lambda i=i, port=port: _subject_cn(certs, port) == f"kafpy-renewed-{i}", 30,
                   f"broker {i} presents its new certificate to new connections")
    assert all(_api_versions_answered(s) for s in held)   # open connections keep theirs
    for s in held:
        s.close()

    # Kafka clients connect over TLS with the new certificates
    producer = Producer({"bootstrap.servers": ",".join(f"{LOOPBACK}:{p}" for p in tls_ports),
                         "security.protocol": "SSL", "ssl.ca.location": str(certs / "ca.pem"), "acks": "all"})
    errors: list = []
    producer.produce("over-tls", b"renewed", on_delivery=lambda err, msg: errors.append(err))
    assert producer.flush(60) == 0 and errors == [None]

    out = configs("--bootstrap-server", brokers[1].bootstrap, "--entity-type", "brokers", "--entity-name", "1",
                  "--describe").stdout
    assert f"{KEY}={certs / 'renewed-1-keystore.pem'} sensitive=false synonyms={{DYNAMIC_BROKER_CONFIG:" in out

    bs = ["--bootstrap-server", brokers[0].bootstrap, "--entity-type", "brokers"]
    refused = [
        (["--entity-default", "--alter", "--add-config", f"{KEY}={certs / 'renewed-0-keystore.pem'}"],
         "Cannot update these configs at default cluster level, broker id must be specified"),
        (["--entity-name", "0", "--alter", "--add-config", f"ssl.keystore.location={certs / 'server-keystore.pem'}"],
         "can be dynamically updated only per-listener using the listener prefix"),
        (["--entity-name", "0", "--alter", "--add-config", f"{KEY}={certs / 'missing.pem'}"],
         "Validation of dynamic config update of SSLFactory failed"),
    ]
    for args, message in refused:
        r = configs(*bs, *args, check=False)
        assert r.returncode != 0 and message in r.stdout + r.stderr, (args, r.stdout, r.stderr)
    assert _subject_cn(certs, tls_ports[0]) == "kafpy-renewed-0"

    # store passwords: kept in ZooKeeper encrypted with password.encoder.secret, refused without one
    configs(*bs, "--entity-name", "0", "--alter", "--add-config", "listener.name.ssl.ssl.key.password=not-in-zk")
    zk = KazooClient(hosts=zookeeper.connect_string)
    zk.start(timeout=30)
    try:
        stored = json.loads(zk.get("/config/brokers/0")[0])["config"]["listener.name.ssl.ssl.key.password"]
    finally:
        zk.stop()
    assert stored.startswith("encryptedPassword:") and "not-in-zk" not in stored
    r = configs("--bootstrap-server", brokers[2].bootstrap, "--entity-type", "brokers", "--entity-name", "2",
                "--alter", "--add-config", "listener.name.ssl.ssl.key.password=x", check=False)
    assert r.returncode != 0 and "Password encoder secret not configured" in r.stdout + r.stderr
    # broker 0 decrypted it and rebuilt its TLS context with it (a second reconfiguration)
    wait_until(lambda: brokers[0].log_text().count("new TLS connections use the reconfigured keystore") == 2, 30,
               "broker 0 applies the decrypted password")
    assert _subject_cn(certs, tls_ports[0]) == "kafpy-renewed-0"
