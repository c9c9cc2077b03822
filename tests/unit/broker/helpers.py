"""A broker without sockets for handler unit tests: real config, metadata cache, standalone
controller, log manager and replica manager over a temporary directory, and a way to call a
handler with a decoded request at a given version."""
from __future__ import annotations

import asyncio
import functools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kafpy.protocol.messages import RequestHeader
from kafpy.protocol.records import build_batch

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.config import KafkaConfig
from kafpy.broker.controller import StandaloneController, load_controller_state
from kafpy.broker.fetch_session import FetchSessionCache
from kafpy.broker.handler import RequestContext
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.replication.replica_manager import ReplicaManager
from kafpy.broker.features import StandaloneFeatures
from kafpy.broker.services import BrokerServices
from kafpy.broker.topic_config import effective_topic_config
from kafpy.replication.purgatory import DelayedOperationPurgatory
from kafpy.storage import LogConfig, LogManager


class _NoListener:
    def on_become_leader(self, partition: Any) -> None:
        pass

    def on_become_follower(self, partition: Any) -> None:
        pass

    def on_topics_deleted(self, topics: list[str]) -> None:
        pass


class LocalBroker:
    """The parts the Broker builds, minus the socket server and the group coordinator;
    ``services`` is what handlers see as ``ctx.services``."""

    def __init__(self, log_dir: str, loop: asyncio.AbstractEventLoop, **overrides: str) -> None:
        props = {"log.dirs": log_dir, "broker.id": "0", "num.partitions": "1",
                 "listeners": "PLAINTEXT://127.0.0.1:9092", **overrides}
        self.config = KafkaConfig(props)
        self.loop = loop
        local = BrokerInfo(0, "127.0.0.1", 9092, None)
        state = load_controller_state(log_dir.split(",")[0])
        self.metadata = MetadataCache(state.cluster_id, local)
        self.log_manager = LogManager(log_dir.split(","), LogConfig.from_properties(effective_topic_config(self.config, {})),
                                      start_cleaner=False)
        self.log_manager.startup(cluster_id=state.cluster_id, broker_id=0)
        self.replica_manager = ReplicaManager(
            self.config, time.time, self.log_manager, self.metadata, DelayedOperationPurgatory("Produce", loop),
            DelayedOperationPurgatory("Fetch", loop), _NoListener(), loop,
            functools.partial(effective_topic_config, self.config))
        self._io = ThreadPoolExecutor(max_workers=1)
        self.controller = StandaloneController(self.config, state, local, self.metadata, self.replica_manager,
                                               self._io, loop)
        self.controller.startup()
        self.services = BrokerServices(
            config=self.config, clock=time.time, apis=ApiRegistry.load(), metadata_cache=self.metadata,
            controller=self.controller, replica_manager=self.replica_manager, log_manager=self.log_manager,
            fetch_sessions=FetchSessionCache(self.config["max.incremental.fetch.session.cache.slots"]),
            features=StandaloneFeatures(state.finalized_features, state.features_epoch,
                                        self.controller.persist_features))

    def create_topic(self, name: str, partitions: int = 1, configs: dict[str, str] | None = None):
        return self.loop.run_until_complete(self.controller.create_topic(name, partitions, 1, configs or {}))

    def append(self, topic: str, partition: int, values: list[bytes]) -> int:
        part = self.replica_manager.get_partition(topic, partition)
        assert part is not None, f"no partition {topic}-{partition}"
        return part.append_records_to_leader(build_batch([(None, v) for v in values])).first_offset

    def close(self) -> None:
        self.log_manager.shutdown()
        self._io.shutdown(wait=True)


def call(broker: LocalBroker, func: Any, api_key: int, version: int, request: Any) -> Any:
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=1,
                           client_id="unit")
    ctx = RequestContext(broker.services, header, "127.0.0.1", 1, "conn-test", "PLAINTEXT")
    return broker.loop.run_until_complete(func(ctx, request))
