"""One SparkSession (local[2]) and one kafpy broker shared by every Spark test.

A JVM start costs tens of seconds on a loaded machine, so both live as long as this folder's
tests run (one work unit under xdist: tests/conftest.py SHARED_SESSION_DIRS); tests keep apart
by using their own topic names and temporary checkpoints. Package-scoped, not session-scoped:
an idle driver JVM kept to the end of the run spent ~50 CPU-s there.
"""
from __future__ import annotations

from typing import Iterator

import pytest

from kafpy.spark_jobs import session
from tests.support.kafpy_broker import KafpyBroker
from tests.support.spark import stop_spark


@pytest.fixture(scope="package")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyBroker]:
    """A kafpy broker for the Spark tests (topics auto-created with 1 partition)."""
    broker = KafpyBroker(work_dir=tmp_path_factory.mktemp("spark-kafpy"))
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="package")
def spark() -> Iterator[object]:
    """local[2] SparkSession with Spark's Kafka connector from the kafpy cache."""
    s = session.build_session("kafpy-spark-tests", log_level="ERROR")
    try:
        yield s
    finally:
        for q in s.streams.active:
            q.stop()
        stop_spark(s)


@pytest.fixture(autouse=True)
def _no_leftover_queries(request: pytest.FixtureRequest) -> Iterator[None]:
    """Stop streaming queries a failed test left running, so the next test starts clean."""
    yield
    if "spark" in request.fixturenames:
        s = request.getfixturevalue("spark")
        for q in s.streams.active:
            q.stop()
