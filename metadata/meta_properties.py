"""``meta.properties``, the file that marks a log directory as formatted (Kafka's
``MetaProperties`` and ``MetaPropertiesEnsemble``).

Who calls it: ``kafka-storage format`` and ``info`` (write, read), a KRaft node at start
(``verify_log_dirs``: every directory formatted, one cluster id, the configured node id, no
directory id twice), and ``kafka.Kafka``-like starts in ZooKeeper mode (version 0 files).

The file is a Java properties file as Kafka's ``PropertiesUtils.writePropertiesFile`` writes
it: an empty comment line, a comment with the date (Java's ``Date.toString``), then
``node.id``, ``directory.id``, ``version``, ``cluster.id`` (the order Java's ``Properties``
keeps those four keys in: its hash table's, not the insertion order); written to
``meta.properties.tmp``, fsynced and renamed. Version 1 (KRaft) needs cluster.id and
node.id; version 0 (ZooKeeper) has broker.id instead. Directory ids are Kafka ``Uuid``\\ s
(22 characters of URL-safe base64): random, never starting with ``-``, never one of the
reserved ids (the first 100 with zero high bits).
"""

from __future__ import annotations

import base64
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping

__all__ = [
    "META_PROPERTIES_NAME",
    "MetaProperties",
    "MetaPropertiesEnsemble",
    "MetaPropertiesError",
    "uuid_to_string",
    "uuid_from_string",
    "random_uuid",
    "random_directory_id",
    "read_properties",
    "write_properties",
    "read_meta_properties",
    "write_meta_properties",
    "load_ensemble",
]

META_PROPERTIES_NAME = "meta.properties"
VERSION_PROP = "version"
CLUSTER_ID_PROP = "cluster.id"
BROKER_ID_PROP = "broker.id"
NODE_ID_PROP = "node.id"
DIRECTORY_ID_PROP = "directory.id"
# Java Properties' iteration order of the keys a meta.properties file can hold (a v1 file
# lists node.id, directory.id, version, cluster.id; leaving a key out keeps the others' order)
_KEY_ORDER = (NODE_ID_PROP, BROKER_ID_PROP, DIRECTORY_ID_PROP, VERSION_PROP, CLUSTER_ID_PROP)
_RESERVED_DIRECTORY_IDS = 100
_CLUSTER_METADATA_DIR = "__cluster_metadata-0"
# Kafka's Uuid.METADATA_TOPIC_ID (0, 1) and ZERO_UUID: never handed out as a cluster id
_NOT_RANDOM = {bytes(16), bytes(15) + b"\x01"}


class MetaPropertiesError(Exception):
    """A meta.properties file or a set of them that Kafka would refuse (its RuntimeException)."""


def uuid_to_string(raw: bytes) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def uuid_from_string(text: str) -> bytes:
    """Kafka's ``Uuid.fromString`` (``ValueError`` with its wording)."""
    if len(text) > 24:
        raise ValueError(f"Input string with prefix `{text[:24]}` is too long to be decoded as a base64 UUID")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"Input string `{text}` decoded as {exc}") from exc
    if len(raw) != 16:
        raise ValueError(f"Input string `{text}` decoded as {len(raw)} bytes, which is not equal to the "
                         "expected 16 bytes of a base64-encoded UUID")
    return raw


def _is_reserved_directory_id(raw: bytes) -> bool:
    return raw[:8] == bytes(8) and int.from_bytes(raw[8:], "big") < _RESERVED_DIRECTORY_IDS


def random_uuid(random_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """Kafka's ``Uuid.randomUuid().toString()``: what ``kafka-storage random-uuid`` prints."""
    while True:
        raw = random_bytes(16)
        text = uuid_to_string(raw)
        if raw not in _NOT_RANDOM and not text.startswith("-"):
            return text


def random_directory_id(taken: Iterable[str] = (),
                        random_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """A fresh directory id (Kafka's ``Copier.generateValidDirectoryId``)."""
    used = set(taken)
    while True:
        raw = random_bytes(16)
        text = uuid_to_string(raw)
        if not text.startswith("-") and not _is_reserved_directory_id(raw) and text not in used:
            return text


@dataclass(frozen=True)
class MetaProperties:
    """One directory's meta.properties: version (0 ZooKeeper, 1 KRaft), cluster id, node id
    (broker.id in v0) and directory id."""

    version: int
    cluster_id: str | None
    node_id: int | None
    directory_id: str | None = None

    def __post_init__(self) -> None:
        if self.version not in (0, 1):
            raise MetaPropertiesError(f"Unknown meta.properties version number {self.version}")
        if self.version == 1:
            if self.cluster_id is None:
                raise MetaPropertiesError("cluster.id was not found.")
            if self.node_id is None:
                raise MetaPropertiesError("node.id was not found.")

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> MetaProperties:
        """As Kafka's ``MetaProperties.Builder(Properties)``."""
        version_text = props.get(VERSION_PROP, "0")
        try:
            version = int(version_text)
        except ValueError:
            raise MetaPropertiesError(f"Invalid meta.properties version {version_text}") from None
        if version not in (0, 1):
            raise MetaPropertiesError(f"Unknown meta.properties version number {version}")
        id_prop = BROKER_ID_PROP if version == 0 else NODE_ID_PROP
        node_id = None
        if version != 0 or id_prop in props:
            if id_prop not in props:
                raise MetaPropertiesError(f"Failed to find required property {id_prop}.")
            try:
                node_id = int(props[id_prop])
            except ValueError:
                raise MetaPropertiesError(f"Unable to read {id_prop} as a base-10 number.") from None
        directory_id = props.get(DIRECTORY_ID_PROP)
        if directory_id is not None:
            try:
                uuid_from_string(directory_id)
            except ValueError as exc:
                raise MetaPropertiesError(f"Unable to read {DIRECTORY_ID_PROP} as a Uuid: {exc}") from exc
        return cls(version, props.get(CLUSTER_ID_PROP), node_id, directory_id)

    def to_properties(self) -> dict[str, str]:
        """The keys and values of the file, in the order Java writes them."""
        values: dict[str, str] = {VERSION_PROP: str(self.version)}
        if self.cluster_id is not None:
            values[CLUSTER_ID_PROP] = self.cluster_id
        if self.version == 0:
            if self.node_id is not None:
                values[BROKER_ID_PROP] = str(self.node_id)
        else:
            values[NODE_ID_PROP] = str(self.node_id)
        if self.directory_id is not None:
            values[DIRECTORY_ID_PROP] = self.directory_id
        return {k: values[k] for k in _KEY_ORDER if k in values}

    def java_map_string(self) -> str:
        """``{cluster.id=..., directory.id=..., node.id=..., version=1}`` as ``kafka-storage
        info`` prints the properties (a sorted Java map)."""
        props = self.to_properties()
        return "{" + ", ".join(f"{k}={props[k]}" for k in sorted(props)) + "}"


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            i += 1
            c = text[i]
            if c == "u" and i + 4 < len(text) + 1:
                out.append(chr(int(text[i + 1:i + 5], 16)))
                i += 5
                continue
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(c, c))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def read_properties(text: str) -> dict[str, str]:
    """A Java properties file's keys and values (comments, ``=``/``:``/space separators,
    backslash escapes and continuation lines)."""
    props: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue
        while line.endswith("\\") and (len(line) - len(line.rstrip("\\"))) % 2 == 1 and i < len(lines):
            line = line[:-1] + lines[i].lstrip(" \t\f")
            i += 1
        key_end = 0
        while key_end < len(line):
            c = line[key_end]
            if c == "\\":
                key_end += 2
                continue
            if c in "=: \t\f":
                break
            key_end += 1
        rest = line[key_end:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")
        props[_unescape(line[:key_end])] = _unescape(rest)
    return props


def _escape(text: str, is_key: bool) -> str:
    out: list[str] = []
    for i, c in enumerate(text):
        if c in "=:#!\\":
            out.append("\\" + c)
        elif c == " " and (is_key or i == 0):
            out.append("\\ ")
        elif c in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[c])
        elif ord(c) < 0x20 or ord(c) > 0x7E:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return "".join(out)


def _java_date(now_s: float) -> str:
    """Java's ``Date.toString``: ``Sat Nov 28 21:57:30 UTC 2026`` (local time zone)."""
    return time.strftime("%a %b %d %H:%M:%S %Z %Y", time.localtime(now_s))


def write_properties(path: str | Path, props: Mapping[str, str], now_s: float | None = None) -> None:
    """Write ``props`` as Kafka's ``PropertiesUtils.writePropertiesFile(..., fsync=true)``:
    through ``<path>.tmp``, fsynced, renamed over ``path``."""
    p = Path(path)
    body = "#\n#" + _java_date(time.time() if now_s is None else now_s) + "\n"
    body += "".join(f"{_escape(k, True)}={_escape(v, False)}\n" for k, v in props.items())
    temp = p.with_name(p.name + ".tmp")
    with open(temp, "w", encoding="latin-1") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, p)
    dir_fd = os.open(p.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_meta_properties(log_dir: str | Path) -> MetaProperties | None:
    """The directory's meta.properties, None when it has none (``MetaPropertiesError`` when
    it does not parse, ``OSError`` when it cannot be read)."""
    path = Path(log_dir) / META_PROPERTIES_NAME
    try:
        text = path.read_text(encoding="latin-1")
    except FileNotFoundError:
        return None
    return MetaProperties.from_properties(read_properties(text))


def write_meta_properties(log_dir: str | Path, meta: MetaProperties, now_s: float | None = None) -> Path:
    path = Path(log_dir) / META_PROPERTIES_NAME
    write_properties(path, meta.to_properties(), now_s)
    return path


@dataclass
class MetaPropertiesEnsemble:
    """The meta.properties of a node's log directories (Kafka's ``MetaPropertiesEnsemble``):
    directories without one, directories that could not be read (with why), and the files read."""

    empty_log_dirs: set[str]
    error_log_dirs: dict[str, str]
    log_dir_props: dict[str, MetaProperties]
    metadata_log_dir: str | None = None

    def verify(self, expected_cluster_id: str | None, expected_node_id: int | None, *,
               require_at_least_one_valid: bool = False, require_metadata_log_dir: bool = False) -> None:
        """Kafka's ``verify``: one cluster id, one node id, no reserved or duplicate directory id."""
        seen: dict[str, str] = {}
        if require_at_least_one_valid and not self.log_dir_props:
            raise MetaPropertiesError("No readable meta.properties files found.")
        for log_dir in sorted(self.log_dir_props):
            meta = self.log_dir_props[log_dir]
            path = os.path.join(log_dir, META_PROPERTIES_NAME)
            if meta.cluster_id is None:
                if meta.version == 1:
                    raise MetaPropertiesError(f"cluster.id was not specified in the v1 file: {path}")
            elif expected_cluster_id is None:
                expected_cluster_id = meta.cluster_id
            elif meta.cluster_id != expected_cluster_id:
                raise MetaPropertiesError(f"Invalid cluster.id in: {path}. Expected {expected_cluster_id}, "
                                          f"but read {meta.cluster_id}")
            if meta.node_id is None:
                if meta.version == 1:
                    raise MetaPropertiesError(f"node.id was not specified in {path}")
            elif expected_node_id is None:
                expected_node_id = meta.node_id
            elif meta.node_id != expected_node_id:
                raise MetaPropertiesError(
                    f"Stored node id {meta.node_id} doesn't match previous node id {expected_node_id} in {path}. "
                    "If you moved your data, make sure your configured node id matches. If you intend to "
                    "create a new node, you should remove all data in your data directories.")
            if meta.directory_id is not None:
                if _is_reserved_directory_id(uuid_from_string(meta.directory_id)):
                    raise MetaPropertiesError(f"Invalid resrved directory ID {meta.directory_id} found in {log_dir}")
                previous = seen.get(meta.directory_id)
                if previous is not None:
                    raise MetaPropertiesError(f"Duplicate directory ID Optional[{meta.directory_id}] found. It was "
                                              f"the ID of {previous}, but also of {log_dir}")
                seen[meta.directory_id] = log_dir
        if require_metadata_log_dir and self.metadata_log_dir is None:
            raise MetaPropertiesError("No metadata log directory was specified.")
        if self.metadata_log_dir is not None and self.metadata_log_dir in self.error_log_dirs:
            raise MetaPropertiesError(f"Encountered I/O error in metadata log directory {self.metadata_log_dir}. "
                                      "Cannot continue.")

    def verify_for_kraft_start(self, node_id: int) -> None:
        """What a KRaft node checks before it starts (``KafkaRaftServer.initializeLogDirs``):
        the ensemble verifies with the configured node id, ``__cluster_metadata-0`` is in the
        metadata log dir only, and every readable directory is formatted."""
        self.verify(None, node_id, require_at_least_one_valid=True, require_metadata_log_dir=True)
        for log_dir in sorted(self.log_dir_props):
            misplaced = Path(log_dir) / _CLUSTER_METADATA_DIR
            if log_dir != self.metadata_log_dir and misplaced.exists():
                raise MetaPropertiesError(f"Found unexpected metadata location in data directory `{misplaced}` "
                                          f"(the configured metadata directory is {self.metadata_log_dir}).")
        for log_dir in sorted(self.empty_log_dirs):
            raise MetaPropertiesError(f"No `meta.properties` found in {log_dir} (have you run `kafka-storage.sh` "
                                      "to format the directory?)")

    def cluster_id(self) -> str | None:
        for meta in self.log_dir_props.values():
            if meta.cluster_id is not None:
                return meta.cluster_id
        return None


def load_ensemble(log_dirs: Iterable[str], metadata_log_dir: str | None = None) -> MetaPropertiesEnsemble:
    """Read every directory's meta.properties (Kafka's ``MetaPropertiesEnsemble.Loader``)."""
    dirs = set(log_dirs)
    if metadata_log_dir is not None:
        dirs.add(metadata_log_dir)
    if not dirs:
        raise MetaPropertiesError("You must specify at least one log directory.")
    empty: set[str] = set()
    errors: dict[str, str] = {}
    props: dict[str, MetaProperties] = {}
    for log_dir in sorted(dirs):
        try:
            meta = read_meta_properties(log_dir)
        except (OSError, MetaPropertiesError, UnicodeDecodeError) as exc:
            errors[log_dir] = str(exc)
            continue
        if meta is None:
            empty.add(log_dir)
        else:
            props[log_dir] = meta
    return MetaPropertiesEnsemble(empty, errors, props, metadata_log_dir)
