"""Apache Kafka and kafpy started side by side for one test module.

Both start at once on two threads (most of each start is waiting on its own process, so
the pair costs about the slower one), and both are stopped at the end, also when one of
them failed to start or a test failed.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

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


def apache_and_kafpy(base: Path, overrides: Mapping[str, object] | None = None,
                     node_id: int = 1) -> Iterator[dict[str, Any]]:
    """A module fixture's body: Apache Kafka 4.4's single node in ``base/kafka`` and a
    standalone kafpy broker in ``base/kafpy``, both with ``overrides`` and ``node_id`` as
    their id, started together; yields ``{"apache": ..., "kafpy": ...}`` and stops both after."""
    ours_overrides = {**(overrides or {}), **({"broker.id": node_id} if node_id != 1 else {})}
    kafka = ReferenceKafka("4", work_dir=base / "kafka", overrides=overrides, node_id=node_id)
    ours = KafpyBroker(work_dir=base / "kafpy", overrides=ours_overrides or None, start_timeout=150)
    with started_together(kafka, ours):
        yield {"apache": kafka, "kafpy": ours}
