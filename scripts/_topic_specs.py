"""What the kafka-topics tool and its ZooKeeper path (scripts/_zk_topics.py) share: the
shapes of a create or alter request and the ZooKeeper connection error. Kept apart so that the
tool imports the ZooKeeper path (kazoo, the topic configs' schema: most of its start-up) only
when ``--zookeeper`` is given."""
from __future__ import annotations

from typing import TypedDict

__all__ = ["NewPartitionsSpec", "NewTopicSpec", "ZooKeeperConnectError"]


class NewTopicSpec(TypedDict, total=False):
    """What TopicService asks `create_topics` for one topic (-1: the broker's default)."""
    configs: dict[str, str]
    assignments: dict[int, list[int]]
    num_partitions: int
    replication_factor: int


class NewPartitionsSpec(TypedDict):
    """`create_partitions` of one topic with the added partitions' replicas given."""
    count: int
    assignments: list[list[int]]


class ZooKeeperConnectError(RuntimeError):
    """ZooKeeper did not answer within the connection timeout."""
