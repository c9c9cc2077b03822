"""Registered brokers and controllers, as Kafka's ``ClusterImage`` / ``ClusterDelta``.

Brokers come from ``RegisterBrokerRecord`` and go with ``UnregisterBrokerRecord``; fencing,
controlled shutdown and log dirs change with ``FenceBrokerRecord``, ``UnfenceBrokerRecord``
and ``BrokerRegistrationChangeRecord``, each naming the broker epoch it applies to (a wrong
epoch or an unknown broker is an error, as in Kafka's ``getBrokerOrThrow``). Controllers come
and go with ``RegisterControllerRecord`` / ``UnregisterControllerRecord``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.maps import merged
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import (
    BrokerRegistrationChangeRecord,
    FenceBrokerRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
    UnregisterControllerRecord,
)


@dataclass(frozen=True)
class Endpoint:
    """One listener of a broker or controller."""

    name: str
    host: str
    port: int
    security_protocol: int


@dataclass(frozen=True)
class VersionRange:
    """The versions of a feature a node supports."""

    min_supported: int
    max_supported: int


@dataclass(frozen=True)
class BrokerRegistration:
    """What a broker registered, and its fencing / controlled-shutdown state (Kafka's
    ``BrokerRegistration``). ``listeners`` keep the registration's order; ``directories`` are
    sorted, as Kafka keeps them."""

    id: int
    epoch: int
    incarnation_id: bytes
    listeners: tuple[Endpoint, ...]
    supported_features: Mapping[str, VersionRange]
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool
    is_migrating_zk_broker: bool = False
    directories: tuple[bytes, ...] = ()
    cordoned_directories: tuple[bytes, ...] | None = None

    @staticmethod
    def from_record(record: RegisterBrokerRecord) -> BrokerRegistration:
        return BrokerRegistration(
            id=record.broker_id, epoch=record.broker_epoch, incarnation_id=record.incarnation_id,
            listeners=tuple(Endpoint(e.name, e.host, e.port, e.security_protocol)
                            for e in record.end_points),
            supported_features=MappingProxyType({
                f.name: VersionRange(f.min_supported_version, f.max_supported_version)
                for f in record.features}),
            rack=record.rack, fenced=record.fenced,
            in_controlled_shutdown=record.in_controlled_shutdown,
            is_migrating_zk_broker=record.is_migrating_zk_broker,
            directories=tuple(sorted(record.log_dirs)),
            cordoned_directories=(None if record.cordoned_log_dirs is None
                                  else tuple(sorted(record.cordoned_log_dirs))))

    def listener(self, name: str) -> Endpoint | None:
        """The endpoint of listener ``name``, None when this broker has no such listener."""
        for endpoint in self.listeners:
            if endpoint.name == name:
                return endpoint
        return None

    def to_record(self) -> ApiMessageAndVersion:
        R = RegisterBrokerRecord
        return with_version(R(
            broker_id=self.id, is_migrating_zk_broker=self.is_migrating_zk_broker,
            incarnation_id=self.incarnation_id, broker_epoch=self.epoch,
            end_points=[R.BrokerEndpoint(name=e.name, host=e.host, port=e.port,
                                         security_protocol=e.security_protocol)
                        for e in self.listeners],
            features=[R.BrokerFeature(name=n, min_supported_version=v.min_supported,
                                      max_supported_version=v.max_supported)
                      for n, v in sorted(self.supported_features.items())],
            rack=self.rack, fenced=self.fenced, in_controlled_shutdown=self.in_controlled_shutdown,
            log_dirs=list(self.directories),
            cordoned_log_dirs=(None if self.cordoned_directories is None
                               else list(self.cordoned_directories))))


@dataclass(frozen=True)
class ControllerRegistration:
    """What a KRaft controller registered (Kafka's ``ControllerRegistration``)."""

    id: int
    incarnation_id: bytes
    zk_migration_ready: bool
    listeners: tuple[Endpoint, ...]
    supported_features: Mapping[str, VersionRange]

    @staticmethod
    def from_record(record: RegisterControllerRecord) -> ControllerRegistration:
        return ControllerRegistration(
            id=record.controller_id, incarnation_id=record.incarnation_id,
            zk_migration_ready=record.zk_migration_ready,
            listeners=tuple(Endpoint(e.name, e.host, e.port, e.security_protocol)
                            for e in record.end_points),
            supported_features=MappingProxyType({
                f.name: VersionRange(f.min_supported_version, f.max_supported_version)
                for f in record.features}))

    def to_record(self) -> ApiMessageAndVersion:
        R = RegisterControllerRecord
        return with_version(R(
            controller_id=self.id, incarnation_id=self.incarnation_id,
            zk_migration_ready=self.zk_migration_ready,
            end_points=[R.ControllerEndpoint(name=e.name, host=e.host, port=e.port,
                                             security_protocol=e.security_protocol)
                        for e in self.listeners],
            features=[R.ControllerFeature(name=n, min_supported_version=v.min_supported,
                                          max_supported_version=v.max_supported)
                      for n, v in sorted(self.supported_features.items())]))


@dataclass(frozen=True)
class ClusterImage:
    """Brokers and controllers by id."""

    brokers: Mapping[int, BrokerRegistration]
    controllers: Mapping[int, ControllerRegistration]

    def is_empty(self) -> bool:
        return not self.brokers and not self.controllers

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        return self.brokers.get(broker_id)

    def unfenced_brokers(self) -> list[BrokerRegistration]:
        """Brokers that are registered and not fenced, by id (Metadata lists these)."""
        return [b for _, b in sorted(self.brokers.items()) if not b.fenced]

    def records(self) -> list[ApiMessageAndVersion]:
        out = [self.brokers[i].to_record() for i in sorted(self.brokers)]
        out += [self.controllers[i].to_record() for i in sorted(self.controllers)]
        return out


EMPTY_CLUSTER = ClusterImage(MappingProxyType({}), MappingProxyType({}))

# BrokerRegistrationChangeRecord.fenced: Kafka's BrokerRegistrationFencingChange
_FENCING_CHANGE: dict[int, bool | None] = {-1: False, 0: None, 1: True}
# BrokerRegistrationChangeRecord.inControlledShutdown: BrokerRegistrationInControlledShutdownChange
_SHUTDOWN_CHANGE: dict[int, bool | None] = {0: None, 1: True}


class ClusterDelta:
    """Broker and controller changes on top of ``image`` (None: unregistered)."""

    def __init__(self, image: ClusterImage) -> None:
        self.image = image
        self.changed_brokers: dict[int, BrokerRegistration | None] = {}
        self.changed_controllers: dict[int, ControllerRegistration | None] = {}

    def broker(self, broker_id: int) -> BrokerRegistration | None:
        """The broker as this delta leaves it."""
        if broker_id in self.changed_brokers:
            return self.changed_brokers[broker_id]
        return self.image.brokers.get(broker_id)

    def _broker_or_raise(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.broker(broker_id)
        if broker is None:
            raise MetadataReplayError(
                f"Tried to {action} broker {broker_id}, but that broker was not registered.")
        if broker.epoch != epoch:
            raise MetadataReplayError(
                f"Tried to {action} broker {broker_id}, but the given epoch, {epoch}, did not "
                f"match the current broker epoch, {broker.epoch}")
        return broker

    def replay_register_broker(self, record: RegisterBrokerRecord) -> None:
        self.changed_brokers[record.broker_id] = BrokerRegistration.from_record(record)

    def replay_unregister_broker(self, record: UnregisterBrokerRecord) -> None:
        self.changed_brokers[record.broker_id] = None

    def replay_fence_broker(self, record: FenceBrokerRecord) -> None:
        broker = self._broker_or_raise(record.id, record.epoch, "fence")
        self.changed_brokers[record.id] = replace(broker, fenced=True)

    def replay_unfence_broker(self, record: UnfenceBrokerRecord) -> None:
        broker = self._broker_or_raise(record.id, record.epoch, "unfence")
        self.changed_brokers[record.id] = replace(broker, fenced=False)

    def replay_broker_registration_change(self, record: BrokerRegistrationChangeRecord) -> None:
        broker = self._broker_or_raise(record.broker_id, record.broker_epoch, "change")
        if record.fenced not in _FENCING_CHANGE:
            raise MetadataReplayError(
                f"Unable to replay {record!r}: unknown value for fenced field: {record.fenced}")
        if record.in_controlled_shutdown not in _SHUTDOWN_CHANGE:
            raise MetadataReplayError(
                f"Unable to replay {record!r}: unknown value for inControlledShutdown field: "
                f"{record.in_controlled_shutdown}")
        fenced = _FENCING_CHANGE[record.fenced]
        shutdown = _SHUTDOWN_CHANGE[record.in_controlled_shutdown]
        changed = broker
        if fenced is not None:
            changed = replace(changed, fenced=fenced)
        if shutdown is not None:
            changed = replace(changed, in_controlled_shutdown=shutdown)
        if record.log_dirs:  # an empty list leaves the directories as they are
            changed = replace(changed, directories=tuple(sorted(record.log_dirs)))
        if record.cordoned_log_dirs is not None:
            changed = replace(changed, cordoned_directories=tuple(sorted(record.cordoned_log_dirs)))
        if changed != broker:
            self.changed_brokers[record.broker_id] = changed

    def replay_register_controller(self, record: RegisterControllerRecord) -> None:
        self.changed_controllers[record.controller_id] = ControllerRegistration.from_record(record)

    def replay_unregister_controller(self, record: UnregisterControllerRecord) -> None:
        self.changed_controllers[record.controller_id] = None

    def apply(self) -> ClusterImage:
        if not self.changed_brokers and not self.changed_controllers:
            return self.image
        return ClusterImage(merged(self.image.brokers, self.changed_brokers),
                            merged(self.image.controllers, self.changed_controllers))

