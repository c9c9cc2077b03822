"""pytest fixtures for code that talks to Kafka: installing kafpy is enough.

Registered through the ``pytest11`` entry point, so any test may ask for:

- ``kafka_bootstrap_servers``: ``"127.0.0.1:<port>"`` of the session's broker.
- ``kafpy_broker``: that broker (an `EmbeddedBroker`, started once per session; with
  pytest-xdist once per worker, so workers never share a broker), or the external Kafka
  given with ``--kafka-bootstrap``.
- ``kafpy_topic``: a topic of its own for each test (one partition), created on the
  session's broker; its name is unique across tests and workers, so tests may run in parallel.
- ``kafpy_topic_factory``: ``kafpy_topic_factory(partitions=3, config={...})`` for more.
- ``kafpy_cluster``: three replicating kafpy nodes for the session, started on first use: a
  KRaft cluster of combined broker-and-controller nodes (no ZooKeeper, no JVM), or ZooKeeper
  and three brokers with ``--kafpy-cluster-mode zookeeper`` (needs Debian's ``zookeeper``
  package and a JVM).

Options (command line, or the ``ini`` names in ``pytest.ini`` / ``[tool.pytest.ini_options]``):

- ``--kafka-bootstrap HOST:PORT`` (``kafka_bootstrap``): run the same tests against a real
  Kafka; no broker is started (failure helpers such as ``kill()`` need kafpy's own).
- ``--kafpy-config KEY=VALUE`` (repeatable; ``kafpy_config``, one per line): broker settings
  by Kafka's names, over kafpy's test defaults.
- ``--kafpy-keep-logs`` (``kafpy_keep_logs = true``): when a test failed, keep the broker's
  work dir (its log ``broker.log`` and data) and print where it is; otherwise it is deleted.
- ``--kafpy-cluster-mode kraft|zookeeper`` (``kafpy_cluster_mode``): how ``kafpy_cluster``
  forms its cluster (default ``kraft``).

A failing test that used these fixtures gets the tail of the broker's log in its report.
This module imports nothing heavy until a fixture is used, so it costs the test sessions
that do not use it nothing.
"""
from __future__ import annotations

import re
import shutil
import uuid
from typing import TYPE_CHECKING, Callable, Generator, Iterator, Mapping

import pytest

if TYPE_CHECKING:
    import pluggy

    from kafpy.embedded import EmbeddedBroker, EmbeddedCluster

LOG_LINES_ON_FAILURE = 100
_FIXTURES = ("kafpy_broker", "kafpy_cluster", "kafpy_topic", "kafpy_topic_factory",
             "kafka_bootstrap_servers")
_failed = pytest.StashKey[bool]()
_kept = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kafpy", "Kafka brokers for tests (kafpy)")
    group.addoption("--kafka-bootstrap", dest="kafka_bootstrap", default=None,
                    metavar="HOST:PORT", help="use this Kafka instead of starting kafpy's broker")
    group.addoption("--kafpy-config", dest="kafpy_config", action="append", default=[],
                    metavar="KEY=VALUE", help="a broker setting (repeatable)")
    group.addoption("--kafpy-keep-logs", dest="kafpy_keep_logs", action="store_true",
                    default=None, help="keep the broker's log and data dir when a test failed")
    group.addoption("--kafpy-cluster-mode", dest="kafpy_cluster_mode", default=None,
                    choices=["kraft", "zookeeper"],
                    help="how kafpy_cluster forms its cluster (default kraft: no ZooKeeper)")
    parser.addini("kafka_bootstrap", "use this Kafka instead of starting kafpy's broker",
                  default="")
    parser.addini("kafpy_cluster_mode", "kafpy_cluster's mode: kraft (default) or zookeeper",
                  default="kraft")
    parser.addini("kafpy_config", "broker settings, KEY=VALUE, one per line", type="linelist",
                  default=[])
    parser.addini("kafpy_keep_logs", "keep the broker's log and data dir when a test failed",
                  type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_failed] = False
    config.stash[_kept] = []


def _bootstrap_option(config: pytest.Config) -> str | None:
    return config.getoption("kafka_bootstrap") or config.getini("kafka_bootstrap") or None


def cluster_mode(config: pytest.Config) -> str:
    """``kafpy_cluster``'s mode: the command line, else pytest.ini, else ``kraft``."""
    mode = str(config.getoption("kafpy_cluster_mode") or config.getini("kafpy_cluster_mode") or "kraft")
    if mode not in ("kraft", "zookeeper"):
        raise pytest.UsageError(f"kafpy_cluster_mode: {mode!r} is not kraft or zookeeper")
    return mode


def _keep_logs(config: pytest.Config) -> bool:
    option = config.getoption("kafpy_keep_logs")
    return bool(option) if option is not None else bool(config.getini("kafpy_keep_logs"))


def broker_settings(config: pytest.Config) -> dict[str, str]:
    """The broker settings from pytest.ini, then the command line (which wins)."""
    settings: dict[str, str] = {}
    for line in [*config.getini("kafpy_config"), *config.getoption("kafpy_config")]:
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise pytest.UsageError(f"kafpy_config: {line!r} is not KEY=VALUE")
        settings[key.strip()] = value.strip()
    return settings


class ExternalKafka:
    """A Kafka the session did not start (``--kafka-bootstrap``): its bootstrap servers and
    topic creation; nothing to stop, no log to read."""

    def __init__(self, bootstrap_servers: str):
        self.bootstrap_servers = bootstrap_servers

    @property
    def bootstrap(self) -> str:
        return self.bootstrap_servers

    def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 1,
                     config: Mapping[str, object] | None = None, timeout: float = 30.0) -> str:
        from kafpy.embedded import create_topics
        create_topics(self.bootstrap_servers, [name], partitions, replication_factor, config,
                      timeout)
        return name

    def log_text(self) -> str:
        return ""


def _finish(config: pytest.Config, server: "EmbeddedBroker | EmbeddedCluster") -> None:
    """Stop a server the session started; keep its files only if asked and a test failed."""
    try:
        server.stop()
    finally:
        if _keep_logs(config) and config.stash[_failed]:
            config.stash[_kept].append(str(server.work_dir))
        else:
            server.close()
            shutil.rmtree(server.work_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def kafpy_broker(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator["EmbeddedBroker | ExternalKafka"]:
    """The session's broker (one per pytest-xdist worker): kafpy's own, or ``--kafka-bootstrap``."""
    external = _bootstrap_option(pytestconfig)
    if external:
        yield ExternalKafka(external)
        return
    from kafpy.embedded import EmbeddedBroker
    broker = EmbeddedBroker(broker_settings(pytestconfig),
                            work_dir=tmp_path_factory.mktemp("kafpy-broker"), keep_files=True)
    broker.start()
    try:
        yield broker
    finally:
        _finish(pytestconfig, broker)


@pytest.fixture(scope="session")
def kafka_bootstrap_servers(kafpy_broker: "EmbeddedBroker | ExternalKafka") -> str:
    """``host:port`` of the session's broker, for a client's ``bootstrap_servers``."""
    return kafpy_broker.bootstrap_servers


@pytest.fixture(scope="session")
def kafpy_cluster(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator["EmbeddedCluster | ExternalKafka"]:
    """Three kafpy nodes for the session (KRaft, or ZooKeeper mode on request), or
    ``--kafka-bootstrap``."""
    external = _bootstrap_option(pytestconfig)
    if external:
        yield ExternalKafka(external)
        return
    from kafpy.embedded import EmbeddedCluster
    cluster = EmbeddedCluster(3, broker_settings(pytestconfig),
                              work_dir=tmp_path_factory.mktemp("kafpy-cluster"), keep_files=True,
                              mode=cluster_mode(pytestconfig))
    try:
        cluster.start()
    except BaseException:
        cluster.close()
        raise
    try:
        yield cluster
    finally:
        _finish(pytestconfig, cluster)


def unique_topic_name(nodeid: str, suffix: str = "") -> str:
    """A legal Kafka topic name from a test's id, unique across tests, workers and runs."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", nodeid.rsplit("/", 1)[-1]).strip("-.")
    tag = uuid.uuid4().hex[:8]
    return f"{base[:200]}{suffix}-{tag}"


@pytest.fixture
def kafpy_topic_factory(request: pytest.FixtureRequest, kafpy_broker: "EmbeddedBroker | ExternalKafka"
                        ) -> Callable[..., str]:
    """``factory(partitions=1, config=None, replication_factor=1, name=None)``: create a
    topic on the session's broker; the name is unique unless given."""
    made = 0

    def create(partitions: int = 1, config: Mapping[str, object] | None = None,
               replication_factor: int = 1, name: str | None = None) -> str:
        nonlocal made
        made += 1
        topic = name or unique_topic_name(request.node.nodeid, f"-{made}" if made > 1 else "")
        return kafpy_broker.create_topic(topic, partitions, replication_factor, config)
    return create


@pytest.fixture
def kafpy_topic(kafpy_topic_factory: Callable[..., str]) -> str:
    """A new one-partition topic for this test alone; its name."""
    return kafpy_topic_factory()


@pytest.hookimpl(hookwrapper=True)  # the old-style wrapper: any pytest a user may have
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo
                              ) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Note a failure (for --kafpy-keep-logs) and attach the broker's log tail to it."""
    outcome = yield
    _attach_logs(item, outcome.get_result())


def _attach_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    if not report.failed:
        return
    item.config.stash[_failed] = True
    if report.when == "teardown" or not set(_FIXTURES) & set(getattr(item, "fixturenames", ())):
        return
    funcargs: dict = getattr(item, "funcargs", {}) or {}
    for key in ("kafpy_broker", "kafpy_cluster"):
        server = funcargs.get(key)
        if server is None or isinstance(server, ExternalKafka):
            continue
        text = server.log_text()
        body = "\n".join(text.splitlines()[-LOG_LINES_ON_FAILURE:])
        where = getattr(server, "work_dir", "")
        report.sections.append(
            (f"kafpy {key[6:]} log {where} (last {LOG_LINES_ON_FAILURE} lines)", body))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    kept = config.stash.get(_kept, [])
    for path in kept:
        terminalreporter.write_line(f"kafpy: kept the broker's log and data in {path}")

