"""``GET /metrics``: the broker's metrics in Prometheus' text format (``metrics.collectors``
for Kafka's names, ``prometheus_client``'s process collector for RSS, CPU and open
descriptors, ``metrics.process_metrics`` for disk bytes, GC and threads under the names
Strimzi's dashboard asks for, and the event loop's lag).

Who may call it: the broker mounts it on its HTTP server when the listener is on.
"""
from __future__ import annotations

import asyncio
from typing import Iterator

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import Metric

from kafpy.metrics.broker_view import BrokerView
from kafpy.metrics.collectors import KafkaCollector
from kafpy.metrics.event_loop import EventLoopLagProbe, LoopIdleRatio
from kafpy.metrics.process_metrics import GcTimer, RuntimeCollector


class _LoopLagCollector:
    def __init__(self, probe: EventLoopLagProbe) -> None:
        self.probe = probe
        self.idle = LoopIdleRatio()

    def describe(self) -> list:
        return []

    def collect(self) -> Iterator[Metric]:
        m = Metric("kafpy_event_loop_lag_seconds", "Largest event-loop lag since the previous scrape", "gauge")
        m.add_sample("kafpy_event_loop_lag_seconds", {}, self.probe.read())
        yield m
        c = Metric("kafpy_event_loop_slow", "Event-loop probes that ran over 100 ms late", "counter")
        c.add_sample("kafpy_event_loop_slow_total", {}, self.probe.slow_probes)
        yield c
        idle = self.idle.read()   # scrapes run on the loop's thread
        for name, mbean in (("kafka_network_socketserver_networkprocessoravgidle_percent",
                             "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent"),
                            ("kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent",
                             "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent")):
            m = Metric(name, f"{mbean} (the event loop's idle share since the previous scrape)", "gauge")
            m.add_sample(name, {}, idle)
            yield m


class MetricsEndpoint:
    """Keeps the registry of one broker's collectors and the loop-lag probe."""

    def __init__(self, broker: BrokerView, loop: asyncio.AbstractEventLoop) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(KafkaCollector(broker))
        self.registry.register(ProcessCollector(registry=None))
        self.registry.register(RuntimeCollector(GcTimer.shared()))
        self.probe = EventLoopLagProbe(loop)
        self.registry.register(_LoopLagCollector(self.probe))

    def routes(self) -> list:
        return [("GET", "/metrics", self.handle)]

    def start(self) -> None:
        self.probe.start()

    def stop(self) -> None:
        self.probe.stop()

    def render(self) -> bytes:
        return generate_latest(self.registry)

    async def handle(self, request: web.Request) -> web.Response:
        body = self.render()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
