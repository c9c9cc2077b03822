"""The scrape of a broker (faked: its parts as plain objects) under Kafka's names, and the
Grafana dashboard asking only for names the broker exports."""
import json
import re
from pathlib import Path
from types import SimpleNamespace as NS
from typing import cast

from prometheus_client import CollectorRegistry, generate_latest

from kafpy.coordinator.group.classic.group import GroupState
from kafpy.coordinator.transaction.state import TxnState
from kafpy.metrics.collectors import KafkaCollector
from kafpy.metrics.observer import RequestObserver
from kafpy.metrics.request_logger import RequestLogger
from kafpy.replication.purgatory import DelayedOperation, DelayedOperationPurgatory

REPO = Path(__file__).resolve().parents[3]


def _partition(leader: bool, isr: tuple, replicas: tuple, min_isr: int = 2) -> NS:
    log = NS(size_in_bytes=lambda: 1234, log_start_offset=0, log_end_offset=40, segments=[1, 2], high_watermark=40)
    return NS(is_leader=leader, isr=isr, assigned_replicas=replicas, effective_min_isr=min_isr, isr_shrinks=2,
              isr_expands=1,
              is_under_min_isr=leader and len(isr) < min_isr, log=log, high_watermark=40)


class _NoTimer:
    def call_later(self, delay: float, callback) -> NS:
        return NS(cancel=lambda: None)


class _Waiting(DelayedOperation):
    def try_complete(self) -> bool:
        return False

    def on_complete(self) -> None:
        pass


def _broker() -> NS:
    parts = {("t", 0): _partition(True, (0, 1, 2), (0, 1, 2)), ("t", 1): _partition(True, (0,), (0, 1, 2)),
             ("t", 2): _partition(False, (), (1, 0, 2))}
    produce = DelayedOperationPurgatory("Produce", _NoTimer())
    produce.try_complete_else_watch(_Waiting(), [("t", 0), ("t", 1)], 30000)
    rm = NS(partitions=parts, offline_partitions={("u", 0)}, get_partition=lambda t, p: parts.get((t, p)),
            produce_purgatory=produce, fetch_purgatory=DelayedOperationPurgatory("Fetch", _NoTimer()))
    topic = NS(partitions={0: NS(leader=0, replicas=[0, 1, 2], isr=[0, 1, 2]), 1: NS(leader=0, replicas=[1, 0, 2], isr=[0]),
                           2: NS(leader=-1, replicas=[1], isr=[])})
    me = NS(node_id=0, host="broker-0", port=9092)
    cache = NS(brokers=lambda: [me], topics=lambda: {"t": topic}, controller_id=0, local_broker=me,
               broker=lambda i: me if i == 0 else None)
    group = NS(state=GroupState.STABLE, offsets={("t", 0): NS(offset=30), ("t", 1): NS(offset=40)}, members={})
    observer = RequestObserver(lambda k: {0: "Produce", 1: "Fetch", 3: "Metadata"}[k], lambda t: None,
                               RequestLogger(lambda: -1))
    observer.requests.record(0, 9, 0.003, 0)
    observer.requests.record(1, 12, 0.5, 6)
    conns = [NS(listener="PLAINTEXT", queue=[1, 2], _writing=lambda: False)]
    server = NS(observer=observer, connections=conns, bound_ports={"PLAINTEXT": 9092},
                acceptor=NS(created=5, closed_count=4, created_by_listener={"PLAINTEXT": 5},
                            closed_by_listener={"PLAINTEXT": 4}))
    cleaner = NS(stats={"cleaned_logs": 2, "bytes_read": 1000, "bytes_written": 250, "last_clean_secs": 1.5,
                        "last_dirty_percent": 62.5}, dead_thread_count=0)
    return NS(metadata_cache=cache, replica_manager=rm, server=server, cluster_controller=None,
              log_manager=NS(cleaner=cleaner),
              apis=NS(version_ranges=lambda: [(0, 0, 11), (1, 4, 17), (3, 0, 12)]),
              group_coordinator=NS(coordinator=NS(groups={"g": group})),
              txn_coordinator=NS(coordinator=NS(txns={"a": NS(state=TxnState.ONGOING), "b": NS(state=TxnState.ONGOING),
                                                      "c": NS(state=TxnState.COMPLETE_COMMIT)})), zk=None)


def _scrape() -> str:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(KafkaCollector(_broker()))
    return generate_latest(registry).decode()


def _samples(text: str) -> dict[str, float]:
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line and not line.startswith("#")}


def test_replica_manager_and_controller_gauges():
    s = _samples(_scrape())
    assert s["kafka_server_replicamanager_partitioncount"] == 3
    assert s["kafka_server_replicamanager_leadercount"] == 2
    assert s["kafka_server_replicamanager_underreplicatedpartitions"] == 1
    assert s["kafka_server_replicamanager_underminisrpartitioncount"] == 1
    assert s["kafka_server_replicamanager_offlinereplicacount"] == 1
    assert s["kafka_server_replicamanager_isrshrinks_total"] == 6
    assert s["kafka_server_replicamanager_isrexpands_total"] == 3
    assert s["kafka_controller_kafkacontroller_activecontrollercount"] == 1
    assert s["kafka_controller_kafkacontroller_offlinepartitionscount"] == 1
    assert s["kafka_controller_kafkacontroller_preferredreplicaimbalancecount"] == 1


def test_request_metrics_carry_request_version_and_error_labels():
    s = _samples(_scrape())
    assert s['kafka_network_requestmetrics_requests_total{request="Produce",version="9"}'] == 1
    assert s['kafka_network_requestmetrics_errors_total{error="NOT_LEADER_OR_FOLLOWER",request="Fetch"}'] == 1
    # the upper bound of 500 ms's log-scale bucket (8 per doubling: within 9%)
    assert 500 <= s['kafka_network_requestmetrics_totaltimems{quantile="0.99",request="Fetch"}'] <= 545
    assert s['kafka_network_requestmetrics_totaltimems_count{request="Produce"}'] == 1
    assert s["kafka_network_requestchannel_requestqueuesize"] == 2
    assert s['kafka_server_socket_server_metrics_connection_count{listener="PLAINTEXT",networkProcessor="0"}'] == 1


def test_logs_groups_and_lag():
    s = _samples(_scrape())
    assert s['kafka_log_log_size{partition="0",topic="t"}'] == 1234
    assert s['kafka_log_log_logendoffset{partition="1",topic="t"}'] == 40
    assert s["kafka_coordinator_group_groupmetadatamanager_numgroupsstable"] == 1
    assert s['kafka_consumergroup_lag{consumergroup="g",partition="0",topic="t"}'] == 10
    assert s['kafka_consumergroup_group_sum_lag{consumergroup="g"}'] == 10
    assert not any(k.startswith("kafka_consumergroup_lag_sum") for k in s)
    assert s['kafka_consumergroup_members{consumergroup="g"}'] == 0
    assert s['kafpy_transaction_coordinator_transactions{state="ONGOING"}'] == 2


def test_the_dashboard_only_asks_for_exported_names():
    exported = {re.split(r"[{ ]", line)[0] for line in _scrape().splitlines() if line and not line.startswith("#")}
    exported |= {re.split(r"[{ ]", key)[0] for key in _controller_scrape()}   # with a controller and ZooKeeper
    exported |= {"up", "process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds",
                 "kafpy_event_loop_lag_seconds", "kafka_network_socketserver_networkprocessoravgidle_percent"}
    dashboard = json.loads((REPO / "monitoring" / "grafana" / "dashboards" / "kafpy-overview.json").read_text())
    wanted = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            wanted |= {n for n in re.findall(r"\b([a-z_]+)\{", target["expr"])}
    assert wanted and wanted <= exported, wanted - exported


def test_every_panel_of_the_dashboard_has_data_in_standalone_mode_too():
    """Standalone (no ZooKeeper, no controller events): each panel keeps a target with data."""
    exported = {re.split(r"[{ ]", line)[0] for line in _scrape().splitlines() if line and not line.startswith("#")}
    exported |= {"up", "process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds",
                 "kafpy_event_loop_lag_seconds", "kafka_network_socketserver_networkprocessoravgidle_percent"}
    dashboard = json.loads((REPO / "monitoring" / "grafana" / "dashboards" / "kafpy-overview.json").read_text())
    empty = [panel["title"] for panel in dashboard["panels"]
             if not any(set(re.findall(r"\b([a-z_]+)\{", t["expr"])) <= exported for t in panel["targets"])]
    assert not empty, empty


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Processor:
    def __init__(self, clock: _Clock) -> None:
        self.clock = clock

    async def process(self, event) -> None:
        self.clock.now += 0.25       # every event takes 250 ms

    def preempt(self, event) -> None:
        pass


def _controller_scrape() -> dict[str, float]:
    """A broker whose controller processed a BrokerChange (queued 2 s) and a TopicChange
    (queued behind it for its 250 ms), with one unclean election and one event still queued."""
    import asyncio

    from kafpy.replication import controller_events as ce
    from kafpy.replication.zk_client import ZooKeeperRequestLatency

    clock = _Clock()
    mgr = ce.ControllerEventManager(1, _Processor(clock), clock)

    async def run() -> None:
        mgr.put(ce.BrokerChange())
        clock.now += 2.0
        last = mgr.put(ce.TopicChange())
        mgr.start()
        await asyncio.wait_for(last.done, 5)
        await mgr.close()
    asyncio.run(run())
    mgr._queue.append(cast(ce.QueuedEvent, object()))   # one event waiting (only counted)
    b = _broker()
    b.cluster_controller = NS(is_active=True, event_manager=mgr, stats=ce.ControllerStats(unclean_leader_elections=1))
    b.zk = NS(kazoo=NS(connected=True), request_latency=ZooKeeperRequestLatency())
    registry = CollectorRegistry(auto_describe=False)
    registry.register(KafkaCollector(b))
    return _samples(generate_latest(registry).decode())


def test_controller_stats_and_event_queue_under_strimzi_names():
    s = _controller_scrape()
    # BrokerChange is Kafka's LeaderElectionRateAndTimeMs timer
    assert s["kafka_controller_controllerstats_leaderelectionrateandtimems_count"] == 1
    assert s['kafka_controller_controllerstats_leaderelectionrateandtimems{quantile="0.99"}'] == 250.0
    assert s["kafka_controller_controllerstats_topicchangerateandtimems_count"] == 1
    assert s["kafka_controller_controllerstats_partitionreassignmentrateandtimems_count"] == 0
    assert s["kafka_controller_controllerstats_uncleanleaderelections_total"] == 1
    assert s["kafka_controller_controllereventmanager_eventqueuetimems_count"] == 2
    assert s['kafka_controller_controllereventmanager_eventqueuetimems{quantile="0.999"}'] == 2000.0
    assert s['kafka_controller_controllereventmanager_eventqueuetimems{quantile="0.50"}'] == 250.0
    assert s["kafka_controller_controllereventmanager_eventqueuesize"] == 1


def _scrape_of(b) -> dict[str, float]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(KafkaCollector(b))
    return _samples(generate_latest(registry).decode())


def test_log_flush_time_counts_real_flushes(tmp_path):
    import asyncio

    from tests.unit.broker.helpers import LocalBroker
    name = "kafka_log_logflushstats_logflushrateandtimems_count"
    before = _scrape_of(_broker())[name]
    loop = asyncio.new_event_loop()
    lb = LocalBroker(str(tmp_path), loop)
    try:
        lb.create_topic("f", 1)
        lb.append("f", 0, [b"a", b"b"])
        lb.replica_manager.get_partition("f", 0).log.flush()
        lb.replica_manager.get_partition("f", 0).log.flush()    # nothing new: no fsync, not counted
    finally:
        lb.close()
        loop.close()
    s = _scrape_of(_broker())
    assert s[name] == before + 1
    assert s['kafka_log_logflushstats_logflushrateandtimems{quantile="0.50"}'] >= 0.0


def test_zookeeper_request_latency_percentiles():
    import time

    from kafpy.replication.zk_client import ZooKeeperRequestLatency
    latency = ZooKeeperRequestLatency()
    for _ in range(3):
        latency.record(time.perf_counter() - 0.004)     # requests of ~4 ms
    b = _broker()
    b.zk = NS(kazoo=NS(connected=True), request_latency=latency)
    s = _scrape_of(b)
    assert s["kafka_server_sessionexpirelistener_sessionstate_connected"] == 1
    assert s["kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count"] == 3
    assert 4.0 <= s['kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms{quantile="0.99"}'] < 1000.0


def test_share_group_metrics_under_kafka_names():
    from kafpy.broker.share.share_metrics import ShareGroupMetrics
    metrics = ShareGroupMetrics()
    metrics.record_acknowledgements([1, 1, 0, 3])
    metrics.partition_load.record(12.0)
    b = _broker()
    b.services = NS(share_partitions=NS(metrics=metrics,
                                        partitions={("sg", "t", 0): NS(in_flight_count=lambda: 7)}))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(KafkaCollector(b))
    s = _samples(generate_latest(registry).decode())
    assert s['kafka_server_sharegroupmetrics_recordacknowledgements_total{ackType="Accept"}'] == 2
    assert s['kafka_server_sharegroupmetrics_recordacknowledgements_total{ackType="Reject"}'] == 1
    assert s['kafka_server_sharegroupmetrics_recordacknowledgements_total{ackType="Release"}'] == 0
    assert s["kafka_server_sharegroupmetrics_partitionloadtimems_count"] == 1
    assert s['kafka_server_sharepartitionmetrics_inflightmessagecount{group="sg",partition="0",topic="t"}'] == 7


def test_partition_gauges_of_leaders_and_zero_on_followers():
    s = _samples(_scrape())
    # t-0: full ISR of 3 (min ISR 2); t-1: ISR of 1 (under min ISR); t-2: a follower
    assert s['kafka_cluster_partition_replicascount{partition="0",topic="t"}'] == 3
    assert s['kafka_cluster_partition_insyncreplicascount{partition="1",topic="t"}'] == 1
    assert s['kafka_cluster_partition_underminisr{partition="1",topic="t"}'] == 1
    assert s['kafka_cluster_partition_underminisr{partition="0",topic="t"}'] == 0
    assert s['kafka_cluster_partition_atminisr{partition="0",topic="t"}'] == 0
    assert s['kafka_cluster_partition_underreplicated{partition="1",topic="t"}'] == 1
    for n in ("replicascount", "insyncreplicascount", "underminisr", "atminisr", "underreplicated"):
        assert s[f'kafka_cluster_partition_{n}{{partition="2",topic="t"}}'] == 0


def test_kafka_exporter_names_for_led_partitions_and_this_broker():
    s = _samples(_scrape())
    assert s['kafka_broker_info{address="broker-0:9092",id="0"}'] == 1
    assert s['kafka_topic_partitions{topic="t"}'] == 3
    assert s['kafka_topic_partition_current_offset{partition="0",topic="t"}'] == 40
    assert s['kafka_topic_partition_oldest_offset{partition="0",topic="t"}'] == 0
    assert s['kafka_topic_partition_replicas{partition="1",topic="t"}'] == 3
    assert s['kafka_topic_partition_in_sync_replica{partition="1",topic="t"}'] == 1
    assert s['kafka_topic_partition_under_replicated_partition{partition="1",topic="t"}'] == 1
    assert s['kafka_topic_partition_under_replicated_partition{partition="0",topic="t"}'] == 0
    assert s['kafka_topic_partition_leader_is_preferred{partition="0",topic="t"}'] == 1
    # the follower's partition is its leader's to report
    assert 'kafka_topic_partition_current_offset{partition="2",topic="t"}' not in s


def test_unclean_elections_counted_at_zero_in_standalone_mode():
    s = _samples(_scrape())
    assert s["kafka_controller_controllerstats_uncleanleaderelections_total"] == 0


def test_every_served_api_and_fetch_kind_is_timed_from_zero_in_every_stage():
    s = _samples(_scrape())
    for request in ("Produce", "Fetch", "Metadata", "FetchConsumer", "FetchFollower"):
        for stage in ("totaltimems", "requestqueuetimems", "localtimems", "remotetimems", "throttletimems",
                      "responsequeuetimems", "responsesendtimems"):
            assert f'kafka_network_requestmetrics_{stage}_count{{request="{request}"}}' in s, (request, stage)
            assert f'kafka_network_requestmetrics_{stage}{{quantile="0.99",request="{request}"}}' in s
    assert s['kafka_network_requestmetrics_totaltimems_count{request="Metadata"}'] == 0
    assert s['kafka_network_requestmetrics_requestqueuetimems_count{request="Produce"}'] == 1
    assert s['kafka_network_requestmetrics_requestqueuetimems{quantile="0.99",request="Produce"}'] == 0
    assert s['kafka_network_requestmetrics_remotetimems_sum{request="Fetch"}'] == 0
    assert s['kafka_network_requestmetrics_localtimems_count{request="Produce"}'] == 1
    assert 500 <= s['kafka_network_requestmetrics_localtimems{quantile="0.99",request="Fetch"}'] <= 545


def test_timers_are_summaries_not_gauges_with_quantiles():
    text = _scrape()
    assert "# TYPE kafka_network_requestmetrics_totaltimems summary" in text
    assert "# TYPE kafka_log_logflushstats_logflushrateandtimems summary" in text
    assert not re.search(r"# TYPE \S+ gauge\n(\S+\{[^}]*quantile=)", text)


def test_purgatory_cleaner_and_per_listener_connection_metrics_under_kafka_names():
    s = _samples(_scrape())
    assert s['kafka_server_delayedoperationpurgatory_purgatorysize{delayedOperation="Produce"}'] == 2
    assert s['kafka_server_delayedoperationpurgatory_numdelayedoperations{delayedOperation="Produce"}'] == 1
    assert s['kafka_server_delayedoperationpurgatory_numdelayedoperations{delayedOperation="Fetch"}'] == 0
    assert s["kafka_log_logcleaner_cleaner_recopy_percent"] == 25.0
    assert s["kafka_log_logcleaner_deadthreadcount"] == 0
    assert s["kafka_log_logcleaner_max_clean_time_secs"] == 1.5
    assert s["kafka_log_logcleanermanager_max_dirty_percent"] == 62.5
    assert s['kafka_server_socket_server_metrics_connection_creation_total{listener="PLAINTEXT",networkProcessor="0"}'] == 5
    assert s['kafka_server_socket_server_metrics_connection_close_total{listener="PLAINTEXT",networkProcessor="0"}'] == 4


def test_histogram_counts_also_as_the_jmx_exporter_1x_counters():
    text = _scrape()
    s = _samples(text)
    assert s['kafka_network_requestmetrics_totaltimems_count_total{request="Produce"}'] == 1
    assert s['kafka_network_requestmetrics_remotetimems_count_total{request="FetchConsumer"}'] == 0
    assert s["kafka_log_logflushstats_logflushrateandtimems_count_total"] == \
        s["kafka_log_logflushstats_logflushrateandtimems_count"]
    assert "# TYPE kafka_network_requestmetrics_totaltimems_count_total counter" in text
