"""Many partitions on one broker: kafpy against Apache Kafka, side by side.

    python -m bench.scale_partitions [--sizes 1000,5000,20000] [--only kafpy|kafka]
                                     [--kafka-version 4] [--records 1]

For each size, a fresh broker of each kind gets that many partitions (topics of 100
partitions, CreateTopics one topic at a time, as a tool would) while a producer writes
acks=1 batches to another topic in a loop; then it prints one row per broker and size:
- ``create_s``: wall time of creating all partitions (until the last topic is answered);
- ``p99_during_ms``: the producer's p99 request latency while they were created (the event
  loop must not stall on file work);
- ``meta_ms``: median latency of a Metadata request for all topics (until the whole response
  is read; the client does not decode it);
- ``p99_ms``: producer p99 with the partitions in place;
- ``rss_mb`` and ``fds``: the broker's resident memory and open descriptors, from /proc;
- ``restart_s``: a clean stop and start, until ApiVersions is answered;
- with ``--records N``, each partition first gets N one-record batches, and the restart is
  timed as an operator sees it: SIGTERM, wait for the process to exit (``stop_s``), start
  it again, until a Metadata request for all topics is answered with every partition led
  (``restart_s`` is the whole of it, ``start_s`` its second part).
Raise ``ulimit -n`` first for the large sizes (Kafka keeps one descriptor per partition).
Request latencies are measured from Python over one connection, the same for both.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kafpy.protocol.api_keys import ApiKey  # noqa: E402
from kafpy.protocol.messages import CreateTopicsRequest, MetadataRequest, ProduceRequest  # noqa: E402
from kafpy.protocol.records import build_batch  # noqa: E402
from tests.integration.broker.raw import CREATE_TOPICS, PRODUCE, RawConnection, produce_request  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

PER_TOPIC = 100


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def create(c: RawConnection, name: str, partitions: int) -> None:
    T = CreateTopicsRequest
    resp = c.request(CREATE_TOPICS, 5, T(timeout_ms=600000, validate_only=False, topics=[T.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])]))
    if resp.topics[0].error_code:
        raise RuntimeError(f"creating {name}: {resp.topics[0].error_code} {resp.topics[0].error_message}")


def produce_once(c: RawConnection, topic: str, batch: bytes) -> float:
    t0 = time.perf_counter()
    resp = c.request(PRODUCE, 8, produce_request(topic, batch, acks=1))
    code = resp.responses[0].partition_responses[0].error_code
    if code:
        raise RuntimeError(f"produce answered {code}")
    return (time.perf_counter() - t0) * 1000


def p99(samples: list[float]) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * 0.99))] if s else float("nan")


class Producer(threading.Thread):
    """Writes one small batch at a time until stopped; keeps each request's latency."""

    def __init__(self, host: str, port: int, topic: str) -> None:
        super().__init__(daemon=True)
        self.conn = RawConnection(host, port, timeout=120)
        self.topic = topic
        self.batch = build_batch([(b"k", b"v" * 100)] * 10)
        self.samples: list[float] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            self.samples.append(produce_once(self.conn, self.topic, self.batch))
            time.sleep(0.002)

    def stop(self) -> list[float]:
        self.stopping.set()
        self.join()
        self.conn.close()
        return self.samples


def fill(c: RawConnection, topics: int, records: int) -> None:
    """``records`` one-record batches into every partition: one Produce per topic and round."""
    P = ProduceRequest
    batch = build_batch([(b"k", b"v" * 100)])
    for _ in range(records):
        for i in range(topics):
            req = P(transactional_id=None, acks=1, timeout_ms=30000, topic_data=[P.TopicProduceData(
                name=f"scale-{i}", partition_data=[P.PartitionProduceData(index=p, records=batch)
                                                   for p in range(PER_TOPIC)])])
            resp = c.request(PRODUCE, 8, req)
            codes = {pr.error_code for r in resp.responses for pr in r.partition_responses}
            if codes != {0}:
                raise RuntimeError(f"produce to scale-{i} answered {codes}")


def wait_for_all_leaders(port: int, topics: int, timeout: float = 900) -> None:
    """Until one Metadata for all topics names a leader for every partition of every topic."""
    M = MetadataRequest
    deadline = time.monotonic() + timeout
    with RawConnection("127.0.0.1", port, timeout=600) as c:
        while time.monotonic() < deadline:
            resp = c.request(ApiKey.METADATA, 9, M(topics=None, allow_auto_topic_creation=False))
            led = {t.name: all(p.leader_id >= 0 for p in t.partitions) and len(t.partitions) == PER_TOPIC
                   for t in resp.topics if t.name.startswith("scale-") and not t.error_code}
            if len(led) == topics and all(led.values()):
                return
            time.sleep(0.05)
    raise RuntimeError("partitions have no leaders after the restart")


def wait_for_leader(c: RawConnection, topic: str) -> None:
    """Kafka answers CreateTopics before its partitions are hosted; wait for a leader."""
    M = MetadataRequest
    deadline = time.monotonic() + 900  # Kafka hosting 5,000 new partitions on a busy machine: minutes
    while time.monotonic() < deadline:
        resp = c.request(ApiKey.METADATA, 9, M(topics=[M.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False))
        parts = resp.topics[0].partitions if resp.topics else []
        if parts and all(p.leader_id >= 0 for p in parts) and not resp.topics[0].error_code:
            return
        time.sleep(0.1)
    raise RuntimeError(f"{topic} has no leaders")


def measure(label: str, broker, size: int, records: int = 0) -> dict:
    host, port = "127.0.0.1", broker.port
    with RawConnection(host, port, timeout=600) as c:
        create(c, "load", 1)
        wait_for_leader(c, "load")
        prod = Producer(host, port, "load")
        prod.start()
        t0 = time.monotonic()
        for i in range(size // PER_TOPIC):
            create(c, f"scale-{i}", PER_TOPIC)
        wait_for_leader(c, f"scale-{size // PER_TOPIC - 1}")
        create_s = time.monotonic() - t0
        during = prod.stop()
        M = MetadataRequest
        meta = []
        for _ in range(10):
            frame = c.frame(ApiKey.METADATA, 9, M(topics=None, allow_auto_topic_creation=False))
            t = time.perf_counter()
            c.send_raw(frame)
            c.read_frame()  # the broker's time and the transfer, not the client's decoding
            meta.append((time.perf_counter() - t) * 1000)
        batch = build_batch([(b"k", b"v" * 100)] * 10)
        after = [produce_once(c, "load", batch) for _ in range(500)]
        row = {"broker": label, "partitions": size, "create_s": round(create_s, 2),
               "p99_during_ms": round(p99(during), 1), "meta_ms": round(statistics.median(meta), 1),
               "p99_ms": round(p99(after), 2), "rss_mb": round(rss_mb(broker.proc.pid)),
               "fds": open_fds(broker.proc.pid)}
        if records:
            fill(c, size // PER_TOPIC, records)
    t0 = time.monotonic()
    broker.stop(timeout=600)
    t1 = time.monotonic()
    broker.start()
    if records:
        wait_for_all_leaders(broker.port, size // PER_TOPIC)
        row["stop_s"] = round(t1 - t0, 2)
        row["start_s"] = round(time.monotonic() - t1, 2)
    row["restart_s"] = round(time.monotonic() - t0, 2)
    return row


def start(kind: str, version: str, work: Path):
    if kind == "kafpy":
        return KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=900).start()
    k = ReferenceKafka(version, work_dir=work, start_timeout=900)
    k.start()
    return k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--only", choices=["kafpy", "kafka"])
    ap.add_argument("--kafka-version", default="4")
    ap.add_argument("--records", type=int, default=0,
                    help="one-record batches written to every partition before the restart")
    args = ap.parse_args()
    import tempfile

    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        for kind in ("kafpy", "kafka"):
            if args.only and kind != args.only:
                continue
            work = Path(tempfile.mkdtemp(prefix=f"scale-{kind}-"))
            b = start(kind, args.kafka_version, work)
            try:
                rows.append(measure(kind, b, size, args.records))
            finally:
                b.stop()
            print(rows[-1], file=sys.stderr, flush=True)
    cols = ["broker", "partitions", "create_s", "p99_during_ms", "meta_ms", "p99_ms", "rss_mb", "fds", "restart_s"]
    if args.records:
        cols += ["stop_s", "start_s"]
    print(" | ".join(f"{c:>13}" for c in cols))
    for r in rows:
        print(" | ".join(f"{r[c]!s:>13}" for c in cols))


if __name__ == "__main__":
    main()
