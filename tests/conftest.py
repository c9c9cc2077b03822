"""Shared fixtures: our broker as a process, Debian's ZooKeeper, a reference Apache Kafka.

Every process a fixture starts is stopped at teardown, also when the test failed; the
output of each one a failed test used is attached to its report ("kafpy broker log" ...).
Missing dependencies (Kafka jars, ZooKeeper) make the fixture raise: tests fail, never skip.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Generator, Iterator

import pluggy
import pytest

from tests.support import cpu_report, forkserver, kafka_dist, tool_server
from tests.support.bytecode import cache_bytecode_outside_the_tree, prune_temporary
from tests.support.kafka_dist import VERSIONS, ReferenceKafka
from tests.support.kafpy_broker import KafpyBroker
from tests.support.spark import light_spark_driver
from tests.support.survivors import OWNER_VARIABLE, kill, survivors
from tests.support.zookeeper import ZooKeeperServer

# tests/data holds projects that tests run in a child pytest of their own (the plugin project
# uses the installed plugin's fixtures): never collected by this suite
collect_ignore = ["data"]

LOG_LINES_ON_FAILURE = 200


# --------------------------------------------------------------------------- survivors
# How long processes a test has just signalled may take to go, at the end of the session.
SURVIVOR_GRACE_S = 10.0
# the interpreter's own helpers, which end with it
INTERPRETER_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def pytest_configure(config: pytest.Config) -> None:
    # every child inherits it, so a daemonised one is found too (tests/support/survivors.py);
    # an xdist worker sets its own pid over the one inherited from the controller
    os.environ[OWNER_VARIABLE] = str(os.getpid())
    # the scripts a test runs (scripts/*.sh through kafpy-python.sh) take the suite's
    # interpreter, whichever venv is active or lies in the checkout
    os.environ["PYTHON"] = sys.executable
    # brokers, scripts and tools of the suite import kafpy from cached bytecode even where
    # PYTHONDONTWRITEBYTECODE is set (kept out of the checkout: tests/support/bytecode.py)
    prefix = cache_bytecode_outside_the_tree()
    if prefix is not None and "PYTEST_XDIST_WORKER" not in os.environ:
        prune_temporary(prefix, keep=Path(__file__).resolve().parents[1])
    # Apache brokers of the suite carry little traffic: serial GC, C1 only, a CDS archive
    # (kafka_dist.LIGHT_BROKER_JVM; benchmarks keep Kafka's own JVM flags)
    kafka_dist.LIGHT_BROKER_JVM = True
    # and so do the Spark drivers, the session's and the jobs' a test runs (tests/support/spark.py)
    light_spark_driver()
    # KAFPY_CPU_REPORT=DIR: CPU-seconds per test file (tests/support/cpu_report.py)
    cpu_report.register(config)


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_session() -> Iterator[None]:
    """Set up first, torn down last (after every other fixture of the session has stopped
    what it started): a process this pytest process started and that still runs is killed,
    and the run fails naming it. Under xdist each worker checks its own children. The tool
    servers that run Apache's admin tools and the fork server of kafpy brokers (kept for the
    whole session) are closed first."""
    yield
    tool_server.close_all()
    forkserver.close_all()
    deadline = time.monotonic() + SURVIVOR_GRACE_S
    while True:
        found = [s for s in survivors() if not any(h in s.command for h in INTERPRETER_HELPERS)]
        if not found or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if found:
        kill(found)
        pytest.fail("processes started by the suite were still running at its end (now killed):\n"
                    + "\n".join(map(str, found)), pytrace=False)


# --------------------------------------------------------------------------- our broker
class BrokerFactory:
    """Starts KafpyBroker processes for one test and stops them all at teardown.

    `factory(overrides={...}, port=None, log_dir=None, zookeeper=None, start=True)`;
    `zookeeper` (a ZooKeeperServer or a connect string) sets `zookeeper.connect`.
    """

    def __init__(self, base_dir: Path):
        self.base_dir = base_dir
        self.started: list[KafpyBroker] = []

    def __call__(self, overrides: dict[str, object] | None = None, *, port: int | None = None,
                 log_dir: str | Path | None = None, zookeeper: object | None = None,
                 start: bool = True, **kwargs) -> KafpyBroker:
        overrides = dict(overrides or {})
        if zookeeper is not None:
            overrides["zookeeper.connect"] = getattr(zookeeper, "connect_string", zookeeper)
        n = len(self.started)
        work_dir = self.base_dir / f"broker{n}"
        broker = KafpyBroker(log_dir=log_dir or work_dir / "logs", port=port,
                             overrides=overrides, work_dir=work_dir, **kwargs)
        self.started.append(broker)
        if start:
            broker.start()
        return broker

    def failure_logs(self) -> list[tuple[str, str]]:
        return [(b.name, b.log_text()) for b in self.started]

    def stop_all(self) -> None:
        for broker in reversed(self.started):
            try:
                broker.stop()
            except Exception:  # noqa: BLE001 - keep stopping the others
                broker.kill()

    def kill_all(self) -> None:
        """SIGKILL every broker: a test's teardown, where nothing reads the brokers' data
        again. A clean stop of a cluster is one broker after another, each moving its
        leaderships first (seconds per cluster); the tests of clean shutdown stop their
        brokers themselves."""
        for broker in self.started:
            broker.kill()


@pytest.fixture
def broker_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerFactory]:
    factory = BrokerFactory(tmp_path_factory.mktemp("kafpy"))
    try:
        yield factory
    finally:
        factory.kill_all()


@pytest.fixture
def broker(broker_factory: BrokerFactory) -> KafpyBroker:
    """One of our brokers on a free loopback port with a fresh log dir."""
    return broker_factory()


# --------------------------------------------------------------------------- ZooKeeper
@pytest.fixture
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooKeeperServer]:
    """A fresh standalone ZooKeeper on a free loopback port (`.connect_string`)."""
    zk = ZooKeeperServer(data_dir=tmp_path_factory.mktemp("zk"))
    try:
        zk.start()
        yield zk
    finally:
        zk.stop()


# --------------------------------------------------------------------------- Apache Kafka
@pytest.fixture(scope="session")
def reference_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReferenceKafka]:
    """One real Apache Kafka 4.x broker shared by the session (`.bootstrap`, `.version`).

    Shared: tests must use their own topic and group names. It idles for most of the run
    once started, so its controller appends a NoOpRecord every 10 s instead of Kafka's 500 ms
    (``metadata.max.idle.interval.ms``, a static setting no test reads): 1.4 % of a core
    idle instead of 2.8 %, measured over 40 s.
    """
    base = tmp_path_factory.mktemp("refkafka")
    kafka = ReferenceKafka("4", log_dir=base / "data", work_dir=base,
                           overrides={"metadata.max.idle.interval.ms": 10000})
    try:
        kafka.start()
        yield kafka
    finally:
        kafka.stop()


class ReferenceKafkaFactory:
    """Starts ReferenceKafka brokers for one test: `factory(version="4", **kwargs)`."""

    def __init__(self, base_dir: Path):
        self.base_dir = base_dir
        self.started: list[ReferenceKafka] = []

    def __call__(self, version: str = "4", **kwargs) -> ReferenceKafka:
        work_dir = self.base_dir / f"kafka{len(self.started)}"
        kwargs.setdefault("log_dir", work_dir / "data")
        kafka = ReferenceKafka(version, work_dir=work_dir, **kwargs)
        self.started.append(kafka)
        kafka.start()
        return kafka

    def failure_logs(self) -> list[tuple[str, str]]:
        return [(k.name, k.log_text()) for k in self.started]

    def stop_all(self) -> None:
        for kafka in reversed(self.started):
            try:
                kafka.stop()
            except Exception:  # noqa: BLE001
                kafka.kill()


@pytest.fixture
def reference_kafka_factory(tmp_path_factory: pytest.TempPathFactory
                            ) -> Iterator[ReferenceKafkaFactory]:
    factory = ReferenceKafkaFactory(tmp_path_factory.mktemp("refkafka"))
    try:
        yield factory
    finally:
        factory.stop_all()


@pytest.fixture(params=sorted(VERSIONS), ids=lambda v: f"kafka{v}")
def kafka_version(request: pytest.FixtureRequest) -> str:
    """Parametrizes a test over the Kafka lines installed ('3.9', '4')."""
    return request.param


# --------------------------------------------------------------------------- failure logs
def _logs_of(value: object) -> list[tuple[str, str]]:
    if hasattr(value, "failure_logs"):
        return value.failure_logs()
    if hasattr(value, "log_text") and hasattr(value, "proc"):
        name = getattr(value, "name", None) or type(value).__name__
        return [(str(name), value.log_text())]
    return []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo
                               ) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "teardown" or not report.failed:
        return
    funcargs: dict = getattr(item, "funcargs", {}) or {}
    logs: dict[str, str] = {}
    for value in funcargs.values():
        for name, text in _logs_of(value):
            logs[name] = text
    for name, text in logs.items():
        body = "\n".join(text.splitlines()[-LOG_LINES_ON_FAILURE:])
        report.sections.append((f"{name} log (last {LOG_LINES_ON_FAILURE} lines)", body))



# --------------------------------------------------------------------------- xdist scheduling
# Directories whose test files share a session or package fixture too costly to make twice:
# with `--dist loadfile` each of them is one work unit, so the files run on one worker and
# start that fixture once (a SparkSession takes 25-35 s of JVM start on the 2-core machine).
# transactions/: its package-scoped `txn_broker` (an Apache Kafka 4 broker, then a kafpy one:
# pytest orders the directory's tests by that parameter) was started again for every file,
# each file a unit of its own, both kinds each time.
SHARED_SESSION_DIRS = ("tests/integration/spark/", "tests/integration/transactions/")


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile``, with each of SHARED_SESSION_DIRS one work unit, the units handed
    out longest first by tests/support/xdist_weights.txt (xdist's own order, most tests
    first, left files of few long tests such as the wheel's to the end of the run, one worker
    idle meanwhile)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    from tests.support import xdist_weights

    weights = xdist_weights.load()

    class SharedSessionScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            for prefix in SHARED_SESSION_DIRS:
                if nodeid.startswith(prefix):
                    return prefix
            return super()._split_scope(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            """Hands out the heaviest unit left: the queue (xdist's, which pops its first
            unit) sorted by weight first, stable, so the equal ones keep xdist's order."""
            queue = self.workqueue
            for scope in sorted(queue, key=lambda s: -xdist_weights.unit_weight(s, len(queue[s]), weights)):
                queue.move_to_end(scope)
            super()._assign_work_unit(node)

    return SharedSessionScheduling(config, log)
