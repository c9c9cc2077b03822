"""Shared set-up for the controller managers' unit tests: a controller's managers over one
``ControllerMetadata``, and brokers registered and unfenced through the real request path."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ControllerResult
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager, QuorumFeatures
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol.messages import BrokerRegistrationRequest, FeatureLevelRecord

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
                                 max_supported_version=mv_range[1])],
             rack=rack, log_dirs=[log_dir(broker_id)])


@dataclass
class Controller:
    metadata: ControllerMetadata
    features: FeatureControlManager
    cluster: ClusterControlManager

    def commit(self, result: ControllerResult[object]) -> None:
        self.metadata.replay_all(result.records)


def controller(mv: int = MV, local: dict[str, VersionRange] | None = None) -> Controller:
    metadata = ControllerMetadata()
    metadata.replay(FeatureLevelRecord(name="metadata.version", feature_level=mv))
    features = FeatureControlManager(metadata, QuorumFeatures(
        3000, local or {"metadata.version": VersionRange(7, 34)}))
    cluster = ClusterControlManager(metadata, features, CLUSTER_ID, SESSION_TIMEOUT_MS)
    return Controller(metadata, features, cluster)
