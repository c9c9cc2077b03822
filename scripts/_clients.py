"""Bridges from Kafka's client configuration (Java property names) to kafka-python's
clients, plus the small formatting facts the tools share (topic ids, error texts) and the
old `--zookeeper` bootstrap (broker endpoints read from `/brokers/ids/<id>`).
"""
from __future__ import annotations

import base64
import json
import time
import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

from kafpy.protocol.errors import ErrorCode, KafkaError
from kafpy.broker.properties import load_properties

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

#: Builds the admin client a tool runs with from the bootstrap servers and `--command-config`;
#: tests pass their own, `kafka-topics --zookeeper` a ZkTopicAdmin.
AdminFactory = Callable[[str, dict[str, str]], "KafkaAdminClient"]
HashKey = TypeVar("HashKey")

# Java property names whose kafka-python keyword differs from the dotted->underscored name.
_RENAMES = {
    "sasl.username": "sasl_plain_username",
    "sasl.password": "sasl_plain_password",
    "ssl.truststore.location": "ssl_cafile",
    "ssl.endpoint.identification.algorithm": None,
}


def _coerce(value: str, default: object) -> str | int | float | bool:
    if isinstance(default, bool):
        return value.strip().lower() == "true"
    if isinstance(default, int) and not isinstance(default, bool):
        try:
            return int(value)
        except ValueError:
            return value
    if isinstance(default, float):
        return float(value)
    return value


def java_props_to_kwargs(props: dict[str, str], default_config: dict[str, object]) -> dict[str, object]:
    """Keep the properties the kafka-python client knows, converted to its types.
    Unknown ones are dropped, as Kafka's clients only warn about them."""
    kwargs: dict[str, object] = {}
    for key, value in props.items():
        name = _RENAMES.get(key, key.replace(".", "_").replace("-", "_"))
        if name is None or name not in default_config:
            continue
        if name == "bootstrap_servers":
            kwargs[name] = [s.strip() for s in value.split(",") if s.strip()]
        elif name == "acks":
            kwargs[name] = "all" if value.strip() in ("all", "-1") else int(value)
        elif name == "compression_type":
            kwargs[name] = None if value.strip().lower() in ("none", "") else value.strip().lower()
        elif name == "auto_offset_reset":
            kwargs[name] = value.strip().lower()
        else:
            kwargs[name] = _coerce(value, default_config[name])
    return kwargs


def uuid_to_kafka(topic_id: object) -> str:
    """Kafka prints a Uuid as URL-safe base64 of its 16 bytes without padding."""
    if topic_id is None:
        return "AAAAAAAAAAAAAAAAAAAAAA"
    if isinstance(topic_id, uuid.UUID):
        raw = topic_id.bytes
    elif isinstance(topic_id, (bytes, bytearray)):
        raw = bytes(topic_id)
    else:
        s = str(topic_id)
        try:
            raw = uuid.UUID(s).bytes
        except ValueError:
            return s
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def is_zero_uuid(topic_id: object) -> bool:
    return uuid_to_kafka(topic_id) == "AAAAAAAAAAAAAAAAAAAAAA"


def error_text(error_code: int, message: str | None = None) -> str:
    """The message Kafka's admin client attaches to an error: the broker's text when it
    sent one, else the error's standard description."""
    if message:
        return message
    import kafka.errors as Errors

    cls = Errors.for_code(error_code)
    return getattr(cls, "description", None) or cls.__name__


def error_name(error_code: int) -> str:
    import kafka.errors as Errors

    return Errors.for_code(error_code).__name__


class ZooKeeperBootstrapError(RuntimeError):
    """ZooKeeper unreachable, or no broker registered in it."""


def zookeeper_bootstrap(connect: str, timeout: float = 15.0, registration_wait: float = 5.0) -> str:
    """Read the brokers registered in ZooKeeper (`/brokers/ids/<id>`, JSON with
    "endpoints": ["PLAINTEXT://host:port"]) and return them as a bootstrap list. Waits up
    to `registration_wait` seconds for a first registration."""
    import logging

    from kazoo.client import KazooClient

    logging.getLogger("kazoo").setLevel(logging.CRITICAL)  # its retries would flood stderr
    hosts, _, chroot = connect.partition("/")
    zk = KazooClient(hosts=hosts, timeout=timeout)
    try:
        zk.start(timeout=timeout)
    except Exception as exc:  # kazoo raises its own timeout type
        raise ZooKeeperBootstrapError(f"Timed out waiting for connection to ZooKeeper at {connect}") from exc
    try:
        base = ("/" + chroot if chroot else "") + "/brokers/ids"
        endpoints: list[str] = []
        deadline = time.monotonic() + registration_wait
        while True:  # a broker that just opened its port may not have registered yet
            if zk.exists(base):
                for child in sorted(zk.get_children(base), key=lambda c: int(c) if c.isdigit() else c):
                    data, _ = zk.get(f"{base}/{child}")
                    endpoints.extend(endpoints_from_registration(data))
            if endpoints or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        if not endpoints:
            raise ZooKeeperBootstrapError(f"No Kafka brokers are registered in ZooKeeper at {connect} "
                                          f"(no endpoints under {base}). Start a broker first.")
        return ",".join(endpoints)
    finally:
        zk.stop()
        zk.close()


def endpoints_from_registration(data: bytes) -> list[str]:
    """host:port pairs from one `/brokers/ids/<id>` znode (PLAINTEXT listeners first)."""
    try:
        info = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    out: list[str] = []
    for ep in info.get("endpoints") or []:
        _, _, hostport = ep.partition("://")
        if hostport:
            host, _, port = hostport.rpartition(":")
            out.append(f"{host or 'localhost'}:{port}")
    if not out and info.get("host") and info.get("port"):
        out.append(f"{info['host']}:{info['port']}")
    return out


def make_admin(bootstrap: str, command_config: dict[str, str] | None = None, **extra: object
               ) -> KafkaAdminClient:
    """A kafka-python KafkaAdminClient configured like Kafka's Admin.create(props)."""
    from kafka.admin import KafkaAdminClient

    props = dict(command_config or {})
    props["bootstrap.servers"] = bootstrap
    kwargs = java_props_to_kwargs(props, KafkaAdminClient.DEFAULT_CONFIG)
    kwargs.setdefault("client_id", "adminclient-1")
    kwargs.update(extra)
    return KafkaAdminClient(**kwargs)


@contextmanager
def admin_client(bootstrap: str, command_config_path: str | None,
                 factory: AdminFactory | None = None) -> Iterator[KafkaAdminClient]:
    """The admin client a tool runs its command with: `--command-config` read as Kafka reads
    it, the client closed at the end. A failing close is not reported: it must not hide the
    command's own result (a broker that went away, for one)."""
    command_config = load_properties(command_config_path) if command_config_path else {}
    admin = (factory or make_admin)(bootstrap, command_config)
    try:
        yield admin
    finally:
        try:
            admin.close()
        except Exception:  # noqa: BLE001,S110 - closing after the command's own outcome, which stands
            pass


class BrokerError(KafkaError):
    """An error code a broker answered with; str() is the broker's message. ``code`` keeps the
    number as the broker sent it (a newer broker's code this version does not name)."""

    def __init__(self, error_code: int, message: str | None = None) -> None:
        super().__init__(error_text(error_code, message))
        self.code = int(error_code)
        self.error_code = ErrorCode.of_known(error_code)

    def java_name(self) -> str:
        """The Java exception Kafka's clients raise for this code, e.g.
        org.apache.kafka.common.errors.InvalidConfigurationException."""
        return "org.apache.kafka.common.errors." + java_exception_name(error_name(self.code))


def _int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def java_string_hash(s: str) -> int:
    h = 0
    for unit in s.encode("utf-16-be").hex(" ", 2).split():  # UTF-16 code units, as Java
        h = _int32(31 * h + int(unit, 16))
    return h


def topic_partition_hash(topic: str, partition: int) -> int:
    """org.apache.kafka.common.TopicPartition.hashCode()."""
    return _int32(31 * (31 + partition) + java_string_hash(topic))


def java_hashmap_order(keys: list[HashKey], hash_fn: Callable[[HashKey], int]) -> list[HashKey]:
    """The iteration order of a java.util.HashMap filled with `keys` in this order (default
    capacity and load factor): Kafka's tools print several tables straight from one."""
    n = len(keys)
    cap = 16
    while n > cap * 3 // 4:
        cap *= 2
    buckets: dict[int, list[HashKey]] = {}
    for k in keys:
        h = hash_fn(k) & 0xFFFFFFFF
        h ^= h >> 16
        buckets.setdefault(h & (cap - 1), []).append(k)
    return [k for b in sorted(buckets) for k in buckets[b]]


# kafka-python error classes whose Java exception is not simply Error -> Exception.
_JAVA_NAMES = {
    "NonEmptyGroupError": "GroupNotEmptyException",
    "NotLeaderForPartitionError": "NotLeaderOrFollowerException",
    "GroupCoordinatorNotAvailableError": "CoordinatorNotAvailableException",
    "NotCoordinatorForGroupError": "NotCoordinatorException",
    "GroupLoadInProgressError": "CoordinatorLoadInProgressException",
    "TopicAlreadyExistsError": "TopicExistsException",
    "UnknownTopicOrPartitionError": "UnknownTopicOrPartitionException",
    "InvalidTopicError": "InvalidTopicException",
}


def java_exception_name(python_name: str) -> str:
    if python_name in _JAVA_NAMES:
        return _JAVA_NAMES[python_name]
    return python_name[:-5] + "Exception" if python_name.endswith("Error") else python_name


def broker_api_keys(admin: KafkaAdminClient) -> set[int]:
    """The API keys the bootstrap broker advertised. Read from the raw ApiVersions data:
    kafka-python's api_versions() fails on keys it does not know (newer brokers)."""
    data = getattr(getattr(getattr(admin, "_manager", None), "broker_version_data", None),
                   "api_versions", None)
    if isinstance(data, dict):
        return {int(k) for k in data}
    return {int(k) for k in admin.api_versions()}
