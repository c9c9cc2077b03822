"""What the cluster tests share: a ZooKeeper-mode cluster of kafpy broker processes, Metadata
read straight off a broker, and a bounded wait. Ports, log dirs and ZooKeeper are chosen at run
time by the suite's fixtures (tests/conftest.py), which also stop everything after a test."""
from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from kafka import KafkaConsumer, TopicPartition

from kafpy.protocol import codec
from kafpy.protocol.messages import MetadataRequest, RequestHeader
from tests.support import wire

SESSION_TIMEOUT_MS = 6000

# Settings every cluster test starts from: failover within seconds, replicated internal topics.
CLUSTER_OVERRIDES = {
    "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS,
    "default.replication.factor": 3,
    "offsets.topic.replication.factor": 3,
    "controlled.shutdown.max.retries": 1,
    "controlled.shutdown.retry.backoff.ms": 200,
    "replica.lag.time.max.ms": 10000,
}


def metadata(broker: Any, topics: list[str] | None = None):
    """Metadata v12 as the broker answers it (all topics by default)."""
    header = RequestHeader(request_api_key=3, request_api_version=12, correlation_id=1, client_id="cluster-test")
    req_topics = None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics]
    frame = codec.encode_request(header, MetadataRequest(topics=req_topics, allow_auto_topic_creation=False))
    return codec.decode_response(3, 12, wire.roundtrip(broker.host, broker.port, frame, timeout=5))[1]


_T = TypeVar("_T")


def wait_until(check: Callable[..., _T], timeout: float, what: str) -> _T:
    """Poll ``check`` until it returns something true; fail naming ``what`` and the last value.
    (``Callable[...]``: the callers' lambdas bind loop variables as default arguments.)"""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            value = check()
        except OSError as e:
            last = e
        else:
            last = value
            if value:
                return value
        time.sleep(0.2)
    raise AssertionError(f"{what} within {timeout:.0f}s; last: {last!r}")


# A kafpy broker started with this environment logs each ISR expiration check (every
# replica.lag.time.max.ms / 2): how a test sees that a leader looked at its followers and
# dropped none, instead of sleeping and hoping a check fell inside the sleep.
ISR_CHECK_LOGGING = {"KAFPY_LOG_LEVELS": "kafka.server.ReplicaManager=DEBUG"}
_ISR_CHECK = re.compile(r"ISR expiration check of (\d+) partitions led: (\d+) shrinking")


def isr_checks(broker: Any) -> list[tuple[int, int]]:
    """(partitions led, partitions shrinking) of each ISR expiration check ``broker`` logged."""
    return [(int(a), int(b)) for a, b in _ISR_CHECK.findall(broker.log_text())]


def wait_for_isr_checks(brokers: list, n: int = 1) -> list[tuple[int, int]]:
    """Wait until each of ``brokers`` (started with ``ISR_CHECK_LOGGING``) has run ``n`` more
    ISR expiration checks than it had; the checks run meanwhile, over all the brokers."""
    before = [len(isr_checks(b)) for b in brokers]
    interval_s = CLUSTER_OVERRIDES["replica.lag.time.max.ms"] / 2 / 1000
    new: list[tuple[int, int]] = []
    for b, seen in zip(brokers, before):
        checks = wait_until(lambda b=b, seen=seen: (lambda c: len(c) >= seen + n and c)(isr_checks(b)),
                            n * interval_s + 15, f"{n} more ISR expiration checks on {b.bootstrap}")
        new += checks[seen:]
    return new


def leaders(md: Any, topic: str) -> dict[int, int]:
    (t,) = [t for t in md.topics if t.name == topic]
    return {p.partition_index: p.leader_id for p in t.partitions}


def start_cluster(zookeeper: Any, broker_factory: Any, n: int = 3, *, env: dict[str, str] | None = None,
                  **overrides: object) -> list:
    """``n`` kafpy brokers (ids 0..n-1) on one ZooKeeper, returned once each knows all of them
    and a controller; ``env`` is added to their environment (e.g. ``ISR_CHECK_LOGGING``)."""
    settings = {**CLUSTER_OVERRIDES, **overrides}
    brokers = [broker_factory({**settings, "broker.id": i}, zookeeper=zookeeper, env=env, start=False)
               for i in range(n)]
    # Started side by side, not one after another: a start is mostly the interpreter loading
    # and the broker registering in ZooKeeper, and the tests find the controller by asking.
    with ThreadPoolExecutor(n) as pool:
        list(pool.map(lambda b: b.start(), brokers))
    for b in brokers:
        wait_until(lambda b=b: (lambda md: len(md.brokers) == n and md.controller_id >= 0)(metadata(b)), 60,
                   f"broker {b.bootstrap} knows the {n} brokers and the controller")
    return brokers


class SharedCluster:
    """One ZooKeeper and ``n`` kafpy brokers shared by the tests of a file (a module-scoped
    fixture makes it; see test_controller_ops.py): a cluster start and stop paid once instead
    of per test. Each test asks for ``ready()`` first, which starts again whatever an earlier
    test stopped, killed or froze and returns once every broker knows all of them and a
    controller, as ``start_cluster`` does. The tests use topics of their own. ``close()``
    kills the brokers (no test checks their last shutdown), then stops ZooKeeper."""

    def __init__(self, zookeeper: Any, broker_factory: Any, n: int = 3, *, env: dict[str, str] | None = None,
                 overrides: dict[str, object] | None = None) -> None:
        self.zookeeper = zookeeper
        self.factory = broker_factory
        try:
            self.brokers = start_cluster(zookeeper, broker_factory, n, env=env, **(overrides or {}))
        except BaseException:
            broker_factory.stop_all()
            raise

    def ready(self) -> list:
        """The brokers, each running, registered and knowing the controller."""
        self.zookeeper.start()  # returns at once while it runs
        for b in self.brokers:
            b.resume()  # SIGCONT to a running one: a no-op unless a failed test left it frozen
        stopped = [b for b in self.brokers if not b.running]
        with ThreadPoolExecutor(max(len(stopped), 1)) as pool:
            list(pool.map(lambda b: b.start(), stopped))
        n = len(self.brokers)

        def agreed() -> set[int] | None:
            """The controller, once every broker knows it and all of them: an earlier test's
            frozen controller may still take itself for one a moment after it thawed."""
            mds = [metadata(b) for b in self.brokers]
            ids = {md.controller_id for md in mds}
            return ids if len(ids) == 1 and -1 not in ids and all(len(md.brokers) == n for md in mds) else None
        wait_until(agreed, 60, f"the {n} brokers know each other and agree on the controller")
        return self.brokers

    def failure_logs(self) -> list[tuple[str, str]]:
        return self.factory.failure_logs()

    def close(self) -> None:
        for b in self.brokers:
            b.kill()
        self.factory.stop_all()
        self.zookeeper.stop()


def shared_cluster_on_own_zookeeper(tmp_path_factory: Any, n: int, overrides: dict[str, object]) -> SharedCluster:
    """A SharedCluster of ``n`` brokers on a ZooKeeper of its own (stopped by its ``close``):
    what SharedClusters makes."""
    from tests.conftest import BrokerFactory
    from tests.support.zookeeper import ZooKeeperServer

    zk = ZooKeeperServer(data_dir=tmp_path_factory.mktemp("zk"))
    try:
        zk.start()
        return SharedCluster(zk, BrokerFactory(tmp_path_factory.mktemp("kafpy")), n, overrides=overrides)
    except BaseException:
        zk.stop()
        raise


class SharedClusters:
    """The shared cluster of a file whose tests want clusters of different shapes (size,
    settings): ``ready(n, **overrides)`` returns the running one if it has that shape, else
    closes it and starts one that has (on a ZooKeeper of its own). One cluster at a time, so
    a file orders its tests by shape. ``make(n, overrides)`` builds a SharedCluster."""

    def __init__(self, make: Callable[[int, dict[str, object]], SharedCluster]) -> None:
        self.make = make
        self.current: SharedCluster | None = None
        self.shape: tuple[int, dict[str, object]] | None = None

    def ready(self, n: int = 3, **overrides: object) -> list:
        if self.current is not None and self.shape != (n, overrides):
            self.close()
        if self.current is None:
            self.current = self.make(n, overrides)
            self.shape = (n, overrides)
        return self.current.ready()

    def failure_logs(self) -> list[tuple[str, str]]:
        return self.current.failure_logs() if self.current is not None else []

    def close(self) -> None:
        if self.current is not None:
            current, self.current, self.shape = self.current, None, None
            current.close()


def end_offsets(bootstrap: list[str], topic: str, partitions: int = 3) -> dict[int, int]:
    """The high watermarks (what a consumer sees as the end), as the leaders answer."""
    c = KafkaConsumer(bootstrap_servers=bootstrap, request_timeout_ms=20000)
    try:
        tps = [TopicPartition(topic, p) for p in range(partitions)]
        return {tp.partition: off for tp, off in c.end_offsets(tps).items()}
    finally:
        c.close()


def read_all(bootstrap: list[str], topic: str, expected: int, partitions: int = 3
             ) -> dict[int, list[tuple[int, bytes]]]:
    """Every record of the topic's partitions from offset 0, (offset, value) per partition."""
    c = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                      consumer_timeout_ms=5000, request_timeout_ms=20000)
    try:
        c.assign([TopicPartition(topic, p) for p in range(partitions)])
        out: dict[int, list[tuple[int, bytes]]] = {p: [] for p in range(partitions)}
        deadline = time.monotonic() + 60
        n = 0
        while n < expected and time.monotonic() < deadline:
            for tp, recs in c.poll(timeout_ms=1000).items():
                out[tp.partition].extend((r.offset, r.value) for r in recs)
                n += len(recs)
        return out
    finally:
        c.close()
