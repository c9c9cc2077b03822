"""A KRaft cluster for interop tests: Apache Kafka 4.4 controllers (``process.roles=controller``,
formatted with Apache's ``kafka-storage``, started as ``ReferenceKafka`` starts its node) and
kafpy brokers (``process.roles=broker``, formatted with our ``kafka-storage``, run as
``python -m kafpy.broker``). Every process's output goes to a file in its work dir."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping

from kafpy._process import ChildProcess

from . import forkserver, process, wire
from .kafka_dist import full_version, java_command, random_cluster_id, run_tool
from .ports import LOOPBACK, free_ports

REPO_ROOT = Path(__file__).resolve().parents[2]
CONTROLLER_LISTENER = "CONTROLLER"
FAST_CONTROLLER = {  # short quorum and session timeouts, so failover takes seconds
    "controller.quorum.election.timeout.ms": "1000",
    "controller.quorum.fetch.timeout.ms": "2000",
    "broker.session.timeout.ms": "4000",
    "broker.heartbeat.interval.ms": "500",
}


def _write_properties(path: Path, props: Mapping[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


class ApacheController(ChildProcess):
    """One Apache Kafka 4.4 ``process.roles=controller`` node of the quorum ``voters``."""

    def __init__(self, node_id: int, port: int, voters: str, work_dir: Path, cluster_id: str,
                 overrides: Mapping[str, object] | None = None, version: str = "4") -> None:
        self.node_id = node_id
        self.port = port
        self.voters = voters
        self.work_dir = work_dir
        self.cluster_id = cluster_id
        self.version = full_version(version)
        self.overrides = dict(overrides or {})
        self.config_path = work_dir / "controller.properties"
        self.output_path = work_dir / "controller.out"
        self.metadata_dir = work_dir / "metadata"
        self.proc: subprocess.Popen[bytes] | None = None

    def properties(self) -> dict[str, object]:
        return {
            "process.roles": "controller", "node.id": self.node_id, "controller.quorum.voters": self.voters,
            "listeners": f"{CONTROLLER_LISTENER}://{LOOPBACK}:{self.port}",
            "controller.listener.names": CONTROLLER_LISTENER,
            "listener.security.protocol.map": f"{CONTROLLER_LISTENER}:PLAINTEXT",
            "log.dirs": self.metadata_dir, "metadata.log.dir": self.metadata_dir,
            **FAST_CONTROLLER, **self.overrides,
        }

    def format(self) -> None:
        _write_properties(self.config_path, self.properties())
        run_tool(self.version, "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(self.config_path)],
                 timeout=120)

    def start(self) -> "ApacheController":
        if not self.config_path.exists():
            self.format()
        cmd = java_command(self.version, "kafka-server-start", [str(self.config_path)], heap="512m",
                           log_level=os.environ.get("KAFPY_KAFKA_LOG_LEVEL", "INFO"))
        with open(self.output_path, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, cwd=self.work_dir)
        return self

    def wait_listening(self, timeout: float = 90.0) -> None:
        process.wait_for(lambda: bool(wire.api_versions(LOOPBACK, self.port)), timeout=timeout,
                         what=f"Apache controller {self.node_id}", proc=self.proc, log_path=self.output_path,
                         interval=0.3)

    def stop(self, timeout: float = 60.0) -> int | None:
        return process.terminate(self.proc, timeout=timeout) if self.proc is not None else None

    def cleanup(self) -> None:
        """The work dir belongs to the test's tmp_path."""


class KafpyKRaftBroker(ChildProcess):
    """One kafpy ``process.roles=broker`` node following the quorum ``voters``."""

    def __init__(self, node_id: int, port: int, voters: str, work_dir: Path, cluster_id: str,
                 overrides: Mapping[str, object] | None = None) -> None:
        self.node_id = node_id
        self.port = port
        self.host = LOOPBACK
        self.voters = voters
        self.work_dir = work_dir
        self.cluster_id = cluster_id
        self.overrides = dict(overrides or {})
        self.log_dir = work_dir / "logs"
        self.config_path = work_dir / "broker.properties"
        self.output_path = work_dir / "broker.out"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def properties(self) -> dict[str, object]:
        return {
            "process.roles": "broker", "node.id": self.node_id, "controller.quorum.voters": self.voters,
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "controller.listener.names": CONTROLLER_LISTENER,
            "listener.security.protocol.map": f"PLAINTEXT:PLAINTEXT,{CONTROLLER_LISTENER}:PLAINTEXT",
            "inter.broker.listener.name": "PLAINTEXT",
            "log.dirs": self.log_dir,
            "broker.heartbeat.interval.ms": 500,
            "offsets.topic.replication.factor": 2, "offsets.topic.num.partitions": 3,
            "transaction.state.log.replication.factor": 2, "transaction.state.log.num.partitions": 3,
            "share.coordinator.state.topic.replication.factor": 2,
            "group.initial.rebalance.delay.ms": 0,
            "replica.lag.time.max.ms": 5000,
            **self.overrides,
        }

    def format(self) -> None:
        _write_properties(self.config_path, self.properties())
        subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_storage", "format", "-t", self.cluster_id,
                        "-c", str(self.config_path)], check=True, capture_output=True, text=True, cwd=REPO_ROOT,
                       timeout=60)

    def start(self) -> "KafpyKRaftBroker":
        if not self.config_path.exists():
            self.format()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get(
            "PYTHONPATH", "")) if p)}
        with open(self.output_path, "ab") as out:
            self.proc = forkserver.popen([sys.executable, "-m", "kafpy.broker", str(self.config_path)],
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, cwd=REPO_ROOT, env=env)
        return self

    def wait_registered(self, timeout: float = 90.0) -> None:
        """Until it serves Metadata listing itself (it has been unfenced)."""
        process.wait_for(lambda: any(n == self.node_id for n, _h, _p in wire.metadata_brokers(
            LOOPBACK, self.port, timeout=2.0)), timeout=timeout, what=f"kafpy KRaft broker {self.node_id}",
            proc=self.proc, log_path=self.output_path, interval=0.3)

    def stop(self, timeout: float = 60.0) -> int | None:
        return process.terminate(self.proc, timeout=timeout) if self.proc is not None else None

    def cleanup(self) -> None:
        """The work dir belongs to the test's tmp_path."""


class KRaftCluster:
    """Apache controllers (node ids 3000, 3001, ...) and kafpy brokers (node ids 1, 2, ...),
    one cluster id; ``start()`` returns once every broker is unfenced; ``stop()`` ends all."""

    def __init__(self, root: Path, *, controllers: int = 1, brokers: int = 2,
                 controller_overrides: Mapping[str, object] | None = None,
                 broker_overrides: Mapping[str, object] | None = None) -> None:
        self.cluster_id = random_cluster_id()
        self.root = root
        self.broker_overrides = dict(broker_overrides or {})
        ports = free_ports(controllers + brokers)
        controller_ids = [3000 + i for i in range(controllers)]
        self.voters = ",".join(f"{n}@{LOOPBACK}:{p}" for n, p in zip(controller_ids, ports))
        self.controllers = [ApacheController(n, p, self.voters, root / f"controller-{n}", self.cluster_id,
                                             controller_overrides)
                            for n, p in zip(controller_ids, ports)]
        self.brokers = [KafpyKRaftBroker(i + 1, p, self.voters, root / f"broker-{i + 1}", self.cluster_id,
                                         broker_overrides)
                        for i, p in enumerate(ports[controllers:])]

    def add_broker(self) -> KafpyKRaftBroker:
        """One more kafpy broker (formatted, not started), with the next node id."""
        node_id = max(b.node_id for b in self.brokers) + 1
        (port,) = free_ports(1)
        broker = KafpyKRaftBroker(node_id, port, self.voters, self.root / f"broker-{node_id}", self.cluster_id,
                                  self.broker_overrides)
        broker.format()
        self.brokers.append(broker)
        return broker

    def broker(self, node_id: int) -> KafpyKRaftBroker:
        return next(b for b in self.brokers if b.node_id == node_id)

    def start(self) -> "KRaftCluster":
        for c in self.controllers:
            c.format()
        for b in self.brokers:
            b.format()
        for c in self.controllers:
            c.start()
        for b in self.brokers:
            b.start()
        for c in self.controllers:
            c.wait_listening()
        for b in self.brokers:
            b.wait_registered()
        return self

    def stop(self) -> None:
        for b in self.brokers:
            b.stop(timeout=30)
        for c in self.controllers:
            c.stop(timeout=30)
