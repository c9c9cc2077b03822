"""Records an image writes out, each with the version to frame it at.

Kafka's images write ``ApiMessageAndVersion``s through an ``ImageWriter``; the version there
comes from the metadata.version. Here the version is the lowest one of the record that holds
every field the record carries (a field left at its default, or a tagged field left unset,
needs no version), so a record that would be the same at an older version is framed at it,
and a record carrying a newer field (directories, ELR) is framed at a version that has it."""

from __future__ import annotations

from kafpy.metadata.record_serde import ApiMessageAndVersion
from kafpy.protocol.messages import Message

__all__ = ["ApiMessageAndVersion", "lowest_version"]


def _is_default(value: object, default: object) -> bool:
    if isinstance(value, list) and default == ():
        return not value
    return value == default


def _newer_fields(cls: type[Message]) -> tuple[tuple[str, object, int], ...]:
    """(name, default, first version) of the fields ``cls`` gained after its lowest version:
    the only ones that can raise the version a record needs."""
    found = _NEWER_FIELDS.get(cls)
    if found is None:
        low = cls.VALID_VERSIONS[0]
        found = _NEWER_FIELDS[cls] = tuple(
            (f.name, f.default, f.versions[0]) for f in cls.FIELDS
            if f.versions is not None and f.versions[0] > low)
    return found


_NEWER_FIELDS: dict[type[Message], tuple[tuple[str, object, int], ...]] = {}


def lowest_version(message: Message) -> int:
    """The lowest valid version of ``message``'s class whose fields hold all it carries."""
    cls = type(message)
    low, high = cls.VALID_VERSIONS
    needed = low
    for name, default, first in _newer_fields(cls):
        if first > needed and not _is_default(getattr(message, name), default):
            needed = first
    return min(needed, high)


def with_version(message: Message) -> ApiMessageAndVersion:
    """``message`` paired with ``lowest_version(message)``."""
    return ApiMessageAndVersion(message, lowest_version(message))
