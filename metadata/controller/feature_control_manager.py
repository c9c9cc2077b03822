"""Finalized features and UpdateFeatures, as Kafka's ``FeatureControlManager``.

Who calls it: the quorum controller for UpdateFeatures, and ``ClusterControlManager`` (a
broker may register only if it supports every finalized level). The finalized levels live in
the replayed image; this manager only checks and proposes ``FeatureLevelRecord``s. The ranges
a node supports are Kafka's ``QuorumFeatures``: this controller's own, every registered
broker's and every registered controller's (a feature a node does not list is 0-0 for it)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from kafpy.metadata import metadata_version as mv
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import API_ERROR_NONE, ApiError, ControllerResult
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FeatureLevelRecord, Message, NoOpRecord, UpdateFeaturesRequest

log = logging.getLogger(__name__)

DISABLED = VersionRange(0, 0)
# (feature, level) -> the levels of other features it needs (Kafka 4.4's feature versions'
# dependencies: only eligible leader replicas have one among the production features)
FEATURE_DEPENDENCIES: dict[tuple[str, int], dict[str, int]] = {
    ("eligible.leader.replicas.version", 1): {mv.METADATA_VERSION_FEATURE: 23},
}


class UpgradeType(IntEnum):
    """Kafka's ``FeatureUpdate.UpgradeType`` (the request's ``upgrade_type``)."""

    UNKNOWN = 0
    UPGRADE = 1
    SAFE_DOWNGRADE = 2
    UNSAFE_DOWNGRADE = 3

    @staticmethod
    def of(value: int) -> UpgradeType:
        try:
            return UpgradeType(value)
        except ValueError:
            return UpgradeType.UNKNOWN


def range_str(r: VersionRange) -> str:
    """Kafka's ``VersionRange.toString``."""
    if r.min_supported == r.max_supported:
        return str(r.min_supported)
    return f"{r.min_supported}-{r.max_supported}"


def reason_not_supported(level: int, what: str, r: VersionRange) -> str | None:
    """Kafka's ``QuorumFeatures.reasonNotSupported``."""
    if r.min_supported <= level <= r.max_supported:
        return None
    if r.max_supported == 0:
        return f"{what} does not support this feature."
    return f"{what} only supports versions {range_str(r)}"


@dataclass(frozen=True)
class QuorumFeatures:
    """This controller's id, the feature ranges it supports, and the controller quorum's ids
    (each must have registered before a feature is changed)."""

    node_id: int
    local_supported: Mapping[str, VersionRange]
    quorum_node_ids: tuple[int, ...] = field(default=())

    def reason_not_locally_supported(self, feature: str, level: int) -> str | None:
        return reason_not_supported(level, f"Local controller {self.node_id}",
                                    self.local_supported.get(feature, DISABLED))


class FeatureControlManager:
    """Reads the finalized features from the shared ``ControllerMetadata``; kraft.version is
    the raft layer's (``kraft_version``, Kafka's ``KRaftVersionAccessor``: the version of the
    quorum's log), never a FeatureLevelRecord."""

    def __init__(self, metadata: ControllerMetadata, quorum_features: QuorumFeatures,
                 kraft_version: Callable[[], int] | None = None) -> None:
        self.metadata = metadata
        self.quorum_features = quorum_features
        self.kraft_version: Callable[[], int] = kraft_version or (lambda: 0)

    def metadata_version(self) -> int:
        """The finalized metadata.version level (the minimum before one is written)."""
        level = self.metadata.image.features.metadata_version
        return mv.MINIMUM_VERSION.level if level is None else level

    def finalized_features(self) -> dict[str, int]:
        levels = dict(self.metadata.image.features.finalized_versions)
        levels[mv.METADATA_VERSION_FEATURE] = self.metadata_version()
        return levels

    def update_features(self, request: UpdateFeaturesRequest,
                        version: int = 2) -> ControllerResult[ApiError]:
        """The first error (Kafka answers it for the whole request and changes nothing), or
        success with the records of every update, atomically, unless validate-only."""
        records: list[Message] = []
        proposed = self.finalized_features()
        proposed.update({u.feature: u.max_version_level for u in request.feature_updates})
        for update in request.feature_updates:
            if version == 0:
                upgrade = UpgradeType.SAFE_DOWNGRADE if update.allow_downgrade else UpgradeType.UPGRADE
            else:
                upgrade = UpgradeType.of(update.upgrade_type)
            error = self._update_feature(update.feature, update.max_version_level, upgrade,
                                         records, proposed)
            if not error.is_success():
                return ControllerResult.of([], error)
        if request.validate_only:
            return ControllerResult.of([], API_ERROR_NONE)
        return ControllerResult.atomic_of(records, API_ERROR_NONE)

    def _update_feature(self, name: str, level: int, upgrade: UpgradeType,
                        records: list[Message], proposed: Mapping[str, int]) -> ApiError:
        if upgrade == UpgradeType.UNKNOWN:
            return _invalid_update(name, level, "The controller does not support the given upgrade type.")
        if name == mv.METADATA_VERSION_FEATURE:
            current = self.metadata_version()
        elif name == mv.KRAFT_VERSION_FEATURE:
            current = self.kraft_version()
        else:
            current = self.metadata.image.features.finalized_versions.get(name, 0)
        if level < 0:
            return _invalid_update(name, level, "A feature version cannot be less than 0.")
        reason = self._reason_not_supported(name, level)
        if reason is not None:
            return _invalid_update(name, level, reason)
        if level < current and upgrade == UpgradeType.UPGRADE:
            return _invalid_update(name, level, "Can't downgrade the version of this feature "
                                   "without setting the upgrade type to either safe or unsafe downgrade.")
        if level > current and upgrade != UpgradeType.UPGRADE:
            return _invalid_update(name, level, "Can't downgrade to a newer version.")
        if name == mv.METADATA_VERSION_FEATURE:
            return self._update_metadata_version(current, level,
                                                 upgrade == UpgradeType.UNSAFE_DOWNGRADE, records)
        if name == mv.KRAFT_VERSION_FEATURE:
            return self._update_kraft_version(current, level, upgrade, records)
        for dependency, needed in FEATURE_DEPENDENCIES.get((name, level), {}).items():
            if proposed.get(dependency, 0) < needed:
                return _invalid_update(name, level, f"{name} could not be set to {level} because "
                                       f"it depends on {dependency} level {needed}")
        records.append(FeatureLevelRecord(name=name, feature_level=level))
        return API_ERROR_NONE

    @staticmethod
    def _update_kraft_version(current: int, level: int, upgrade: UpgradeType,
                              records: list[Message]) -> ApiError:
        """As Kafka 4.4: the level the quorum's log already has is a NoOpRecord, a downgrade
        is refused. Kafka upgrades a static quorum's log to kraft.version 1 through the raft
        layer (KRaftVersion and Voters control records); kafpy's raft does not yet, so that
        is refused too, rather than finalized in a record the log's version would belie."""
        name = mv.KRAFT_VERSION_FEATURE
        if upgrade != UpgradeType.UPGRADE:
            return API_ERROR_NONE if level == current else _invalid_update(
                name, level, "Can't downgrade the version of this feature.")
        if level != current:
            return _invalid_update(name, level, "kafpy's controller cannot upgrade the kraft.version of a "
                                   "quorum's log yet: format the controllers with --standalone or "
                                   "--initial-controllers for kraft.version 1.")
        records.append(NoOpRecord())
        return API_ERROR_NONE

    def _reason_not_supported(self, name: str, level: int) -> str | None:
        reason = self.quorum_features.reason_not_locally_supported(name, level)
        if reason is not None:
            return reason
        cluster = self.metadata.image.cluster
        for broker_id, broker in sorted(cluster.brokers.items()):
            reason = reason_not_supported(level, f"Broker {broker_id}",
                                          broker.supported_features.get(name, DISABLED))
            if reason is not None:
                return reason
        found = {self.quorum_features.node_id}
        for controller_id, controller in sorted(cluster.controllers.items()):
            if controller_id == self.quorum_features.node_id:
                continue
            reason = reason_not_supported(level, f"Controller {controller_id}",
                                          controller.supported_features.get(name, DISABLED))
            if reason is not None:
                return reason
            found.add(controller_id)
        for node_id in self.quorum_features.quorum_node_ids:
            if node_id not in found:
                return f"controller {node_id} has not registered, and may not support this feature"
        return None

    def _update_metadata_version(self, current: int, level: int, unsafe: bool,
                                 records: list[Message]) -> ApiError:
        target = mv.known_feature_level(level)
        if target is None:
            return _invalid_metadata_version(
                level, f"Valid versions are from {mv.MINIMUM_VERSION.level} to "
                f"{mv.LATEST.level}.")
        if level < current:
            if not mv.check_if_metadata_changed(current, level):
                log.warning("Downgrading metadata.version from %s to %s.",
                            mv.known_feature_level(current) or current, target)
            elif unsafe:
                return _unsupported_downgrade(
                    current, level, "Unsafe metadata downgrade is not supported in this version.")
            else:
                return _unsupported_downgrade(
                    current, level, "Refusing to perform the requested downgrade because it "
                    "might delete metadata information.")
        else:
            log.warning("Upgrading metadata.version from %s to %s.",
                        mv.known_feature_level(current) or current, target)
        records.append(FeatureLevelRecord(name=mv.METADATA_VERSION_FEATURE, feature_level=level))
        return API_ERROR_NONE


def _invalid_update(feature: str, level: int, message: str) -> ApiError:
    text = f"Invalid update version {level} for feature {feature}. {message}"
    log.warning(text)
    return ApiError(ErrorCode.INVALID_UPDATE_VERSION, text)


def _unsupported_downgrade(current: int, level: int, message: str) -> ApiError:
    text = f"Unsupported metadata.version downgrade from {current} to {level}. {message}"
    log.warning(text)
    return ApiError(ErrorCode.INVALID_UPDATE_VERSION, text)


def _invalid_metadata_version(level: int, message: str) -> ApiError:
    text = f"Invalid metadata.version {level}. {message}"
    log.warning(text)
    return ApiError(ErrorCode.INVALID_UPDATE_VERSION, text)
