"""A full Metadata (every topic) at many partitions: the broker-side cost per request,
handler plus encoding, in process (no socket, no client decoding).

    python -m bench.metadata_response [--sizes 1000,5000,20000]

Prints one row per size: ``first_ms`` (the first request after a change: entries built
and encoded) and ``median_ms`` (the next 20 requests). Topics of 100 partitions, one
broker, metadata version 9 and 12.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import types
from typing import cast

from kafpy.broker.config import KafkaConfig
from kafpy.broker.handler import RequestContext
from kafpy.broker.handlers.metadata import handle_metadata
from kafpy.broker.services import BrokerServices
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicInfo
from kafpy.protocol import codec
from kafpy.protocol.messages import MetadataRequest, RequestHeader

PER_TOPIC = 100


def services(size: int) -> object:
    md = MetadataCache("bench-cluster", BrokerInfo(0, "127.0.0.1", 9092))
    md.update(controller_id=0, topics=[TopicInfo(
        f"scale-{t}", bytes([1 + t % 255]) * 16,
        {p: PartitionInfo(0, 0, [0], [0]) for p in range(PER_TOPIC)}, {}) for t in range(size // PER_TOPIC)])
    return types.SimpleNamespace(metadata_cache=md, broker_id=0, config=KafkaConfig({"broker.id": "0"}),
                                 replica_manager=types.SimpleNamespace(offline_partitions=set()))


def one_request(loop: asyncio.AbstractEventLoop, svc: object, version: int) -> float:
    header = RequestHeader(request_api_key=3, request_api_version=version, correlation_id=1, client_id="bench")
    # svc: a stand-in with the fields handle_metadata reads (see services() above)
    ctx = RequestContext(cast(BrokerServices, svc), header, "127.0.0.1", 1, "bench", "PLAINTEXT")
    t = time.perf_counter()
    resp = loop.run_until_complete(handle_metadata(ctx, MetadataRequest(topics=None)))
    if hasattr(resp, "encode_chunks"):
        resp.encode_chunks(version, 1)
    else:
        codec.encode_response_chunks(3, version, 1, resp)
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,5000,20000")
    args = ap.parse_args()
    loop = asyncio.new_event_loop()
    print(f"{'partitions':>10} {'version':>7} {'first_ms':>9} {'median_ms':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        svc = services(size)
        for version in (9, 12):
            first = one_request(loop, svc, version)
            rest = [one_request(loop, svc, version) for _ in range(20)]
            print(f"{size:>10} {version:>7} {first:>9.1f} {statistics.median(rest):>9.2f}")
    loop.close()


if __name__ == "__main__":
    main()
