"""What zero-copy Fetch gains: the same log read back with record data sent by ``sendfile``
(the default) and by reading it into memory first (``KAFPY_ZERO_COPY=0``).

    python -m bench.fetch_zero_copy [--mb 256] [--rounds 3]

Starts one broker per mode, fills a one-partition topic with ``--mb`` MB of 1 MiB record
batches, then reads the whole log ``--rounds`` times with plain Fetch requests (a raw socket
client that only walks batch headers), and prints read throughput, the broker's CPU seconds
per GB sent, and the share of bytes the broker reports having sent with sendfile (from its
shutdown log line), which shows which path was taken.
"""
from __future__ import annotations

import argparse
import os
import re
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol.messages import (FetchRequest, FetchResponse, ProduceRequest, ProduceResponse,  # noqa: E402
                               RequestHeader)
from kafpy.protocol.records import build_batch, iter_batches, Record  # noqa: E402
from tests.support.kafpy_broker import KafpyBroker  # noqa: E402

from bench.compare import cpu_seconds  # noqa: E402


class Client:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.cid = 0
        self.buf = bytearray(64 << 20)

    def call(self, api_key: int, version: int, body) -> object:
        self.cid += 1
        hdr = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=self.cid,
                            client_id="bench")
        self.sock.sendall(codec.encode_request(hdr, body))
        n = struct.unpack(">i", self._recv(4))[0]
        frame = self._recv(n)
        return codec.decode_response(api_key, version, frame)[1]

    def _recv(self, n: int) -> memoryview:
        if n > len(self.buf):
            self.buf = bytearray(n)
        view = memoryview(self.buf)[:n]
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if k == 0:
                raise ConnectionError("broker closed the connection")
            got += k
        return view


def fill(c: Client, topic: str, mb: int) -> int:
    value = os.urandom(1000)
    recs = [Record(offset_delta=i, timestamp_delta=0, key=None, value=value, headers=[]) for i in range(1000)]
    batch = build_batch(recs, base_timestamp=int(time.time() * 1000))
    n = 0
    while n * len(batch) < mb * 1_000_000:
        req = ProduceRequest(transactional_id=None, acks=1, timeout_ms=30000, topic_data=[
            ProduceRequest.TopicProduceData(name=topic, partition_data=[
                ProduceRequest.PartitionProduceData(index=0, records=batch)])])
        resp = c.call(0, 9, req)
        assert isinstance(resp, ProduceResponse)
        err = resp.responses[0].partition_responses[0].error_code
        if err:
            raise RuntimeError(f"produce failed with error {err}")
        n += 1
    return n * 1000


def read_all(c: Client, topic: str, end: int) -> int:
    offset = 0
    total = 0
    while offset < end:
        req = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=32 << 20, isolation_level=0,
                           session_id=0, session_epoch=-1, topics=[FetchRequest.FetchTopic(
                               topic=topic, partitions=[FetchRequest.FetchPartition(
                                   partition=0, fetch_offset=offset, partition_max_bytes=16 << 20)])],
                           forgotten_topics_data=[], rack_id="")
        resp = c.call(1, 11, req)
        assert isinstance(resp, FetchResponse)
        part = resp.responses[0].partitions[0]
        if part.error_code:
            raise RuntimeError(f"fetch failed with error {part.error_code}")
        recs = part.records
        total += len(recs)
        last = offset
        for _pos, h in iter_batches(recs):
            last = h.base_offset + h.last_offset_delta + 1
        if last == offset:
            raise RuntimeError("fetch made no progress")
        offset = last
    return total


def run_mode(zero_copy: bool, mb: int, rounds: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="kafpy-zc-"))
    b = KafpyBroker(log_dir=work / "logs", work_dir=work, env={"KAFPY_ZERO_COPY": "1" if zero_copy else "0"},
                    overrides={"auto.create.topics.enable": "true", "num.partitions": "1"}).start()
    try:
        c = Client(b.port)
        from kafpy.protocol.messages import MetadataRequest
        c.call(3, 12, MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="zc")],
                                      allow_auto_topic_creation=True))
        end = fill(c, "zc", mb)
        read_all(c, "zc", end)  # warm the page cache
        assert b.proc is not None
        cpu0 = cpu_seconds(b.proc.pid)
        t0 = time.monotonic()
        nbytes = 0
        for _ in range(rounds):
            nbytes += read_all(c, "zc", end)
        dt = time.monotonic() - t0
        cpu = cpu_seconds(b.proc.pid) - cpu0
        c.sock.close()
    finally:
        b.stop()
    m = re.search(r"sent (\d+) bytes, (\d+) of them by sendfile", b.log_text())
    share = int(m.group(2)) / int(m.group(1)) if m and int(m.group(1)) else float("nan")
    return {"mode": "sendfile" if zero_copy else "read+write", "mb_per_s": nbytes / dt / 1e6,
            "cpu_s_per_gb": cpu / (nbytes / 1e9), "sendfile_share": share}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fetch_zero_copy", description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=int, default=256, help="log size to write and read back (default 256)")
    p.add_argument("--rounds", type=int, default=3, help="full reads of the log to time (default 3)")
    args = p.parse_args(argv)
    rows = [run_mode(True, args.mb, args.rounds), run_mode(False, args.mb, args.rounds)]
    print(f"\n{'path':12s} {'read MB/s':>10s} {'broker CPU s/GB':>16s} {'bytes by sendfile':>18s}")
    for r in rows:
        print(f"{r['mode']:12s} {r['mb_per_s']:10.0f} {r['cpu_s_per_gb']:16.2f} {r['sendfile_share']:17.0%}")
    a, b = rows
    print(f"\nsendfile: {a['mb_per_s'] / b['mb_per_s']:.2f}x the throughput, "
          f"{b['cpu_s_per_gb'] / a['cpu_s_per_gb']:.2f}x less broker CPU per GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
