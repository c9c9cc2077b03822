"""Cluster metadata: which topics exist, their partitions, leaders, configs and IDs.

``MetadataCache`` is the interface the request handlers use. ``StandaloneMetadata`` is the
single-node implementation: it keeps everything in ``<first log dir>/cluster-metadata.json``,
rewritten atomically (temp file, fsync, rename, fsync the directory) on every change, so a
restart keeps topics, partition counts, configs, topic IDs and the cluster id. A ZooKeeper-backed
implementation fits behind the same methods. Called from the event loop only.
"""
from __future__ import annotations

import base64
import json
import logging
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

METADATA_FILE = "cluster-metadata.json"
LEGAL_TOPIC_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_TOPIC_NAME_LENGTH = 249
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
PRODUCER_ID_BLOCK = 1000


class TopicError(Exception):
    """A topic operation Kafka refuses; ``error_code`` is Kafka's code."""

    def __init__(self, error_code: int, message: str) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.message = message


def validate_topic_name(name: str) -> None:
    if not name:
        raise TopicError(17, "Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise TopicError(17, "Topic name cannot be \".\" or \"..\"")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise TopicError(17, f"Topic name is illegal, it can't be longer than {MAX_TOPIC_NAME_LENGTH} characters, "
                             f"topic name: {name}")
    if not LEGAL_TOPIC_CHARS.match(name):
        raise TopicError(17, f"Topic name {name} is illegal, it contains a character other than ASCII "
                             "alphanumerics, '.', '_' and '-'")


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
    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int] = field(default_factory=list)


@dataclass
class TopicInfo:
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


class MetadataCache:
    """What handlers may ask of cluster metadata (see docs/INTERFACES.md)."""

    cluster_id: str
    controller_id: int

    def brokers(self) -> list[BrokerInfo]: raise NotImplementedError
    def topics(self) -> dict[str, TopicInfo]: raise NotImplementedError
    def topic(self, name: str) -> TopicInfo | None: raise NotImplementedError
    def topic_by_id(self, topic_id: bytes) -> TopicInfo | None: raise NotImplementedError
    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     configs: dict[str, str], assignments: dict[int, list[int]] | None = None,
                     validate_only: bool = False) -> TopicInfo: raise NotImplementedError
    def delete_topic(self, name: str) -> TopicInfo: raise NotImplementedError
    def create_partitions(self, name: str, total: int, validate_only: bool = False) -> TopicInfo: raise NotImplementedError
    def topic_config(self, name: str) -> dict[str, str]: raise NotImplementedError
    def set_topic_config(self, name: str, configs: dict[str, str]) -> None: raise NotImplementedError
    def next_producer_id(self) -> int: raise NotImplementedError


class StandaloneMetadata(MetadataCache):
    """Single-node metadata persisted as JSON in the first log dir."""

    def __init__(self, log_dir: str, broker: BrokerInfo) -> None:
        self.path = Path(log_dir) / METADATA_FILE
        self.broker = broker
        self.controller_id = broker.node_id
        self._topics: dict[str, TopicInfo] = {}
        self._by_id: dict[bytes, TopicInfo] = {}
        self._producer_id_next = 0
        self._producer_id_limit = 0
        self.cluster_id = ""
        self.broker_configs: dict[str, str] = {}
        self._load()

    # -- persistence -------------------------------------------------------------------
    def _load(self) -> None:
        if not self.path.exists():
            self.cluster_id = new_cluster_id()
            self._save()
            return
        data = json.loads(self.path.read_text())
        self.cluster_id = data["cluster_id"]
        self._producer_id_limit = self._producer_id_next = int(data.get("producer_id_block_end", 0))
        self.broker_configs = dict(data.get("broker_configs", {}))
        for t in data.get("topics", []):
            info = TopicInfo(
                name=t["name"],
                topic_id=base64.b64decode(t["topic_id"]),
                partitions={int(p): PartitionInfo(**pi) for p, pi in t["partitions"].items()},
                configs=dict(t.get("configs", {})),
                is_internal=t["name"] in INTERNAL_TOPICS,
            )
            self._add(info)

    def _save(self) -> None:
        data = {
            "version": 1,
            "cluster_id": self.cluster_id,
            "producer_id_block_end": self._producer_id_limit,
            "broker_configs": self.broker_configs,
            "topics": [
                {
                    "name": t.name,
                    "topic_id": base64.b64encode(t.topic_id).decode(),
                    "partitions": {str(p): vars(pi) for p, pi in sorted(t.partitions.items())},
                    "configs": t.configs,
                }
                for t in sorted(self._topics.values(), key=lambda t: t.name)
            ],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        dfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def _add(self, info: TopicInfo) -> None:
        self._topics[info.name] = info
        self._by_id[info.topic_id] = info

    # -- queries ---------------------------------------------------------------------
    def brokers(self) -> list[BrokerInfo]:
        return [self.broker]

    def topics(self) -> dict[str, TopicInfo]:
        return self._topics

    def topic(self, name: str) -> TopicInfo | None:
        return self._topics.get(name)

    def topic_by_id(self, topic_id: bytes) -> TopicInfo | None:
        return self._by_id.get(topic_id)

    def topic_config(self, name: str) -> dict[str, str]:
        t = self._topics.get(name)
        return dict(t.configs) if t else {}

    # -- changes ---------------------------------------------------------------------
    def create_topic(self, name: str, partitions: int, replication_factor: int,
                     configs: dict[str, str], assignments: dict[int, list[int]] | None = None,
                     validate_only: bool = False) -> TopicInfo:
        validate_topic_name(name)
        if name in self._topics:
            raise TopicError(36, f"Topic '{name}' already exists.")
        norm = name.replace(".", "_")
        for other in self._topics:
            if other.replace(".", "_") == norm:
                raise TopicError(17, f"Topic '{name}' collides with existing topic: {other}")
        live = [b.node_id for b in self.brokers()]
        if assignments:
            if sorted(assignments) != list(range(len(assignments))):
                raise TopicError(39, "Partitions should be a consecutive 0-based integer sequence")
            for p, reps in assignments.items():
                if not reps or len(set(reps)) != len(reps):
                    raise TopicError(39, f"Duplicate replica assignment found: {reps}")
                if any(r not in live for r in reps):
                    raise TopicError(39, f"Replica assignment {reps} has brokers that are not alive")
            parts = {p: PartitionInfo(reps[0], 0, list(reps), list(reps)) for p, reps in assignments.items()}
        else:
            if partitions <= 0:
                raise TopicError(37, "Number of partitions must be larger than 0.")
            if replication_factor <= 0:
                raise TopicError(38, "Replication factor must be larger than 0.")
            if replication_factor > len(live):
                raise TopicError(38, f"Replication factor: {replication_factor} larger than available brokers: "
                                     f"{len(live)}.")
            parts = {}
            for p in range(partitions):
                reps = [live[(p + i) % len(live)] for i in range(replication_factor)]
                parts[p] = PartitionInfo(reps[0], 0, reps, list(reps))
        info = TopicInfo(name, new_topic_id(), parts, dict(configs), name in INTERNAL_TOPICS)
        if validate_only:
            return info
        self._add(info)
        self._save()
        log.info("Created topic %s with topic id %s, %d partitions and replication factor %d",
                 name, topic_id_str(info.topic_id), len(parts), info.replication_factor)
        return info

    def delete_topic(self, name: str) -> TopicInfo:
        info = self._topics.pop(name, None)
        if info is None:
            raise TopicError(3, "This server does not host this topic-partition.")
        self._by_id.pop(info.topic_id, None)
        self._save()
        log.info("Deleted topic %s with topic id %s", name, topic_id_str(info.topic_id))
        return info

    def create_partitions(self, name: str, total: int, validate_only: bool = False) -> TopicInfo:
        info = self._topics.get(name)
        if info is None:
            raise TopicError(3, f"The topic '{name}' does not exist.")
        cur = len(info.partitions)
        if total < cur:
            raise TopicError(37, f"Topic currently has {cur} partitions, which is higher than the requested {total}.")
        if total == cur:
            raise TopicError(37, f"Topic already has {cur} partitions.")
        if validate_only:
            return info
        rf = info.replication_factor or 1
        live = [b.node_id for b in self.brokers()]
        for p in range(cur, total):
            reps = [live[(p + i) % len(live)] for i in range(min(rf, len(live)))]
            info.partitions[p] = PartitionInfo(reps[0], 0, reps, list(reps))
        self._save()
        log.info("Increased partition count of topic %s from %d to %d", name, cur, total)
        return info

    def set_topic_config(self, name: str, configs: dict[str, str]) -> None:
        info = self._topics[name]
        info.configs = dict(configs)
        self._save()
        log.info("Updated configs of topic %s: %s", name, configs)

    def set_broker_configs(self, configs: dict[str, str]) -> None:
        self.broker_configs = dict(configs)
        self._save()

    def next_producer_id(self) -> int:
        """Producer ids are handed out from blocks whose end is persisted before use, so an id
        is never reused after a restart (logs keep producer state keyed by id)."""
        if self._producer_id_next >= self._producer_id_limit:
            self._producer_id_limit = self._producer_id_next + PRODUCER_ID_BLOCK
            self._save()
        pid = self._producer_id_next
        self._producer_id_next += 1
        return pid


def now_ms() -> int:
    return int(time.time() * 1000)
