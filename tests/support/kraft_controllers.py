"""Three kafpy controller processes (``process.roles=controller``) formatted with our
``kafka-storage format``, for tests of the active controller: start, kill -9, find the active
one, and an Apache Kafka 4.4 broker (``process.roles=broker``) on top of them.

Who uses it: tests/integration/raft/test_active_controller*.py."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Mapping, TypeVar

from kafpy.protocol.messages import DescribeClusterRequest, DescribeClusterResponse

from tests.integration.raft.quorum_support import (
    REPO_ROOT, call, controller_properties, kafpy_format, three_ports, voters_string, write_properties,
)
from tests.support import forkserver, wire
from tests.support.kafka_dist import java_command, run_tool
from tests.support.ports import LOOPBACK, free_ports
from tests.support.process import kill, terminate

_T = TypeVar("_T")


def eventually(probe: Callable[[], _T | None], timeout: float = 60.0, what: str = "",
               interval: float = 0.2) -> _T:
    """The first truthy answer of ``probe`` (exceptions count as no answer yet)."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = probe()
        except (OSError, AssertionError) as e:
            last, value = e, None
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last error: {last!r})")


class KafpyControllers:
    """The three processes, their ports, configs and output files."""

    def __init__(self, work: Path, cluster_id: str, extra: Mapping[str, str] | None = None) -> None:
        self.work = work
        self.cluster_id = cluster_id
        self.ports = three_ports()
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.configs = {n: write_properties(work / f"controller-{n}.properties",
                                            controller_properties(n, self.ports, work, extra))
                        for n in self.ports}

    @property
    def voters(self) -> str:
        return voters_string(self.ports)

    @property
    def bootstrap_controllers(self) -> str:
        return ",".join(f"{LOOPBACK}:{p}" for _, p in sorted(self.ports.items()))

    def format(self) -> None:
        for config in self.configs.values():
            kafpy_format(config, self.cluster_id)

    def start(self, node: int) -> None:
        with open(self.work / f"controller-{node}.out", "ab") as out:
            self.procs[node] = forkserver.popen([sys.executable, "-m", "kafpy.broker", str(self.configs[node])],
                                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                                cwd=REPO_ROOT, start_new_session=True)

    def start_all(self) -> None:
        for node in self.ports:
            self.start(node)

    def output(self, node: int) -> str:
        return (self.work / f"controller-{node}.out").read_text(errors="replace")

    def alive(self) -> list[int]:
        return [n for n, p in self.procs.items() if p.poll() is None]

    def kill(self, node: int) -> None:
        """kill -9, as a crash."""
        os.killpg(self.procs[node].pid, signal.SIGKILL)
        self.procs[node].wait(timeout=10)

    def active(self, among: list[int] | None = None) -> int:
        """The controller every live one names in DescribeCluster (that one's node id)."""
        nodes = among or self.alive()

        def agreed() -> int | None:
            ids = {call(self.ports[n], DescribeClusterRequest(endpoint_type=2), DescribeClusterResponse, 1)
                   .controller_id for n in nodes}
            (only,) = ids if len(ids) == 1 else (None,)
            return only if only is not None and only in nodes else None
        return eventually(agreed, what="an active controller all live controllers name")

    def stop_all(self) -> None:
        for proc in self.procs.values():
            terminate(proc, timeout=10)


class ApacheBroker:
    """An Apache Kafka 4.4 broker (``process.roles=broker``) whose controllers are the kafpy
    quorum; formatted by Apache's ``kafka-storage format`` with the controllers' cluster id.
    ``overrides`` go on top of its properties; ``light_jvm``: the suite's light JVM (serial GC,
    C1, the server's CDS archive: kafka_dist.java_command) rather than G1 and C2."""

    def __init__(self, work: Path, controllers: KafpyControllers, node_id: int = 100,
                 overrides: Mapping[str, str] | None = None, light_jvm: bool = False) -> None:
        self.work = work
        self.node_id = node_id
        self.light_jvm = light_jvm
        self.port = free_ports(1)[0]
        self.config = write_properties(work / "broker.properties", {
            "process.roles": "broker",
            "node.id": str(node_id),
            "controller.quorum.voters": controllers.voters,
            "controller.listener.names": "CONTROLLER",
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(work / "broker-data"),
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            **(overrides or {}),
        })
        self.cluster_id = controllers.cluster_id
        self.output_path = work / "broker.out"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def format(self) -> None:
        run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(self.config)], timeout=120)

    def start(self) -> None:
        cmd = java_command("4", "kafka-server-start", [str(self.config)], heap="768m", log_level="INFO",
                           light_jvm=self.light_jvm or None)
        with open(self.output_path, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, cwd=self.work)

    def serves_metadata(self) -> bool:
        return any(node == self.node_id for node, _h, _p in wire.metadata_brokers(LOOPBACK, self.port, timeout=2.0))

    def output(self) -> str:
        return self.output_path.read_text(errors="replace") if self.output_path.exists() else ""

    def stop(self) -> int | None:
        """SIGTERM (a controlled shutdown through the active controller); the exit code."""
        if self.proc is None:
            return None
        return terminate(self.proc, timeout=30)

    def kill(self) -> None:
        """kill -9 (a failed test's cleanup)."""
        if self.proc is not None:
            kill(self.proc)
