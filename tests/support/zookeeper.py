"""A throwaway standalone ZooKeeper for tests: kafpy's own (kafpy._zookeeper, which
kafpy.embedded's clusters use too), logging through the tests' log4j.properties."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kafpy._zookeeper import ZOOKEEPER_JAR, ZooKeeperMissing, four_letter_word
from kafpy._zookeeper import ZooKeeperServer as _ZooKeeperServer

from .kafka_dist import LOG4J_CONFIG

__all__ = ["ZOOKEEPER_JAR", "ZooKeeperMissing", "ZooKeeperServer", "four_letter_word"]


class ZooKeeperServer(_ZooKeeperServer):
    """kafpy's ZooKeeperServer with the tests' log4j.properties (level set by kafpy.log.level)."""

    def __init__(self, data_dir: str | Path | None = None, port: int | None = None,
                 **kwargs: Any):
        kwargs.setdefault("log4j_config", LOG4J_CONFIG)
        super().__init__(data_dir, port, **kwargs)
