"""Read-only maps the images share between versions.

An image holds its maps as ``MappingProxyType`` views nobody else writes to, so a new image
can share every unchanged value (a ``TopicImage``, a ``BrokerRegistration``) with the image it
came from: applying a delta copies the top-level map once (a shallow copy, the values are not
copied) and replaces only the entries the delta changed. Kafka uses persistent maps for the
same purpose; a shallow dict copy is cheaper in Python up to far more topics than a cluster
holds."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

EMPTY: Mapping[object, object] = MappingProxyType({})


def frozen(items: dict[K, V]) -> Mapping[K, V]:
    """A read-only view of ``items`` (the caller hands the dict over and keeps no reference)."""
    return MappingProxyType(items)


def merged(base: Mapping[K, V], changes: Mapping[K, V | None]) -> Mapping[K, V]:
    """``base`` with ``changes`` applied (None removes); ``base`` itself when unchanged."""
    if not changes:
        return base
    out = dict(base)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return MappingProxyType(out)
