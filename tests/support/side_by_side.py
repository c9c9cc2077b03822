"""Apache Kafka and kafpy started side by side for one test module.

Both start at once on two threads (most of each start is waiting on its own process, so
the pair costs about the slower one), and both are stopped at the end, also when one of
them failed to start or a test failed.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator

from tests.support.kafka_dist import ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker


@contextmanager
def started_together(kafka: ReferenceKafka, ours: KafpyBroker) -> Iterator[None]:
    """Start `kafka` and `ours` in parallel; on leaving, stop kafpy, then Kafka."""
    with ThreadPoolExecutor(2) as pool:
        starting: list[Future[object]] = [pool.submit(kafka.start), pool.submit(ours.start)]
        errors = [f.exception() for f in starting]
    try:
        failed = [e for e in errors if e is not None]
        if failed:
            raise failed[0]
        yield
    finally:
        ours.stop()
        kafka.stop()
