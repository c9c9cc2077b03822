"""Real Kafka brokers for tests, notebooks and laptops, started from Python.

>>> from kafpy.embedded import EmbeddedBroker
>>> with EmbeddedBroker() as broker:                       # doctest: +SKIP
...     broker.create_topic("orders", partitions=3)
...     producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)

`EmbeddedBroker` runs one standalone broker (no ZooKeeper, no JVM) on a free loopback port
with its data in a temporary directory; `EmbeddedCluster` runs three brokers with
replication, by default as Kafka 4 runs a cluster: KRaft, each node a combined broker and
controller (``process.roles=broker,controller``) of one controller quorum, its directory
formatted by ``kafka-storage format``, no ZooKeeper and no JVM; ``mode="zookeeper"`` runs a
ZooKeeper server and ZooKeeper-mode brokers instead, where one is installed (Debian's
``zookeeper`` package and a JVM). Both are context managers and have plain
``start()``/``stop()``.

Each broker is a child process (``python -m kafpy.broker server.properties``, the properties
file generated in its work dir), never a thread of the caller. What that choice costs and
buys: a start pays a Python interpreter's start and the broker's imports (about 0.3 s of the
time to the first produce), and the broker's memory is a process of its own (about 60 MB);
in return the caller's event loop, signal handlers and GIL stay the caller's, a test can
kill the broker with SIGKILL as a crash would, and the broker's log is a file to read.

Failure helpers: `kill()` (SIGKILL: an unclean shutdown, recovery on the next start),
`stop()` (SIGTERM: clean), `restart()` (same port, same data), `pause()`/`resume()`
(SIGSTOP/SIGCONT: a broker that hangs), and `cut_listener()`/`restore_listener()` (clients
see their connections reset while the broker runs) for brokers made with ``cuttable=True``.

The broker's output (its log) is ``<work_dir>/broker.log`` (`output_path`, `log_text()`),
its Kafka data ``<work_dir>/data`` (`log_dir`); a work dir this module made is deleted by
`close()` and on leaving the ``with`` block, unless ``keep_files=True`` or the block raised
(then its path is printed to stderr).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterable, Mapping, Sequence, TypeVar

from kafpy import _process
from kafpy._listener_proxy import ListenerProxy
from kafpy._ports import LOOPBACK, free_port, free_ports
from kafpy._zookeeper import ZooKeeperMissing, ZooKeeperServer, zookeeper_available
from kafpy.metadata.meta_properties import random_uuid

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

__all__ = ["EmbeddedBroker", "EmbeddedCluster", "BrokerStartError", "ZooKeeperMissing",
           "ZooKeeperServer", "zookeeper_available", "TEST_DEFAULTS"]

BrokerStartError = _process.ProcessFailed
"""Raised when a broker process exits before it answers, or does not answer in time; the
message ends with the tail of its log."""

TEST_DEFAULTS: Mapping[str, str] = {
    # One partition for the internal topics instead of Kafka's 50: a first consumer group
    # or transaction then creates one partition, not fifty, which a test would wait for.
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    # Kafka waits 3 s for more members before a first rebalance; a test has no one to wait for
    "group.initial.rebalance.delay.ms": "0",
    "num.partitions": "1",
    "auto.create.topics.enable": "true",
}
"""Settings a test broker starts with unless the caller overrides them (Kafka's own
defaults otherwise): the ones Testcontainers' Kafka module sets too."""

CLUSTER_DEFAULTS: Mapping[str, str] = {
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "default.replication.factor": "3",
    # A follower that fetches before its leader has taken the partition (a new topic) is
    # told NOT_LEADER and waits this long (Kafka's 1 s): the first acks=all produce to a new
    # topic waited for it.
    "replica.fetch.backoff.ms": "100",
}
"""What a three-broker cluster changes on top of `TEST_DEFAULTS`: internal and
auto-created topics replicated on every broker, so that one broker may be killed."""


def _checkout_root() -> str | None:
    """The folder to put on the child's PYTHONPATH so it imports this same kafpy, when this
    kafpy is not in site-packages (a checkout, or a path the caller added)."""
    import kafpy
    root = os.path.dirname(os.path.dirname(os.path.abspath(kafpy.__file__)))
    try:
        import site
        installed = {os.path.abspath(p) for p in site.getsitepackages()}
        installed.add(os.path.abspath(site.getusersitepackages()))
    except AttributeError:  # a virtualenv's old site module
        installed = set()
    return None if root in installed else root


def write_properties(path: Path, settings: Mapping[str, object]) -> None:
    """Write `settings` as a Java properties file (values escaped as Kafka reads them)."""
    lines = ["# generated by kafpy.embedded"]
    for key, value in settings.items():
        text = str(value).replace("\\", "\\\\").replace("\n", "\\n")
        lines.append(f"{key}={text}")
    path.write_text("\n".join(lines) + "\n")


@dataclass(frozen=True)
class KRaftQuorum:
    """What every node of a KRaft cluster shares: the cluster id its directories are
    formatted with and the controller quorum (node id -> controller listener port)."""

    cluster_id: str
    controller_ports: Mapping[int, int]
    controller_hosts: Mapping[int, str] | None = None  # node id -> address (default loopback)

    def host(self, node_id: int) -> str:
        return (self.controller_hosts or {}).get(node_id, LOOPBACK)

    @property
    def voters(self) -> str:
        """``controller.quorum.voters``: ``id@host:port`` of every controller."""
        return ",".join(f"{n}@{self.host(n)}:{p}" for n, p in sorted(self.controller_ports.items()))


def random_cluster_id() -> str:
    """A cluster id as Kafka's ``kafka-storage random-uuid`` prints one (a random Uuid in
    URL-safe base64, without padding, never starting with "-", which a command line such as
    ``kafka-storage format -t`` would take for an option)."""
    return random_uuid()


_Started = TypeVar("_Started", bound="_KeepsFilesOnFailure")
_Broker = TypeVar("_Broker", bound="EmbeddedBroker")


class _KeepsFilesOnFailure:
    """Use as a context manager: start; close at the end, keeping the files (and saying
    where) when the block raised, for the post-mortem. A subclass has ``start()``,
    ``close()``, ``keep_files`` and ``_where_its_logs_are()``."""

    keep_files: bool

    def start(self: _Started) -> _Started:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Started) -> _Started:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc is not None and not self.keep_files:
            self.keep_files = True
            sys.stderr.write(f"kafpy: {self._where_its_logs_are()}\n")
        self.close()

    def _where_its_logs_are(self) -> str:
        raise NotImplementedError


class EmbeddedBroker(_KeepsFilesOnFailure):
    """One kafpy broker process on loopback: its port, work dir, settings and child process.

    ``config`` holds broker settings by Kafka's names (``{"log.segment.bytes": 1 << 20}``),
    applied over `TEST_DEFAULTS`; ``port`` None picks a free port (kept across restarts);
    ``work_dir`` None makes a temporary one. ``cuttable=True`` puts a forwarder of this
    process in front of the listener so `cut_listener()` works: it costs every byte a copy
    through a thread of this process, so leave it off unless a test cuts.
    ``zookeeper_connect`` makes it a ZooKeeper-mode broker, ``kraft`` a combined KRaft node of
    that quorum whose node id is ``broker_id`` (`EmbeddedCluster` sets one or the other).
    """

    module = "kafpy.broker"

    def __init__(self, config: Mapping[str, object] | None = None, *, port: int | None = None,
                 work_dir: str | Path | None = None, log_dir: str | Path | None = None,
                 broker_id: int = 0, zookeeper_connect: str | None = None,
                 cuttable: bool = False, keep_files: bool = False,
                 start_timeout: float = 60.0, python: str = sys.executable,
                 env: Mapping[str, str] | None = None, defaults: Mapping[str, object] | None = None,
                 kraft: KRaftQuorum | None = None):
        self._own_work_dir = work_dir is None
        self.work_dir = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="kafpy-"))
        self.log_dir = Path(log_dir) if log_dir else self.work_dir / "data"
        self._auto_port = port is None
        self._started_once = False
        self.port = port or self._pick_port()
        self.broker_id = broker_id
        self.zookeeper_connect = zookeeper_connect
        self.kraft = kraft
        self.cuttable = cuttable
        self.keep_files = keep_files
        self.defaults = dict(TEST_DEFAULTS if defaults is None else defaults)
        self.overrides = {k: str(v) for k, v in (config or {}).items()}
        self.start_timeout = start_timeout
        self.python = python
        self.env = dict(env or {})
        self.properties_path = self.work_dir / "server.properties"
        self.proc: subprocess.Popen | None = None
        self.exit_codes: list[int] = []
        self._proxy: ListenerProxy | None = None
        self._listener_port: int | None = None  # the broker's own port behind the forwarder

    # ------------------------------------------------------------------ addresses
    @property
    def host(self) -> str:
        return LOOPBACK

    @property
    def bootstrap_servers(self) -> str:
        """``host:port`` for a client's ``bootstrap.servers``."""
        return f"{self.host}:{self.port}"

    @property
    def bootstrap(self) -> str:
        """The same as `bootstrap_servers`."""
        return self.bootstrap_servers

    @property
    def name(self) -> str:
        return f"kafpy broker {self.bootstrap_servers}"

    @property
    def output_path(self) -> Path:
        """The broker's output (its log): every start appends to it."""
        return self.work_dir / "broker.log"

    @property
    def pid(self) -> int | None:
        """The broker process's id while it runs."""
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------------ the command
    def settings(self) -> dict[str, str]:
        """Every setting the broker starts with: defaults, then the caller's, then the
        listener and data dir this object owns."""
        listen_port = self._listener_port or self.port
        settings = {"broker.id": str(self.broker_id), **self.defaults, **self.overrides,
                    "listeners": f"PLAINTEXT://{self.host}:{listen_port}",
                    "advertised.listeners": f"PLAINTEXT://{self.host}:{self.port}",
                    "log.dirs": str(self.log_dir)}
        if self.zookeeper_connect:
            settings["zookeeper.connect"] = self.zookeeper_connect
        if self.kraft is not None:
            controller_port = self.kraft.controller_ports[self.broker_id]
            del settings["broker.id"]
            settings.update({
                "process.roles": "broker,controller", "node.id": str(self.broker_id),
                "controller.quorum.voters": self.kraft.voters,
                "listeners": f"PLAINTEXT://{self.host}:{listen_port},CONTROLLER://{self.host}:{controller_port}",
                "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "metadata.log.dir": str(self.log_dir)})
        return settings

    def command(self) -> list[str]:
        """The child's command line (the properties file is written by `start()`)."""
        return [self.python, "-m", self.module, str(self.properties_path)]

    def prepare(self) -> None:
        """Write what the command reads (its properties file) before each start; a KRaft
        node's directory is formatted first (``kafka-storage format --ignore-formatted``)."""
        write_properties(self.properties_path, self.settings())
        if self.kraft is not None and not (self.log_dir / "meta.properties").exists():
            done = subprocess.run([self.python, "-m", "kafpy.scripts.kafka_storage", "format", "-t",
                                   self.kraft.cluster_id, "-c", str(self.properties_path),
                                   "--ignore-formatted"],
                                  capture_output=True, text=True, cwd=self.cwd(), env=self.environment(),
                                  timeout=self.start_timeout)
            if done.returncode != 0:
                raise _process.ProcessFailed(f"{self.name}: kafka-storage format failed:\n"
                                             f"{done.stdout}{done.stderr}")

    def environment(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        root = _checkout_root() if self.python == sys.executable else None
        if root:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (root, env.get("PYTHONPATH", "")) if p)
        return env

    def cwd(self) -> Path:
        """The child's working dir: its own, so a caller's folder (with packages of its own
        named ``storage`` or ``protocol``) is never on its path."""
        return self.work_dir

    def _pick_port(self) -> int:
        return free_port()

    # ------------------------------------------------------------------ lifecycle
    def start(self: _Broker) -> _Broker:
        """Start the broker and return once it answers ApiVersions (BrokerStartError if it
        exits first or takes longer than ``start_timeout``). On a first start with a port
        picked here that another process took meanwhile, retry on a new port."""
        if self.running:
            return self
        attempts = 3 if self._auto_port and not self._started_once else 1
        for attempt in range(attempts):
            mark = self._output_size()
            try:
                self._start_once()
            except _process.ProcessFailed:
                if attempt + 1 < attempts and _process.bind_failed(self._output_since(mark)):
                    self._close_proxy()
                    self.port = self._pick_port()
                    self._listener_port = None
                    continue
                raise
            self._started_once = True
            return self
        raise AssertionError("unreachable")

    def _start_once(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.cuttable and self._proxy is None:
            if self._listener_port is None:
                self._listener_port = self._pick_port()
            try:
                self._proxy = ListenerProxy(self._listener_port, self.port, self.host).start()
            except OSError as e:
                raise _process.ProcessFailed(f"{self.name}: address already in use ({e})")
        self.prepare()
        command = self.command()
        out = open(self.output_path, "ab")
        try:
            out.write(f"### {' '.join(command)}\n".encode())
            out.flush()
            self.proc = self.spawn(command, out)
        finally:
            out.close()
        try:
            _process.wait_for(self.answers_api_versions, timeout=self.start_timeout,
                              what=self.name, proc=self.proc, log_path=self.output_path,
                              interval=0.02)
        except BaseException:
            self.kill()
            raise

    def spawn(self, command: list[str], out: IO[bytes]) -> subprocess.Popen:
        """Start the process: its own session, stdin from /dev/null, stdout and stderr on
        ``out``. (The project's own tests start theirs by fork from a process that has
        imported kafpy already.)"""
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=self.cwd(),
                                env=self.environment(), start_new_session=True)

    def answers_api_versions(self) -> bool:
        """True when the broker's own listener answers ApiVersions."""
        return _process.answers_api_versions(self.host, self._listener_port or self.port,
                                             timeout=2.0)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM (a clean shutdown), SIGKILL after ``timeout`` s; the exit code, or None
        if it never started."""
        if self.proc is None:
            return None
        was_running = self.running
        code = _process.terminate(self.proc, timeout=timeout)
        if was_running:
            self.exit_codes.append(code)
        return code

    def kill(self) -> int | None:
        """SIGKILL: a crash as far as the broker can tell; the next start recovers its logs."""
        if self.proc is None:
            return None
        was_running = self.running
        code = _process.kill(self.proc)
        if was_running:
            self.exit_codes.append(code)
        return code

    def restart(self: _Broker, *, kill: bool = False) -> _Broker:
        """Stop (or kill) and start again on the same port with the same data."""
        if kill:
            self.kill()
        else:
            self.stop()
        return self.start()

    def pause(self) -> None:
        """SIGSTOP: the broker hangs with its connections open (clients time out)."""
        if self.running and self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after `pause()`."""
        if self.running and self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGCONT)

    def cut_listener(self) -> None:
        """Reset every client connection and refuse new ones while the broker keeps running
        (in a cluster, its peers lose it too). Needs ``cuttable=True``."""
        if self._proxy is None:
            raise RuntimeError(f"{self.name} was not made with cuttable=True")
        self._proxy.cut()

    def restore_listener(self) -> None:
        """Accept connections again after `cut_listener()`."""
        if self._proxy is None:
            raise RuntimeError(f"{self.name} was not made with cuttable=True")
        self._proxy.restore()

    def close(self) -> None:
        """Stop the broker and the forwarder; delete the work dir if this object made it and
        ``keep_files`` is false."""
        try:
            self.stop()
        finally:
            self._close_proxy()
            if self._own_work_dir and not self.keep_files:
                shutil.rmtree(self.work_dir, ignore_errors=True)

    def _close_proxy(self) -> None:
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None

    def _where_its_logs_are(self) -> str:
        return f"{self.name} failed a test; its log is {self.output_path}"

    # ------------------------------------------------------------------ its log
    def log_text(self) -> str:
        """Everything the broker printed (all its starts, each after a ``###`` command line)."""
        try:
            return self.output_path.read_text(errors="replace")
        except OSError:
            return ""

    def _output_size(self) -> int:
        try:
            return self.output_path.stat().st_size
        except OSError:
            return 0

    def _output_since(self, mark: int) -> str:
        try:
            with open(self.output_path, "rb") as f:
                f.seek(mark)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    # ------------------------------------------------------------------ topics
    def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 1,
                     config: Mapping[str, object] | None = None, timeout: float = 30.0) -> str:
        """Create a topic and wait until every partition has a leader; returns its name."""
        create_topics(self.bootstrap_servers, [name], partitions, replication_factor, config,
                      timeout)
        return name


class EmbeddedCluster(_KeepsFilesOnFailure):
    """``size`` kafpy nodes (ids 0..size-1) replicating each other.

    ``mode="kraft"`` (the default, as Kafka 4): every node is a combined broker and controller
    (``process.roles=broker,controller``) and a voter of one static controller quorum
    (``controller.quorum.voters``), its directory formatted with the cluster's id by
    ``kafka-storage format`` before its first start; nothing else runs. ``mode="zookeeper"``:
    a ZooKeeper server and ZooKeeper-mode brokers; it needs Debian's ``zookeeper`` package and
    a JVM (ZooKeeperMissing otherwise), which add about a second and 100 MB to the start.
    ``config`` applies to every node, over `TEST_DEFAULTS` and `CLUSTER_DEFAULTS`. The nodes
    start in parallel; `brokers[i]` is an `EmbeddedBroker` with the same failure helpers.
    ``broker_ports`` and ``quorum`` (KRaft) fix the client ports and the cluster id and
    controller ports instead of picking free ones (``kafpy-cluster`` restarting a folder).
    """

    def __init__(self, size: int = 3, config: Mapping[str, object] | None = None, *,
                 work_dir: str | Path | None = None, cuttable: bool = False,
                 keep_files: bool = False, start_timeout: float = 90.0,
                 python: str = sys.executable, mode: str = "kraft",
                 broker_ports: Sequence[int] | None = None, quorum: KRaftQuorum | None = None):
        if mode not in ("kraft", "zookeeper"):
            raise ValueError(f"mode must be 'kraft' or 'zookeeper', not {mode!r}")
        if broker_ports is not None and len(broker_ports) != size:
            raise ValueError(f"{len(broker_ports)} broker ports for {size} nodes")
        self.mode = mode
        self._own_work_dir = work_dir is None
        self.work_dir = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="kafpy-cluster-"))
        self.keep_files = keep_files
        self.zookeeper: ZooKeeperServer | None = None
        self.quorum: KRaftQuorum | None = None
        if mode == "zookeeper":
            self.zookeeper = ZooKeeperServer(data_dir=self.work_dir / "zookeeper",
                                             start_timeout=start_timeout)
            ports = list(broker_ports or free_ports(size))
        else:
            ports = list(broker_ports or []) + free_ports(size if broker_ports else 2 * size)
            # a given quorum (a cluster started again on its folder) keeps its id and ports
            self.quorum = quorum or KRaftQuorum(random_cluster_id(), {i: ports[size + i] for i in range(size)})
        defaults = {**TEST_DEFAULTS, **CLUSTER_DEFAULTS}
        if size < 3:  # replicate on every broker there is
            defaults.update({k: str(size) for k in CLUSTER_DEFAULTS if k.endswith("factor")})
            defaults["transaction.state.log.min.isr"] = "1"
        self.brokers = [
            EmbeddedBroker(config, port=ports[i], work_dir=self.work_dir / f"broker{i}",
                           broker_id=i, cuttable=cuttable, keep_files=True,
                           start_timeout=start_timeout, python=python, defaults=defaults,
                           kraft=self.quorum)
            for i in range(size)]

    @property
    def bootstrap_servers(self) -> str:
        """Every broker's ``host:port``, comma-separated."""
        return ",".join(b.bootstrap_servers for b in self.brokers)

    @property
    def bootstrap(self) -> str:
        return self.bootstrap_servers

    def start(self) -> "EmbeddedCluster":
        """Start ZooKeeper (ZooKeeper mode), then every node at once; return when all answer
        and all are registered (every broker lists the others in its Metadata)."""
        if self.zookeeper is not None:
            self.zookeeper.start()
            for b in self.brokers:
                b.zookeeper_connect = self.zookeeper.connect_string
        errors: list[BaseException] = []

        def start(b: EmbeddedBroker) -> None:
            try:
                b.start()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=start, args=(b,)) for b in self.brokers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        _process.wait_for(self._all_registered, timeout=60, what="cluster registration")
        return self

    def _all_registered(self) -> bool:
        """Every running node's own Metadata lists every node (in KRaft mode each broker learns
        the others from the metadata log at its own pace)."""
        try:
            return all(_process.broker_count(b.host, b.port) == len(self.brokers)
                       for b in self.brokers if b.running)
        except OSError:
            return False

    def stop(self) -> None:
        """Stop every node (SIGTERM, one by one from the last), then ZooKeeper if any."""
        try:
            for b in reversed(self.brokers):
                try:
                    b.stop()
                except Exception:  # noqa: BLE001 - keep stopping the others
                    b.kill()
        finally:
            if self.zookeeper is not None:
                self.zookeeper.stop()

    def close(self) -> None:
        """`stop()`, then delete the work dir if this object made it and ``keep_files`` is
        false."""
        try:
            self.stop()
        finally:
            for b in self.brokers:
                b._close_proxy()
            if self._own_work_dir and not self.keep_files:
                shutil.rmtree(self.work_dir, ignore_errors=True)

    def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 3,
                     config: Mapping[str, object] | None = None, timeout: float = 30.0) -> str:
        """Create a topic replicated ``replication_factor`` times; return once every broker
        knows each partition's leader, so that a client may ask any of them right away."""
        create_topics(self.bootstrap_servers, [name], partitions, replication_factor, config,
                      timeout)

        def everywhere() -> bool:
            for b in self.brokers:
                if b.running:
                    leaders = _process.partition_leaders(b.host, b.port, name)
                    if len(leaders) < partitions or min(leaders.values()) < 0:
                        return False
            return True
        _process.wait_for(everywhere, timeout=timeout, what=f"leaders of {name} on every broker",
                          interval=0.02)
        return name

    def log_text(self) -> str:
        return "\n".join(f"===== {b.name}\n{b.log_text()}" for b in self.brokers)

    def failure_logs(self) -> list[tuple[str, str]]:
        zookeeper = [] if self.zookeeper is None else [(self.zookeeper.name, self.zookeeper.log_text())]
        return [(b.name, b.log_text()) for b in self.brokers] + zookeeper

    def _where_its_logs_are(self) -> str:
        return f"cluster failed a test; its logs are in {self.work_dir}"


def create_topics(bootstrap_servers: str, names: Iterable[str], partitions: int = 1,
                  replication_factor: int = 1, config: Mapping[str, object] | None = None,
                  timeout: float = 30.0) -> list[str]:
    """Create topics through Kafka's CreateTopics (kafka-python's admin client, so it works
    against any Kafka) and wait until each partition has a leader in Metadata. An existing
    topic is an error (TopicAlreadyExistsError), as in Kafka."""
    from kafka.admin import KafkaAdminClient, NewTopic

    names = list(names)
    configs = {k: str(v) for k, v in (config or {}).items()}
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, client_id="kafpy-embedded",
                             request_timeout_ms=int(timeout * 1000))
    try:
        admin.create_topics([NewTopic(n, partitions, replication_factor,
                                      topic_configs=configs) for n in names],
                            timeout_ms=int(timeout * 1000))
        deadline = time.monotonic() + timeout
        while not _have_leaders(admin, names, partitions):
            if time.monotonic() > deadline:
                raise TimeoutError(f"topics {names} have no leader after {timeout} s")
            time.sleep(0.02)
    finally:
        admin.close()
    return names


def _have_leaders(admin: KafkaAdminClient, names: Sequence[str], partitions: int) -> bool:
    try:
        described = admin.describe_topics(list(names))
    except Exception:  # noqa: BLE001 - not known yet to the broker asked
        return False
    for topic in described:
        if topic.get("error_code", 0) != 0:
            return False
        parts = topic.get("partitions", [])
        if len(parts) < partitions or any(p.get("leader_id", p.get("leader", -1)) < 0 for p in parts):
            return False
    return len(described) == len(names)
