"""Data generators for the Spark jobs: realistic JSON records to a Kafka topic at a set rate.

    python -m kafpy.spark_jobs.generate sensor    --bootstrap-servers HOST:PORT [--rate N] ...
    python -m kafpy.spark_jobs.generate pageviews --bootstrap-servers HOST:PORT [--rate N] ...

The records come from seeded pure functions (`sensor_readings`, `page_views`), so a run is
reproducible and tests can compute the expected output from the same list. Event times
advance by `--event-interval` per record from `--start-time` (not the wall clock), which keeps
windows and watermarks deterministic. Producing uses kafka-python (acks=all, records keyed by
rig / user so each key stays in one partition).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Iterator, Sequence

TS_FORMAT = "%Y-%m-%d %H:%M:%S"
DEFAULT_START = "2015-01-01 00:00:00"
PAGES = ("/", "/search", "/products", "/products/pumps", "/products/valves", "/cart",
         "/checkout", "/account", "/help", "/blog/offshore-safety")
REFERRERS = ("", "https://www.google.com/", "https://news.example.org/", "email", "direct")


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, TS_FORMAT).replace(tzinfo=timezone.utc)


def format_time(t: datetime) -> str:
    return t.strftime(TS_FORMAT)


def sensor_readings(count: int, *, seed: int = 1, rigs: int = 10,
                    start: str = DEFAULT_START, event_interval: float = 1.0,
                    anomaly_rate: float = 0.05, first_event_id: int = 1) -> Iterator[dict]:
    """`count` readings from `rigs` rigs (hcid 1..rigs), one every `event_interval` seconds of
    event time in turn; a fraction `anomaly_rate` has pressure or temperature spiking."""
    rng = random.Random(seed)
    t0 = parse_time(start)
    for i in range(count):
        hcid = 1 + i % rigs
        pressure = rng.randint(80, 115)
        temperature = rng.randint(20, 80)
        if rng.random() < anomaly_rate:
            if rng.random() < 0.5:
                pressure = rng.randint(121, 180)
            else:
                temperature = rng.randint(101, 140)
        yield {
            "event_ID": first_event_id + i,
            "hcid": hcid,
            "timestamp": format_time(t0 + timedelta(seconds=i * event_interval)),
            "production": rng.randint(20, 60),
            "sensor_readings": {"pressure": pressure, "temperature": temperature,
                                "oil_percentage": rng.randint(5, 40)},
            "injection_vol": rng.randint(12000, 18000),
        }


def page_views(count: int, *, seed: int = 1, users: int = 20, start: str = DEFAULT_START,
               event_interval: float = 1.0, late_fraction: float = 0.0,
               late_by: float = 600.0) -> Iterator[dict]:
    """`count` page views by users u001..; a fraction `late_fraction` carries an event time
    `late_by` seconds older than its neighbours (a phone that was offline)."""
    rng = random.Random(seed)
    t0 = parse_time(start)
    for i in range(count):
        t = t0 + timedelta(seconds=i * event_interval)
        if late_fraction and rng.random() < late_fraction:
            t -= timedelta(seconds=late_by)
        user = rng.randint(1, users)
        yield {
            "user_id": f"u{user:03d}",
            "session_id": f"s{user:03d}-{int(t.timestamp()) // 1800}",
            "page": rng.choice(PAGES),
            "referrer": rng.choice(REFERRERS),
            "timestamp": format_time(t),
        }


def produce(bootstrap_servers: str, topic: str, records: Iterable[dict], *,
            key: Callable[[dict], str], rate: float | None = None,
            compression: str | None = None, clock: Callable[[], float] = time.monotonic,
            sleep: Callable[[float], None] = time.sleep) -> int:
    """Send JSON records, at most `rate` per second (None: as fast as possible); returns the
    count once every record is acknowledged."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all",
                             compression_type=compression, linger_ms=5)
    sent = 0
    started = clock()
    try:
        for record in records:
            if rate:
                due = started + sent / rate
                now = clock()
                if due > now:
                    sleep(due - now)
            producer.send(topic, key=key(record).encode(),
                          value=json.dumps(record, separators=(",", ":")).encode())
            sent += 1
        producer.flush()
    finally:
        producer.close()
    return sent


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kafpy.spark_jobs.generate",
                                description="Produce sample records for the Spark jobs.")
    sub = p.add_subparsers(dest="kind", required=True)

    def common(sp: argparse.ArgumentParser, topic: str) -> None:
        sp.add_argument("--bootstrap-servers", required=True, metavar="HOST:PORT[,...]")
        sp.add_argument("--topic", default=topic, help=f"target topic (default {topic})")
        sp.add_argument("--count", type=int, default=1000, help="records to send")
        sp.add_argument("--rate", type=float, default=None,
                        help="records per second (default: as fast as possible)")
        sp.add_argument("--seed", type=int, default=1, help="random seed")
        sp.add_argument("--start-time", default=DEFAULT_START,
                        help=f"event time of the first record ({DEFAULT_START!r})")
        sp.add_argument("--event-interval", type=float, default=1.0,
                        help="event-time seconds between records")
        sp.add_argument("--compression", default=None,
                        choices=["gzip", "snappy", "lz4", "zstd"], help="producer codec")

    s = sub.add_parser("sensor", help="oil-rig sensor readings (for sensor_alerts)",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    common(s, "sensor")
    s.add_argument("--rigs", type=int, default=10, help="number of rigs (hcid 1..N)")
    s.add_argument("--anomaly-rate", type=float, default=0.05,
                   help="fraction of readings with a pressure or temperature spike")
    s.add_argument("--first-event-id", type=int, default=1)

    v = sub.add_parser("pageviews", help="clickstream page views (for pageview_counts)",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    common(v, "clickstream")
    v.add_argument("--users", type=int, default=20, help="distinct users")
    v.add_argument("--late-fraction", type=float, default=0.0,
                   help="fraction of views arriving with an older event time")
    v.add_argument("--late-by", type=float, default=600.0,
                   help="how many seconds older a late view's event time is")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.kind == "sensor":
        records = sensor_readings(args.count, seed=args.seed, rigs=args.rigs,
                                  start=args.start_time, event_interval=args.event_interval,
                                  anomaly_rate=args.anomaly_rate,
                                  first_event_id=args.first_event_id)
        key = lambda r: str(r["hcid"])  # noqa: E731
    else:
        records = page_views(args.count, seed=args.seed, users=args.users,
                             start=args.start_time, event_interval=args.event_interval,
                             late_fraction=args.late_fraction, late_by=args.late_by)
        key = lambda r: r["user_id"]  # noqa: E731
    started = time.monotonic()
    sent = produce(args.bootstrap_servers, args.topic, records, key=key, rate=args.rate,
                   compression=args.compression)
    elapsed = time.monotonic() - started
    print(f"sent {sent} records to {args.topic} in {elapsed:.1f} s "
          f"({sent / elapsed if elapsed else 0:.0f}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
