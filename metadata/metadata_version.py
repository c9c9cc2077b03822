"""Kafka 4.4's ``MetadataVersion`` table and its production features (``Feature``): the
levels ``kafka-storage format`` bootstraps a cluster with and ``version-mapping`` prints.

Who calls it: ``kafka-storage`` (format, version-mapping, feature-dependencies), the quorum
controller (what metadata.version a record needs), tests.

Data, not logic: the release versions from 3.3-IV3 (level 7, the first KRaft one) to 4.5-IV0
(34, not yet production), and for each production feature the metadata.version from which
each of its levels is the default (``Feature.defaultValue``) and what each level requires
(``FeatureVersion.dependencies``), as Apache Kafka 4.4's ``kafka-storage version-mapping``
and ``feature-dependencies`` print them. A short release name ("4.0") stands for that
release's last version (4.0-IV3), as ``MetadataVersion.fromVersionString`` reads it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "METADATA_VERSION_FEATURE",
    "KRAFT_VERSION_FEATURE",
    "MetadataVersion",
    "METADATA_VERSIONS",
    "MINIMUM_VERSION",
    "LATEST_PRODUCTION",
    "LATEST",
    "check_if_metadata_changed",
    "known_feature_level",
    "from_version_string",
    "from_feature_level",
    "ProductionFeature",
    "PRODUCTION_FEATURES",
    "feature_named",
    "UnknownMetadataVersion",
]

METADATA_VERSION_FEATURE = "metadata.version"
KRAFT_VERSION_FEATURE = "kraft.version"


class MetadataVersion(NamedTuple):
    """One metadata.version: its feature level, its name ("4.4-IV2"), whether it is production,
    and whether it changed the metadata records (Kafka's ``didMetadataChange``: a downgrade
    across such a level could lose metadata, so only an unsafe one may cross it)."""

    level: int
    name: str
    production: bool
    did_metadata_change: bool

    @property
    def release(self) -> str:
        return self.name.split("-")[0]

    def __str__(self) -> str:
        return self.name


_NAMES = ("3.3-IV3 3.4-IV0 3.5-IV0 3.5-IV1 3.5-IV2 3.6-IV0 3.6-IV1 3.6-IV2 3.7-IV0 3.7-IV1 3.7-IV2 "
          "3.7-IV3 3.7-IV4 3.8-IV0 3.9-IV0 4.0-IV0 4.0-IV1 4.0-IV2 4.0-IV3 4.1-IV0 4.1-IV1 4.2-IV0 "
          "4.2-IV1 4.3-IV0 4.4-IV0 4.4-IV1 4.4-IV2 4.5-IV0").split()
_FIRST_LEVEL = 7
_LAST_PRODUCTION = "4.4-IV2"
# the levels whose MetadataVersion says didMetadataChange, read from Kafka 4.4's enum
_CHANGED_METADATA = frozenset({7, 8, 11, 13, 14, 15, 17, 23, 30, 32, 33})
METADATA_VERSIONS: tuple[MetadataVersion, ...] = tuple(
    MetadataVersion(_FIRST_LEVEL + i, name, i <= _NAMES.index(_LAST_PRODUCTION),
                    _FIRST_LEVEL + i in _CHANGED_METADATA) for i, name in enumerate(_NAMES)
)
_BY_LEVEL = {mv.level: mv for mv in METADATA_VERSIONS}
MINIMUM_VERSION = METADATA_VERSIONS[0]
LATEST_PRODUCTION = _BY_LEVEL[_FIRST_LEVEL + _NAMES.index(_LAST_PRODUCTION)]
LATEST = METADATA_VERSIONS[-1]


def check_if_metadata_changed(source: int, target: int) -> bool:
    """True when some level in (lower, higher] of the two changed the metadata (Kafka's
    ``MetadataVersion.checkIfMetadataChanged``)."""
    low, high = sorted((source, target))
    return any(_BY_LEVEL[level].did_metadata_change for level in range(low + 1, high + 1) if level in _BY_LEVEL)


def known_feature_level(level: int) -> MetadataVersion | None:
    """The metadata.version of a feature level, None when Kafka 4.4 knows no such level."""
    return _BY_LEVEL.get(level)


class UnknownMetadataVersion(ValueError):
    """A release version string no metadata.version matches (Kafka's IllegalArgumentException)."""


def from_version_string(text: str) -> MetadataVersion:
    """``4.4-IV2`` exactly, or ``4.4`` for the last version of that release."""
    for mv in reversed(METADATA_VERSIONS):
        if mv.name == text or mv.release == text:
            return mv
    raise UnknownMetadataVersion(
        f"Unknown metadata.version '{text}'. Supported metadata.version are: "
        + ", ".join(mv.name for mv in METADATA_VERSIONS))


def from_feature_level(level: int) -> MetadataVersion:
    try:
        return _BY_LEVEL[level]
    except KeyError:
        raise UnknownMetadataVersion(f"No MetadataVersion with feature level {level}") from None


class ProductionFeature(NamedTuple):
    """A feature other than metadata.version: its name, the metadata.version level from which
    each of its levels is the default (index = level, entry 0 unused), and what each level
    requires (feature name -> level)."""

    name: str
    default_from: tuple[int, ...]
    requires: dict[int, dict[str, int]]

    @property
    def latest_production(self) -> int:
        return len(self.default_from) - 1

    def default_level(self, mv: MetadataVersion) -> int:
        """Kafka's ``defaultValue(metadataVersion)``: the highest level whose bootstrap
        metadata.version is at or below ``mv``."""
        level = 0
        for lvl in range(1, len(self.default_from)):
            if self.default_from[lvl] and mv.level >= self.default_from[lvl]:
                level = lvl
        return level


# Feature.PRODUCTION_FEATURES, in Kafka's order (version-mapping prints them so)
PRODUCTION_FEATURES: tuple[ProductionFeature, ...] = (
    ProductionFeature(KRAFT_VERSION_FEATURE, (0, 21), {}),
    ProductionFeature("transaction.version", (0, 0, 24), {}),
    ProductionFeature("group.version", (0, 22), {}),
    ProductionFeature("eligible.leader.replicas.version", (0, 26), {1: {METADATA_VERSION_FEATURE: 23}}),
    ProductionFeature("share.version", (0, 28, 31), {}),
    ProductionFeature("streams.version", (0, 29), {}),
)


def feature_named(name: str) -> ProductionFeature | None:
    for feature in PRODUCTION_FEATURES:
        if feature.name == name:
            return feature
    return None
