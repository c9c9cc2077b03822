"""Issue 35's acceptance: Strimzi's Kafka and kafka-exporter Grafana dashboards, as published
(``tests/data/strimzi/``), are fully fed by kafpy with nothing else running.

A real Prometheus scrapes a standalone kafpy broker (and, again, three in ZooKeeper mode)
under a small load (two topics, records
produced throughout, two consumer groups: one caught up, one half way), with the target
labels Strimzi's pod monitor attaches (namespace, cluster, pod name). Every dashboard
variable is resolved as Grafana does (its ``query_result``/``label_values`` query through
Prometheus, its regex on each series), "All" where the variable offers it; then the query of
every panel is evaluated with the variables substituted and must return data.

Not asserted: the panels fed by Kubernetes itself (cAdvisor's ``container_*``, the kubelet's
volume stats), which no broker exports, Kafka's included; and ``JVM_EMPTY``, the JVM
panels without an honest CPython equivalent (asserted empty, so the list stays true)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any, Iterator

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.conftest import BrokerFactory
from tests.integration.cluster.harness import start_cluster
from tests.support.ports import LOOPBACK, free_ports
from tests.support.prometheus import PrometheusServer, wait_value
from tests.support.zookeeper import ZooKeeperServer

pytestmark = pytest.mark.timeout(600)

DASHBOARDS = Path(__file__).resolve().parents[2] / "data" / "strimzi"
TOPICS = ("orders", "payments")
PARTITIONS = 6
# the target labels of Strimzi's PodMonitor (kafka-resources-metrics.yaml's relabelings)
TARGET_LABELS = {"namespace": "kafpy-test", "strimzi_io_cluster": "my-cluster", "strimzi_io_name": "my-cluster-kafka",
                 "kubernetes_pod_name": "my-cluster-kafka-0", "pod": "my-cluster-kafka-0", "container": "kafka"}
# fed by Kubernetes (cAdvisor, kubelet), not by any broker
KUBERNETES_METRICS = ("container_", "kubelet_")
# the JVM's heap has no CPython counterpart (objects live in the process's memory, which
# process_resident_memory_bytes reports): left empty rather than filled with another figure
JVM_EMPTY = {("strimzi-kafka.json", "JVM Memory Used")}


def _panels(panels: list[dict]) -> Iterator[dict]:
    for p in panels:
        yield from _panels(p.get("panels", []))
        yield p


def _queries(dashboard: dict) -> list[tuple[str, str]]:
    """(panel title, expression) of every target of every panel."""
    return [(p.get("title", ""), t["expr"]) for p in _panels(dashboard["panels"]) for t in p.get("targets", [])
            if t.get("expr")]


def _substitute(expr: str, values: dict[str, str]) -> str:
    # longest names first: $kafka_broker must not be read as $kafka + "_broker"
    for name in sorted(values, key=len, reverse=True):
        expr = expr.replace("$" + name, values[name])
    return expr


def _series_text(series: dict) -> str:
    """A series as Grafana's query_result shows it, which the variables' regexes read."""
    labels = dict(series["metric"])
    name = labels.pop("__name__", "")
    return name + "{" + ", ".join(f'{k}="{v}"' for k, v in labels.items()) + "} " + series["value"][1]


def _resolve(prom: PrometheusServer, dashboard: dict) -> dict[str, str]:
    """Each variable's value as Grafana gives it: the query through Prometheus, the regex's
    group of each series; "All" (its allValue, else every value as a regex) where offered."""
    values: dict[str, str] = {}
    for var in dashboard["templating"]["list"]:
        if var["type"] != "query":
            continue
        query = _substitute(var["query"], values)
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", query.strip())
        found: list[str] = []
        if m:
            found = [s["metric"][m.group(2)] for s in prom.query(m.group(1)) if m.group(2) in s["metric"]]
        else:
            m = re.fullmatch(r"query_result\((.*)\)", query.strip())
            assert m, query
            regex = _substitute(var.get("regex") or "", values).strip("/")
            for s in prom.query(m.group(1)):
                text = _series_text(s)
                hit = re.match(regex, text) if regex else None
                if hit:
                    found.append(hit.group(1))
                elif not regex:
                    found.append(text)
        found = sorted(set(found))
        assert found, f"the variable {var['name']} has no value: {query}"
        if var.get("includeAll"):
            values[var["name"]] = var.get("allValue") or "(" + "|".join(re.escape(v) for v in found) + ")"
        else:
            values[var["name"]] = found[0]
    return values


def _produce(bootstrap: str, n: int) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(n):
        p.produce(TOPICS[i % 2], key=str(i).encode(), value=b"v" * 200)
        if i % 500 == 0:
            p.poll(0)
    assert p.flush(30) == 0


def _consume(bootstrap: str, group: str, topic: str, fraction: float) -> None:
    """The group reads ``topic`` and commits ``fraction`` of each partition's records."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    try:
        c.subscribe([topic])
        ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(PARTITIONS)}
        deadline = time.monotonic() + 60
        read = 0
        while read < sum(ends.values()) * fraction and time.monotonic() < deadline:
            read += len(c.consume(500, timeout=1))
        c.commit(offsets=[TopicPartition(topic, p, int(end * fraction)) for p, end in ends.items()],
                 asynchronous=False)
    finally:
        c.close()


def _load(bootstrap: str, replicas: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, PARTITIONS, replicas) for t in TOPICS]).values():
        f.result(30)
    _produce(bootstrap, 4000)
    _consume(bootstrap, "billing", TOPICS[0], 1.0)
    _consume(bootstrap, "audit", TOPICS[1], 0.5)


# Both fixtures are the module's: the loaded broker and cluster, and their Prometheus, are
# made once and shared by the tests that read them (each test only adds records of its own).
@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, PrometheusServer, str]]:
    """A standalone broker under load, scraped."""
    base = tmp_path_factory.mktemp("loaded")
    factory = BrokerFactory(base)
    try:
        http_port, kafka_port = free_ports(2)   # drawn together: never the same port
        broker = factory({"kafpy.http.listeners": f"http://{LOOPBACK}:{http_port}"}, port=kafka_port)
        target = f"{LOOPBACK}:{http_port}"
        prom = PrometheusServer(base / "prometheus", [target], TARGET_LABELS).start()
        try:
            _load(broker.bootstrap, 1)
            yield broker, prom, f"http://{target}/metrics"
        finally:
            prom.stop()
    finally:
        factory.stop_all()


@pytest.fixture(scope="module")
def loaded_zk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, PrometheusServer, str]]:
    """Three brokers in ZooKeeper mode under load (topics replicated on all three), scraped."""
    base = tmp_path_factory.mktemp("loaded-zk")
    zookeeper = ZooKeeperServer(data_dir=base / "zk")
    broker_factory = BrokerFactory(base)
    http_ports: list[int] = []
    kafka_ports: list[int] = []

    def factory(overrides: dict, **kw: Any) -> Any:
        node = overrides["broker.id"]
        return broker_factory({**overrides, "kafpy.http.listeners": f"http://{LOOPBACK}:{http_ports[node]}"},
                              port=kafka_ports[node], **kw)
    try:
        zookeeper.start()
        # every broker port drawn in one call, once ZooKeeper holds its own: a port drawn
        # apart from the others could be drawn again (the HTTP bind then failed, once in CI)
        ports = free_ports(6)
        http_ports[:], kafka_ports[:] = ports[:3], ports[3:]
        brokers = start_cluster(zookeeper, factory, 3)
        prom = PrometheusServer(base / "prometheus", [f"{LOOPBACK}:{p}" for p in http_ports], TARGET_LABELS).start()
        try:
            bootstrap = ",".join(b.bootstrap for b in brokers)
            _load(bootstrap, 3)
            yield NS(bootstrap=bootstrap), prom, f"http://{LOOPBACK}:{http_ports[0]}/metrics"
        finally:
            prom.stop()
    finally:
        broker_factory.stop_all()
        zookeeper.stop()


def _answers(prom: PrometheusServer, expr: str) -> bool:
    return bool(prom.query(expr))


@pytest.mark.parametrize("mode", ["loaded", "loaded_zk"])
@pytest.mark.parametrize("name", ["strimzi-kafka.json", "strimzi-kafka-exporter.json"])
def test_every_broker_panel_of_strimzis_dashboards_has_data(request: pytest.FixtureRequest, mode: str,
                                                            name: str) -> None:
    broker, prom, _url = request.getfixturevalue(mode)
    dashboard = json.loads((DASHBOARDS / name).read_text())
    targets = len(prom.targets)
    wait_value(prom, "sum(up)", lambda v: v == targets, 30, "Prometheus scrapes the brokers")
    # a few more records while scraped: rates and deltas need two samples of moving counters
    for _ in range(3):
        _produce(broker.bootstrap, 200)
        time.sleep(1.5)
    values = _resolve(prom, dashboard)
    assert values.get("kafka_topic", values.get("topic")), values
    queries = _queries(dashboard)
    assert len(queries) >= 16
    empty, checked = [], 0
    deadline = time.monotonic() + 30
    for title, expr in queries:
        if any(k in expr for k in KUBERNETES_METRICS):
            continue
        q = _substitute(expr, values)
        if (name, title) in JVM_EMPTY:
            assert not _answers(prom, q), f"{title} has data now: take it off JVM_EMPTY"
            continue
        checked += 1
        while not _answers(prom, q) and time.monotonic() < deadline:
            time.sleep(1)   # a rate needs a second scrape of its series
        if not _answers(prom, q):
            empty.append(f"{title}: {q}")
    assert not empty, "panels without data:\n" + "\n".join(empty)
    assert checked >= 15


# What promtool still says, each one Kafka's own spelling kept so that PromQL written for the
# JMX exporter works unchanged: Kafka's camelCase tag names (listener's networkProcessor, the
# quota's clientId, share groups' ackType, the purgatories' delayedOperation) and
# socket-server-metrics' connection-count
# (a gauge, whose name ends in _count once the exporter turns "-" into "_").
PROMTOOL_KAFKAS_OWN = (
    re.compile(r"^kafka_server_socket_server_metrics_connection_count non-histogram and non-summary metrics "
               r"should not have \"_count\" suffix$"),
    re.compile(r"^\S+ label names should be written in 'snake_case' not 'camelCase'$"),
)
CAMEL_CASE_LABELS = {"networkProcessor", "clientId", "ackType", "delayedOperation"}


def test_the_scrape_passes_promtool_check_metrics_but_for_kafkas_own_names(loaded: Any) -> None:
    _broker, _prom, url = loaded
    promtool = shutil.which("promtool")
    assert promtool, "promtool comes with Debian's prometheus package (scripts/install-deps.sh)"
    with urllib.request.urlopen(url, timeout=10) as r:
        body = r.read()
    assert b"kafka_cluster_partition_replicascount" in body
    out = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, timeout=60)
    problems = sorted(set((out.stdout + out.stderr).decode().splitlines()))
    unexpected = [p for p in problems if not any(r.match(p) for r in PROMTOOL_KAFKAS_OWN)]
    assert not unexpected, "\n".join(unexpected)
    # the camelCase complaints are about Kafka's tag names and nothing else
    labels = set(re.findall(r'[{,]([A-Za-z_]+)="', body.decode()))
    assert {lb for lb in labels if re.search(r"[a-z][A-Z]", lb)} <= CAMEL_CASE_LABELS


def _scraped(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line and not line.startswith("#")}


def test_a_long_poll_is_remote_time_of_fetch_consumer(loaded: Any) -> None:
    """A consumer caught up waits fetch.wait.max.ms in each Fetch: Kafka counts that wait as
    RemoteTimeMs (the DelayedFetch in purgatory), the rest as LocalTimeMs."""
    broker, _prom, url = loaded
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "idle", "auto.offset.reset": "latest",
                  "fetch.wait.max.ms": 400, "enable.auto.commit": False})
    try:
        c.subscribe([TOPICS[0]])
        before = _scraped(url)['kafka_network_requestmetrics_remotetimems_count{request="FetchConsumer"}']
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            c.poll(0.5)
    finally:
        c.close()
    s = _scraped(url)
    assert s['kafka_network_requestmetrics_remotetimems_count{request="FetchConsumer"}'] > before
    # most recent fetches waited the whole 400 ms (more on a loaded machine), doing little else
    assert 380 <= s['kafka_network_requestmetrics_remotetimems{quantile="0.50",request="FetchConsumer"}'] <= 1000
    assert s['kafka_network_requestmetrics_localtimems{quantile="0.50",request="FetchConsumer"}'] < 50
    assert s['kafka_network_requestmetrics_requestqueuetimems_count{request="FetchConsumer"}'] == \
        s['kafka_network_requestmetrics_totaltimems_count{request="FetchConsumer"}']
    assert s['kafka_network_requestmetrics_remotetimems_count{request="FetchFollower"}'] == 0   # no followers


def test_kafka_exporters_cluster_view_counts_each_partition_once_across_brokers(loaded_zk: Any) -> None:
    """Every broker is scraped, yet the kafka-exporter panels' sums are the cluster's: each
    partition from its leader, the topics' partition counts from the active controller."""
    _brokers, prom, _url = loaded_zk
    wait_value(prom, "sum(up)", lambda v: v == 3, 30, "Prometheus scrapes the three brokers")
    wait_value(prom, 'count(kafka_broker_info)', lambda v: v == 3, 30, "each broker lists itself")
    topics = 'topic=~"orders|payments"'
    wait_value(prom, f"sum(kafka_topic_partitions{{{topics}}})", lambda v: v == 2 * PARTITIONS, 30,
               "the two topics' partitions, counted once")
    wait_value(prom, f"count(kafka_topic_partition_current_offset{{{topics}}})", lambda v: v == 2 * PARTITIONS, 30,
               "one current offset per partition")
    wait_value(prom, f"sum(kafka_topic_partition_replicas{{{topics}}})", lambda v: v == 2 * PARTITIONS * 3, 30,
               "three replicas of each")
    wait_value(prom, f"sum(kafka_topic_partition_current_offset{{{topics}}})", lambda v: v >= 4000, 30,
               "the records produced")
    # Kafka's Partition gauges: the leader's replica count, 0 on the two followers
    wait_value(prom, f"sum(kafka_cluster_partition_replicascount{{{topics}}})", lambda v: v == 2 * PARTITIONS * 3, 30,
               "replicas counted by the leaders only")
    assert prom.value(f"count(kafka_cluster_partition_replicascount{{{topics}}})") == 2 * PARTITIONS * 3
