"""The metadata.version levels Kafka 4.4 knows, as its ``MetadataVersion`` enum.

Who calls it: ``FeatureControlManager`` (which levels exist, the lowest one a cluster may run,
and whether a downgrade would lose metadata). ``did_metadata_change`` is Kafka's flag saying a
level changed the metadata records, so a downgrade across it is unsafe."""

from __future__ import annotations

from typing import NamedTuple

FEATURE_NAME = "metadata.version"


class MetadataVersion(NamedTuple):
    """One level: its feature level, Kafka's name (``release-IVn``) and whether it changed
    the metadata."""

    feature_level: int
    release: str
    did_metadata_change: bool

    def __str__(self) -> str:
        return self.release


_LEVELS = [
    (7, "3.3-IV3", True), (8, "3.4-IV0", True), (9, "3.5-IV0", False), (10, "3.5-IV1", False),
    (11, "3.5-IV2", True), (12, "3.6-IV0", False), (13, "3.6-IV1", True), (14, "3.6-IV2", True),
    (15, "3.7-IV0", True), (16, "3.7-IV1", False), (17, "3.7-IV2", True), (18, "3.7-IV3", False),
    (19, "3.7-IV4", False), (20, "3.8-IV0", False), (21, "3.9-IV0", False),
    (22, "4.0-IV0", False), (23, "4.0-IV1", True), (24, "4.0-IV2", False),
    (25, "4.0-IV3", False), (26, "4.1-IV0", False), (27, "4.1-IV1", False),
    (28, "4.2-IV0", False), (29, "4.2-IV1", False), (30, "4.3-IV0", True),
    (31, "4.4-IV0", False), (32, "4.4-IV1", True), (33, "4.4-IV2", True), (34, "4.5-IV0", False),
]
VERSIONS: dict[int, MetadataVersion] = {
    level: MetadataVersion(level, name, changed) for level, name, changed in _LEVELS}
MINIMUM_VERSION = VERSIONS[7]
LATEST_PRODUCTION = VERSIONS[33]
LATEST = VERSIONS[34]


def from_feature_level(level: int) -> MetadataVersion | None:
    return VERSIONS.get(level)


def check_if_metadata_changed(source: int, target: int) -> bool:
    """True when some level in (lower, higher] of the two changed the metadata (Kafka's
    ``MetadataVersion.checkIfMetadataChanged``)."""
    low, high = sorted((source, target))
    return any(VERSIONS[level].did_metadata_change
               for level in range(low + 1, high + 1) if level in VERSIONS)
