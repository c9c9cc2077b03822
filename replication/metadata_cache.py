"""The broker's read-only view of cluster metadata (Kafka's MetadataCache): live brokers, the
controller, topics with their ids, partition states and configs.

Who may call it: request handlers, the group coordinator and tools read it; exactly one
writer feeds it through ``update`` — in standalone mode the broker's own controller
(broker/controller.py), in ZooKeeper mode UpdateMetadata from the cluster's controller
(broker/handlers/control.py). It keeps nothing
on disk (the controller persists its state). Event loop only.
"""
from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field
from typing import Iterable

from kafpy.protocol.errors import ErrorCode, KafkaError


class TopicError(KafkaError):
    """A topic operation Kafka refuses; ``error_code`` is Kafka's code."""

    def __init__(self, error_code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error_code = ErrorCode(error_code)
        self.message = message


def _random_uuid() -> bytes:
    """16 random bytes as Kafka's Uuid.randomUuid(): never the zero uuid, never one whose
    base64 form starts with "-" (tools would read it as an option)."""
    while True:
        b = uuid.uuid4().bytes
        if b != bytes(16) and not base64.urlsafe_b64encode(b).startswith(b"-"):
            return b


def new_cluster_id() -> str:
    return base64.urlsafe_b64encode(_random_uuid()).decode().rstrip("=")


def new_topic_id() -> bytes:
    return _random_uuid()


def topic_id_str(topic_id: bytes) -> str:
    return base64.urlsafe_b64encode(topic_id).decode().rstrip("=")


@dataclass
class PartitionInfo:
    """One partition's state as Metadata reports it (UpdateMetadata's partition state)."""

    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int] = field(default_factory=list)
    partition_epoch: int = 0


@dataclass
class TopicInfo:
    """A topic as the cache holds it. The writer replaces a TopicInfo rather than changing
    one a reader may hold."""

    name: str
    topic_id: bytes
    partitions: dict[int, PartitionInfo]
    configs: dict[str, str]
    is_internal: bool = False

    @property
    def replication_factor(self) -> int:
        return len(self.partitions[0].replicas) if self.partitions else 0


@dataclass
class BrokerInfo:
    node_id: int
    host: str
    port: int
    rack: str | None = None
    # every listener's (host, port) when known; host/port above are the inter-broker one
    endpoints: dict[str, tuple[str, int]] = field(default_factory=dict, compare=False)

    def endpoint(self, listener: str) -> tuple[str, int] | None:
        """Where clients of ``listener`` reach this broker (Kafka answers Metadata and
        FindCoordinator with the endpoint of the listener the request came in on); None
        when the broker's listeners are known and ``listener`` is not among them: Kafka
        leaves such a broker out rather than send a client to another listener's port.
        The inter-broker endpoint when no listener is known (a standalone broker's own)."""
        if self.endpoints:
            return self.endpoints.get(listener)
        return self.host, self.port


class MetadataCache:
    """Reads for everyone; ``update`` for the one writer."""

    def __init__(self, cluster_id: str, local_broker: BrokerInfo,
                 live_brokers: Iterable[BrokerInfo] | None = None) -> None:
        """``live_brokers`` defaults to the local broker alone (standalone); a ZooKeeper-mode
        broker starts with none and learns them from UpdateMetadata."""
        self.cluster_id = cluster_id
        self.controller_id = -1
        # a ZooKeeper broker during a migration: the KRaft controller that sent the last
        # UpdateMetadata (clients are told ``controller_id``: this broker, which forwards)
        self.kraft_controller_id: int | None = None
        self.local_broker = local_broker
        self._brokers: dict[int, BrokerInfo] = {
            b.node_id: b for b in ([local_broker] if live_brokers is None else live_brokers)}
        # registered but fenced brokers (KRaft only): DescribeCluster v2 lists them on request
        self._fenced: dict[int, BrokerInfo] = {}
        self._topics: dict[str, TopicInfo] = {}
        self._by_id: dict[bytes, TopicInfo] = {}
        self.generation = 0  # counts updates: readers may cache what they derive from one

    # -- reads -------------------------------------------------------------------------
    def brokers(self) -> list[BrokerInfo]:
        return list(self._brokers.values())

    def fenced_brokers(self) -> list[BrokerInfo]:
        """Registered brokers a KRaft controller has fenced (none in the other modes)."""
        return list(self._fenced.values())

    def broker(self, node_id: int) -> BrokerInfo | None:
        return self._brokers.get(node_id)

    def topics(self) -> dict[str, TopicInfo]:
        return self._topics

    def topic(self, name: str) -> TopicInfo | None:
        return self._topics.get(name)

    def topic_by_id(self, topic_id: bytes) -> TopicInfo | None:
        return self._by_id.get(topic_id)

    def topic_name(self, topic_id: bytes) -> str | None:
        """The name of the topic with ``topic_id``; None for an id this broker does not know
        (requests that name topics by id answer it UNKNOWN_TOPIC_ID)."""
        info = self._by_id.get(topic_id)
        return info.name if info is not None else None

    def topic_config(self, name: str) -> dict[str, str]:
        t = self._topics.get(name)
        return dict(t.configs) if t else {}

    def partition(self, topic: str, index: int) -> PartitionInfo | None:
        t = self._topics.get(topic)
        return t.partitions.get(index) if t is not None else None

    # -- the writer ----------------------------------------------------------------------
    def update(self, *, controller_id: int | None = None, brokers: Iterable[BrokerInfo] | None = None,
               topics: Iterable[TopicInfo] = (), deleted_topics: Iterable[str] = (),
               fenced_brokers: Iterable[BrokerInfo] | None = None) -> None:
        """Apply one metadata change: brokers replace the live set (and fenced brokers the
        fenced set), topics are added or replaced, deleted topics go."""
        self.generation += 1
        if controller_id is not None:
            self.controller_id = controller_id
        if brokers is not None:
            self._brokers = {b.node_id: b for b in brokers}
        if fenced_brokers is not None:
            self._fenced = {b.node_id: b for b in fenced_brokers}
        for name in deleted_topics:
            old = self._topics.pop(name, None)
            if old is not None:
                self._by_id.pop(old.topic_id, None)
        for info in topics:
            old = self._topics.get(info.name)
            if old is not None and old.topic_id != info.topic_id:
                self._by_id.pop(old.topic_id, None)
            self._topics[info.name] = info
            self._by_id[info.topic_id] = info
