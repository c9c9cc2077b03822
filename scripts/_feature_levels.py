"""What kafka-storage and kafka-features both print for ``version-mapping`` and
``feature-dependencies``: the lines, without their newlines. A lookup that fails raises
FeatureLookupError with the message each tool prints as its terse failure."""
from __future__ import annotations

from kafpy.metadata.metadata_version import (
    METADATA_VERSION_FEATURE,
    PRODUCTION_FEATURES,
    UnknownMetadataVersion,
    feature_named,
    from_feature_level,
    from_version_string,
)


class FeatureLookupError(Exception):
    """A release version, feature or level the tools do not know."""


def version_mapping_lines(release_version: str) -> list[str]:
    """metadata.version's level for ``release_version``, then each production feature's
    default level at it."""
    try:
        mv = from_version_string(release_version)
    except UnknownMetadataVersion as exc:
        raise FeatureLookupError(str(exc)) from None
    return ([f"{METADATA_VERSION_FEATURE}={mv.level} ({release_version})"]
            + [f"{f.name}={f.default_level(mv)}" for f in PRODUCTION_FEATURES])


def dependency_lines(name: str, level: int, unsupported: str) -> list[str]:
    """What ``name=level`` requires. ``unsupported`` is the tool's message for a level past
    the feature's latest production one (``{name}`` and ``{level}`` filled in): Apache's
    two tools word it differently."""
    if name == METADATA_VERSION_FEATURE:
        try:
            mv = from_feature_level(level)
        except UnknownMetadataVersion:
            raise FeatureLookupError(f"Unknown metadata.version {level}") from None
        return [f"{name}={level} ({mv}) has no dependencies."]
    feature = feature_named(name)
    if feature is None:
        raise FeatureLookupError(f"Unknown feature: {name}")
    if not 0 <= level <= feature.latest_production:
        raise FeatureLookupError(unsupported.format(name=name, level=level))
    deps = feature.requires.get(level, {})
    if not deps:
        return [f"{name}={level} has no dependencies."]
    lines = [f"{name}={level} requires:"]
    for dep, dep_level in deps.items():
        shown = f" ({from_feature_level(dep_level)})" if dep == METADATA_VERSION_FEATURE else ""
        lines.append(f"    {dep}={dep_level}{shown}")
    return lines
