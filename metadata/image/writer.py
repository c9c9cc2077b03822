"""Records an image writes out, each with the version to frame it at.

Kafka's images write ``ApiMessageAndVersion``s through an ``ImageWriter``; the version there
comes from the metadata.version. Here the version is the lowest one of the record that holds
every field the record carries (a field left at its default, or a tagged field left unset,
needs no version), so a record that would be the same at an older version is framed at it,
and a record carrying a newer field (directories, ELR) is framed at a version that has it."""

from __future__ import annotations

from typing import NamedTuple

from kafpy.protocol.messages import Message


class ApiMessageAndVersion(NamedTuple):
    """A metadata record and the version it is framed at (Kafka's ``ApiMessageAndVersion``)."""

    message: Message
    version: int


def _is_default(value: object, default: object) -> bool:
    if isinstance(value, list) and default == ():
        return not value
    return value == default


def lowest_version(message: Message) -> int:
    """The lowest valid version of ``message``'s class whose fields hold all it carries."""
    low, high = type(message).VALID_VERSIONS
    needed = low
    for field in type(message).FIELDS:
        if field.versions is None or _is_default(getattr(message, field.name), field.default):
            continue
        needed = max(needed, field.versions[0])
    return min(needed, high)


def with_version(message: Message) -> ApiMessageAndVersion:
    """``message`` paired with ``lowest_version(message)``."""
    return ApiMessageAndVersion(message, lowest_version(message))
