"""Microseconds per decode/encode of realistic messages: compiled codec vs table interpreter.

    python -m bench.protocol_codec [--number N]

Messages: Produce request (1 topic x 6 partitions x 16 KiB records), Fetch request
(6 partitions) and Fetch response (6 x 16 KiB, also as zero-copy chunks with record
slices), Metadata request (3 topics) and response (3 brokers, 10 topics x 13 partitions,
3 replicas). "compiled" is ``kafpy.protocol.codec`` (generated per-version functions),
"interpreter" is ``kafpy.protocol._interpreter`` walking the same tables; both on the message
body only ("x" = interpreter time / compiled time), plus the full entry points
(``decode_request``/``decode_response`` and ``encode_request``/``encode_response``, header
and size prefix included) of the compiled codec. Process CPU time, best of N repeats.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import timeit
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafpy.protocol import codec  # noqa: E402
from kafpy.protocol import messages as M  # noqa: E402
from kafpy.protocol._interpreter import INTERPRETER  # noqa: E402

RECORDS = bytes(range(256)) * 64  # 16 KiB


class Slice:
    """Stand-in for a file slice (only ``size`` is read on the chunked path)."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


def produce_request() -> M.ProduceRequest:
    P = M.ProduceRequest
    return P(transactional_id=None, acks=-1, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name="bench-topic", partition_data=[
            P.PartitionProduceData(index=i, records=RECORDS) for i in range(6)])])


def fetch_request() -> M.FetchRequest:
    F = M.FetchRequest
    return F(replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=52428800, isolation_level=0,
             session_id=0, session_epoch=-1, topics=[F.FetchTopic(topic="bench-topic", topic_id=bytes(range(16)),
             partitions=[F.FetchPartition(partition=i, current_leader_epoch=0, fetch_offset=1000 * i,
                                          log_start_offset=-1, partition_max_bytes=1048576) for i in range(6)])],
             rack_id="")


def fetch_response(records: Callable[[int], object]) -> M.FetchResponse:
    F = M.FetchResponse
    return F(throttle_time_ms=0, error_code=0, session_id=0, responses=[F.FetchableTopicResponse(
        topic="bench-topic", topic_id=bytes(range(16)), partitions=[
            F.PartitionData(partition_index=i, error_code=0, high_watermark=100000, last_stable_offset=100000,
                            log_start_offset=0, aborted_transactions=None, preferred_read_replica=-1,
                            records=records(i)) for i in range(6)])])


def metadata_request() -> M.MetadataRequest:
    R = M.MetadataRequest
    return R(topics=[R.MetadataRequestTopic(name=f"topic-{i}") for i in range(3)], allow_auto_topic_creation=True)


def metadata_response() -> M.MetadataResponse:
    R = M.MetadataResponse
    return R(brokers=[R.MetadataResponseBroker(node_id=i, host="localhost", port=9092 + i, rack=None) for i in range(3)],
             cluster_id="kafpy-cluster", controller_id=0, topics=[
                 R.MetadataResponseTopic(error_code=0, name=f"topic-{t}", topic_id=bytes([t]) * 16, is_internal=False,
                                         partitions=[R.MetadataResponsePartition(
                                             error_code=0, partition_index=p, leader_id=p % 3, leader_epoch=0,
                                             replica_nodes=[0, 1, 2], isr_nodes=[0, 1, 2], offline_replicas=[])
                                             for p in range(13)]) for t in range(10)])


REPEAT = 9


def best_us(fn: Callable[[], object], number: int) -> float:
    # CPU time of this process, best of REPEAT: robust to other work on a shared machine
    return min(timeit.repeat(fn, number=number, repeat=REPEAT, timer=time.process_time)) / number * 1e6


def row(name: str, cls: type, version: int, obj: M.Message, number: int, full_dec: Callable | None,
        full_enc: Callable | None) -> tuple:
    enc = codec.encoder_for(cls, version)
    dec = codec.decoder_for(cls, version)

    def c_enc() -> bytes:
        out: list = []
        enc(obj, out, [])
        return b"".join(out)

    body = c_enc()
    assert INTERPRETER.encode(obj, version) == body
    mv = memoryview(body)
    n = len(body)
    c_dec_us = best_us(lambda: dec(body, mv, 0, n), number)
    i_dec_us = best_us(lambda: INTERPRETER.decode(cls, version, body), number)
    c_enc_us = best_us(c_enc, number)
    i_enc_us = best_us(lambda: INTERPRETER.encode(obj, version), number)
    fd = best_us(full_dec, number) if full_dec else float("nan")
    fe = best_us(full_enc, number) if full_enc else float("nan")
    return (name, version, len(body), c_dec_us, i_dec_us, c_enc_us, i_enc_us, fd, fe)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=500, help="calls per timing")
    ap.add_argument("--repeat", type=int, default=9, help="timings per figure (the best is shown)")
    args = ap.parse_args(argv)
    global REPEAT
    REPEAT = args.repeat
    n = args.number
    rows = []
    for version in (3, 9, 11):
        req: M.Message = produce_request()
        hdr = M.RequestHeader(request_api_key=0, request_api_version=version, correlation_id=1, client_id="producer-1")
        frame = codec.encode_request(hdr, req)[4:]
        rows.append(row("Produce request 6x16KiB", M.ProduceRequest, version, req, n,
                        lambda f=frame: codec.decode_request(f), lambda h=hdr, r=req: codec.encode_request(h, r)))
    for version in (4, 12, 16):
        req = fetch_request()
        hdr = M.RequestHeader(request_api_key=1, request_api_version=version, correlation_id=1, client_id="consumer-1")
        frame = codec.encode_request(hdr, req)[4:]
        rows.append(row("Fetch request 6 parts", M.FetchRequest, version, req, n,
                        lambda f=frame: codec.decode_request(f), lambda h=hdr, r=req: codec.encode_request(h, r)))
    for version in (4, 12, 16):
        resp: M.Message = fetch_response(lambda i: RECORDS)
        frame = codec.encode_response(1, version, 1, resp)[4:]
        rows.append(row("Fetch response 6x16KiB", M.FetchResponse, version, resp, n,
                        lambda f=frame, v=version: codec.decode_response(1, v, f),
                        lambda r=resp, v=version: codec.encode_response(1, v, 1, r)))
        sliced = fetch_response(lambda i: Slice(16384))
        us = best_us(functools.partial(codec.encode_response_chunks, 1, version, 1, sliced), n)
        rows.append(("Fetch response chunks (slices)", version, 0, float("nan"), float("nan"), float("nan"),
                     float("nan"), float("nan"), us))
    for version in (1, 9, 12):
        req = metadata_request()
        hdr = M.RequestHeader(request_api_key=3, request_api_version=version, correlation_id=1, client_id="admin-1")
        frame = codec.encode_request(hdr, req)[4:]
        rows.append(row("Metadata request 3 topics", M.MetadataRequest, version, req, n,
                        lambda f=frame: codec.decode_request(f), lambda h=hdr, r=req: codec.encode_request(h, r)))
    for version in (1, 9, 12):
        resp = metadata_response()
        frame = codec.encode_response(3, version, 1, resp)[4:]
        rows.append(row("Metadata response 10x13", M.MetadataResponse, version, resp, max(n // 10, 20),
                        lambda f=frame, v=version: codec.decode_response(3, v, f),
                        lambda r=resp, v=version: codec.encode_response(3, v, 1, r)))

    print(f"Python {sys.version.split()[0]}; CPU microseconds per operation (best of {REPEAT} x {n} calls)")
    head = ("message", "ver", "body B", "dec comp", "dec interp", "x", "enc comp", "enc interp", "x",
            "decode_*", "encode_*")
    fmt = "{:<31} {:>3} {:>7} {:>9} {:>10} {:>5} {:>9} {:>10} {:>5} {:>9} {:>9}"
    print(fmt.format(*head))
    for name, v, size, cd, idec, ce, ienc, fd, fe in rows:
        def f(x: float) -> str:
            return "-" if x != x else f"{x:.1f}"

        def r(a: float, b: float) -> str:
            return "-" if a != a or b != b else f"{b / a:.1f}"

        print(fmt.format(name, v, size or "-", f(cd), f(idec), r(cd, idec), f(ce), f(ienc), r(ce, ienc), f(fd), f(fe)))


if __name__ == "__main__":
    main()
