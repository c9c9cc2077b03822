"""Broker CPU per request on the Produce and Fetch paths, independent of machine load.

    python -m bench.broker_cpu [--produces 3000] [--fetches 3000] [--window 8]
                               [--partitions 6] [--batch-kib 16] [--acks 1]
                               [--profile | --syscalls] [--env K=V ...] [--override K=V ...]

Starts our broker as a child process (``python -m kafpy.broker``, uvloop, as users run it), creates
a topic, and drives it from this process over one loopback connection with pre-encoded
requests, ``--window`` of them in flight (so the broker sees pipelined requests, as from a
Java producer with max.in.flight 5):

- Produce v9 (idempotent, as the Java producer's default): one batch of ``--batch-kib`` 1 KiB
  records per partition per request (6 x 16 KiB by default);
- Fetch v12 without a session, every partition from where the last response ended,
  ``--fetch-kib`` per partition (whole batches, served by sendfile).

CPU is the broker's utime+stime from /proc before and after each phase, so the figure is
CPU microseconds per request whatever the machine's other load; wall time and MB/s are
printed too but are only meaningful on a quiet machine. ``--profile`` runs py-spy on the
broker during both phases and prints the functions with the most samples (self and total);
``--syscalls`` counts the broker's system calls per request with ``strace -c`` instead.
To compare two versions on a busy machine, run two checkouts side by side at the same time
(each under the same load) and repeat; single runs vary by +-15 %.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import crc32c  # noqa: E402

from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol.messages import (CreateTopicsRequest, FetchRequest, FetchResponse, InitProducerIdRequest,  # noqa: E402
                               InitProducerIdResponse, ProduceRequest, RequestHeader)
from kafpy.protocol.records import build_batch  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
TOPIC = "bench-cpu"


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_line(cpu0: tuple[float, float], cpu1: tuple[float, float], n: int) -> str:
    u, s = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    return f"broker CPU {1e6 * (u + s) / n:7.1f} us/request (user {1e6 * u / n:6.1f}, sys {1e6 * s / n:6.1f})"


class Client:
    """One blocking connection with pipelined requests."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.corr = 0
        self.buf = bytearray(1 << 20)

    def header(self, api_key: int, version: int) -> RequestHeader:
        self.corr += 1
        return RequestHeader(request_api_key=api_key, request_api_version=version,
                             correlation_id=self.corr, client_id="bench")

    def read_frame(self) -> memoryview:
        (size,) = struct.unpack(">i", self._recv(4))
        return self._recv(size)

    def _recv(self, n: int) -> memoryview:
        if len(self.buf) < n:
            self.buf = bytearray(n)
        view = memoryview(self.buf)[:n]
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise ConnectionError("broker closed the connection")
            got += k
        return view

    def call(self, api_key: int, version: int, body) -> object:
        self.sock.sendall(codec.encode_request(self.header(api_key, version), body))
        return codec.decode_response(api_key, version, bytes(self.read_frame()))[1]


def template_batch(batch_kib: int, pid: int, epoch: int) -> bytearray:
    value = os.urandom(1000)
    recs = [(b"key-%06d" % i, value) for i in range(batch_kib)]
    return bytearray(build_batch(recs, producer_id=pid, producer_epoch=epoch, base_sequence=0))


def with_sequence(tpl: bytearray, seq: int) -> bytes:
    """The template batch with another base sequence (bytes 53..57) and its CRC redone."""
    struct.pack_into(">i", tpl, 53, seq)
    struct.pack_into(">I", tpl, 17, crc32c.crc32c(memoryview(tpl)[21:]))
    return bytes(tpl)


def produce_frames(c: Client, n: int, partitions: int, tpl: bytearray, acks: int, seq0: int) -> list[bytes]:
    count = int.from_bytes(tpl[57:61], "big")
    frames = []
    for i in range(n):
        batch = with_sequence(tpl, (seq0 + i) * count)
        td = ProduceRequest.TopicProduceData(name=TOPIC, partition_data=[
            ProduceRequest.PartitionProduceData(index=p, records=batch) for p in range(partitions)])
        req = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=30000, topic_data=[td])
        frames.append(codec.encode_request(c.header(0, 9), req))
    return frames


def pipelined(c: Client, frames: list[bytes], window: int) -> int:
    """Sends every frame keeping ``window`` in flight; returns response bytes received."""
    sent = recvd = 0
    total = 0
    n = len(frames)
    while recvd < n:
        while sent < n and sent - recvd < window:
            c.sock.sendall(frames[sent])
            sent += 1
        total += len(c.read_frame()) + 4
        recvd += 1
    return total


def fetch_phase(c: Client, n: int, partitions: int, part_bytes: int, window: int, end: int,
                step: int) -> tuple[int, int]:
    """``n`` Fetch requests, each asking every partition from where the data it got last ended
    (wrapping to 0 at the log end). Returns (requests, record bytes received)."""
    offsets = [0] * partitions
    pending: list[int] = []
    recv_bytes = 0
    done = 0

    def send() -> None:
        topic = FetchRequest.FetchTopic(topic=TOPIC, partitions=[
            FetchRequest.FetchPartition(partition=p, current_leader_epoch=-1, fetch_offset=offsets[p],
                                        log_start_offset=-1, partition_max_bytes=part_bytes)
            for p in range(partitions)])
        req = FetchRequest(replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=50 << 20, isolation_level=0,
                           session_id=0, session_epoch=-1, topics=[topic], forgotten_topics_data=[], rack_id="")
        h = c.header(1, 12)
        c.sock.sendall(codec.encode_request(h, req))
        pending.append(h.correlation_id)

    # Several fetches are in flight, so the next offsets come from the known layout (every
    # batch has the same size and record count), not from the responses.
    while done < n:
        while len(pending) < window and done + len(pending) < n:
            send()
            for p in range(partitions):
                offsets[p] = offsets[p] + step if offsets[p] + step < end else 0
        frame = c.read_frame()
        pending.pop(0)
        _, resp = codec.decode_response(1, 12, frame)
        assert isinstance(resp, FetchResponse)
        for t in resp.responses:
            for pd in t.partitions:
                if pd.error_code:
                    raise RuntimeError(f"fetch error {pd.error_code} on partition {pd.partition_index}")
                recv_bytes += len(pd.records or b"")
        done += 1
    return done, recv_bytes


def profile_start(pid: int, out: Path) -> subprocess.Popen | None:
    exe = shutil.which("py-spy")
    if exe is None:
        raise RuntimeError("--profile needs py-spy")
    return subprocess.Popen([exe, "record", "--pid", str(pid), "--rate", "250", "--nonblocking", "--format", "raw",
                             "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def strace_start(pid: int, out: Path) -> subprocess.Popen:
    exe = shutil.which("strace")
    if exe is None:
        raise RuntimeError("--syscalls needs strace")
    return subprocess.Popen([exe, "-c", "-f", "-p", str(pid), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _interrupt(proc: subprocess.Popen) -> None:
    """SIGINT a tracer or profiler so that it writes its output; kill it after 30 s."""
    proc.send_signal(2)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def strace_stop(tr: subprocess.Popen, out: Path, n: int) -> None:
    _interrupt(tr)
    print("  system calls per request (strace -c; slows the broker, so no CPU figure):")
    for line in out.read_text().splitlines():
        f = line.split()
        if len(f) >= 5 and f[3].isdigit() and f[-1] not in ("total",):
            print(f"    {f[-1]:<16} {int(f[3]) / n:7.2f}")


def profile_stop(spy: subprocess.Popen, out: Path, top: int) -> None:
    _interrupt(spy)
    if not out.exists():
        print(f"  (no profile written to {out})")
        return
    self_c: Counter = Counter()
    total_c: Counter = Counter()
    samples = 0
    for line in out.read_text().splitlines():
        stack, _, cnt = line.rpartition(" ")
        if not stack:
            continue
        k = int(cnt)
        frames = stack.split(";")
        if any(f.startswith(("LogCleaner.", "Thread._bootstrap")) for f in frames):
            continue  # other threads, parked: not the request path
        samples += k
        self_c[frames[-1]] += k
        for f in set(frames):
            total_c[f] += k
    print(f"  profile: {samples} samples ({out})")
    print("  self%   function")
    for f, k in self_c.most_common(top):
        print(f"  {100 * k / samples:5.1f}   {f}")
    print("  total%  function")
    for f, k in total_c.most_common(top + 10):
        print(f"  {100 * k / samples:5.1f}   {f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--produces", type=int, default=3000)
    ap.add_argument("--fetches", type=int, default=3000)
    ap.add_argument("--window", type=int, default=8)
    ap.add_argument("--partitions", type=int, default=6)
    ap.add_argument("--batch-kib", type=int, default=16)
    ap.add_argument("--fetch-kib", type=int, default=64, help="partition_max_bytes of each fetch, KiB")
    ap.add_argument("--acks", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--syscalls", action="store_true", help="count the broker's system calls with strace")
    ap.add_argument("--env", action="append", default=[], metavar="K=V", help="environment for the broker")
    ap.add_argument("--override", action="append", default=[], metavar="K=V",
                    help="broker config override (e.g. kafpy.metrics.enable=false)")
    args = ap.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="kafpy-bench-cpu-"))
    env = dict(kv.split("=", 1) for kv in args.env)
    overrides = {"log.flush.interval.messages": "9223372036854775807", **dict(kv.split("=", 1) for kv in args.override)}
    broker = KafpyBroker(work_dir=work, env=env, overrides=overrides)
    try:
        broker.start()
        assert broker.proc is not None
        pid = broker.proc.pid
        c = Client(broker.port)
        ct = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
            name=TOPIC, num_partitions=args.partitions, replication_factor=1, assignments=[], configs=[])],
            timeout_ms=30000, validate_only=False)
        c.call(19, 4, ct)
        ip = c.call(22, 1, InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000))
        assert isinstance(ip, InitProducerIdResponse)
        tpl = template_batch(args.batch_kib, ip.producer_id, ip.producer_epoch)
        count = args.batch_kib
        # warm up (imports, first segment, code paths)
        pipelined(c, produce_frames(c, 50, args.partitions, tpl, args.acks, 0), args.window)
        frames = produce_frames(c, args.produces, args.partitions, tpl, args.acks, 50)
        out = work / "produce.prof.txt"
        spy = profile_start(pid, out) if args.profile else None
        tr = strace_start(pid, work / "produce.strace") if args.syscalls else None
        if spy or tr:
            time.sleep(1.0)
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        pipelined(c, frames, args.window)
        cpu1, t1 = cpu_seconds(pid), time.perf_counter()
        req_bytes = sum(len(f) for f in frames)
        print(f"Produce v9 acks={args.acks}: {args.produces} requests x {args.partitions} partitions x "
              f"{len(tpl) / 1024:.1f} KiB batch, window {args.window}")
        print(f"  {cpu_line(cpu0, cpu1, args.produces)}   "
              f"wall {t1 - t0:6.2f} s   {req_bytes / (t1 - t0) / 1e6:7.1f} MB/s (wall, load-dependent)")
        if spy:
            profile_stop(spy, out, args.top)
        if tr:
            strace_stop(tr, work / "produce.strace", args.produces)

        end = (50 + args.produces) * count
        batch_size = len(tpl)
        step = max(1, (args.fetch_kib * 1024) // batch_size) * count
        fetch_phase(c, 50, args.partitions, args.fetch_kib * 1024, args.window, end, step)
        out = work / "fetch.prof.txt"
        spy = profile_start(pid, out) if args.profile else None
        tr = strace_start(pid, work / "fetch.strace") if args.syscalls else None
        if spy or tr:
            time.sleep(1.0)
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        n, got = fetch_phase(c, args.fetches, args.partitions, args.fetch_kib * 1024, args.window, end, step)
        cpu1, t1 = cpu_seconds(pid), time.perf_counter()
        print(f"Fetch v12: {n} requests x {args.partitions} partitions x {args.fetch_kib} KiB, window {args.window}, "
              f"{got / n / 1024:.0f} KiB records/response")
        print(f"  {cpu_line(cpu0, cpu1, n)}   "
              f"wall {t1 - t0:6.2f} s   {got / (t1 - t0) / 1e6:7.1f} MB/s (wall, load-dependent)")
        if spy:
            profile_stop(spy, out, args.top)
        if tr:
            strace_stop(tr, work / "fetch.strace", n)
        c.sock.close()
    finally:
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
