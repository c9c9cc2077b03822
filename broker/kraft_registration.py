"""What a KRaft broker tells the controller when it registers (Kafka's ``BrokerServer``
building its ``BrokerRegistrationRequest``): its incarnation id (new at every start, so the
controller tells a restart from a duplicate), its advertised listeners at the ports they got,
the features it supports (the controller refuses a broker that cannot run the finalized
levels), its rack, the directory ids of its log dirs and the broker epoch its last clean
shutdown recorded.

Pure; who calls it: ``KRaftBroker`` (through the lifecycle manager, at each attempt).
"""
from __future__ import annotations

from typing import Mapping

from kafpy.metadata.metadata_version import (KRAFT_VERSION_FEATURE, LATEST_PRODUCTION, METADATA_VERSION_FEATURE,
                                             MINIMUM_VERSION)
from kafpy.protocol.messages import BrokerRegistrationRequest

from kafpy.broker.config import KafkaConfig
from kafpy.broker.features import SUPPORTED_FEATURES

SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
ELR_FEATURE = "eligible.leader.replicas.version"


def broker_supported_features() -> dict[str, tuple[int, int]]:
    """Kafka's ``BrokerFeatures.supportedFeatures`` for this broker: every metadata.version
    from the minimum to the latest production one, kraft.version 0-1, ELR 0-1 (the image
    keeps the eligible leader replicas the controller writes; the broker only reads the
    ISR), and the group, transaction, share and streams versions it implements."""
    features = {METADATA_VERSION_FEATURE: (MINIMUM_VERSION.level, LATEST_PRODUCTION.level),
                KRAFT_VERSION_FEATURE: (0, 1), ELR_FEATURE: (0, 1)}
    features.update(SUPPORTED_FEATURES)
    return features


def registration_request(config: KafkaConfig, cluster_id: str, incarnation_id: bytes,
                         bound_ports: Mapping[str, int], default_host: str,
                         log_dir_ids: list[bytes], previous_broker_epoch: int = -1) -> BrokerRegistrationRequest:
    """The request for ``config``'s broker; a listener on port 0 is listed at the port it got,
    one without a host at ``default_host``; ``previous_broker_epoch`` is the epoch the last
    clean shutdown recorded (-1: none)."""
    listeners = [BrokerRegistrationRequest.Listener(
        name=li.name, host=li.host or default_host, port=li.port or bound_ports.get(li.name, li.port),
        security_protocol=SECURITY_PROTOCOL_IDS[config.security_protocol(li.name)])
        for li in config.advertised_listeners]
    features = [BrokerRegistrationRequest.Feature(name=n, min_supported_version=lo, max_supported_version=hi)
                for n, (lo, hi) in sorted(broker_supported_features().items())]
    return BrokerRegistrationRequest(
        broker_id=config.broker_id, cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=listeners,
        features=features, rack=config["broker.rack"], is_migrating_zk_broker=False, log_dirs=list(log_dir_ids),
        previous_broker_epoch=previous_broker_epoch)
