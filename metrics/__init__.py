"""The broker's metrics, named as Prometheus' JMX exporter names Apache Kafka's MBeans under
Strimzi's rules (``kafka_server_brokertopicmetrics_messagesin_total``, ...), and Kafka's
``kafka.request.logger``.

Two halves with different costs:

- ``request_metrics``: what the socket server records for every request (plain counters and
  a ring of recent times in dicts: no locks, no label lookups on the hot path);
- ``collectors``: everything else, read from the broker's parts when Prometheus scrapes
  (partition counts, log sizes, controller state, consumer lag...), so it costs nothing
  between scrapes; ``broker_view`` names, as protocols, what they read of the broker.

``prometheus_client`` formats the exposition; it is imported only when the HTTP listener is
on (``kafpy.web``).
"""
