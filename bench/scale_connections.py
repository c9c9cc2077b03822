"""Many idle client connections: kafpy and Apache Kafka side by side.

    python -m bench.scale_connections [--counts 1000,5000,10000] [--clients 2]
                                      [--only kafpy|kafka] [--kafka-version 4]

Both brokers run at once (single node, Kafka's defaults, KRaft for Kafka). For each count,
each broker in turn is given that many connections, each of which sends ApiVersions v3 (as
every client does first) and then stays open and silent. Measured while they stay open:

- ``RSS MB``: the broker's resident memory (VmRSS) with the connections open;
- ``connect s``: wall time from the first connect until every connection has its
  ApiVersions answer (``--clients`` processes, each with at most ``--window`` handshakes in
  flight, below both brokers' listen backlog);
- ``metadata p50/p99 ms``: 300 Metadata v12 requests (all topics) on one more connection;
- ``produce p50/p99 ms``: 1,000 Produce v9 requests (acks=1, one 10 x 100 B batch) on it.

The client side is raw non-blocking sockets in a selector, split over processes, so it
costs little next to the brokers. The soft open-file limit is raised to the hard one here
and inherited by both brokers. Prints one table; the broker's RSS before any connection is
shown as count 0.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import selectors
import shutil
import socket
import struct
import sys
import tempfile
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import cast

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol.message_base import Message  # noqa: E402
from kafpy.protocol.messages import (ApiVersionsRequest, MetadataRequest, MetadataResponse,  # noqa: E402
                               ProduceRequest, RequestHeader)
from kafpy.protocol.records import build_batch  # noqa: E402
from tests.support.kafka_dist import ReferenceKafka  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

TOPIC = "scale-bench"
LOOPBACK = "127.0.0.1"


def raise_nofile() -> int:
    """Raises the soft open-file limit to the hard one (children inherit it); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def request(api_key: int, version: int, corr: int, body: Message) -> bytes:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=corr,
                           client_id="scale-bench")
    return codec.encode_request(header, body)


API_VERSIONS = request(18, 3, 1, ApiVersionsRequest(client_software_name="scale-bench",
                                                    client_software_version="1.0"))


def hold(port: int, n: int, window: int, ready: "mp.Queue", release: Event) -> None:
    """A client process: opens ``n`` connections, at most ``window`` handshaking at once,
    each sending ApiVersions and reading its answer; reports (start, end, failures), keeps
    them open until ``release`` is set."""
    raise_nofile()
    sel = selectors.DefaultSelector()
    held: list[socket.socket] = []
    got: dict[socket.socket, bytearray] = {}
    started = failed = 0
    t0 = time.monotonic()
    while len(held) + failed < n:
        while started < n and started - len(held) - failed < window:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex((LOOPBACK, port))
            sel.register(s, selectors.EVENT_WRITE)
            started += 1
        events = sel.select(30)
        if not events:     # the broker stopped answering: count what is left as failed
            for key in list(sel.get_map().values()):
                sel.unregister(key.fileobj)
                cast(socket.socket, key.fileobj).close()
            failed = n - len(held)
            break
        for key, _ev in events:
            s = cast(socket.socket, key.fileobj)  # only this function's sockets are registered
            try:
                if s not in got:   # connected: send the request
                    s.send(API_VERSIONS)
                    got[s] = bytearray()
                    sel.modify(s, selectors.EVENT_READ)
                    continue
                chunk = s.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                buf = got[s]
                buf += chunk
                if len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">i", buf)[0]:
                    sel.unregister(s)
                    del got[s]
                    held.append(s)
            except OSError:
                sel.unregister(s)
                got.pop(s, None)
                s.close()
                failed += 1
    ready.put((t0, time.monotonic(), failed))
    release.wait()
    for s in held:
        s.close()


class Probe:
    """One blocking connection for the latency samples."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection((LOOPBACK, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.corr = 0
        self.call(18, 3, ApiVersionsRequest(client_software_name="scale-bench", client_software_version="1.0"))

    def _recv(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            out += chunk
        return bytes(out)

    def send_raw(self, frame: bytes) -> bytes:
        self.sock.sendall(frame)
        (size,) = struct.unpack(">i", self._recv(4))
        return self._recv(size)

    def call(self, api_key: int, version: int, body: Message) -> Message:
        self.corr += 1
        frame = self.send_raw(request(api_key, version, self.corr, body))
        return codec.decode_response(api_key, version, frame)[1]

    def timed(self, frame: bytes, n: int) -> tuple[float, float]:
        """p50 and p99 in ms of ``n`` round trips of ``frame``."""
        lat = []
        for _ in range(n):
            t = time.perf_counter()
            self.send_raw(frame)
            lat.append(time.perf_counter() - t)
        lat.sort()
        return 1000 * lat[len(lat) // 2], 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))]

    def ensure_topic(self) -> None:
        body = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=TOPIC)],
                               allow_auto_topic_creation=True, include_topic_authorized_operations=False)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            md = self.call(3, 12, body)
            assert isinstance(md, MetadataResponse)
            parts = md.topics[0].partitions if md.topics else []
            if md.topics[0].error_code == 0 and parts and parts[0].leader_id >= 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"topic {TOPIC} has no leader")


def latencies(port: int) -> dict[str, float]:
    p = Probe(port)
    p.ensure_topic()
    md = request(3, 12, 0, MetadataRequest(topics=None, allow_auto_topic_creation=False,
                                           include_topic_authorized_operations=False))
    batch = build_batch([(None, b"v" * 100)] * 10)
    produce = request(0, 9, 0, ProduceRequest(transactional_id=None, acks=1, timeout_ms=30000, topic_data=[
        ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=batch)])]))
    p.timed(md, 30)
    out = dict(zip(("md_p50", "md_p99"), p.timed(md, 300)))
    p.timed(produce, 50)
    out.update(zip(("pr_p50", "pr_p99"), p.timed(produce, 1000)))
    p.sock.close()
    return out


def measure(name: str, pid: int, port: int, count: int, clients: int, window: int) -> dict:
    ctx = mp.get_context("fork")
    ready, release = ctx.Queue(), ctx.Event()
    share = [count // clients + (1 if i < count % clients else 0) for i in range(clients)]
    procs = [ctx.Process(target=hold, args=(port, k, window, ready, release), daemon=True) for k in share if k]
    for pr in procs:
        pr.start()
    try:
        reports = [ready.get(timeout=600) for _ in procs]
        row = {"broker": name, "count": count, "failed": sum(r[2] for r in reports),
               "connect_s": max(r[1] for r in reports) - min(r[0] for r in reports)}
        time.sleep(1.0)   # let the broker settle (GC, lazily freed buffers)
        row["rss_mb"] = rss_mb(pid)
        row.update(latencies(port))
    finally:
        release.set()
        for pr in procs:
            pr.join(60)
            if pr.is_alive():
                pr.kill()
    time.sleep(2.0)       # both sides close the connections before the next count
    return row


def print_table(rows: list[dict]) -> None:
    print(f"\n{'broker':7s} {'conns':>6s} {'failed':>6s} {'RSS MB':>8s} {'KB/conn':>8s} {'connect s':>9s} "
          f"{'md p50':>7s} {'md p99':>7s} {'prod p50':>8s} {'prod p99':>8s}")
    base = {r["broker"]: r["rss_mb"] for r in rows if r["count"] == 0}
    for r in rows:
        per = (r["rss_mb"] - base.get(r["broker"], 0)) * 1024 / r["count"] if r["count"] else 0.0
        if r["count"] == 0:
            print(f"{r['broker']:7s} {0:6d} {'':>6s} {r['rss_mb']:8.0f}")
            continue
        print(f"{r['broker']:7s} {r['count']:6d} {r['failed']:6d} {r['rss_mb']:8.0f} {per:8.1f} "
              f"{r['connect_s']:9.2f} {r['md_p50']:7.2f} {r['md_p99']:7.2f} {r['pr_p50']:8.2f} {r['pr_p99']:8.2f}")
    print("(latencies in ms; KB/conn is the RSS growth over the idle broker per connection)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scale_connections", description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="1000,5000,10000", help="connection counts (default 1000,5000,10000)")
    ap.add_argument("--clients", type=int, default=2, help="client processes holding the connections")
    ap.add_argument("--window", type=int, default=16, help="handshakes in flight per client process")
    ap.add_argument("--only", choices=["kafpy", "kafka"], help="run one broker only")
    ap.add_argument("--kafka-version", default="4", help="Apache Kafka to compare with (default 4)")
    args = ap.parse_args(argv)
    counts = [int(c) for c in args.counts.split(",")]
    limit = raise_nofile()
    need = max(counts) + 200
    if limit < need:
        print(f"open-file limit {limit} is below {need}: raise it (ulimit -Hn) first", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="kafpy-scale-"))
    brokers: dict[str, tuple[int, int, KafpyBroker | ReferenceKafka]] = {}
    rows: list[dict] = []
    try:
        if args.only in (None, "kafpy"):
            b = KafpyBroker(log_dir=work / "kafpy", work_dir=work / "kafpy-work").start()
            assert b.proc is not None
            brokers["kafpy"] = (b.proc.pid, b.port, b)
        if args.only in (None, "kafka"):
            k = ReferenceKafka(args.kafka_version, log_dir=work / "kafka", work_dir=work / "kafka-work").start()
            assert k.proc is not None
            brokers["kafka"] = (k.proc.pid, k.port, k)
        for name, (pid, port, _b) in brokers.items():
            latencies(port)   # creates the topic, warms both up
            rows.append({"broker": name, "count": 0, "rss_mb": rss_mb(pid)})
        for count in counts:
            for name, (pid, port, _b) in brokers.items():
                row = measure(name, pid, port, count, args.clients, args.window)
                rows.append(row)
                print(f"{name} {count}: {row}", flush=True)
    finally:
        for _pid, _port, broker in brokers.values():
            broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    print_table(sorted(rows, key=lambda r: (r["count"], r["broker"])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
