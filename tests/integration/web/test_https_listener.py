"""An https:// HTTP listener takes its certificate from the broker's TLS settings
(listener.name.https.ssl.*), as a Kafka listener named HTTPS would: /metrics is served over
TLS to a client trusting the broker's CA, and a plain-text request on it gets nothing."""
from __future__ import annotations

import ssl
import urllib.request

import pytest

from tests.integration.security.certs import make_certs
from tests.support.ports import LOOPBACK, free_port


@pytest.fixture
def certs(tmp_path):
    return make_certs(tmp_path)


def test_metrics_over_https_with_the_broker_keystore(broker_factory, certs):
    port = free_port()
    broker_factory({"kafpy.http.listeners": f"https://{LOOPBACK}:{port}",
                    "listener.name.https.ssl.keystore.type": "PEM",
                    "listener.name.https.ssl.keystore.location": certs / "server-keystore.pem"})
    ctx = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    with urllib.request.urlopen(f"https://{LOOPBACK}:{port}/metrics", context=ctx, timeout=10) as r:
        body = r.read().decode()
    assert r.status == 200 and "kafka_server_replicamanager_partitioncount" in body
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://{LOOPBACK}:{port}/metrics", timeout=10).read()
