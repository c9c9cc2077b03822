"""An Apache Kafka 3.9 broker in ZooKeeper mode, to join a cluster with kafpy brokers.

Kafka 4 has no ZooKeeper mode, so this is 3.9 only. Keeps partition data in `log_dir`
(Kafka's own layout) and server.properties plus the process output (`server.out`, INFO
level so controller and state-change lines are there to read) in `work_dir`. Nothing is
formatted: a ZooKeeper-mode broker creates its `meta.properties` on first start.
`inter.broker.protocol.version` is left at its default (3.9), so the broker speaks the
newest inter-broker versions: LeaderAndIsr v7, UpdateMetadata v8, Fetch v17, AlterPartition v3.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from . import wire
from .kafka_dist import DEFAULT_KAFKA_3, ReferenceKafka
from .ports import LOOPBACK


class ZkReferenceKafka(ReferenceKafka):
    """One Apache Kafka 3.9.1 broker with `broker.id` on the ZooKeeper at `zookeeper_connect`.

    Same life cycle as ReferenceKafka (start/stop/kill/log_text), plus restart(); ready when
    its own Metadata lists itself, i.e. it has registered and received an UpdateMetadata.
    """

    def __init__(self, zookeeper_connect: str, broker_id: int, *, version: str = DEFAULT_KAFKA_3,
                 overrides: Mapping[str, object] | None = None, work_dir: str | Path | None = None,
                 log_dir: str | Path | None = None, port: int | None = None,
                 start_timeout: float = 120.0, server_jvm: bool | None = None):
        super().__init__(version, log_dir=log_dir, port=port, work_dir=work_dir, overrides=overrides,
                         node_id=broker_id, start_timeout=start_timeout, server_jvm=server_jvm)
        self.zookeeper_connect = zookeeper_connect
        self._formatted = True  # ZooKeeper mode: no `kafka-storage format`

    @property
    def broker_id(self) -> int:
        return self.node_id

    @property
    def host(self) -> str:
        return LOOPBACK

    def properties(self) -> dict[str, str]:
        props: dict[str, object] = {
            "broker.id": self.node_id,
            "zookeeper.connect": self.zookeeper_connect,
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.advertised_port}",
            "log.dirs": self.log_dir,
            "num.partitions": 1,
            "group.initial.rebalance.delay.ms": 0,
            "auto.create.topics.enable": "true",
        }
        props.update(self.overrides)
        return {k: str(v) for k, v in props.items()}

    def format(self) -> None:
        self._write_config()

    def _serves_metadata(self) -> bool:
        return any(node == self.node_id for node, _h, _p in
                   wire.metadata_brokers(LOOPBACK, self.port, timeout=2.0))

    def restart(self, *, kill: bool = False) -> "ZkReferenceKafka":
        """Stop (or kill) and start again on the same port and log dir."""
        if kill:
            self.kill()
        else:
            self.stop()
        return self.start()
