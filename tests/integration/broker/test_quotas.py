"""Client quotas end to end: Apache's kafka-configs sets and shows user and client-id quotas;
a producer over its producer_byte_rate is told throttle_time_ms > 0 while another client id
is not; quotas survive a restart. Rates themselves are measured by bench/quotas.py."""
from __future__ import annotations

import pytest

from kafpy.protocol.messages import (AlterClientQuotasRequest, DescribeClientQuotasRequest, RequestHeader)
from kafpy.protocol import codec
from kafpy.protocol.records import build_batch
from tests.integration.broker.conftest import topic_name
from tests.integration.broker.raw import PRODUCE, RawConnection, create_topic, produce_request
from tests.support.kafka_dist import run_tool

DESCRIBE_CLIENT_QUOTAS = 48
ALTER_CLIENT_QUOTAS = 49


class ClientConnection(RawConnection):
    """A raw connection with the client id of our choice."""

    def __init__(self, port: int, client_id: str) -> None:
        super().__init__("127.0.0.1", port, timeout=30)
        self.client_id = client_id

    def frame(self, api_key: int, version: int, body) -> bytes:
        self.correlation += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation, client_id=self.client_id)
        return codec.encode_request(header, body)


def alter_quota(port: int, entity: list[tuple[str, str | None]], key: str, value: float) -> None:
    A = AlterClientQuotasRequest
    with RawConnection("127.0.0.1", port) as c:
        resp = c.request(ALTER_CLIENT_QUOTAS, 1, A(validate_only=False, entries=[A.EntryData(
            entity=[A.EntityData(entity_type=t, entity_name=n) for t, n in entity],
            ops=[A.OpData(key=key, value=value, remove=False)])]))
    assert resp.entries[0].error_code == 0, resp.entries[0].error_message


def describe_quotas(port: int) -> dict[tuple, dict[str, float]]:
    D = DescribeClientQuotasRequest
    with RawConnection("127.0.0.1", port) as c:
        resp = c.request(DESCRIBE_CLIENT_QUOTAS, 1, D(components=[], strict=False))
    assert resp.error_code == 0, resp.error_message
    return {tuple((e.entity_type, e.entity_name) for e in entry.entity): {v.key: v.value for v in entry.values}
            for entry in resp.entries}


def produce_throttles(port: int, client_id: str, topic: str, requests: int, size: int) -> list[int]:
    """throttle_time_ms of each of ``requests`` Produce requests of about ``size`` bytes; stops
    at the first throttled one (the connection is then muted for that long)."""
    out = []
    batch = build_batch([(None, b"x" * size)])
    with ClientConnection(port, client_id) as c:
        for _ in range(requests):
            resp = c.request(PRODUCE, 9, produce_request(topic, batch, acks=1))
            assert resp.responses[0].partition_responses[0].error_code == 0
            out.append(resp.throttle_time_ms)
            if resp.throttle_time_ms:
                break
    return out


@pytest.mark.timeout(300)
def test_kafka_configs_alters_and_describes_client_and_user_quotas(shared_broker, kafka_version):
    bs = shared_broker.bootstrap
    client, user = f"cli-quota-{kafka_version}", f"alice-{kafka_version}"

    def configs(*args: str) -> str:
        return run_tool(kafka_version, "kafka-configs", ["--bootstrap-server", bs, *args], timeout=120).stdout

    out = configs("--alter", "--add-config", "producer_byte_rate=1024,request_percentage=50",
                  "--entity-type", "clients", "--entity-name", client)
    assert f"Completed updating config for client {client}." in out, out
    configs("--alter", "--add-config", "consumer_byte_rate=4096", "--entity-type", "users", "--entity-name", user,
            "--entity-type", "clients", "--entity-name", client)
    configs("--alter", "--add-config", "producer_byte_rate=2048", "--entity-type", "clients", "--entity-default")
    desc = configs("--describe", "--entity-type", "clients", "--entity-name", client)
    assert f"Quota configs for client-id '{client}' are" in desc, desc
    assert "producer_byte_rate=1024.0" in desc and "request_percentage=50.0" in desc
    desc = configs("--describe", "--entity-type", "users", "--entity-name", user, "--entity-type", "clients",
                   "--entity-name", client)
    assert "consumer_byte_rate=4096.0" in desc, desc
    configs("--alter", "--delete-config", "request_percentage", "--entity-type", "clients", "--entity-name", client)
    configs("--alter", "--delete-config", "producer_byte_rate", "--entity-type", "clients", "--entity-default")
    quotas = describe_quotas(shared_broker.port)
    assert quotas[(("client-id", client),)] == {"producer_byte_rate": 1024.0}
    assert quotas[(("user", user), ("client-id", client))] == {"consumer_byte_rate": 4096.0}
    assert (("client-id", None),) not in quotas
    bad = run_tool(kafka_version, "kafka-configs", ["--bootstrap-server", bs, "--alter", "--add-config",
                                                    "producer_byte_rate=1.5", "--entity-type", "clients",
                                                    "--entity-name", client], check=False)
    assert bad.returncode != 0


@pytest.mark.timeout(240)
def test_a_producer_over_its_quota_is_throttled_others_are_not_and_quotas_survive_a_restart(broker):
    topic = topic_name("quota")
    create_topic(broker.port, topic)
    alter_quota(broker.port, [("client-id", "slow")], "producer_byte_rate", 1024)
    # 1 KiB/s over at least 10 windows of 1 s: about 10 KiB pass, then the producer is throttled
    slow = produce_throttles(broker.port, "slow", topic, 20, 2000)
    assert slow[-1] > 0 and len(slow) < 20, slow
    fast = produce_throttles(broker.port, "fast", topic, 20, 2000)
    assert fast == [0] * 20

    broker.restart()
    assert describe_quotas(broker.port)[(("client-id", "slow"),)] == {"producer_byte_rate": 1024.0}
    again = produce_throttles(broker.port, "slow", topic, 20, 2000)
    assert again[-1] > 0, again
