"""What TLS and SASL cost: produce and consume MB/s over PLAINTEXT, SSL and SASL_SSL (PLAIN),
for kafpy and for Apache Kafka with the same listener types, driven by Apache's
``kafka-producer-perf-test`` / ``kafka-consumer-perf-test``.

    python -m bench.security [--records 200000] [--size 1024] [--kafka-version 4] [--only kafpy|kafka]

Certificates are made at start with the openssl command line (as the tests make them). One
broker runs at a time, each with a PLAINTEXT, an SSL and a SASL_SSL listener on loopback; per
listener type a new topic of 3 partitions is written with acks=1 and read back. Each broker
gets one unmeasured PLAINTEXT produce/consume run first (Kafka's JIT warms up). Prints a
table of MB/s per listener type and broker, with each secured listener's share of the
PLAINTEXT rate.

What TLS costs on consume: on PLAINTEXT both brokers send record data with sendfile
(zero-copy); through TLS kafpy reads the log into memory and writes it through the SSL
transport (``kafpy.broker.security.tls_writer``, OpenSSL through Python's ssl module), as Kafka
copies it through its SSLEngine. The machine's load moves these figures a lot: compare the
shares within one run rather than absolute rates across runs.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.compare import parse_consumer, parse_producer, run_perf_tool  # noqa: E402
from tests.integration.security.certs import make_certs  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402
from tests.support.ports import LOOPBACK, free_ports  # noqa: E402

LISTENER_TYPES = ("PLAINTEXT", "SSL", "SASL_SSL")
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="bench" '
        'password="bench-secret" user_bench="bench-secret";')
TOOL_VERSION = "4"


def listener_settings(certs: Path, ports: dict[str, int]) -> dict[str, str]:
    """The same listener settings for both brokers (Kafka's names)."""
    listeners = ",".join(f"{n}://{LOOPBACK}:{p}" for n, p in ports.items())
    return {
        "listeners": listeners, "advertised.listeners": listeners,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL",
        "inter.broker.listener.name": "PLAINTEXT",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": str(certs / "server-keystore.pem"),
        "ssl.truststore.type": "PEM", "ssl.truststore.location": str(certs / "ca.pem"),
        "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        "num.partitions": "3",
    }


def client_config(work: Path, certs: Path, listener: str) -> Path:
    lines = [f"security.protocol={listener}"]
    if listener != "PLAINTEXT":
        lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={certs / 'ca.pem'}"]
    if listener == "SASL_SSL":
        lines += ["sasl.mechanism=PLAIN", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
                  'required username="bench" password="bench-secret";']
    path = work / f"client-{listener}.properties"
    path.write_text("\n".join(lines) + "\n")
    return path


def produce_consume(bootstrap: str, config: Path, records: int, size: int) -> tuple[float, float]:
    """MB/s of one produce run into a new topic and one consume run of it."""
    topic = f"sec-{uuid.uuid4().hex[:8]}"
    prod = parse_producer(run_perf_tool(TOOL_VERSION, "kafka-producer-perf-test", [
        "--topic", topic, "--num-records", str(records), "--record-size", str(size), "--throughput", "-1",
        "--producer.config", str(config), "--producer-props", f"bootstrap.servers={bootstrap}", "acks=1",
        "linger.ms=5"], 900))
    cons = parse_consumer(run_perf_tool(TOOL_VERSION, "kafka-consumer-perf-test", [
        "--bootstrap-server", bootstrap, "--topic", topic, "--messages", str(records), "--timeout", "120000",
        "--consumer.config", str(config)], 900))
    return prod["mb_per_s"], cons.get("fetch_mb_per_s", cons["mb_per_s"])


def measure(name: str, start, work: Path, certs: Path, args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    ports = dict(zip(LISTENER_TYPES, free_ports(len(LISTENER_TYPES))))
    broker = start(listener_settings(certs, ports), ports, work)
    configs = {lt: client_config(work, certs, lt) for lt in LISTENER_TYPES}
    try:
        print(f"{name}: warming up", flush=True)
        produce_consume(f"{LOOPBACK}:{ports['PLAINTEXT']}", configs["PLAINTEXT"], args.records, args.size)
        out = {}
        for lt in LISTENER_TYPES:
            out[lt] = produce_consume(f"{LOOPBACK}:{ports[lt]}", configs[lt], args.records, args.size)
            print(f"{name} {lt}: produce {out[lt][0]:.1f} MB/s, consume {out[lt][1]:.1f} MB/s", flush=True)
        return out
    finally:
        broker.stop()


def start_kafpy(settings: dict[str, str], ports: dict[str, int], work: Path) -> KafpyBroker:
    d = work / "kafpy"
    return KafpyBroker(work_dir=d, log_dir=d / "logs", port=ports["PLAINTEXT"], overrides={
        **settings, "offsets.topic.replication.factor": 1, "group.initial.rebalance.delay.ms": 0}).start()


def start_kafka(version: str):
    def start(settings: dict[str, str], ports: dict[str, int], work: Path) -> ReferenceKafka:
        controller = free_ports(1)[0]
        settings = dict(settings)
        settings["listeners"] += f",CONTROLLER://{LOOPBACK}:{controller}"
        settings["listener.security.protocol.map"] += ",CONTROLLER:PLAINTEXT"
        return ReferenceKafka(version, port=ports["PLAINTEXT"], controller_port=controller,
                              work_dir=work / "kafka", overrides=settings).start()
    return start


def table(results: dict[str, dict[str, tuple[float, float]]]) -> str:
    names = list(results)
    head = f"{'listener':<10}" + "".join(f"{n + ' produce':>20}{n + ' consume':>20}" for n in names)
    rows = [head, "-" * len(head)]
    for lt in LISTENER_TYPES:
        row = f"{lt:<10}"
        for n in names:
            base = results[n]["PLAINTEXT"]
            for i in (0, 1):
                mb = results[n][lt][i]
                share = "" if lt == "PLAINTEXT" else f" ({mb / base[i] * 100:3.0f}%)"
                row += f"{mb:>13.1f}{share:>7}" if share else f"{mb:>20.1f}"
        rows.append(row)
    return "\n".join(rows) + "\n\nMB/s (record payload); in parentheses: share of the same broker's PLAINTEXT rate"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--only", choices=("kafpy", "kafka"))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        work = Path(tmp)
        certs = work / "certs"
        certs.mkdir()
        make_certs(certs)
        results: dict[str, dict[str, tuple[float, float]]] = {}
        if args.only in (None, "kafpy"):
            results["kafpy"] = measure("kafpy", start_kafpy, work, certs, args)
        if args.only in (None, "kafka"):
            results["kafka"] = measure("kafka", start_kafka(args.kafka_version), work, certs, args)
    print(f"\n{args.records} records x {args.size} B, acks=1, 3 partitions, one broker at a time\n")
    print(table(results))


if __name__ == "__main__":
    main()
