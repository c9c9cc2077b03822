"""Formatting a node's directories for KRaft, as Kafka 4.4's ``metadata.storage.Formatter``
(what ``kafka-storage format`` runs).

Who calls it: ``kafpy.scripts.kafka_storage`` (the CLI), tests that need formatted dirs.

It works out the effective metadata.version and feature levels (``--release-version``,
``--feature``, the defaults of that release, kraft.version 1 exactly when the quorum is
dynamic), the bootstrap records (those levels and any ``--add-scram`` credential), loads the
directories' meta.properties, refuses formatted ones unless ``ignore_formatted``, then writes
each empty directory's meta.properties (a random directory id; a voter's metadata dir gets its
``--initial-controllers`` id) and, on a controller's metadata dir, the bootstrap snapshot.
What it prints and the order of the "Formatting ..." lines are Kafka's: the directories come
out in Java ``HashMap`` order, which ``hash_map_order`` reproduces. Errors are
``FormatterError``: ``java_class`` is set where Kafka lets a Java exception escape (the CLI
prints ``Exception in thread "main" <class>: <message>``), unset where it prints the message.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from kafpy.metadata.bootstrap import BootstrapMetadata, write_bootstrap_snapshot
from kafpy.metadata.meta_properties import (
    MetaProperties,
    MetaPropertiesError,
    load_ensemble,
    random_directory_id,
    uuid_from_string,
    write_meta_properties,
)
from kafpy.metadata.metadata_version import (
    KRAFT_VERSION_FEATURE,
    LATEST_PRODUCTION,
    METADATA_VERSION_FEATURE,
    PRODUCTION_FEATURES,
    MetadataVersion,
    feature_named,
    from_feature_level,
)
from kafpy.metadata.record_serde import ApiMessageAndVersion
from kafpy.protocol.messages import Message, VotersRecord

__all__ = [
    "FormatterError",
    "DynamicVoter",
    "parse_dynamic_voters",
    "Formatter",
    "java_string_hash",
    "hash_map_order",
    "java_message_repr",
    "bootstrap_metadata_repr",
]

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"
_SCRAM_MINIMUM_LEVEL = 11  # 3.5-IV2
RUNTIME = "java.lang.RuntimeException"


class FormatterError(Exception):
    """Why formatting stopped; ``java_class`` names the Java exception Kafka would show."""

    def __init__(self, message: str, java_class: str | None = None) -> None:
        super().__init__(message)
        self.java_class = java_class


# ----------------------------------------------------------------------------- Java's orders


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units), as an unsigned 32-bit int."""
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def _table_size_for(n: int) -> int:
    capacity = 1
    while capacity < n:
        capacity *= 2
    return capacity


def hash_map_order(keys: Iterable[str], copied: bool = False) -> list[str]:
    """The iteration order of a ``java.util.HashMap`` holding ``keys``, put in the given order:
    by bucket (the spread hash masked to the table size), then by insertion order within a
    bucket. A new map starts at 16 buckets and doubles past 75% full; one made by copying
    another (``copied``, ``new HashMap<>(map)``) is sized for its entries as JDK 17 does."""
    items = list(dict.fromkeys(keys))
    if copied:
        capacity = _table_size_for(max(int(len(items) / 0.75 + 1.0), 1))
    else:
        capacity = 16
    while len(items) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return [k for _i, k in sorted(enumerate(items), key=lambda ik: (bucket(ik[1]), ik[0]))]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _java_value(value: object) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in bytes(value)) + "]"
    return str(value)


def java_message_repr(message: Message) -> str:
    """A generated message's ``toString`` (``FeatureLevelRecord(name='x', featureLevel=1)``)."""
    fields = ", ".join(f"{_camel(f.name)}={_java_value(getattr(message, f.name))}" for f in message.FIELDS)
    return f"{message.NAME}({fields})"


def bootstrap_metadata_repr(bootstrap: BootstrapMetadata) -> str:
    """``BootstrapMetadata.toString`` as ``format`` prints it."""
    records = ", ".join(f"ApiMessageAndVersion({java_message_repr(r.message)} at version {r.version})"
                        for r in bootstrap.records)
    return (f"BootstrapMetadata(records=[{records}], metadataVersionLevel={bootstrap.metadata_version_level}, "
            f"source={bootstrap.source})")


# ------------------------------------------------------------------------- initial voters


@dataclass(frozen=True)
class DynamicVoter:
    """One ``--initial-controllers`` entry: ``id@host:port:directory-id``."""

    node_id: int
    host: str
    port: int
    directory_id: str


def _parse_voter(text: str) -> DynamicVoter:
    text = text.strip()
    at = text.find("@")
    if at < 0:
        raise FormatterError("No @ found in dynamic voter string.", ILLEGAL_ARGUMENT)
    if at == 0:
        raise FormatterError("Invalid @ at beginning of dynamic voter string.", ILLEGAL_ARGUMENT)
    try:
        node_id = int(text[:at])
    except ValueError:
        raise FormatterError("Failed to parse node id in dynamic voter string.", ILLEGAL_ARGUMENT) from None
    if node_id < 0:
        raise FormatterError(f"Invalid negative node id {node_id} in dynamic voter string.", ILLEGAL_ARGUMENT)
    rest = text[at + 1:]
    if not rest:
        raise FormatterError("No hostname found after node id.", ILLEGAL_ARGUMENT)
    if rest.startswith("["):
        end = rest.find("]")
        if end < 0:
            raise FormatterError("Hostname began with left bracket, but no right bracket was found.",
                                 ILLEGAL_ARGUMENT)
        host, rest = rest[1:end], rest[end + 1:]
    else:
        colon = rest.find(":")
        if colon < 0:
            raise FormatterError("No colon following hostname could be found.", ILLEGAL_ARGUMENT)
        host, rest = rest[:colon], rest[colon:]
    if not rest.startswith(":"):
        raise FormatterError("Port section must start with a colon.", ILLEGAL_ARGUMENT)
    rest = rest[1:]
    colon = rest.find(":")
    if colon < 0:
        raise FormatterError("No colon following port could be found.", ILLEGAL_ARGUMENT)
    try:
        port = int(rest[:colon])
    except ValueError:
        raise FormatterError("Failed to parse port in dynamic voter string.", ILLEGAL_ARGUMENT) from None
    if not 0 <= port <= 65535:
        raise FormatterError(f"Invalid port {port} in dynamic voter string.", ILLEGAL_ARGUMENT)
    directory_id = rest[colon + 1:]
    try:
        uuid_from_string(directory_id)
    except ValueError:
        raise FormatterError("Failed to parse directory ID in dynamic voter string.", ILLEGAL_ARGUMENT) from None
    return DynamicVoter(node_id, host, port, directory_id)


def parse_dynamic_voters(text: str) -> dict[int, DynamicVoter]:
    """``DynamicVoters.parse``: comma-separated voters, by node id."""
    voters: dict[int, DynamicVoter] = {}
    for part in text.strip().split(","):
        if not part:
            continue
        voter = _parse_voter(part)
        if voter.node_id in voters:
            raise FormatterError(f"Node id {voter.node_id} was specified more than once.", ILLEGAL_ARGUMENT)
        voters[voter.node_id] = voter
    if not voters:
        raise FormatterError("No voters given.", ILLEGAL_ARGUMENT)
    return dict(sorted(voters.items()))


def voters_record(voters: dict[int, DynamicVoter], listener_name: str) -> VotersRecord:
    """``DynamicVoters.toVoterSet(listener).toVotersRecord(0)``: each voter on the controller
    listener, supporting kraft.version 0 to 1."""
    return VotersRecord(version=0, voters=[
        VotersRecord.Voter(
            voter_id=v.node_id,
            voter_directory_id=uuid_from_string(v.directory_id),
            endpoints=[VotersRecord.Endpoint(name=listener_name, host=v.host, port=v.port)],
            k_raft_version_feature=VotersRecord.KRaftVersionFeature(min_supported_version=0,
                                                                    max_supported_version=1),
        ) for v in voters.values()
    ])


# ------------------------------------------------------------------------------ formatter

_DESCRIPTIONS = {
    "LOG": "data directory",
    "STATIC_METADATA": "metadata directory",
    "DYNAMIC_METADATA_NON_VOTER": "dynamic metadata directory",
    "DYNAMIC_METADATA_VOTER": "dynamic metadata voter directory",
}


@dataclass
class Formatter:
    """The settings of one ``format`` run; ``run`` does it, printing through ``out``."""

    node_id: int
    cluster_id: str
    directories: Sequence[str]
    metadata_log_directory: str
    controller_listener_name: str | None
    release_version: MetadataVersion | None = None
    feature_levels: dict[str, int] = field(default_factory=dict)
    ignore_formatted: bool = False
    unstable_feature_versions_enabled: bool = False
    initial_controllers: dict[int, DynamicVoter] | None = None
    has_dynamic_quorum: bool = False
    write_bootstrap_snapshot: bool = True
    # the records --add-scram adds, made once the metadata.version is known (None: no SCRAM)
    scram_records: Callable[[], list[ApiMessageAndVersion]] | None = None
    out: Callable[[str], None] = print
    now_ms: Callable[[], int] = lambda: int(time.time() * 1000)

    def effective_release_version(self) -> MetadataVersion:
        if METADATA_VERSION_FEATURE in self.feature_levels:
            if self.release_version is not None:
                raise FormatterError("Use --release-version instead of --feature metadata.version=X to avoid "
                                     "ambiguity.")
            level = self.feature_levels[METADATA_VERSION_FEATURE]
            try:
                return self._verify(from_feature_level(level))
            except ValueError as exc:
                raise FormatterError(str(exc), ILLEGAL_ARGUMENT) from None
        if self.release_version is not None:
            return self._verify(self.release_version)
        return LATEST_PRODUCTION

    def _verify(self, mv: MetadataVersion) -> MetadataVersion:
        if not mv.production and not self.unstable_feature_versions_enabled:
            raise FormatterError(f"{METADATA_VERSION_FEATURE} {mv} is not yet stable.")
        return mv

    def effective_feature_levels(self, mv: MetadataVersion) -> dict[str, int]:
        names = sorted(f.name for f in PRODUCTION_FEATURES)
        levels: dict[str, int] = {}
        for name, level in self.feature_levels.items():
            if name != METADATA_VERSION_FEATURE and feature_named(name) is None:
                raise FormatterError(f"Unsupported feature: {name}. Supported features are: {', '.join(names)}")
            levels[name] = level
        levels[METADATA_VERSION_FEATURE] = mv.level
        for feature in PRODUCTION_FEATURES:
            if feature.name == KRAFT_VERSION_FEATURE:
                levels[feature.name] = self._kraft_version(self.feature_levels.get(KRAFT_VERSION_FEATURE))
            elif feature.name not in levels:
                levels[feature.name] = feature.default_level(mv)
        for name in sorted(levels):
            known = feature_named(name)
            if known is None:
                continue
            level = levels[name]
            if not 0 <= level <= known.latest_production:
                raise FormatterError(f"No feature:{name} with feature level {level}", ILLEGAL_ARGUMENT)
            for dep, needed in known.requires.get(level, {}).items():
                if levels.get(dep, 0) < needed:
                    raise FormatterError(f"{name} could not be set to {level} because it depends on {dep} level "
                                         f"{needed}", ILLEGAL_ARGUMENT)
        return levels

    def _kraft_version(self, configured: int | None) -> int:
        if configured is None:
            return 1 if self.has_dynamic_quorum else 0
        if configured == 0 and self.has_dynamic_quorum:
            raise FormatterError(
                "Cannot set kraft.version to 0 if controller.quorum.voters is empty and one of the flags "
                "--standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic "
                "controllers support, try removing the --feature flag for kraft.version.")
        if configured != 0 and not self.has_dynamic_quorum:
            raise FormatterError(
                f"Cannot set kraft.version to {configured} unless controller.quorum.voters is empty and one of "
                "the flags --standalone, --initial-controllers, or --no-initial-controllers is used. For "
                "dynamic controllers support, try using one of --standalone, --initial-controllers, or "
                "--no-initial-controllers and removing controller.quorum.voters.")
        return configured

    def _directory_type(self, log_dir: str) -> str:
        if log_dir != self.metadata_log_directory:
            return "LOG"
        if self.initial_controllers is None:
            return "STATIC_METADATA"
        if self.node_id in self.initial_controllers:
            return "DYNAMIC_METADATA_VOTER"
        return "DYNAMIC_METADATA_NON_VOTER"

    def run(self) -> None:
        if self.node_id < 0:
            raise FormatterError("You must specify a valid non-negative node ID.", RUNTIME)
        if not self.directories:
            raise FormatterError("You must specify at least one directory to format")
        if self.controller_listener_name is None:
            raise FormatterError("You must specify the name of the initial controller listener.")
        mv = self.effective_release_version()
        levels = self.effective_feature_levels(mv)
        bootstrap = BootstrapMetadata.from_versions(mv.level, levels, "format command")
        if self.scram_records is not None:
            if mv.level < _SCRAM_MINIMUM_LEVEL:
                raise FormatterError(f"SCRAM is only supported in {METADATA_VERSION_FEATURE} 3.5-IV2 or later.")
            records = [*bootstrap.records, *self.scram_records()]
            bootstrap = BootstrapMetadata.from_records(records, "format command")
        self._format(bootstrap, mv, levels)

    def _format(self, bootstrap: BootstrapMetadata, mv: MetadataVersion, levels: dict[str, int]) -> None:
        ensemble = load_ensemble(sorted(set(self.directories)))
        try:
            ensemble.verify(self.cluster_id, self.node_id)
        except MetaPropertiesError as exc:
            raise FormatterError(str(exc), RUNTIME) from None
        if not self.ignore_formatted and ensemble.log_dir_props:
            first = hash_map_order(sorted(ensemble.log_dir_props), copied=True)[0]
            raise FormatterError(f"Log directory {first} is already formatted. Use --ignore-formatted to ignore "
                                 "this directory and format the others.")
        if ensemble.error_log_dirs:
            for error_dir in hash_map_order(sorted(ensemble.error_log_dirs)):
                self.out(f"I/O error trying to read log directory {error_dir}. Ignoring...")
            if not ensemble.empty_log_dirs and not ensemble.log_dir_props:
                raise FormatterError("No available log directories to format.")
        if not ensemble.empty_log_dirs:
            self.out("All of the log directories are already formatted.")
            return
        self.out(f"Bootstrap metadata: {bootstrap_metadata_repr(bootstrap)}")
        taken = [m.directory_id for m in ensemble.log_dir_props.values() if m.directory_id]
        new_props: dict[str, MetaProperties] = {}
        for log_dir in sorted(ensemble.empty_log_dirs):
            kind = self._directory_type(log_dir)
            if kind == "DYNAMIC_METADATA_VOTER":
                assert self.initial_controllers is not None  # the type says this node is among them
                directory_id = self.initial_controllers[self.node_id].directory_id
            else:
                directory_id = random_directory_id(taken)
            taken.append(directory_id)
            new_props[log_dir] = MetaProperties(1, self.cluster_id, self.node_id, directory_id)
        for log_dir in hash_map_order([*sorted(ensemble.log_dir_props), *new_props]):
            if log_dir not in new_props:
                continue
            kind = self._directory_type(log_dir)
            self.out(f"Formatting {_DESCRIPTIONS[kind]} {log_dir} with {METADATA_VERSION_FEATURE} {mv}.")
            try:
                Path(log_dir).mkdir(parents=True, exist_ok=True)
                if self.write_bootstrap_snapshot and kind != "LOG":
                    voters = None
                    if self.initial_controllers is not None:
                        voters = voters_record(self.initial_controllers, self.controller_listener_name or "")
                    write_bootstrap_snapshot(log_dir, bootstrap, kraft_version=levels[KRAFT_VERSION_FEATURE],
                                             voters=voters, now_ms=self.now_ms)
                write_meta_properties(log_dir, new_props[log_dir])
            except OSError as exc:
                raise FormatterError(f"Error while writing meta.properties file {log_dir}: {exc}") from exc
