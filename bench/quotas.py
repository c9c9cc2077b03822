"""Client quotas under load: a producer and a consumer each capped by a byte-rate quota,
sending and fetching as fast as the broker lets them, and an uncapped client whose
latency is watched meanwhile.

    python -m bench.quotas [--seconds 60] [--produce-rate 1048576] [--fetch-rate 2097152]

Starts one broker, sets ``producer_byte_rate`` for client id ``capped-producer`` and
``consumer_byte_rate`` for ``capped-consumer`` (AlterClientQuotas), fills a topic for the
consumer, then measures ``--baseline`` seconds of the probe alone (a small acks=1 Produce
every 20 ms from client id ``probe``) and ``--seconds`` seconds with the capped clients
running. The capped clients ignore throttle_time_ms (the worst case: only the broker's
muted channel holds them back). Prints each capped client's achieved rate against its
quota, and the probe's latency percentiles alone and alongside them.
"""
from __future__ import annotations

import argparse
import socket
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol.messages import (AlterClientQuotasRequest, AlterClientQuotasResponse,  # noqa: E402
                               CreateTopicsRequest, FetchRequest, FetchResponse, ProduceRequest,
                               ProduceResponse, RequestHeader)
from kafpy.protocol.records import build_batch  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402


class Client:
    def __init__(self, port: int, client_id: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.client_id = client_id
        self.cid = 0

    def call(self, api_key: int, version: int, body) -> object:
        self.cid += 1
        hdr = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=self.cid,
                            client_id=self.client_id)
        self.sock.sendall(codec.encode_request(hdr, body))
        n = struct.unpack(">i", self._recv(4))[0]
        return codec.decode_response(api_key, version, self._recv(n))[1]

    def _recv(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        self.sock.close()


def produce(topic: str, batch: bytes, acks: int = 1) -> ProduceRequest:
    P = ProduceRequest
    return P(transactional_id=None, acks=acks, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=0, records=batch)])])


def fetch(topic: str, offset: int, max_bytes: int) -> FetchRequest:
    F = FetchRequest
    return F(replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=max_bytes, isolation_level=0, session_id=0,
             session_epoch=-1, topics=[F.FetchTopic(topic=topic, partitions=[F.FetchPartition(
                 partition=0, current_leader_epoch=-1, fetch_offset=offset, log_start_offset=-1,
                 partition_max_bytes=max_bytes)])], forgotten_topics_data=[], rack_id="")


def setup(port: int, topics: list[str], quotas: dict[str, tuple[str, float]]) -> None:
    c = Client(port, "bench-admin")
    T = CreateTopicsRequest
    c.call(19, 5, T(timeout_ms=30000, validate_only=False, topics=[T.CreatableTopic(
        name=t, num_partitions=1, replication_factor=1, assignments=[], configs=[]) for t in topics]))
    A = AlterClientQuotasRequest
    resp = c.call(49, 1, A(validate_only=False, entries=[A.EntryData(
        entity=[A.EntityData(entity_type="client-id", entity_name=client)],
        ops=[A.OpData(key=key, value=value, remove=False)]) for client, (key, value) in quotas.items()]))
    assert isinstance(resp, AlterClientQuotasResponse)
    assert all(e.error_code == 0 for e in resp.entries), resp
    c.close()


class Runner(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.bytes = 0
        self.throttled = 0
        self.started = self.ended = 0.0


class CappedProducer(Runner):
    def __init__(self, port: int, topic: str, size: int) -> None:
        super().__init__()
        self.client = Client(port, "capped-producer")
        self.req = produce(topic, build_batch([(None, b"p" * size)]))
        self.size = len(self.req.topic_data[0].partition_data[0].records)

    def run(self) -> None:
        self.started = time.monotonic()
        while not self.stop.is_set():
            resp = self.client.call(0, 9, self.req)
            assert isinstance(resp, ProduceResponse)
            self.bytes += self.size
            self.throttled += resp.throttle_time_ms > 0
        self.ended = time.monotonic()


class CappedConsumer(Runner):
    def __init__(self, port: int, topic: str) -> None:
        super().__init__()
        self.client = Client(port, "capped-consumer")
        self.topic = topic

    def run(self) -> None:
        offset = 0
        self.started = time.monotonic()
        while not self.stop.is_set():
            resp = self.client.call(1, 12, fetch(self.topic, offset, 1 << 20))
            assert isinstance(resp, FetchResponse)
            self.throttled += resp.throttle_time_ms > 0
            for t in resp.responses:
                for p in t.partitions:
                    records = p.records or b""
                    self.bytes += len(records)
                    pos = 0
                    while pos + 12 <= len(records):   # whole batches: advance past the last one
                        base, length = struct.unpack_from(">qi", records, pos)
                        if pos + 12 + length > len(records):
                            break
                        count = struct.unpack_from(">i", records, pos + 57)[0]
                        offset = base + count
                        pos += 12 + length
        self.ended = time.monotonic()


class Probe(Runner):
    def __init__(self, port: int, topic: str) -> None:
        super().__init__()
        self.client = Client(port, "probe")
        self.req = produce(topic, build_batch([(None, b"probe" * 20)]))
        self.samples: list[tuple[float, float]] = []   # (when, latency s)

    def run(self) -> None:
        while not self.stop.is_set():
            t0 = time.monotonic()
            self.client.call(0, 9, self.req)
            self.samples.append((t0, time.monotonic() - t0))
            time.sleep(0.02)

    def latencies(self, start: float, end: float) -> list[float]:
        return sorted(lat * 1000 for t, lat in self.samples if start <= t < end)


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def fill(port: int, topic: str, mb: int) -> None:
    c = Client(port, "bench-fill")
    req = produce(topic, build_batch([(None, b"f" * 1000)] * 1000))
    for _ in range(mb):
        c.call(0, 9, req)
    c.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--baseline", type=float, default=10)
    ap.add_argument("--produce-rate", type=float, default=1 << 20)
    ap.add_argument("--fetch-rate", type=float, default=2 << 20)
    ap.add_argument("--batch", type=int, default=64 << 10, help="capped producer's record size")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        broker = KafpyBroker(work_dir=Path(work), log_dir=Path(work) / "logs", start_timeout=120)
        broker.start()
        try:
            port = broker.port
            setup(port, ["bench-produce", "bench-fetch", "bench-probe"],
                  {"capped-producer": ("producer_byte_rate", args.produce_rate),
                   "capped-consumer": ("consumer_byte_rate", args.fetch_rate)})
            # enough data that the consumer never runs dry
            fill(port, "bench-fetch", int(args.fetch_rate * (args.seconds + 15) / 1e6) + 1)
            probe = Probe(port, "bench-probe")
            probe.start()
            time.sleep(args.baseline)
            mid = time.monotonic()
            runners = [CappedProducer(port, "bench-produce", args.batch), CappedConsumer(port, "bench-fetch")]
            for r in runners:
                r.start()
            time.sleep(args.seconds)
            end = time.monotonic()
            for r in runners + [probe]:
                r.stop.set()
            for r in runners + [probe]:
                r.join(timeout=30)
        finally:
            broker.stop()
    print(f"\nclient quotas, {args.seconds:.0f} s (quota.window.num=11, quota.window.size.seconds=1)\n")
    print(f"{'client':<18}{'quota B/s':>12}{'achieved B/s':>14}{'vs quota':>10}{'throttled resp':>16}")
    for r, name, quota in ((runners[0], "capped-producer", args.produce_rate),
                           (runners[1], "capped-consumer", args.fetch_rate)):
        rate = r.bytes / max(r.ended - r.started, 1e-9)
        print(f"{name:<18}{quota:>12.0f}{rate:>14.0f}{(rate / quota - 1) * 100:>+9.1f}%{r.throttled:>16}")
    alone, loaded = probe.latencies(0, mid), probe.latencies(mid, end)
    print(f"\n{'probe (uncapped) produce latency ms':<38}{'n':>6}{'p50':>8}{'p99':>8}{'max':>8}")
    for label, lat in (("alone", alone), ("alongside capped clients", loaded)):
        print(f"{label:<38}{len(lat):>6}{pct(lat, 0.5):>8.2f}{pct(lat, 0.99):>8.2f}"
              f"{(lat[-1] if lat else float('nan')):>8.2f}")


if __name__ == "__main__":
    main()
