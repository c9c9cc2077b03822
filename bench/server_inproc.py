"""Python CPU per request through the socket server's read/dispatch/write path, in process.

    python -m bench.server_inproc [--requests 2000] [--repeats 5] [--window 8]
                                  [--partitions 6] [--batch-kib 16] [--fetch-kib 64]
                                  [--uvloop] [--metrics | --metrics-ab]

A ``KafkaConnection`` over a real log directory and the real handlers, fed request frames
through ``get_buffer``/``buffer_updated`` in 64 KiB pieces as the event loop would, with its
writer's fd on /dev/null (``writev`` and ``sendfile`` still happen, but cost nothing on the
network side). ``--window`` requests are fed before the loop is let run, as pipelined
requests arrive. Prints the best of ``--repeats`` runs of CPU microseconds
(``time.process_time``) per Produce (idempotent, ``--acks`` 1 or -1, one batch per partition) and per
Fetch (every partition, whole batches), so server and hot-path changes can be compared on a
busy machine: the figure leaves out the kernel's network work and the client entirely.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import crc32c  # noqa: E402

from kafpy.broker.apis import ApiRegistry  # noqa: E402
from kafpy.broker.server import KafkaConnection, SocketServer  # noqa: E402
from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol.messages import FetchRequest, ProduceRequest, RequestHeader  # noqa: E402
from kafpy.protocol.records import build_batch  # noqa: E402
from tests.unit.broker.helpers import LocalBroker  # noqa: E402

TOPIC = "bench-inproc"
PIECE = 64 * 1024


class NullSocket:
    """What the connection gets as its socket: /dev/null's fd; no socket options."""

    def __init__(self) -> None:
        self.fd = os.open(os.devnull, os.O_WRONLY)

    def fileno(self) -> int:
        return self.fd

    def setsockopt(self, *args: object) -> None:
        raise OSError("not a socket")

    def close(self) -> None:
        os.close(self.fd)


class NullTransport:
    def __init__(self, sock: NullSocket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"socket": self.sock, "peername": ("127.0.0.1", 1)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def abort(self) -> None:
        raise RuntimeError("the connection was closed: a request failed")


def feed(conn: KafkaConnection, frame: bytes) -> None:
    mv = memoryview(frame)
    pos = 0
    while pos < len(mv):
        buf = conn.get_buffer(PIECE)
        n = min(len(buf), PIECE, len(mv) - pos)
        buf[:n] = mv[pos:pos + n]
        pos += n
        conn.buffer_updated(n)


def busy(conn: KafkaConnection) -> bool:
    t = conn.response_task
    return bool(conn.queue) or (t is not None and not t.done())


async def run(conn: KafkaConnection, frames: list[bytes], window: int) -> float:
    t0 = time.process_time()
    for i, f in enumerate(frames):
        feed(conn, f)
        if (i + 1) % window == 0:
            while busy(conn):
                await asyncio.sleep(0)
    while busy(conn):
        await asyncio.sleep(0)
    return time.process_time() - t0


def header(corr: int, api_key: int, version: int) -> RequestHeader:
    return RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=corr,
                         client_id="bench")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--window", type=int, default=8)
    ap.add_argument("--partitions", type=int, default=6)
    ap.add_argument("--batch-kib", type=int, default=16)
    ap.add_argument("--fetch-kib", type=int, default=64)
    ap.add_argument("--acks", type=int, default=1, choices=(-1, 1))
    ap.add_argument("--uvloop", action="store_true", help="run on uvloop (default: asyncio's loop)")
    ap.add_argument("--metrics", action="store_true",
                    help="with the per-request metrics observer the broker installs when kafpy.metrics.enable is true")
    ap.add_argument("--metrics-ab", action="store_true",
                    help="alternate the metrics observer off and on between repeats in this one process "
                         "(both see the same load and memory layout) and print both")
    args = ap.parse_args(argv)

    if args.uvloop:
        import uvloop
        loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    d = tempfile.mkdtemp(prefix="kafpy-bench-inproc-")
    broker = LocalBroker(d, loop)
    apis = ApiRegistry.load()
    broker.create_topic(TOPIC, args.partitions)
    sock = NullSocket()
    server = SocketServer(broker.config, apis, broker.services, loop)
    observer = None
    if args.metrics or args.metrics_ab:
        from kafpy.metrics.observer import RequestObserver
        from kafpy.metrics.request_logger import RequestLogger
        observer = RequestObserver(apis.name, lambda topic_id: None,
                                   RequestLogger(lambda: broker.config["kafpy.request.logger.slow.ms"]))

    def metrics_on(on: bool) -> None:
        server.observer = observer if on else None
        broker.replica_manager.topic_stats = observer.topics if on and observer is not None else None   # as Broker installs them
    metrics_on(args.metrics)
    conn = KafkaConnection(server, "PLAINTEXT")
    conn.connection_made(NullTransport(sock))  # type: ignore[arg-type]
    pid, epoch = 1000, 0
    tpl = bytearray(build_batch([(b"key-%06d" % i, os.urandom(1000)) for i in range(args.batch_kib)],
                                producer_id=pid, producer_epoch=epoch, base_sequence=0))
    count = args.batch_kib
    corr = 0
    seq = 0
    produce_cpu = []
    fetch_cpu = []
    try:
        for rep in range(args.repeats):
            if args.metrics_ab:   # off, on, on, off, ...: a drift over the runs (the log grows) cancels out
                metrics_on(rep % 4 in (1, 2))
            frames = []
            for _ in range(args.requests):
                struct.pack_into(">i", tpl, 53, seq * count)
                struct.pack_into(">I", tpl, 17, crc32c.crc32c(memoryview(tpl)[21:]))
                seq += 1
                batch = bytes(tpl)
                td = ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
                    ProduceRequest.PartitionProduceData(index=p, records=batch) for p in range(args.partitions)])
                corr += 1
                frames.append(codec.encode_request(header(corr, 0, 9), ProduceRequest(
                    transactional_id=None, acks=args.acks, timeout_ms=30000, topic_data=[td]))[4:])
            frames = [struct.pack(">i", len(f)) + f for f in frames]
            produce_cpu.append(loop.run_until_complete(run(conn, frames, args.window)))

            end = seq * count
            step = max(1, (args.fetch_kib * 1024) // len(tpl)) * count
            off = 0
            frames = []
            for _ in range(args.requests):
                topic = FetchRequest.FetchTopic(topic=TOPIC, partitions=[
                    FetchRequest.FetchPartition(partition=p, current_leader_epoch=-1, fetch_offset=off,
                                                log_start_offset=-1, partition_max_bytes=args.fetch_kib * 1024)
                    for p in range(args.partitions)])
                corr += 1
                frames.append(codec.encode_request(header(corr, 1, 12), FetchRequest(
                    replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=50 << 20, isolation_level=0,
                    session_id=0, session_epoch=-1, topics=[topic], forgotten_topics_data=[], rack_id="")))
                off = off + step if off + step < end else 0
            fetch_cpu.append(loop.run_until_complete(run(conn, frames, args.window)))
        sent = conn.server.stats
        print(f"server in process ({'uvloop' if args.uvloop else 'asyncio'}), best of {args.repeats} x "
              f"{args.requests} requests, window {args.window}")
        print(f"  Produce v9 acks={args.acks}, {args.partitions} x {len(tpl) / 1024:.1f} KiB: "
              f"{1e6 * min(produce_cpu) / args.requests:7.1f} us/request CPU "
              f"(all runs: {', '.join(f'{1e6 * c / args.requests:.0f}' for c in produce_cpu)})")
        print(f"  Fetch v12, {args.partitions} x {args.fetch_kib} KiB:  "
              f"{1e6 * min(fetch_cpu) / args.requests:7.1f} us/request CPU "
              f"(all runs: {', '.join(f'{1e6 * c / args.requests:.0f}' for c in fetch_cpu)}); "
              f"{sent.sendfile_bytes / (args.requests * args.repeats) / 1024:.0f} KiB sendfile/request")
        if args.metrics_ab:
            for name, cpu in (("Produce", produce_cpu), ("Fetch", fetch_cpu)):
                runs = list(enumerate(cpu))[4:]   # the first four warm up
                cpu_off = sorted(c for i, c in runs if i % 4 not in (1, 2))
                cpu_on = sorted(c for i, c in runs if i % 4 in (1, 2))
                if not cpu_off or not cpu_on:
                    continue
                med_off, med_on = cpu_off[len(cpu_off) // 2], cpu_on[len(cpu_on) // 2]
                print(f"  {name} metrics off / on, medians of {len(cpu_off)} / {len(cpu_on)} alternated runs: "
                      f"{1e6 * med_off / args.requests:.1f} / {1e6 * med_on / args.requests:.1f} us "
                      f"({100 * (med_on / med_off - 1):+.1f} %); best {1e6 * cpu_off[0] / args.requests:.1f} / "
                      f"{1e6 * cpu_on[0] / args.requests:.1f} us")
    finally:
        conn.connection_lost(None)
        sock.close()
        broker.close()
        loop.close()
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
