"""Finalized feature levels, as Kafka's ``FeaturesImage`` / ``FeaturesDelta``.

Replayed from ``FeatureLevelRecord``: ``metadata.version`` is kept apart (every node needs it
to read the rest), any other feature at level 0 is removed. Kafka 4 keeps no ZooKeeper
migration state, so ``ZkMigrationStateRecord`` leaves the image as it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import FeatureLevelRecord

METADATA_VERSION = "metadata.version"


@dataclass(frozen=True)
class FeaturesImage:
    """``finalized_versions``: feature name -> level (without metadata.version);
    ``metadata_version``: the metadata.version feature level, None before one is written."""

    finalized_versions: Mapping[str, int]
    metadata_version: int | None

    def is_empty(self) -> bool:
        return not self.finalized_versions and self.metadata_version is None

    def all_levels(self) -> dict[str, int]:
        """Every finalized feature, metadata.version included (what ApiVersions lists)."""
        levels = dict(self.finalized_versions)
        if self.metadata_version is not None:
            levels[METADATA_VERSION] = self.metadata_version
        return levels

    def records(self) -> list[ApiMessageAndVersion]:
        """metadata.version first (a reader needs it before the rest), then the others."""
        out: list[ApiMessageAndVersion] = []
        if self.metadata_version is not None:
            out.append(with_version(FeatureLevelRecord(name=METADATA_VERSION,
                                                       feature_level=self.metadata_version)))
        for name in sorted(self.finalized_versions):
            out.append(with_version(FeatureLevelRecord(name=name,
                                                       feature_level=self.finalized_versions[name])))
        return out


EMPTY_FEATURES = FeaturesImage(MappingProxyType({}), None)


class FeaturesDelta:
    """Feature changes on top of ``image``: name -> new level, None for removed."""

    def __init__(self, image: FeaturesImage) -> None:
        self.image = image
        self.changes: dict[str, int | None] = {}
        self.metadata_version_change: int | None = None

    def replay(self, record: FeatureLevelRecord) -> None:
        if record.name == METADATA_VERSION:
            if record.feature_level <= 0:
                raise MetadataReplayError(
                    f"metadata.version cannot be set to level {record.feature_level}")
            self.metadata_version_change = record.feature_level
        elif record.feature_level == 0:
            self.changes[record.name] = None
        else:
            self.changes[record.name] = record.feature_level

    def apply(self) -> FeaturesImage:
        if not self.changes and self.metadata_version_change is None:
            return self.image
        levels = dict(self.image.finalized_versions)
        for name, level in self.changes.items():
            if level is None:
                levels.pop(name, None)
            else:
                levels[name] = level
        mv = self.metadata_version_change
        return FeaturesImage(MappingProxyType(levels),
                             self.image.metadata_version if mv is None else mv)
