"""Kafka's ZooKeeper layout: every znode path and JSON codec the ZK-mode controller and brokers
use (kafka/zk/ZkData.scala), checked against what Apache Kafka 3.9.1 writes.

Encoders produce Kafka's current versions (compact JSON, key order irrelevant); decoders ignore
unknown keys and read the older versions Kafka 2.8 and before wrote. A decoder given bad JSON
raises ``ZkDataError``. Partition and producer-id-block versions that matter for fencing are the
znodes' stat.version, which the ZooKeeper client passes in.

Who may call it: the ZooKeeper client and the controller. Pure functions, no I/O.
"""
from __future__ import annotations

import base64
import json
import re
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from kafpy.replication.leader_and_isr import LeaderAndIsr, LeaderRecoveryState

TopicPartition = tuple[str, int]

# --------------------------------------------------------------------------- paths
CONSUMERS_PATH = "/consumers"
BROKERS_PATH = "/brokers"
BROKER_IDS_PATH = "/brokers/ids"
TOPICS_PATH = "/brokers/topics"
BROKER_SEQUENCE_ID_PATH = "/brokers/seqid"
CONTROLLER_PATH = "/controller"
CONTROLLER_EPOCH_PATH = "/controller_epoch"
CONFIG_PATH = "/config"
CONFIG_CHANGES_PATH = "/config/changes"
CONFIG_CHANGE_PREFIX = "config_change_"
ADMIN_PATH = "/admin"
DELETE_TOPICS_PATH = "/admin/delete_topics"
REASSIGN_PARTITIONS_PATH = "/admin/reassign_partitions"
PREFERRED_REPLICA_ELECTION_PATH = "/admin/preferred_replica_election"
ISR_CHANGE_NOTIFICATION_PATH = "/isr_change_notification"
ISR_CHANGE_PREFIX = "isr_change_"
LOG_DIR_EVENT_NOTIFICATION_PATH = "/log_dir_event_notification"
LOG_DIR_EVENT_PREFIX = "log_dir_event_"
PRODUCER_ID_BLOCK_PATH = "/latest_producer_id_block"
CLUSTER_PATH = "/cluster"
CLUSTER_ID_PATH = "/cluster/id"
FEATURE_PATH = "/feature"


class ConfigType:
    """Entity types under /config (kafka.server.ConfigType)."""

    TOPIC = "topics"
    CLIENT = "clients"
    USER = "users"
    BROKER = "brokers"
    IP = "ips"
    GROUP = "groups"      # Kafka 4.x group configs (consumer.session.timeout.ms ...)
    ALL = (TOPIC, CLIENT, USER, BROKER, IP)


DEFAULT_BROKER_ENTITY = "<default>"
"""Entity name of the cluster-wide broker config (``/config/brokers/<default>``)."""

PERSISTENT_PATHS: tuple[str, ...] = (
    CONSUMERS_PATH, BROKER_IDS_PATH, TOPICS_PATH, CONFIG_CHANGES_PATH, DELETE_TOPICS_PATH,
    BROKER_SEQUENCE_ID_PATH, ISR_CHANGE_NOTIFICATION_PATH, PRODUCER_ID_BLOCK_PATH,
    LOG_DIR_EVENT_NOTIFICATION_PATH,
) + tuple(f"{CONFIG_PATH}/{t}" for t in ConfigType.ALL)
"""What every broker ensures at startup (ZkData.PersistentZkPaths)."""


def broker_path(broker_id: int) -> str:
    return f"{BROKER_IDS_PATH}/{broker_id}"


def topic_path(topic: str) -> str:
    return f"{TOPICS_PATH}/{topic}"


def topic_partitions_path(topic: str) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions"


def topic_partition_path(topic: str, partition: int) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions/{partition}"


def partition_state_path(topic: str, partition: int) -> str:
    return f"{TOPICS_PATH}/{topic}/partitions/{partition}/state"


def config_entity_type_path(entity_type: str) -> str:
    return f"{CONFIG_PATH}/{entity_type}"


def config_entity_path(entity_type: str, entity_name: str) -> str:
    return f"{CONFIG_PATH}/{entity_type}/{entity_name}"


def delete_topic_path(topic: str) -> str:
    return f"{DELETE_TOPICS_PATH}/{topic}"


def sequence_number(child_name: str, prefix: str) -> int:
    """The counter ZooKeeper appended to a persistent-sequential child (``config_change_0000000007``)."""
    if not child_name.startswith(prefix):
        raise ZkDataError(f"{child_name!r} does not start with {prefix!r}")
    return int(child_name[len(prefix):])


class ZkDataError(ValueError):
    """A znode's content is not what Kafka writes there."""


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _decoder(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Missing keys and values of the wrong type become ZkDataError."""
    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except ZkDataError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ZkDataError(f"{fn.__qualname__}: unexpected znode content ({e!r})") from e
    return wrapper


def _encode(obj: Mapping[str, object]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _decode(data: bytes | None) -> dict[str, Any] | None:
    """JSON object of a znode; None for an empty znode (Kafka's Json.parseBytes gives None)."""
    if not data:
        return None
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise ZkDataError(f"not JSON: {data[:200]!r}") from e
    if not isinstance(obj, dict):
        raise ZkDataError(f"not a JSON object: {data[:200]!r}")
    return obj


def _required(data: bytes | None, what: str) -> dict[str, Any]:
    obj = _decode(data)
    if obj is None:
        raise ZkDataError(f"empty {what} znode")
    return obj


# --------------------------------------------------------------------------- topic ids
def topic_id_to_str(topic_id: bytes) -> str:
    """Kafka's Uuid.toString: url-safe base64 without padding (22 characters)."""
    return base64.urlsafe_b64encode(topic_id).decode().rstrip("=")


@_decoder
def topic_id_from_str(text: str) -> bytes:
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != 16:
        raise ZkDataError(f"topic id {text!r} is not 16 bytes")
    return raw


# --------------------------------------------------------------------------- /brokers/ids/<id>
_ENDPOINT = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$")


@dataclass(frozen=True)
class EndPoint:
    """One advertised listener (kafka.cluster.EndPoint)."""

    listener: str
    host: str | None
    port: int
    security_protocol: str = "PLAINTEXT"

    @property
    def connection_string(self) -> str:
        host = self.host or ""
        if ":" in host:
            host = f"[{host}]"
        return f"{self.listener}://{host}:{self.port}"

    @classmethod
    @_decoder
    def parse(cls, text: str, protocol_map: Mapping[str, str] | None = None) -> "EndPoint":
        """``LISTENER://host:port``; without a protocol map the listener names the protocol."""
        m = _ENDPOINT.match(text)
        if m is None:
            raise ZkDataError(f"Unable to parse {text} to a broker endpoint")
        listener, host, port = m.group(1), m.group(2) or None, int(m.group(3))
        protocol = (protocol_map or {}).get(listener, listener if protocol_map is None else "")
        if not protocol:
            raise ZkDataError(f"No security protocol defined for listener {listener}")
        return cls(listener, host, port, protocol)


@dataclass(frozen=True)
class BrokerRegistration:
    """The ephemeral ``/brokers/ids/<id>`` znode (v5 since Kafka 2.7). Its czxid is the
    broker epoch, which the ZooKeeper client reads from the znode's stat."""

    broker_id: int
    endpoints: tuple[EndPoint, ...]
    rack: str | None = None
    jmx_port: int = -1
    features: Mapping[str, Any] = field(default_factory=dict)
    version: int = 5
    timestamp_ms: int | None = None

    def encode(self, timestamp_ms: int) -> bytes:
        # the top-level host/port are the first PLAINTEXT endpoint's, for old clients
        plain = next((e for e in self.endpoints if e.security_protocol == "PLAINTEXT"), None)
        obj: dict[str, object] = {
            "features": dict(self.features),
            "listener_security_protocol_map": {e.listener: e.security_protocol
                                               for e in self.endpoints},
            "endpoints": [e.connection_string for e in self.endpoints],
            "jmx_port": self.jmx_port,
            "port": plain.port if plain else -1,
            "host": plain.host if plain else None,
            "version": 5,
            "timestamp": str(timestamp_ms),
        }
        if self.rack is not None:
            obj["rack"] = self.rack
        return _encode(obj)

    @classmethod
    @_decoder
    def decode(cls, broker_id: int, data: bytes | None) -> "BrokerRegistration":
        obj = _required(data, f"broker {broker_id} registration")
        version = int(obj["version"])
        if version < 1:
            raise ZkDataError(f"Unsupported version of broker registration: {obj}")
        if version == 1:
            endpoints: tuple[EndPoint, ...] = (
                EndPoint("PLAINTEXT", obj["host"], int(obj["port"])),)
        else:
            protocol_map = obj.get("listener_security_protocol_map")
            endpoints = tuple(EndPoint.parse(e, protocol_map) for e in obj["endpoints"])
        timestamp = obj.get("timestamp")
        return cls(broker_id, endpoints, rack=obj.get("rack"), jmx_port=int(obj.get("jmx_port", -1)),
                   features=obj.get("features") or {}, version=version,
                   timestamp_ms=int(timestamp) if timestamp is not None else None)


# --------------------------------------------------------------------------- /controller
@dataclass(frozen=True)
class ControllerRegistration:
    """The ephemeral ``/controller`` znode. ``kraft_controller_epoch`` is -1 for a ZK
    controller (v2, Kafka 3.4+); v1 (2.8) has no such key."""

    broker_id: int
    timestamp_ms: int | None = None
    kraft_controller_epoch: int = -1

    def encode(self, timestamp_ms: int) -> bytes:
        return _encode({"version": 2, "brokerid": self.broker_id, "timestamp": str(timestamp_ms),
                        "kraftControllerEpoch": self.kraft_controller_epoch})

    @classmethod
    @_decoder
    def decode(cls, data: bytes | None) -> "ControllerRegistration":
        obj = _required(data, "controller")
        timestamp = obj.get("timestamp")
        return cls(int(obj["brokerid"]), int(timestamp) if timestamp is not None else None,
                   int(obj.get("kraftControllerEpoch", -1)))


INITIAL_CONTROLLER_EPOCH = 0


def encode_controller_epoch(epoch: int) -> bytes:
    """``/controller_epoch`` is plain text, not JSON."""
    return str(epoch).encode()


@_decoder
def decode_controller_epoch(data: bytes) -> int:
    try:
        return int(data.decode())
    except (ValueError, UnicodeDecodeError) as e:
        raise ZkDataError(f"controller epoch is not a number: {data[:50]!r}") from e


# --------------------------------------------------------------------------- /brokers/topics/<t>
@dataclass(frozen=True)
class ReplicaAssignment:
    """A partition's replicas; during a reassignment ``replicas`` is the union of the
    original and target sets, with what is being added and removed."""

    replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    @property
    def target_replicas(self) -> tuple[int, ...]:
        return tuple(r for r in self.replicas if r not in self.removing_replicas)

    @property
    def is_being_reassigned(self) -> bool:
        return bool(self.adding_replicas or self.removing_replicas)


@dataclass(frozen=True)
class TopicAssignment:
    """The ``/brokers/topics/<t>`` znode: topic id (22-character base64url, None before 2.8)
    and partition id -> assignment."""

    topic_id: str | None
    partitions: Mapping[int, ReplicaAssignment]

    @classmethod
    def of(cls, topic_id: str | None, replicas: Mapping[int, Iterable[int]]) -> "TopicAssignment":
        return cls(topic_id, {p: ReplicaAssignment(tuple(r)) for p, r in replicas.items()})

    def encode(self) -> bytes:
        obj: dict[str, object] = {
            "partitions": {str(p): list(a.replicas) for p, a in sorted(self.partitions.items())},
            "adding_replicas": {str(p): list(a.adding_replicas)
                                for p, a in sorted(self.partitions.items()) if a.adding_replicas},
            "removing_replicas": {str(p): list(a.removing_replicas)
                                  for p, a in sorted(self.partitions.items()) if a.removing_replicas},
            "version": 3,
        }
        if self.topic_id is not None:
            obj["topic_id"] = self.topic_id
        return _encode(obj)

    @classmethod
    @_decoder
    def decode(cls, data: bytes | None) -> "TopicAssignment":
        obj = _decode(data) or {}
        adding = obj.get("adding_replicas") or {}
        removing = obj.get("removing_replicas") or {}
        partitions = {
            int(p): ReplicaAssignment(tuple(r), tuple(adding.get(p, ())), tuple(removing.get(p, ())))
            for p, r in (obj.get("partitions") or {}).items()}
        return cls(obj.get("topic_id"), partitions)


# --------------------------------------------------------------------------- partition state
@dataclass(frozen=True)
class LeaderIsrAndControllerEpoch:
    """A partition state znode: the leadership and the epoch of the controller that wrote it."""

    leader_and_isr: LeaderAndIsr
    controller_epoch: int


def encode_partition_state(leader_and_isr: LeaderAndIsr, controller_epoch: int) -> bytes:
    obj: dict[str, object] = {"controller_epoch": controller_epoch, "leader": leader_and_isr.leader,
                           "version": 1, "leader_epoch": leader_and_isr.leader_epoch,
                           "isr": list(leader_and_isr.isr)}
    if leader_and_isr.leader_recovery_state != LeaderRecoveryState.RECOVERED:
        obj["leader_recovery_state"] = int(leader_and_isr.leader_recovery_state)
    return _encode(obj)


@_decoder
def decode_partition_state(data: bytes | None, zk_version: int) -> LeaderIsrAndControllerEpoch | None:
    """None for an empty znode; ``zk_version`` (stat.version) becomes the partition epoch."""
    obj = _decode(data)
    if obj is None:
        return None
    lias = LeaderAndIsr(int(obj["leader"]), int(obj["leader_epoch"]), tuple(obj["isr"]),
                        LeaderRecoveryState(int(obj.get("leader_recovery_state", 0))), zk_version)
    return LeaderIsrAndControllerEpoch(lias, int(obj["controller_epoch"]))


# --------------------------------------------------------------------------- configs
def encode_entity_config(config: Mapping[str, str]) -> bytes:
    """``/config/<type>/<name>``: values are strings."""
    return _encode({"version": 1, "config": {k: str(v) for k, v in config.items()}})


@_decoder
def decode_entity_config(data: bytes | None) -> dict[str, str]:
    obj = _decode(data) or {}
    config = obj.get("config")
    return {k: str(v) for k, v in config.items()} if isinstance(config, dict) else {}


def encode_config_change(entity_path: str) -> bytes:
    """A ``/config/changes/config_change_<seq>`` notification (v2), e.g. ``topics/t1``."""
    return _encode({"version": 2, "entity_path": entity_path})


@_decoder
def decode_config_change(data: bytes | None) -> str:
    """The changed entity's path; v1 (``entity_type`` + ``entity_name``) is read too."""
    obj = _required(data, "config change notification")
    if int(obj.get("version", 1)) >= 2:
        return str(obj["entity_path"])
    return f"{obj['entity_type']}/{obj['entity_name']}"


# --------------------------------------------------------------------------- cluster id
def encode_cluster_id(cluster_id: str) -> bytes:
    return _encode({"version": "1", "id": cluster_id})  # Kafka writes the version as a string


@_decoder
def decode_cluster_id(data: bytes | None) -> str:
    return str(_required(data, "cluster id")["id"])


# --------------------------------------------------------------------------- producer ids
PRODUCER_ID_BLOCK_SIZE = 1000
_MAX_PRODUCER_ID = (1 << 63) - 1


@dataclass(frozen=True)
class ProducerIdBlock:
    """A range of producer ids handed to one broker (ProducerIdsBlock)."""

    broker_id: int
    first_id: int
    size: int = PRODUCER_ID_BLOCK_SIZE

    @property
    def last_id(self) -> int:
        return self.first_id + self.size - 1

    def encode(self) -> bytes:
        return _encode({"version": 1, "broker": self.broker_id, "block_start": str(self.first_id),
                        "block_end": str(self.last_id)})

    @classmethod
    @_decoder
    def decode(cls, data: bytes | None) -> "ProducerIdBlock | None":
        """None for the empty znode every broker creates at startup."""
        obj = _decode(data)
        if obj is None:
            return None
        start, end = int(obj["block_start"]), int(obj["block_end"])
        return cls(int(obj["broker"]), start, end - start + 1)

    @classmethod
    def next_after(cls, current: "ProducerIdBlock | None", broker_id: int) -> "ProducerIdBlock":
        """The block that follows ``current`` (the first block starts at 0)."""
        if current is None:
            return cls(broker_id, 0)
        if current.last_id > _MAX_PRODUCER_ID - PRODUCER_ID_BLOCK_SIZE:
            raise ZkDataError("Have exhausted all producerIds.")
        return cls(broker_id, current.last_id + 1)


# --------------------------------------------------------------------------- admin and notifications
def _partition_list(partitions: Iterable[TopicPartition]) -> list[dict[str, object]]:
    return [{"topic": t, "partition": p} for t, p in sorted(partitions)]


def encode_partition_reassignment(assignment: Mapping[TopicPartition, Iterable[int]]) -> bytes:
    """Legacy ``/admin/reassign_partitions`` (tools before 2.4 wrote it)."""
    return _encode({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": list(assignment[(t, p)])}
        for t, p in sorted(assignment)]})


@_decoder
def decode_partition_reassignment(data: bytes | None) -> dict[TopicPartition, tuple[int, ...]]:
    obj = _decode(data) or {}
    return {(str(e["topic"]), int(e["partition"])): tuple(e["replicas"])
            for e in obj.get("partitions") or ()}


def encode_partition_list(partitions: Iterable[TopicPartition]) -> bytes:
    """``/admin/preferred_replica_election`` and ``/isr_change_notification/isr_change_<seq>``."""
    return _encode({"version": 1, "partitions": _partition_list(partitions)})


@_decoder
def decode_partition_list(data: bytes | None) -> set[TopicPartition]:
    obj = _decode(data) or {}
    return {(str(e["topic"]), int(e["partition"])) for e in obj.get("partitions") or ()}


LOG_DIR_FAILURE_EVENT = 1


def encode_log_dir_event(broker_id: int, event: int = LOG_DIR_FAILURE_EVENT) -> bytes:
    return _encode({"version": 1, "broker": broker_id, "event": event})


@_decoder
def decode_log_dir_event(data: bytes | None) -> int:
    """The broker whose log directory failed."""
    return int(_required(data, "log dir event")["broker"])


# --------------------------------------------------------------------------- /feature
FEATURE_STATUS_DISABLED = 0
FEATURE_STATUS_ENABLED = 1


@dataclass(frozen=True)
class FeatureZNode:
    """Finalized features; ZK-mode 3.x writes ``{"features":{},"version":2,"status":1}``.
    Each feature is ``{"min_version_level": a, "max_version_level": b}``."""

    features: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    status: int = FEATURE_STATUS_ENABLED

    def encode(self) -> bytes:
        return _encode({"features": {k: dict(v) for k, v in self.features.items()},
                        "version": 2, "status": self.status})

    @classmethod
    @_decoder
    def decode(cls, data: bytes | None) -> "FeatureZNode":
        obj = _required(data, "feature")
        return cls(obj.get("features") or {}, int(obj.get("status", FEATURE_STATUS_ENABLED)))


# --------------------------------------------------------------------------- ACLs
# ZkAclStore: literal patterns under /kafka-acl/<ResourceType>/<name>, prefixed ones under
# /kafka-acl-extended/prefixed/<ResourceType>/<name> (resource types spelt "Topic", "Group",
# "TransactionalId" ...). A change is announced by a persistent-sequential
# acl_changes_<seq> child of the store's change path.
ACL_PATH = "/kafka-acl"
ACL_CHANGES_PATH = "/kafka-acl-changes"
EXTENDED_ACL_PATH = "/kafka-acl-extended/prefixed"
EXTENDED_ACL_CHANGES_PATH = "/kafka-acl-extended-changes"
ACL_CHANGE_PREFIX = "acl_changes_"
ACL_CHANGE_EXPIRATION_MS = 15 * 60 * 1000
"""Notifications older than this are deleted by the broker that reads them (Kafka's 15 min)."""


def acl_resource_path(prefixed: bool, resource_type: str, name: str) -> str:
    return f"{EXTENDED_ACL_PATH if prefixed else ACL_PATH}/{resource_type}/{name}"


def encode_acls(entries: Iterable[Mapping[str, str]]) -> bytes:
    """An ACL znode: ``{"version":1,"acls":[{"principal","permissionType","operation","host"}]}``
    with Kafka's camel-case names (``Allow``, ``IdempotentWrite``)."""
    return _encode({"version": 1, "acls": [
        {"principal": e["principal"], "permissionType": e["permissionType"],
         "operation": e["operation"], "host": e["host"]} for e in entries]})


@_decoder
def decode_acls(data: bytes | None) -> list[dict[str, str]]:
    obj = _decode(data) or {}
    return [{k: str(a[k]) for k in ("principal", "permissionType", "operation", "host")}
            for a in obj.get("acls") or []]


def encode_literal_acl_change(resource_type: str, name: str) -> bytes:
    """LiteralAclChangeStore's notification: ``TOPIC:name`` (Kafka's ResourceType.toString)."""
    return f"{resource_type.upper()}:{name}".encode()


def decode_literal_acl_change(data: bytes | None) -> tuple[str, str]:
    """(resource type as written, name) of a literal change notification."""
    resource_type, sep, name = (data or b"").decode().partition(":")
    if not sep:
        raise ZkDataError(f"not an ACL change notification: {data!r}")
    return resource_type, name


def encode_extended_acl_change(resource_type: str, name: str, pattern_type: str) -> bytes:
    """ExtendedAclChangeStore's notification (Java enum names, e.g. ``TOPIC``/``PREFIXED``)."""
    return _encode({"version": 1, "resourceType": resource_type.upper(), "name": name,
                    "patternType": pattern_type.upper()})


@_decoder
def decode_extended_acl_change(data: bytes | None) -> tuple[str, str, str]:
    obj = _required(data, "extended ACL change notification")
    return str(obj["resourceType"]), str(obj["name"]), str(obj["patternType"])
