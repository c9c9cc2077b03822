"""A broker without sockets for handler unit tests: real config, standalone metadata, log
manager and replica manager over a temporary directory, and a way to call a handler with a
decoded request at a given version."""
from __future__ import annotations

import asyncio
from typing import Any

from protocol.messages import RequestHeader
from protocol.records import build_batch

from broker.config import KafkaConfig
from broker.handler import RequestContext
from broker.metadata import BrokerInfo, StandaloneMetadata
from broker.replica_manager import ReplicaManager
from storage import LogConfig, LogManager
from broker.topic_config import effective_topic_config


class LocalBroker:
    """What handlers see as ``ctx.broker``, minus the socket server and coordinator."""

    def __init__(self, log_dir: str, loop: asyncio.AbstractEventLoop, **overrides: str) -> None:
        props = {"log.dirs": log_dir, "broker.id": "0", "num.partitions": "1",
                 "listeners": "PLAINTEXT://127.0.0.1:9092", **overrides}
        self.config = KafkaConfig(props)
        self.loop = loop
        self.metadata = StandaloneMetadata(log_dir, BrokerInfo(0, "127.0.0.1", 9092, None))
        self.log_manager = LogManager([log_dir], LogConfig.from_properties(effective_topic_config(self.config, {})),
                                      start_cleaner=False)
        self.log_manager.startup(cluster_id=self.metadata.cluster_id, broker_id=0)
        self.replica_manager = ReplicaManager(self)
        self.group_coordinator = None

    def create_topic(self, name: str, partitions: int = 1, configs: dict[str, str] | None = None):
        info = self.metadata.create_topic(name, partitions, 1, configs or {})
        self.replica_manager.host_topic(info)
        return info

    def append(self, topic: str, partition: int, values: list[bytes]) -> int:
        part = self.replica_manager.get(topic, partition)
        return self.replica_manager.append(part, build_batch([(None, v) for v in values])).first_offset

    def close(self) -> None:
        self.log_manager.shutdown()


def call(broker: LocalBroker, func: Any, api_key: int, version: int, request: Any) -> Any:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=1,
                           client_id="unit")
    ctx = RequestContext(broker, header, "127.0.0.1", 1, "conn-test", "PLAINTEXT")
    return broker.loop.run_until_complete(func(ctx, request))
