"""Broker and controller registrations, as Kafka's ``ClusterControlManager``.

Who calls it: the quorum controller for BrokerRegistration and ControllerRegistration, and
``ReplicationControlManager`` (is a broker active, what is its epoch, where is its session).
A broker's epoch is the offset of its ``RegisterBrokerRecord`` (the caller passes the next
write offset); a new registration starts fenced, and a broker is unfenced by the heartbeats
once it has caught up with that offset. A re-registration with the same incarnation id amends
the registration and keeps the epoch; one with another incarnation id is refused while the
old incarnation's session is alive."""

from __future__ import annotations

import base64
import logging

from kafpy.metadata import metadata_version as mv
from kafpy.metadata.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ControllerError, ControllerResult
from kafpy.metadata.controller.feature_control_manager import FeatureControlManager
from kafpy.metadata.image.cluster import BrokerRegistration
from kafpy.metadata.image.partition import LOST, MIGRATING, UNASSIGNED
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    BrokerRegistrationRequest,
    BrokerRegistrationResponse,
    ControllerRegistrationRequest,
    Message,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    UnregisterBrokerRecord,
)

log = logging.getLogger(__name__)

RESERVED_DIRECTORIES = frozenset({MIGRATING, UNASSIGNED, LOST})
# metadata.version levels that brought directory assignment (3.7-IV2) and controller
# registration (3.7-IV0)
DIRECTORY_ASSIGNMENT_LEVEL = 17
CONTROLLER_REGISTRATION_LEVEL = 15


class ClusterControlManager:
    """The cluster id, the brokers' sessions (``heartbeat_manager``), and the offset of each
    broker's RegisterBrokerRecord (learnt on replay)."""

    def __init__(self, metadata: ControllerMetadata, features: FeatureControlManager,
                 cluster_id: str, session_timeout_ms: int) -> None:
        self.metadata = metadata
        self.features = features
        self.cluster_id = cluster_id
        self.heartbeat_manager = BrokerHeartbeatManager(session_timeout_ms)
        self.register_broker_record_offsets: dict[int, int] = {}
        self.zk_registration_allowed = False  # a ZooKeeper broker may register during a migration
        metadata.add_listener(self._replayed)

    # -- reads -------------------------------------------------------------------------------

    def registration(self, broker_id: int) -> BrokerRegistration | None:
        return self.metadata.image.cluster.brokers.get(broker_id)

    def is_active(self, broker_id: int) -> bool:
        """Registered, unfenced and not in controlled shutdown: may lead and join ISRs."""
        b = self.registration(broker_id)
        return b is not None and not b.fenced and not b.in_controlled_shutdown

    def is_unfenced(self, broker_id: int) -> bool:
        b = self.registration(broker_id)
        return b is not None and not b.fenced

    def register_broker_record_offset(self, broker_id: int) -> int | None:
        return self.register_broker_record_offsets.get(broker_id)

    def check_broker_epoch(self, broker_id: int, broker_epoch: int) -> BrokerRegistration:
        b = self.registration(broker_id)
        if b is None:
            raise ControllerError(ErrorCode.STALE_BROKER_EPOCH,
                                  f"No broker registration found for broker id {broker_id}")
        if b.epoch != broker_epoch:
            raise ControllerError(ErrorCode.STALE_BROKER_EPOCH,
                                  f"Expected broker epoch {b.epoch}, but got broker epoch "
                                  f"{broker_epoch}")
        return b

    # -- BrokerRegistration ----------------------------------------------------------------

    def register_broker(self, request: BrokerRegistrationRequest, new_broker_epoch: int,
                        now_ms: int) -> ControllerResult[BrokerRegistrationResponse]:
        """The RegisterBrokerRecord, or the ``ControllerError`` Kafka answers with."""
        if request.cluster_id != self.cluster_id:
            raise ControllerError(ErrorCode.INCONSISTENT_CLUSTER_ID,
                                  f"Expected cluster ID {self.cluster_id}, but got cluster ID "
                                  f"{request.cluster_id}")
        broker_id = request.broker_id
        existing = self.registration(broker_id)
        previous_incarnation = None if existing is None else existing.incarnation_id
        if (existing is not None and self.heartbeat_manager.has_valid_session(broker_id, now_ms)
                and request.incarnation_id != previous_incarnation):
            raise ControllerError(ErrorCode.DUPLICATE_BROKER_REGISTRATION,
                                  "Another broker is registered with that broker id.")
        if request.is_migrating_zk_broker and not self.zk_registration_allowed:
            raise ControllerError(ErrorCode.BROKER_ID_NOT_REGISTERED,
                                  "Controller does not support registering ZK brokers.")
        directory_assignment = self.features.metadata_version() >= DIRECTORY_ASSIGNMENT_LEVEL
        if directory_assignment:
            self._check_directories(broker_id, request.log_dirs)
        R = RegisterBrokerRecord
        record = R(broker_id=broker_id, incarnation_id=request.incarnation_id, rack=request.rack,
                   is_migrating_zk_broker=request.is_migrating_zk_broker,
                   end_points=[R.BrokerEndpoint(name=li.name, host=li.host, port=li.port,
                                                security_protocol=li.security_protocol)
                               for li in request.listeners])
        finalized = self.features.finalized_features()
        listed = {f.name for f in request.features}
        for feature in request.features:
            self._check_feature(finalized, feature.name, feature.min_supported_version,
                                feature.max_supported_version)
            record.features.append(R.BrokerFeature(
                name=feature.name, min_supported_version=feature.min_supported_version,
                max_supported_version=feature.max_supported_version))
        if mv.METADATA_VERSION_FEATURE not in listed:
            # a broker that sends no metadata.version range supports only the first KRaft one
            self._check_feature(finalized, mv.METADATA_VERSION_FEATURE, 1, 1)
            record.features.append(R.BrokerFeature(name=mv.METADATA_VERSION_FEATURE, min_supported_version=1,
                                                   max_supported_version=1))
        for name, level in finalized.items():
            if level != 0 and name not in listed and name != mv.METADATA_VERSION_FEATURE:
                self._check_feature(finalized, name, 0, 0)
        if directory_assignment:
            record.log_dirs = list(request.log_dirs)
        if existing is None or request.incarnation_id != previous_incarnation:
            log.info("Registering broker %d, incarnation %s: broker epoch %d.", broker_id,
                     request.incarnation_id.hex(), new_broker_epoch)
            record.broker_epoch = new_broker_epoch
            record.fenced = True
            self.heartbeat_manager.remove(broker_id)
        else:
            log.info("Amending registration of broker %d; broker epoch remains %d.",
                     broker_id, existing.epoch)
            record.fenced = existing.fenced
            record.in_controlled_shutdown = existing.in_controlled_shutdown
            record.broker_epoch = existing.epoch
        self.heartbeat_manager.register(broker_id, record.fenced, now_ms)
        records: list[Message] = [record]
        return ControllerResult.atomic_of(
            records, BrokerRegistrationResponse(broker_epoch=record.broker_epoch))

    def _check_directories(self, broker_id: int, log_dirs: list[bytes]) -> None:
        if not log_dirs:
            raise ControllerError(ErrorCode.INVALID_REGISTRATION, "No directories specified in request")
        if any(d in RESERVED_DIRECTORIES for d in log_dirs):
            raise ControllerError(ErrorCode.INVALID_REGISTRATION, "Reserved directory ID in request")
        if len(set(log_dirs)) != len(log_dirs):
            raise ControllerError(ErrorCode.INVALID_REGISTRATION, "Duplicate directory ID in request")
        for other_id, other in self.metadata.image.cluster.brokers.items():
            if other_id == broker_id:
                continue
            for d in log_dirs:
                if d in other.directories:
                    raise ControllerError(ErrorCode.INVALID_REGISTRATION,
                                          f"Broker {other_id} is already registered with "
                                          f"directory {_uuid_base64(d)}")

    @staticmethod
    def _check_feature(finalized: dict[str, int], name: str, low: int, high: int) -> None:
        default = 1 if name == mv.METADATA_VERSION_FEATURE else 0
        level = finalized.get(name, default)
        if not low <= level <= high:
            raise ControllerError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"Unable to register because the broker does not support finalized version "
                f"{level} of {name}. The broker wants a version between {low} and {high}, "
                f"inclusive.")

    # -- ControllerRegistration -------------------------------------------------------------

    def register_controller(self, request: ControllerRegistrationRequest) -> ControllerResult[None]:
        """The RegisterControllerRecord. As Kafka 4.4, the ranges a controller lists are not
        held to the finalized levels here: they are recorded, and UpdateFeatures checks them
        (a controller that cannot run a finalized level fails when it replays it)."""
        if self.features.metadata_version() < CONTROLLER_REGISTRATION_LEVEL:
            raise ControllerError(ErrorCode.UNSUPPORTED_VERSION,
                                  "The current MetadataVersion is too old to support controller "
                                  "registrations.")
        R = RegisterControllerRecord
        record = R(controller_id=request.controller_id, incarnation_id=request.incarnation_id,
                   zk_migration_ready=request.zk_migration_ready,
                   end_points=[R.ControllerEndpoint(name=li.name, host=li.host, port=li.port,
                                                    security_protocol=li.security_protocol)
                               for li in request.listeners],
                   features=[R.ControllerFeature(name=f.name, min_supported_version=f.min_supported_version,
                                                 max_supported_version=f.max_supported_version)
                             for f in request.features])
        return ControllerResult.atomic_of([record], None)

    # -- replay ------------------------------------------------------------------------------

    def _replayed(self, record: Message, offset: int) -> None:
        if isinstance(record, RegisterBrokerRecord):
            self.register_broker_record_offsets[record.broker_id] = offset
        elif isinstance(record, UnregisterBrokerRecord):
            self.register_broker_record_offsets.pop(record.broker_id, None)
            self.heartbeat_manager.remove(record.broker_id)


def _uuid_base64(value: bytes) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(value).decode().rstrip("=")
