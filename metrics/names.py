"""Prometheus names of Kafka's MBeans as the JMX exporter gives them under Strimzi's rules
(``examples/metrics/kafka-metrics.yaml``: ``lowercaseOutputName: true``):

- a meter ``kafka.<domain><type=T, name=NPerSec, k=v...><>Count`` becomes the counter
  ``kafka_<domain>_<t>_<n>_total{k="v"}``;
- a gauge ``...<type=T, name=N, k=v><>Value`` becomes ``kafka_<domain>_<t>_<n>{k="v"}``;
- a histogram or timer ``...<type=T, name=N, k=v><>Count`` becomes
  ``kafka_<domain>_<t>_<n>_count``, and its ``<p>thPercentile`` attributes the gauge
  ``kafka_<domain>_<t>_<n>{quantile="0.<p>"}``;
- characters a Prometheus name cannot hold (the dots of ``kafka.coordinator.group``, the
  dashes of ``socket-server-metrics``) become underscores.
"""
from __future__ import annotations

import re

_INVALID = re.compile(r"[^a-zA-Z0-9_]")


def _sanitize(s: str) -> str:
    return _INVALID.sub("_", s).lower()


def gauge_name(domain: str, type_: str, name: str) -> str:
    """``kafka.server<type=ReplicaManager, name=UnderReplicatedPartitions>`` ->
    ``kafka_server_replicamanager_underreplicatedpartitions``."""
    return _sanitize(f"kafka_{domain}_{type_}_{name}")


def meter_name(domain: str, type_: str, name: str) -> str:
    """``kafka.server<type=BrokerTopicMetrics, name=MessagesInPerSec>`` ->
    ``kafka_server_brokertopicmetrics_messagesin_total``."""
    if name.endswith("PerSec"):
        name = name[:-len("PerSec")]
    return _sanitize(f"kafka_{domain}_{type_}_{name}") + "_total"


def histogram_names(domain: str, type_: str, name: str) -> tuple[str, str]:
    """(percentile gauge, count) of a histogram: ``kafka_network_requestmetrics_totaltimems``
    and ``kafka_network_requestmetrics_totaltimems_count``."""
    base = _sanitize(f"kafka_{domain}_{type_}_{name}")
    return base, base + "_count"
