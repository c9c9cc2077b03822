"""The rule Kafka's ConfigAdminManager applies to AlterConfigs and IncrementalAlterConfigs
before anything else: a resource (its type and name) that a request names more than once is
refused every time it appears, INVALID_REQUEST "Each resource must appear at most once.", and
the request's other resources are altered as if it were not there.

Who calls it: ``handlers/configs.py`` (a standalone or ZooKeeper-mode broker) and
``kraft_forwarding.py`` (a KRaft broker answers the duplicates itself and forwards the rest
to the controller, as Kafka's broker does). Pure functions.
"""
from __future__ import annotations

from collections import Counter
from typing import Protocol, Sequence

DUPLICATE_RESOURCE_MESSAGE = "Each resource must appear at most once."


class ConfigResourceRef(Protocol):
    resource_type: int
    resource_name: str


def duplicated(resources: Sequence[ConfigResourceRef]) -> set[int]:
    """The positions in ``resources`` of every resource named more than once."""
    counts = Counter((r.resource_type, r.resource_name) for r in resources)
    return {i for i, r in enumerate(resources) if counts[(r.resource_type, r.resource_name)] > 1}
