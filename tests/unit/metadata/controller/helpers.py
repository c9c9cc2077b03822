"""Shared set-up for the controller managers' unit tests: a controller's managers over one
``ControllerMetadata``, and brokers registered and unfenced through the real request path."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TypeVar

import random

from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.configuration_control_manager import ConfigurationControlManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ControllerResult
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager, QuorumFeatures
from kafpy.metadata.controller.replication_control_manager import ReplicationControlManager
from kafpy.metadata.controller.striped_replica_placer import StripedReplicaPlacer
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol.messages import (
    BrokerHeartbeatRequest,
    BrokerHeartbeatResponse,
    BrokerRegistrationRequest,
    CreateTopicsRequest,
    CreateTopicsResponse,
    FeatureLevelRecord,
)

R = TypeVar("R")
CLUSTER_ID = "q1uE1x5TRfWq0Z6LlPdqfQ"
SESSION_TIMEOUT_MS = 9000
MV = 33  # 4.4-IV2, Kafka 4.4's latest production metadata.version


def incarnation(broker_id: int) -> bytes:
    return uuid.UUID(int=0x1000 + broker_id).bytes


def log_dir(broker_id: int) -> bytes:
    return uuid.UUID(int=0x2000 + broker_id).bytes


def registration(broker_id: int, rack: str | None = None, mv_range: tuple[int, int] = (7, 34),
                 inc: bytes | None = None) -> BrokerRegistrationRequest:
    R = BrokerRegistrationRequest
    return R(broker_id=broker_id, cluster_id=CLUSTER_ID,
             incarnation_id=inc or incarnation(broker_id),
             listeners=[R.Listener(name="PLAINTEXT", host="localhost", port=9092 + broker_id,
                                   security_protocol=0)],
             features=[R.Feature(name="metadata.version", min_supported_version=mv_range[0],
                                 max_supported_version=mv_range[1]),
                       R.Feature(name="eligible.leader.replicas.version", min_supported_version=0,
                                 max_supported_version=1)],
             rack=rack, log_dirs=[log_dir(broker_id)])


@dataclass
class Controller:
    metadata: ControllerMetadata
    features: FeatureControlManager
    cluster: ClusterControlManager
    configs: ConfigurationControlManager
    replication: ReplicationControlManager
    now_ms: int = 0

    def commit(self, result: ControllerResult[R]) -> R:
        """Replay the result's records (as once committed) and give its response."""
        self.metadata.replay_all(result.records)
        return result.response

    def add_broker(self, broker_id: int, rack: str | None = None, unfence: bool = True) -> None:
        """Register the broker and, when asked, heartbeat it unfenced."""
        self.commit(self.cluster.register_broker(registration(broker_id, rack),
                                                 self.metadata.next_write_offset(), self.now_ms))
        if unfence:
            self.heartbeat(broker_id)

    def heartbeat(self, broker_id: int, want_fence: bool = False,
                  want_shut_down: bool = False) -> BrokerHeartbeatResponse:
        reg = self.cluster.registration(broker_id)
        assert reg is not None
        result = self.replication.process_broker_heartbeat(BrokerHeartbeatRequest(
            broker_id=broker_id, broker_epoch=reg.epoch,
            current_metadata_offset=self.metadata.last_offset, want_fence=want_fence,
            want_shut_down=want_shut_down), self.now_ms)
        return self.commit(result)

    def create_topic(self, name: str, partitions: int = 1, rf: int = 1,
                     configs: dict[str, str] | None = None) -> CreateTopicsResponse.CreatableTopicResult:
        T = CreateTopicsRequest.CreatableTopic
        request = CreateTopicsRequest(topics=[T(
            name=name, num_partitions=partitions, replication_factor=rf,
            configs=[CreateTopicsRequest.CreatableTopicConfig(name=k, value=v)
                     for k, v in (configs or {}).items()])])
        (topic,) = self.commit(self.replication.create_topics(request)).topics
        return topic


def controller(mv: int = MV, local: dict[str, VersionRange] | None = None) -> Controller:
    metadata = ControllerMetadata()
    metadata.replay(FeatureLevelRecord(name="metadata.version", feature_level=mv))
    features = FeatureControlManager(metadata, QuorumFeatures(
        3000, local or {"metadata.version": VersionRange(7, 34)}))
    cluster = ClusterControlManager(metadata, features, CLUSTER_ID, SESSION_TIMEOUT_MS)
    configs = ConfigurationControlManager(metadata)
    ids = iter(range(1, 1 << 30))
    replication = ReplicationControlManager(
        metadata, features, cluster, configs, StripedReplicaPlacer(random.Random(7)),
        lambda: uuid.UUID(int=next(ids)).bytes)
    return Controller(metadata, features, cluster, configs, replication)
