"""The Prometheus collector of a broker: every metric read when scraped, under Kafka's names
(``metrics.names``).

Who may call it: ``prometheus_client``'s registry, on the event loop thread (the HTTP
listener serves on the broker's loop), so the broker's state is read between two of its
callbacks and never half changed. It keeps nothing but the broker; each scrape's work is
bounded by the number of partitions, groups and connections.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from prometheus_client.core import Metric

from kafpy.metrics.lag import consumer_lag, local_end_offset
from kafpy.metrics.names import gauge_name, histogram_names, meter_name
from kafpy.metrics.partition_metrics import (exporter_broker_info, exporter_partition_metrics,
                                             exporter_topic_partitions, partition_gauges)
from kafpy.metrics.request_metrics import QUANTILES, REQUEST_LABELS, TOPIC_METERS, sample_percentiles
from kafpy.storage.log_flush_stats import LOG_FLUSH_STATS

if TYPE_CHECKING:
    from kafpy.coordinator.group.classic.coordinator import GroupCoordinator
    from kafpy.coordinator.transaction.service import TransactionCoordinatorService
    from kafpy.metrics.broker_view import BrokerView, SharePartitionsView, SocketServerView, TimerStats
    from kafpy.metrics.request_metrics import BrokerTopicStats, RequestMetrics, TimeHistogram
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.replica_manager import ReplicaManager
    from kafpy.storage.cleaner import LogCleaner


def _gauge(name: str, doc: str, value: float | None = None, labels: dict[str, str] | None = None) -> Metric:
    m = Metric(name, doc, "gauge")
    if value is not None:
        m.add_sample(name, labels or {}, value)
    return m


def _counter(name: str, doc: str) -> Metric:
    """A counter whose samples are named ``name`` (ending in _total, as the JMX exporter's
    rule names it)."""
    base = name[:-len("_total")] if name.endswith("_total") else name
    return Metric(base, doc, "counter")


def _timer(mbean: tuple[str, str, str], stats: TimerStats | None) -> Iterator[Metric]:
    """A Kafka timer or histogram kept as a ``TimeStats`` (count, total, recent values; None:
    never observed): its percentiles and its count under the JMX exporter's names, typed as
    the summary they are (a gauge may not carry ``quantile``: promtool check metrics)."""
    domain, type_, name = mbean
    pname, cname = histogram_names(domain, type_, name)
    where = f"kafka.{domain}:type={type_},name={name}"
    m = Metric(pname, f"{where} (ms)", "summary")
    # an empty histogram reports 0 for every percentile, as Kafka's (Yammer's) do
    values = sample_percentiles(stats.recent) if stats is not None else []
    for q, v in values or [(label, 0.0) for _, label in QUANTILES]:
        m.add_sample(pname, {"quantile": q}, v)
    m.add_sample(cname, {}, stats.count if stats is not None else 0)
    total_ms = getattr(stats, "total_ms", None) if stats is not None else 0.0
    if total_ms is not None:   # LogFlushStats keeps no total
        m.add_sample(pname + "_sum", {}, total_ms)
    yield m
    c = _count_counter(cname, where)
    c.add_sample(cname + "_total", {}, stats.count if stats is not None else 0)
    yield c


def _count_counter(cname: str, where: str) -> Metric:
    """A histogram's count again as the counter the JMX exporter 1.x writes under Strimzi's
    rules (``type: COUNTER`` named ``..._count``: client_java appends ``_total``, so
    ``kafka_network_requestmetrics_totaltimems_count_total``), beside the summary's ``_count``
    that PromQL written for exporter 0.x reads."""
    return Metric(cname, f"{where} count (as the JMX exporter 1.x names it)", "counter")


class KafkaCollector:
    """Reads ``broker`` (a ``kafpy.broker.broker.Broker``): its config, metadata cache,
    replica manager, controller, coordinators, socket server and request observer."""

    def __init__(self, broker: BrokerView) -> None:
        self.broker = broker

    def describe(self) -> list:
        return []   # collected only when scraped

    def collect(self) -> Iterator[Metric]:
        b = self.broker
        if b.metadata_cache is None or b.replica_manager is None:
            return
        server = b.server
        observer = server.observer if server is not None else None
        if observer is not None:
            yield from self._topic_metrics(observer.topics)
            apis = getattr(b, "apis", None)
            served = [key for key, _, _ in apis.version_ranges()] if apis is not None else []
            yield from self._request_metrics(observer.requests, observer.names, served)
        if server is not None:
            yield from self._socket_server(server)
        yield from self._replica_manager(b.replica_manager)
        yield from self._controller(b)
        yield from self._logs(b.replica_manager)
        yield from self._exporter(b)
        yield from self._purgatories(b.replica_manager)
        yield from self._log_cleaner(getattr(getattr(b, "log_manager", None), "cleaner", None))
        if b.group_coordinator is not None:
            yield from self._groups(b.group_coordinator.coordinator, b.replica_manager)
        if b.txn_coordinator is not None:
            yield from self._transactions(b.txn_coordinator)
        share_partitions = getattr(getattr(b, "services", None), "share_partitions", None)
        if share_partitions is not None:
            yield from self._share_groups(share_partitions)
        yield from self._zookeeper(b)
        yield from _timer(("log", "LogFlushStats", "LogFlushRateAndTimeMs"), LOG_FLUSH_STATS)

    # ---------------------------------------------------------------- per request
    def _topic_metrics(self, topics: BrokerTopicStats) -> Iterator[Metric]:
        for attr, mbean in TOPIC_METERS:
            name = meter_name("server", "BrokerTopicMetrics", mbean)
            m = _counter(name, f"kafka.server:type=BrokerTopicMetrics,name={mbean}")
            m.add_sample(name, {}, getattr(topics.total, attr))
            for topic, c in list(topics.topics.items()):
                m.add_sample(name, {"topic": topic}, getattr(c, attr))
            yield m

    def _request_metrics(self, requests: RequestMetrics, names: Callable[[int], str], served: list[int]
                         ) -> Iterator[Metric]:
        from kafpy.protocol.errors import ErrorCode

        def label(api: int) -> str:
            return REQUEST_LABELS.get(api) or names(api)
        name = meter_name("network", "RequestMetrics", "RequestsPerSec")
        m = _counter(name, "kafka.network:type=RequestMetrics,name=RequestsPerSec")
        for (api, version), n in sorted(requests.requests.items()):
            m.add_sample(name, {"request": label(api), "version": str(version)}, n)
        yield m
        name = meter_name("network", "RequestMetrics", "ErrorsPerSec")
        m = _counter(name, "kafka.network:type=RequestMetrics,name=ErrorsPerSec")
        for (api, code), n in sorted(requests.errors.items()):
            try:
                error = ErrorCode(code).name
            except ValueError:
                error = str(code)
            m.add_sample(name, {"request": label(api), "error": error}, n)
        yield m
        # every API the broker serves (and FetchConsumer, FetchFollower) from the start, at 0,
        # as Kafka registers its request histograms: a rate over them is 0, not empty
        stats = {api: requests.api(api) for api in sorted({*served, *REQUEST_LABELS, *requests.apis})}
        timers: dict[str, list[tuple[int, int, TimeHistogram | None]]] = {
            "TotalTimeMs": [(api, s.total_time.count, s.total_time) for api, s in stats.items()]}
        for api, s in stats.items():
            for stage, h in s.stage_times():
                timers.setdefault(stage, []).append((api, s.total_time.count, h))
        zeros = [(q, 0.0) for _, q in QUANTILES]
        seen: dict[int, list[tuple[str, float]]] = {}   # a histogram's percentiles, once per scrape
        for mbean, hists in timers.items():
            pname, cname = histogram_names("network", "RequestMetrics", mbean)
            where = f"kafka.network:type=RequestMetrics,name={mbean},request=*"
            m = Metric(pname, f"{where} (ms)", "summary")
            c = _count_counter(cname, where)
            for api, count, h in hists:
                request = label(api)
                if h is None:   # 0 for every request so far
                    values, total_ms = zeros, 0.0
                else:
                    values = seen.get(id(h)) or seen.setdefault(id(h), h.percentiles() or zeros)
                    total_ms = h.sum
                for q, v in values:
                    m.add_sample(pname, {"request": request, "quantile": q}, v)
                m.add_sample(cname, {"request": request}, count)
                c.add_sample(cname + "_total", {"request": request}, count)
                m.add_sample(pname + "_sum", {"request": request}, total_ms)
            yield m
            yield c
        throttle = _gauge("kafka_server_quota_throttle_time",
                          "kafka.server:type={Produce,Fetch,Request},user=*,client-id=* throttle-time (ms, average "
                          "over the throttled responses since the previous scrape)")
        for (resource, user, client), avg in sorted(requests.take_throttle().items()):
            throttle.add_sample(throttle.name, {"resource": resource, "user": user, "clientId": client}, avg)
        yield throttle

    # ---------------------------------------------------------------- socket server
    def _socket_server(self, server: SocketServerView) -> Iterator[Metric]:
        per_listener: dict[str, int] = {}
        queued = 0
        for c in list(server.connections):
            per_listener[c.listener] = per_listener.get(c.listener, 0) + 1
            queued += len(c.queue)
        name = "kafka_server_socket_server_metrics_connection_count"
        m = _gauge(name, "kafka.server:type=socket-server-metrics,listener=*,networkProcessor=*,connection-count")
        for li in server.bound_ports:
            m.add_sample(name, {"listener": li, "networkProcessor": "0"}, per_listener.get(li, 0))
        yield m
        acc = server.acceptor
        # per listener and network processor as Kafka keys them (one processor: the event loop)
        for attr, suffix, what in (("created_by_listener", "connection_creation_total", "connection-creation-total"),
                                   ("closed_by_listener", "connection_close_total", "connection-close-total")):
            name = "kafka_server_socket_server_metrics_" + suffix
            m = _counter(name, f"kafka.server:type=socket-server-metrics,listener=*,networkProcessor=*,{what}")
            counts = getattr(acc, attr, {})
            for li in sorted({*server.bound_ports, *counts}):
                m.add_sample(name, {"listener": li, "networkProcessor": "0"}, counts.get(li, 0))
            yield m
        yield _gauge(gauge_name("network", "RequestChannel", "RequestQueueSize"),
                     "kafka.network:type=RequestChannel,name=RequestQueueSize (requests read, not yet answered)", queued)
        yield _gauge(gauge_name("network", "RequestChannel", "ResponseQueueSize"),
                     "kafka.network:type=RequestChannel,name=ResponseQueueSize",
                     sum(1 for c in list(server.connections) if c._writing()))

    # ---------------------------------------------------------------- replica manager
    def _replica_manager(self, rm: ReplicaManager) -> Iterator[Metric]:
        partitions = list(rm.partitions.values())
        leaders = [p for p in partitions if p.is_leader]
        under = sum(1 for p in leaders if len(p.isr) < len(p.assigned_replicas))
        under_min = sum(1 for p in leaders if p.is_under_min_isr)
        at_min = sum(1 for p in leaders if len(p.isr) == p.effective_min_isr)
        values = (("PartitionCount", len(partitions)), ("LeaderCount", len(leaders)),
                  ("UnderReplicatedPartitions", under), ("UnderMinIsrPartitionCount", under_min),
                  ("AtMinIsrPartitionCount", at_min), ("OfflineReplicaCount", len(rm.offline_partitions)))
        for mbean, v in values:
            yield _gauge(gauge_name("server", "ReplicaManager", mbean), f"kafka.server:type=ReplicaManager,name={mbean}", v)
        # counted by the partitions hosted now: a partition no longer hosted takes its count along
        for attr, mbean in (("isr_shrinks", "IsrShrinksPerSec"), ("isr_expands", "IsrExpandsPerSec")):
            name = meter_name("server", "ReplicaManager", mbean)
            m = _counter(name, f"kafka.server:type=ReplicaManager,name={mbean}")
            m.add_sample(name, {}, sum(getattr(p, attr, 0) for p in partitions))
            yield m

    # ---------------------------------------------------------------- controller
    def _controller(self, b: BrokerView) -> Iterator[Metric]:
        cache = b.metadata_cache
        assert cache is not None, "collect() reads nothing before the metadata cache exists"
        cc = b.cluster_controller
        active = (cc.is_active if cc is not None else True)   # standalone: this broker is the controller
        live = {br.node_id for br in cache.brokers()}
        topics = list(cache.topics().values())
        offline = imbalance = partitions = 0
        if active:
            for t in topics:
                for p in t.partitions.values():
                    partitions += 1
                    if p.leader < 0 or p.leader not in live:
                        offline += 1
                    elif p.replicas and p.leader != p.replicas[0]:
                        imbalance += 1
        values = (("ActiveControllerCount", 1 if active else 0), ("OfflinePartitionsCount", offline),
                  ("PreferredReplicaImbalanceCount", imbalance),
                  ("GlobalTopicCount", len(topics) if active else 0), ("GlobalPartitionCount", partitions),
                  ("ActiveBrokerCount", len(live) if active else 0))
        for mbean, v in values:
            yield _gauge(gauge_name("controller", "KafkaController", mbean),
                         f"kafka.controller:type=KafkaController,name={mbean}", v)
        if cc is not None:
            yield from self._controller_stats(cc)
        else:
            # standalone: the one broker leads every partition from its creation, so no
            # leader election ever runs and none is unclean: both counted at 0
            yield from _timer(("controller", "ControllerStats", "LeaderElectionRateAndTimeMs"), None)
            name = meter_name("controller", "ControllerStats", "UncleanLeaderElectionsPerSec")
            m = _counter(name, "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec")
            m.add_sample(name, {}, 0)
            yield m

    def _controller_stats(self, cc: KafkaController) -> Iterator[Metric]:
        """ControllerStats (a RateAndTimeMs timer per controller state, LeaderElection for
        broker changes; unclean elections) and the ControllerEventManager's queue; every
        broker has them, as in Kafka (counts stay 0 where no controller ran)."""
        from kafpy.replication.controller_events import ControllerState
        events = cc.event_manager
        for state in ControllerState:
            mbean = state.rate_and_time_metric_name
            if mbean is None:
                continue
            yield from _timer(("controller", "ControllerStats", mbean), events.rate_and_time.get(state))
        name = meter_name("controller", "ControllerStats", "UncleanLeaderElectionsPerSec")
        m = _counter(name, "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec")
        m.add_sample(name, {}, cc.stats.unclean_leader_elections)
        yield m
        yield from _timer(("controller", "ControllerEventManager", "EventQueueTimeMs"), events.event_queue_time)
        yield _gauge(gauge_name("controller", "ControllerEventManager", "EventQueueSize"),
                     "kafka.controller:type=ControllerEventManager,name=EventQueueSize", events.queue_size)

    # ---------------------------------------------------------------- logs
    def _logs(self, rm: ReplicaManager) -> Iterator[Metric]:
        gauges = {mbean: _gauge(gauge_name("log", "Log", mbean), f"kafka.log:type=Log,name={mbean},topic=*,partition=*")
                  for mbean in ("Size", "LogStartOffset", "LogEndOffset", "NumLogSegments")}
        for (topic, index), p in list(rm.partitions.items()):
            lg = p.log
            if lg is None:
                continue
            labels = {"topic": topic, "partition": str(index)}
            try:
                values = (("Size", lg.size_in_bytes()), ("LogStartOffset", lg.log_start_offset),
                          ("LogEndOffset", lg.log_end_offset), ("NumLogSegments", len(lg.segments)))
            except Exception:  # noqa: BLE001 - a deleted partition
                continue
            for mbean, v in values:
                m = gauges[mbean]
                m.add_sample(m.name, labels, v)
        yield from gauges.values()
        yield from partition_gauges(list(rm.partitions.items()))

    # ---------------------------------------------------------------- purgatories, cleaner
    def _purgatories(self, rm: ReplicaManager) -> Iterator[Metric]:
        """kafka.server:type=DelayedOperationPurgatory,name={PurgatorySize,NumDelayedOperations},
        delayedOperation={Produce,Fetch}."""
        purgatories = [(p.name, p) for p in (getattr(rm, "produce_purgatory", None), getattr(rm, "fetch_purgatory", None))
                       if p is not None]
        for mbean, read in (("PurgatorySize", "size"), ("NumDelayedOperations", "delayed")):
            name = gauge_name("server", "DelayedOperationPurgatory", mbean)
            m = _gauge(name, f"kafka.server:type=DelayedOperationPurgatory,name={mbean},delayedOperation=*")
            for op, p in purgatories:
                m.add_sample(name, {"delayedOperation": op}, getattr(p, read)())
            yield m

    def _log_cleaner(self, cleaner: LogCleaner | None) -> Iterator[Metric]:
        """kafka.log:type=LogCleaner: cleaner-recopy-percent (bytes written over bytes read,
        over every cleaning since start; Kafka's covers the last one), DeadThreadCount,
        max-clean-time-secs; LogCleanerManager's max-dirty-percent."""
        if cleaner is None:
            return
        stats = cleaner.stats
        read = stats.get("bytes_read", 0)
        yield _gauge(gauge_name("log", "LogCleaner", "cleaner-recopy-percent"),
                     "kafka.log:type=LogCleaner,name=cleaner-recopy-percent (since start)",
                     100.0 * stats.get("bytes_written", 0) / read if read else 0.0)
        yield _gauge(gauge_name("log", "LogCleaner", "DeadThreadCount"), "kafka.log:type=LogCleaner,name=DeadThreadCount",
                     cleaner.dead_thread_count)
        yield _gauge(gauge_name("log", "LogCleaner", "max-clean-time-secs"),
                     "kafka.log:type=LogCleaner,name=max-clean-time-secs (the last cleaning)",
                     stats.get("last_clean_secs", 0.0))
        yield _gauge(gauge_name("log", "LogCleanerManager", "max-dirty-percent"),
                     "kafka.log:type=LogCleanerManager,name=max-dirty-percent (the dirtiest log at the last choice)",
                     stats.get("last_dirty_percent", 0.0))

    # ---------------------------------------------------------------- kafka-exporter's names
    def _exporter(self, b: BrokerView) -> Iterator[Metric]:
        """kafka-exporter's broker, topic and partition names (``metrics.partition_metrics``
        says which broker reports what)."""
        rm = b.replica_manager
        cache = b.metadata_cache
        assert rm is not None and cache is not None, "collect() reads nothing before they exist"
        local = cache.broker(cache.local_broker.node_id) or cache.local_broker   # with the port bound
        yield exporter_broker_info(local.node_id, local.host, local.port)
        led = [(key, p) for key, p in list(rm.partitions.items()) if p.is_leader and p.log is not None]
        starts = {}
        for key, p in led:
            try:
                starts[key] = p.log.log_start_offset
            except (OSError, ValueError, AttributeError):   # a log closed under us (a deleted partition)
                continue
        yield from exporter_partition_metrics(led, starts, local.node_id)
        cc = b.cluster_controller
        if cc is None or cc.is_active:
            yield exporter_topic_partitions({name: len(t.partitions) for name, t in cache.topics().items()})

    # ---------------------------------------------------------------- coordinators
    def _groups(self, coordinator: GroupCoordinator, rm: ReplicaManager) -> Iterator[Metric]:
        from kafpy.coordinator.group.classic.group import GroupState
        groups = coordinator.groups
        states = {s: 0 for s in GroupState}
        offsets = 0
        for g in list(groups.values()):
            states[g.state] += 1
            offsets += len(g.offsets)
        base = ("coordinator.group", "GroupMetadataManager")
        yield _gauge(gauge_name(*base, "NumGroups"), "kafka.coordinator.group:type=GroupMetadataManager,name=NumGroups",
                     sum(n for s, n in states.items() if s is not GroupState.DEAD))
        for s, n in states.items():
            mbean = "NumGroups" + s.value
            yield _gauge(gauge_name(*base, mbean), f"kafka.coordinator.group:type=GroupMetadataManager,name={mbean}", n)
        yield _gauge(gauge_name(*base, "NumOffsets"), "kafka.coordinator.group:type=GroupMetadataManager,name=NumOffsets",
                     offsets)
        lag = _gauge("kafka_consumergroup_lag", "Consumer group lag per partition (high watermark - committed offset)")
        current = _gauge("kafka_consumergroup_current_offset", "Consumer group committed offset per partition")
        sums: dict[str, int] = {}
        for pl in consumer_lag(groups, local_end_offset(rm)):
            labels = {"consumergroup": pl.group, "topic": pl.topic, "partition": str(pl.partition)}
            lag.add_sample(lag.name, labels, pl.lag)
            current.add_sample(current.name, labels, pl.committed)
            sums[pl.group] = sums.get(pl.group, 0) + pl.lag
        yield lag
        yield current
        # kafka-exporter's kafka_consumergroup_lag_sum is a gauge ending in _sum, which
        # Prometheus reserves for summaries and histograms (promtool check metrics); the
        # name is kafka-lag-exporter's instead
        total = _gauge("kafka_consumergroup_group_sum_lag", "Consumer group lag summed over its partitions")
        for group_id, n in sums.items():
            total.add_sample(total.name, {"consumergroup": group_id}, n)
        yield total
        members = _gauge("kafka_consumergroup_members", "Amount of members in a consumer group")
        for gid, g in list(groups.items()):
            members.add_sample(members.name, {"consumergroup": gid}, len(getattr(g, "members", ())))
        yield members

    def _transactions(self, service: TransactionCoordinatorService) -> Iterator[Metric]:
        """Transactional ids this broker coordinates, by state. Kafka has no MBean for this
        (its transaction coordinator exports only marker queue sizes), so the name is
        kafpy's own."""
        txns = service.coordinator.txns
        states: dict[str, int] = {}
        for t in list(txns.values()):
            states[t.state.name] = states.get(t.state.name, 0) + 1
        m = _gauge("kafpy_transaction_coordinator_transactions", "Transactional ids coordinated here, by state")
        for state, n in sorted(states.items()):
            m.add_sample(m.name, {"state": state}, n)
        yield m

    def _share_groups(self, mgr: SharePartitionsView) -> Iterator[Metric]:
        """Kafka 4.4's ShareGroupMetrics and SharePartitionMetrics (in-flight records of
        each share partition this broker leads)."""
        name = meter_name("server", "ShareGroupMetrics", "RecordAcknowledgementsPerSec")
        m = _counter(name, "kafka.server:type=ShareGroupMetrics,name=RecordAcknowledgementsPerSec")
        for ack_type, n in mgr.metrics.acknowledgements.items():
            m.add_sample(name, {"ackType": ack_type}, n)
        yield m
        yield from _timer(("server", "ShareGroupMetrics", "PartitionLoadTimeMs"), mgr.metrics.partition_load)
        name = gauge_name("server", "SharePartitionMetrics", "InFlightMessageCount")
        g = _gauge(name, "kafka.server:type=SharePartitionMetrics,name=InFlightMessageCount")
        for (group, topic, partition), sp in list(mgr.partitions.items()):
            g.add_sample(name, {"group": group, "topic": topic, "partition": str(partition)}, sp.in_flight_count())
        yield g

    # ---------------------------------------------------------------- ZooKeeper
    def _zookeeper(self, b: BrokerView) -> Iterator[Metric]:
        zk = b.zk
        if zk is None:
            return
        connected = 1 if zk.kazoo.connected else 0
        yield _gauge("kafka_server_sessionexpirelistener_sessionstate_connected",
                     "1 while the ZooKeeper session is connected (kafka.server:type=SessionExpireListener,name=SessionState)",
                     connected)
        yield from _timer(("server", "ZooKeeperClientMetrics", "ZooKeeperRequestLatencyMs"), zk.request_latency)
