"""Three combined ``process.roles=broker,controller`` nodes forming one KRaft cluster, run either
as kafpy processes (``python -m kafpy.broker``) or as Apache Kafka 4.4 JVMs, so that a test can
take both through the same steps and compare what Apache's tools print.

The quorum is static (``controller.quorum.voters``) or dynamic (``controller.quorum.bootstrap.servers``
and directories formatted with ``--initial-controllers``); the directories are formatted by our
``kafka-storage`` or by Apache's.

Who uses it: tests/integration/kraft/test_combined_cluster.py."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Mapping

from kafpy.metadata.meta_properties import random_uuid
from kafpy.protocol.messages import DescribeClusterRequest, DescribeClusterResponse

from tests.integration.raft.quorum_support import call
from tests.support.kraft_controllers import eventually

from . import forkserver, process, wire
from .kafka_dist import java_command, random_cluster_id, run_tool
from .ports import LOOPBACK, free_ports

REPO_ROOT = Path(__file__).resolve().parents[2]
FAST = {  # short quorum and session timeouts, so that failover takes seconds on both
    "controller.quorum.election.timeout.ms": "1000",
    "controller.quorum.fetch.timeout.ms": "2000",
    "broker.session.timeout.ms": "4000",
    "broker.heartbeat.interval.ms": "500",
    "replica.lag.time.max.ms": "5000",
}


def random_directory_id() -> str:
    """A directory id as ``kafka-storage random-uuid`` prints it (base64url, no padding)."""
    return random_uuid()


def _write(path: Path, props: Mapping[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


class CombinedNode:
    """One node: its ports, directory, config and process (kafpy's or Apache's)."""

    def __init__(self, impl: str, node_id: int, port: int, controller_port: int, work_dir: Path,
                 quorum: Mapping[str, str], overrides: Mapping[str, object] | None = None,
                 light_jvm: bool = False) -> None:
        self.impl = impl
        # an Apache node on the suite's light JVM (serial GC, C1, the server's CDS archive:
        # kafka_dist.java_command) rather than G1 and C2: for tests that only ask it questions
        self.light_jvm = light_jvm
        self.node_id = node_id
        self.port = port
        self.controller_port = controller_port
        self.work_dir = work_dir
        self.config_path = work_dir / "server.properties"
        self.output_path = work_dir / "server.out"
        self.directory_id = random_directory_id()
        self.proc: subprocess.Popen[bytes] | None = None
        _write(self.config_path, {
            "process.roles": "broker,controller", "node.id": node_id, **quorum,
            "listeners": f"PLAINTEXT://{LOOPBACK}:{port},CONTROLLER://{LOOPBACK}:{controller_port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
            "controller.listener.names": "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": work_dir / "data",
            "num.partitions": 3, "default.replication.factor": 3, "min.insync.replicas": 2,
            "offsets.topic.replication.factor": 3, "offsets.topic.num.partitions": 3,
            "transaction.state.log.replication.factor": 3, "transaction.state.log.num.partitions": 3,
            "transaction.state.log.min.isr": 2,
            "share.coordinator.state.topic.replication.factor": 3, "share.coordinator.state.topic.min.isr": 2,
            "group.initial.rebalance.delay.ms": 0, **FAST, **(overrides or {}),
        })

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def configure(self, props: Mapping[str, object]) -> None:
        """Set ``props`` in the node's properties file (before it starts)."""
        current = dict(line.split("=", 1) for line in self.config_path.read_text().splitlines() if "=" in line)
        _write(self.config_path, {**current, **{k: str(v) for k, v in props.items()}})

    @property
    def bootstrap_controller(self) -> str:
        return f"{LOOPBACK}:{self.controller_port}"

    def format(self, formatter: str, cluster_id: str, *extra: str) -> None:
        args = ["format", "-t", cluster_id, "-c", str(self.config_path), *extra]
        if formatter == "apache":
            run_tool("4", "kafka-storage", args, timeout=120)
        else:
            subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_storage", *args], check=True,
                           capture_output=True, text=True, cwd=REPO_ROOT, timeout=60)

    def start(self) -> None:
        with open(self.output_path, "ab") as out:
            if self.impl == "apache":
                cmd = java_command("4", "kafka-server-start", [str(self.config_path)], heap="512m",
                                   log_level=os.environ.get("KAFPY_KAFKA_LOG_LEVEL", "INFO"),
                                   light_jvm=self.light_jvm or None)
                self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                             start_new_session=True, cwd=self.work_dir)
            else:
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                    p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)}
                self.proc = forkserver.popen([sys.executable, "-m", "kafpy.broker", str(self.config_path)],
                                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                             start_new_session=True, cwd=REPO_ROOT, env=env)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9 of the whole process group, as a crash."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self, timeout: float = 60.0) -> int | None:
        return process.terminate(self.proc, timeout=timeout) if self.proc is not None else None

    def output(self) -> str:
        return self.output_path.read_text(errors="replace") if self.output_path.exists() else ""

    def serves(self, brokers: int) -> bool:
        """Metadata from this node lists ``brokers`` unfenced brokers."""
        return len(wire.metadata_brokers(LOOPBACK, self.port, timeout=2.0)) >= brokers

    def controller_id(self) -> int:
        """The active controller this node's controller listener names (DescribeCluster)."""
        response = call(self.controller_port, DescribeClusterRequest(endpoint_type=2), DescribeClusterResponse, 1)
        return int(response.controller_id)


class CombinedCluster:
    """Three combined nodes (ids 1, 2, 3 unless told) of one implementation, one cluster id."""

    def __init__(self, impl: str, root: Path, *, dynamic: bool = False, formatter: str | None = None,
                 node_ids: tuple[int, int, int] = (1, 2, 3)) -> None:
        self.impl = impl
        self.dynamic = dynamic
        self.formatter = formatter or impl
        self.cluster_id = random_cluster_id()
        ports = free_ports(6)
        controller_ports = dict(zip(node_ids, ports[3:]))
        if dynamic:
            quorum = {"controller.quorum.bootstrap.servers":
                      ",".join(f"{LOOPBACK}:{p}" for _, p in sorted(controller_ports.items()))}
        else:
            quorum = {"controller.quorum.voters":
                      ",".join(f"{n}@{LOOPBACK}:{p}" for n, p in sorted(controller_ports.items()))}
        self.nodes = {n: CombinedNode(impl, n, port, controller_ports[n], root / f"{impl}-{n}", quorum)
                      for n, port in zip(node_ids, ports)}

    @property
    def bootstrap(self) -> str:
        return ",".join(n.bootstrap for n in self.nodes.values())

    def initial_controllers(self) -> str:
        return ",".join(f"{n}@{LOOPBACK}:{node.controller_port}:{node.directory_id}"
                        for n, node in sorted(self.nodes.items()))

    def format(self) -> None:
        for node in self.nodes.values():
            extra = ("--initial-controllers", self.initial_controllers()) if self.dynamic else ()
            node.format(self.formatter, self.cluster_id, *extra)

    def start(self, timeout: float = 180.0) -> "CombinedCluster":
        self.format()
        for node in self.nodes.values():
            node.start()
        for node in self.nodes.values():
            self.wait_serving(node, 3, timeout)
        return self

    def wait_serving(self, node: CombinedNode, brokers: int, timeout: float = 120.0) -> None:
        process.wait_for(lambda: node.serves(brokers), timeout=timeout,
                         what=f"{self.impl} node {node.node_id} listing {brokers} brokers", proc=node.proc,
                         log_path=node.output_path, interval=0.5)

    def live(self) -> list[CombinedNode]:
        return [n for n in self.nodes.values() if n.alive()]

    def active_controller(self, timeout: float = 60.0) -> int:
        """The active controller every live node names."""
        def agreed() -> int | None:
            ids = {node.controller_id() for node in self.live()}
            live = {n.node_id for n in self.live()}
            return ids.pop() if len(ids) == 1 and ids <= live else None
        return eventually(agreed, timeout=timeout, what=f"one active controller on {self.impl}", interval=0.3)

    def stop(self) -> None:
        for node in self.nodes.values():
            if node.alive():
                node.stop()

    def kill_all(self) -> None:
        """kill -9 of every live node: the teardown of a test that does not check a clean
        shutdown (SIGTERM to the last node of a quorum that lost its majority waits for a
        controlled shutdown no controller can grant: 20 s on kafpy, minutes on Apache)."""
        for node in self.live():
            node.kill()


SINGLE = {  # one node: every internal topic with one replica
    "num.partitions": 1, "default.replication.factor": 1, "min.insync.replicas": 1,
    "offsets.topic.replication.factor": 1, "offsets.topic.num.partitions": 1,
    "transaction.state.log.replication.factor": 1, "transaction.state.log.num.partitions": 1,
    "transaction.state.log.min.isr": 1,
    "share.coordinator.state.topic.replication.factor": 1, "share.coordinator.state.topic.min.isr": 1,
}


class SingleNode:
    """One combined node that is its own quorum, with ``overrides`` on top of ``SINGLE``: a
    KRaft node for tests that run one kafpy node beside ``ReferenceKafka``. ``port`` is its
    PLAINTEXT listener; ``restart`` keeps its directory; ``light_jvm``: an Apache node on the
    suite's light JVM (CombinedNode)."""

    def __init__(self, impl: str, root: Path, overrides: Mapping[str, object] | None = None,
                 node_id: int = 1, light_jvm: bool = False) -> None:
        port, controller_port = free_ports(2)
        self.cluster_id = random_cluster_id()
        self.node = CombinedNode(impl, node_id, port, controller_port, root,
                                 {"controller.quorum.voters": f"{node_id}@{LOOPBACK}:{controller_port}"},
                                 {**SINGLE, **(overrides or {})}, light_jvm=light_jvm)
        self.formatted = False

    @property
    def port(self) -> int:
        return self.node.port

    @property
    def bootstrap(self) -> str:
        return self.node.bootstrap

    def start(self, timeout: float = 180.0) -> "SingleNode":
        if not self.formatted:
            self.node.format(self.node.impl, self.cluster_id)
            self.formatted = True
        self.node.start()
        process.wait_for(lambda: self.node.serves(1), timeout=timeout,
                         what=f"{self.node.impl} node {self.node.node_id} serving", proc=self.node.proc,
                         log_path=self.node.output_path, interval=0.5)
        return self

    def stop(self) -> None:
        if self.node.alive():
            self.node.stop()

    def restart(self, timeout: float = 180.0) -> None:
        self.stop()
        self.start(timeout)
