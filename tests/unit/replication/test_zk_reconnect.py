"""The broker's ZooKeeper client reconnects at least about every second however long
ZooKeeper was away (kazoo's own default doubles its wait up to an hour)."""
from __future__ import annotations

from kazoo.exceptions import ConnectionLoss
from kazoo.retry import KazooRetry

from kafpy.replication.zk_client import CONNECTION_RETRY, KafkaZkClient


def test_reconnect_waits_stay_near_a_second_after_a_long_outage():
    sleeps: list[float] = []
    retry = KazooRetry(**CONNECTION_RETRY, sleep_func=sleeps.append)
    failures = iter(range(40))

    def connect() -> str:
        if next(failures, None) is not None:
            raise ConnectionLoss()
        return "connected"

    assert retry(connect) == "connected"
    assert len(sleeps) == 40 and max(sleeps) < 1.5  # max_delay 1 s, kazoo's jitter at most 40 %
    assert sum(sleeps[-10:]) < 15


def test_the_broker_client_uses_it():
    client = KafkaZkClient("127.0.0.1:1", 6000)
    assert client.kazoo._conn_retry.max_delay == CONNECTION_RETRY["max_delay"]
    assert client.kazoo._conn_retry.max_tries == -1
