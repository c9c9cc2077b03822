"""Re-create the captured client frames in this directory.

    python tests/data/frames/capture.py [--clients java,librdkafka,kafka_python] [--no-cap]

Starts a reference Apache Kafka 4.x broker (jars from scripts/install-deps.sh) whose
advertised listener is a RecordingProxy (tests/support/recording_proxy.py), then runs each
client through it: Apache's console producer (each codec) and console consumer with a group
plus kafka-consumer-groups --describe (Java, Kafka 4.x jars), confluent-kafka Producer (each
codec, then an idempotent one) and Consumer with a group (librdkafka), kafka-python's
KafkaProducer (each codec) and KafkaConsumer with a group, and aiokafka's likewise. The proxy caps the broker's
ApiVersions answer to the API versions this project implements (protocol.codec.SPECS), so the requests are those the clients send to our broker; --no-cap records the
versions the clients use with Kafka 4.x itself.

Old captures of the selected clients are removed first; README.md is rewritten.
"""
from __future__ import annotations

import argparse
import gc
import re
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from tests.support.kafka_dist import VERSIONS, ReferenceKafka, run_tool  # noqa: E402
from tests.support.ports import free_port  # noqa: E402
from tests.support.recording_proxy import RecordingProxy, load_request_specs  # noqa: E402

CLIENTS = ("java", "librdkafka", "kafka_python", "aiokafka")
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
RECORDS_PER_CODEC = 20
NAME_RE = re.compile(r"^(?P<api>[a-z0-9_]+?)_v(?P<version>\d+)_(?P<client>"
                     + "|".join(CLIENTS) + r")(?:_(?P<variant>[a-z0-9]+))?(?P<resp>\.resp)?\.bin$")


def payloads(client: str, codec: str) -> list[str]:
    # repetitive text so that every codec really compresses (some clients send a batch
    # uncompressed when compression would not make it smaller)
    return [f"{client}-{codec}-{i:03d} " + "the quick brown fox jumps over the lazy dog " * 3
            for i in range(RECORDS_PER_CODEC)]


def log(msg: str) -> None:
    print(f"[capture] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- clients
def capture_java(proxy: RecordingProxy) -> None:
    version = VERSIONS["4"]
    bs = ["--bootstrap-server", proxy.bootstrap]
    topic = "frames-java"
    run_tool(version, "kafka-topics", [*bs, "--create", "--topic", topic, "--partitions", "1"])
    for codec in CODECS:
        log(f"java console producer, --compression-codec {codec}")
        run_tool(version, "kafka-console-producer",
                 [*bs, "--topic", topic, "--compression-codec", codec,
                  "--producer-property", "linger.ms=50"],
                 input="\n".join(payloads("java", codec)) + "\n", timeout=120)
    log("java console consumer with a group (stays 8 s after the last record)")
    out = run_tool(version, "kafka-console-consumer",
                   [*bs, "--topic", topic, "--group", "frames-java", "--from-beginning",
                    "--timeout-ms", "8000"], timeout=180, check=False)
    got = len(out.stdout.splitlines())
    if got != RECORDS_PER_CODEC * len(CODECS):
        raise RuntimeError(f"java console consumer read {got} records:\n{out.stderr[-3000:]}")
    log("kafka-consumer-groups --describe")
    run_tool(version, "kafka-consumer-groups", [*bs, "--describe", "--group", "frames-java"])


def capture_librdkafka(proxy: RecordingProxy) -> None:
    import confluent_kafka
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = "frames-librdkafka"
    admin = AdminClient({"bootstrap.servers": proxy.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    for codec in (*CODECS, "idempotent"):
        log(f"librdkafka producer, {codec}")
        conf = {"bootstrap.servers": proxy.bootstrap, "linger.ms": 50}
        if codec == "idempotent":
            conf["enable.idempotence"] = True
        else:
            conf["compression.type"] = codec
        producer = confluent_kafka.Producer(conf)
        for value in payloads("librdkafka", codec):
            producer.produce(topic, value.encode())
        if producer.flush(30) != 0:
            raise RuntimeError("librdkafka producer did not deliver everything")
        del producer
        gc.collect()  # librdkafka closes its connections when the handle is destroyed
    log("librdkafka consumer with a group")
    consumer = confluent_kafka.Consumer({
        "bootstrap.servers": proxy.bootstrap, "group.id": "frames-librdkafka",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "heartbeat.interval.ms": 1000, "session.timeout.ms": 10000})
    consumer.subscribe([topic])
    want = RECORDS_PER_CODEC * (len(CODECS) + 1)
    got = 0
    deadline = time.monotonic() + 60
    while got < want and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            got += 1
    end = time.monotonic() + 4  # let heartbeats happen
    while time.monotonic() < end:
        consumer.poll(0.5)
    consumer.commit(asynchronous=False)
    consumer.close()
    del consumer, admin
    gc.collect()
    if got != want:
        raise RuntimeError(f"librdkafka consumer read {got} of {want} records")


def capture_kafka_python(proxy: RecordingProxy) -> None:
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.admin import NewTopic

    topic = "frames-kafka-python"
    admin = KafkaAdminClient(bootstrap_servers=proxy.bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    admin.close()
    for codec in CODECS:
        log(f"kafka-python producer, {codec}")
        producer = KafkaProducer(bootstrap_servers=proxy.bootstrap, linger_ms=50,
                                 compression_type=None if codec == "none" else codec)
        futures = [producer.send(topic, v.encode()) for v in payloads("kafka_python", codec)]
        producer.flush(30)
        for f in futures:
            f.get(timeout=30)
        producer.close()
    log("kafka-python consumer with a group")
    consumer = KafkaConsumer(topic, bootstrap_servers=proxy.bootstrap,
                             group_id="frames-kafka-python", auto_offset_reset="earliest",
                             enable_auto_commit=False, heartbeat_interval_ms=1000,
                             consumer_timeout_ms=5000)
    got = sum(1 for _ in consumer)
    consumer.commit()
    consumer.close()
    want = RECORDS_PER_CODEC * len(CODECS)
    if got != want:
        raise RuntimeError(f"kafka-python consumer read {got} of {want} records")


def capture_aiokafka(proxy: RecordingProxy) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = "frames-aiokafka"
    want = RECORDS_PER_CODEC * len(CODECS)

    async def run() -> int:
        admin = AIOKafkaAdminClient(bootstrap_servers=proxy.bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(topic, 1, 1)])
        finally:
            await admin.close()
        for codec in CODECS:
            log(f"aiokafka producer, {codec}")
            producer = AIOKafkaProducer(bootstrap_servers=proxy.bootstrap, linger_ms=50,
                                        compression_type=None if codec == "none" else codec)
            await producer.start()
            try:
                futures = [await producer.send(topic, v.encode())
                           for v in payloads("aiokafka", codec)]
                await asyncio.gather(*futures)
            finally:
                await producer.stop()
        log("aiokafka consumer with a group")
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=proxy.bootstrap,
                                    group_id="frames-aiokafka", auto_offset_reset="earliest",
                                    enable_auto_commit=False, heartbeat_interval_ms=1000)
        await consumer.start()
        got = 0
        try:
            deadline = time.monotonic() + 60
            while got < want and time.monotonic() < deadline:
                batches = await consumer.getmany(timeout_ms=1000)
                got += sum(len(msgs) for msgs in batches.values())
            await asyncio.sleep(4)  # let heartbeats happen
            await consumer.commit()
        finally:
            await consumer.stop()
        return got

    got = asyncio.run(run())
    if got != want:
        raise RuntimeError(f"aiokafka consumer read {got} of {want} records")


CAPTURES = {"java": capture_java, "librdkafka": capture_librdkafka,
            "kafka_python": capture_kafka_python, "aiokafka": capture_aiokafka}


# ---------------------------------------------------------------------------- files
def remove_old(out_dir: Path, clients: list[str]) -> None:
    for path in out_dir.glob("*.bin"):
        m = NAME_RE.match(path.name)
        if m and m["client"] in clients:
            path.unlink()


def write_readme(out_dir: Path, capped: bool, kafka_version: str) -> None:
    specs = {v["name"]: k for k, v in load_request_specs().items()}
    rows = []
    for path in sorted(out_dir.glob("*.bin")):
        m = NAME_RE.match(path.name)
        if not m or m["resp"]:
            continue
        frame = path.read_bytes()
        api_key, version, corr = struct.unpack_from(">hhi", frame, 0)
        resp = path.with_name(path.name[:-4] + ".resp.bin")
        rows.append(f"| `{path.name}` | {m['api']} ({api_key}) | {version} | {m['client']} | "
                    f"{m['variant'] or ''} | {len(frame)} | "
                    f"{resp.stat().st_size if resp.exists() else '-'} |")
        assert specs.get(m["api"], api_key) == api_key, path.name
    text = f"""# Captured client frames

Real requests from real clients and the matching responses of Apache Kafka {kafka_version},
recorded by `tests/support/recording_proxy.py`. Re-create them all with

    python tests/data/frames/capture.py

(needs the jars from `scripts/install-deps.sh`; takes about two minutes).

- `<api>_v<N>_<client>[_<variant>].bin`: one request frame as the client sent it, without the
  4-byte size prefix (request header included). First occurrence of each
  (api, version, client, variant) only.
- `<same>.resp.bin`: the broker's response to it, without the size prefix (response header
  included). Absent when there was no response (Produce with acks=0).
- clients: `java` (Apache Kafka {kafka_version} console producer/consumer, kafka-topics and
  kafka-consumer-groups), `librdkafka` (confluent-kafka), `kafka_python` (kafka-python),
  `aiokafka`.
- variant: the compression codec of the first record batch of a Produce request
  (`none`, `gzip`, `snappy`, `lz4`, `zstd`).
- {"ApiVersions answers were capped to the API versions kafpy implements (`kafpy.protocol.codec.SPECS`), so these are the versions clients use with our broker; `api_versions_*.resp.bin` hold the capped answer the client saw." if capped else "Recorded uncapped: the versions clients use with Kafka itself."}
- Payloads: `<client>-<codec>-<nnn> ` followed by a repeated pangram; topics
  `frames-java`, `frames-librdkafka`, `frames-kafka-python`, `frames-aiokafka` (one
  partition each); groups of the same names. Ids, timestamps and member ids vary between captures.

| file | api (key) | version | client | variant | request bytes | response bytes |
| --- | --- | --- | --- | --- | --- | --- |
""" + "\n".join(rows) + "\n"
    (out_dir / "README.md").write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--clients", default=",".join(CLIENTS))
    ap.add_argument("--no-cap", action="store_true",
                    help="record the versions clients use with Kafka 4.x itself")
    args = ap.parse_args(argv)
    clients = [c for c in args.clients.split(",") if c]
    unknown = set(clients) - set(CLIENTS)
    if unknown:
        ap.error(f"unknown clients {sorted(unknown)}")
    args.out.mkdir(parents=True, exist_ok=True)
    remove_old(args.out, clients)

    proxy_port = free_port()
    kafka = ReferenceKafka("4", advertised_port=proxy_port)
    proxy = RecordingProxy(kafka.port, args.out, port=proxy_port,
                           cap_versions=None if args.no_cap else "spec")
    started = time.monotonic()
    try:
        log(f"starting Apache Kafka {kafka.version} on {kafka.port}, proxy on {proxy_port}")
        kafka.start()
        proxy.start()
        for client in clients:
            proxy.client = client
            CAPTURES[client](proxy)
            time.sleep(0.5)  # let the last responses land before relabelling
    finally:
        proxy.stop()
        kafka.stop()
        kafka.cleanup()
    write_readme(args.out, capped=not args.no_cap, kafka_version=kafka.version)
    log(f"{len(proxy.recorded)} request frames recorded in {time.monotonic() - started:.0f} s "
        f"into {args.out}")
    for stem in proxy.recorded:
        log(f"  {stem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
