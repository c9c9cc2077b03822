"""Schema Registry lookups per second and REST Proxy produce throughput against the native
protocol, printed as a table.

    python -m bench.registry [--lookups 3000] [--requests 200] [--batch 100] [--size 100]
                             [--concurrency 8]

Starts one kafpy broker, a Schema Registry and a REST Proxy (in this process, on their own
event loop, as the tests run them), registers a schema, then measures:

- registry lookups, uncached: ``GET /schemas/ids/{id}`` and ``POST /subjects/{subject}``
  (schema to id, what a serializer asks) over keep-alive HTTP, ``--concurrency`` at once;
- registry lookups, cached: confluent-kafka's ``SchemaRegistryClient.get_schema``, whose
  cache answers after the first call (what a running serializer pays);
- produce: ``--requests`` v2 binary produce requests of ``--batch`` records of ``--size``
  bytes through the REST Proxy, against the same records through confluent-kafka's
  Producer and aiokafka's (acks=all for all three).
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import tempfile
import time
from pathlib import Path

from tests.support.kafpy_broker import KafpyBroker
from tests.support.registry_server import RegistryServer, RestProxyServer

SCHEMA = json.dumps({"type": "record", "name": "Bench", "fields": [{"name": "a", "type": "string"},
                                                                   {"name": "b", "type": "long", "default": 0}]})


async def _http_rate(method: str, url: str, body: dict | None, n: int, concurrency: int, ctype: str) -> float:
    import aiohttp
    data = json.dumps(body).encode() if body is not None else None
    async with aiohttp.ClientSession(headers={"Content-Type": ctype}) as session:
        async def worker(count: int) -> None:
            for _ in range(count):
                async with session.request(method, url, data=data) as r:
                    await r.read()
                    assert r.status == 200, r.status
        start = time.perf_counter()
        await asyncio.gather(*(worker(n // concurrency) for _ in range(concurrency)))
        return (n // concurrency) * concurrency / (time.perf_counter() - start)


def _cached_rate(url: str, schema_id: int, n: int) -> float:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    client = SchemaRegistryClient({"url": url})
    client.get_schema(schema_id)
    start = time.perf_counter()
    for _ in range(n):
        client.get_schema(schema_id)
    return n / (time.perf_counter() - start)


async def _rest_produce(url: str, topic: str, requests: int, batch: int, size: int, concurrency: int) -> float:
    import aiohttp
    value = base64.b64encode(b"x" * size).decode()
    body = json.dumps({"records": [{"value": value} for _ in range(batch)]}).encode()
    async with aiohttp.ClientSession(headers={"Content-Type": "application/vnd.kafka.binary.v2+json"}) as session:
        async def worker(count: int) -> None:
            for _ in range(count):
                async with session.post(f"{url}/topics/{topic}", data=body) as r:
                    payload = await r.json(content_type=None)
                    assert r.status == 200 and all(o["error_code"] is None for o in payload["offsets"]), payload
        start = time.perf_counter()
        await asyncio.gather(*(worker(requests // concurrency) for _ in range(concurrency)))
        return (requests // concurrency) * concurrency * batch / (time.perf_counter() - start)


def _confluent_produce(bootstrap: str, topic: str, n: int, size: int) -> float:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    value = b"x" * size
    start = time.perf_counter()
    for _ in range(n):
        while True:
            try:
                p.produce(topic, value)
                break
            except BufferError:
                p.poll(0.01)
    assert p.flush(120) == 0
    return n / (time.perf_counter() - start)


async def _aiokafka_produce(bootstrap: str, topic: str, n: int, size: int) -> float:
    from aiokafka import AIOKafkaProducer
    p = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await p.start()
    value = b"x" * size
    try:
        start = time.perf_counter()
        futures = [await p.send(topic, value) for _ in range(n)]
        await asyncio.gather(*futures)
        return n / (time.perf_counter() - start)
    finally:
        await p.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lookups", type=int, default=3000)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kafpy-bench-registry-"))
    broker = KafpyBroker(log_dir=work / "logs", work_dir=work).start()
    registry = proxy = None
    try:
        registry = RegistryServer(broker.bootstrap, replication_factor=1).start()
        proxy = RestProxyServer(broker.bootstrap, schema_registry_url=registry.url).start()
        ct = "application/vnd.schemaregistry.v1+json"
        sid = asyncio.run(_register(registry.url, ct))
        rows = [
            ("registry GET /schemas/ids/{id} (uncached)", "lookups/s",
             asyncio.run(_http_rate("GET", f"{registry.url}/schemas/ids/{sid}", None, args.lookups, args.concurrency, ct))),
            ("registry POST /subjects/{s} (uncached)", "lookups/s",
             asyncio.run(_http_rate("POST", f"{registry.url}/subjects/bench-value", {"schema": SCHEMA},
                                    args.lookups, args.concurrency, ct))),
            ("registry get_schema (client-cached)", "lookups/s", _cached_rate(registry.url, sid, args.lookups * 10)),
        ]
        n = args.requests * args.batch
        rows += [
            (f"REST v2 binary produce ({args.batch}/request)", "records/s",
             asyncio.run(_rest_produce(proxy.url, "bench-rest", args.requests, args.batch, args.size, args.concurrency))),
            ("native: confluent-kafka Producer", "records/s", _confluent_produce(broker.bootstrap, "bench-native", n, args.size)),
            ("native: aiokafka producer", "records/s", asyncio.run(_aiokafka_produce(broker.bootstrap, "bench-aio", n, args.size))),
        ]
        width = max(len(r[0]) for r in rows)
        print(f"{'measure':<{width}}  {'rate':>12}  unit")
        print("-" * (width + 26))
        for name, unit, rate in rows:
            print(f"{name:<{width}}  {rate:>12,.0f}  {unit}")
        print(f"({args.lookups} lookups, {n} records of {args.size} B, concurrency {args.concurrency}, acks=all)")
    finally:
        for server in (proxy, registry):
            if server is not None:
                server.stop()
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


async def _register(url: str, ct: str) -> int:
    import aiohttp
    async with aiohttp.ClientSession(headers={"Content-Type": ct}) as s:
        async with s.post(f"{url}/subjects/bench-value/versions", data=json.dumps({"schema": SCHEMA})) as r:
            return (await r.json(content_type=None))["id"]


if __name__ == "__main__":
    raise SystemExit(main())
