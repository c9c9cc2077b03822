"""Fixtures for the single-broker integration tests: one of our brokers per test module
(JVM and broker starts are the slow part, so tests in a module share one and use their own
topic names), plus small helpers shared by the modules."""
from __future__ import annotations

import itertools
import uuid
from typing import Iterator

import pytest

from tests.support.kafpy_broker import KafpyBroker

_names = itertools.count()


@pytest.fixture(scope="module")
def shared_broker(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyBroker]:
    """One broker for a whole test module, stopped at module teardown; a module's
    ``BROKER_OVERRIDES`` dict, if any, is added to its settings."""
    work = tmp_path_factory.mktemp("kafpy-shared")
    # a generous start timeout: other suites may be loading this machine's two cores
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150,
                    overrides=dict(getattr(request.module, "BROKER_OVERRIDES", {})))
    b.start()
    try:
        yield b
    finally:
        b.stop()


def topic_name(prefix: str) -> str:
    """A topic name unique within the test session."""
    return f"{prefix}-{next(_names)}-{uuid.uuid4().hex[:6]}"
