"""One Apache Kafka 3.9.1 broker in ZooKeeper mode, for the replication benchmark.

Runs ``kafka.Kafka`` from the 3.9.1 jars (tests/support/kafka_dist.py finds them) with a
generated server.properties: ``broker.id``, ``zookeeper.connect``, a PLAINTEXT listener on a
free loopback port and ``log.dirs`` under ``work_dir``; process output goes to
``work_dir/server.out``. Ready when the broker lists itself in Metadata. Lives in bench/ so the
benchmark does not depend on a ZooKeeper-mode launcher in tests/support.
"""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Mapping

from tests.support import process, wire
from tests.support.kafka_dist import java_command
from tests.support.ports import LOOPBACK, free_port

KAFKA_VERSION = "3.9.1"


class ZkKafkaBroker:
    """``.bootstrap``, ``.host``, ``.port``, ``.log_dir``, ``.proc``, ``.start()``, ``.stop()``, ``.kill()``;
    keeps its port and log dir across restarts, like tests.support.kafpy_broker.KafpyBroker."""

    host = LOOPBACK

    def __init__(self, broker_id: int, zookeeper_connect: str, work_dir: Path,
                 overrides: Mapping[str, object] | None = None, start_timeout: float = 120.0):
        self.broker_id = broker_id
        self.zookeeper_connect = zookeeper_connect
        self.work_dir = Path(work_dir)
        self.log_dir = self.work_dir / "data"
        self.port = free_port()
        self.overrides = dict(overrides or {})
        self.start_timeout = start_timeout
        self.config_path = self.work_dir / "server.properties"
        self.output_path = self.work_dir / "server.out"
        self.proc: subprocess.Popen | None = None

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def properties(self) -> dict[str, str]:
        props: dict[str, object] = {
            "broker.id": self.broker_id,
            "zookeeper.connect": self.zookeeper_connect,
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "log.dirs": self.log_dir,
            "group.initial.rebalance.delay.ms": 0,
            "log.flush.interval.messages": 9223372036854775807,
            **self.overrides,
        }
        return {k: str(v) for k, v in props.items()}

    def start(self) -> "ZkKafkaBroker":
        if self.proc is not None and self.proc.poll() is None:
            return self
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.properties().items()))
        cmd = java_command(KAFKA_VERSION, "kafka-server-start", [self.config_path], heap="1g",
                           log_level="WARN")
        with open(self.output_path, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, cwd=self.work_dir)
        try:
            process.wait_for(self._serves_metadata, timeout=self.start_timeout,
                             what=f"Apache Kafka {KAFKA_VERSION} broker {self.broker_id} on port {self.port}",
                             proc=self.proc, log_path=self.output_path, interval=0.2)
        except BaseException:
            self.kill()
            raise
        return self

    def _serves_metadata(self) -> bool:
        return any(node == self.broker_id for node, _h, _p in wire.metadata_brokers(LOOPBACK, self.port))

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM (controlled shutdown), SIGKILL after ``timeout``."""
        return process.terminate(self.proc, timeout=timeout) if self.proc is not None else None

    def kill(self) -> int | None:
        return process.kill(self.proc) if self.proc is not None else None
