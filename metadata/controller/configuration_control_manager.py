"""Dynamic configs, as Kafka's ``ConfigurationControlManager``.

Who calls it: the quorum controller for IncrementalAlterConfigs and AlterConfigs, and
``ReplicationControlManager`` for the configs a new topic is created with. Each alteration
becomes ``ConfigRecord``s (a null value deletes the key); only keys whose value changes get a
record. Validation follows Kafka's controller: the resource name by type (a broker is "" or
an integer, a topic must exist unless being created), known keys and typed values for topics,
client-metrics and groups; broker keys are the forwarding broker's to check."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum

from kafpy.metadata.controller.config_schema import ConfigType, config_type, schema_for, validate_value
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import API_ERROR_NONE, ApiError, ControllerResult
from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterConfigsRequest,
    ConfigRecord,
    IncrementalAlterConfigsRequest,
    Message,
)
from kafpy.protocol.topics import InvalidTopicName, validate_topic_name


class OpType(IntEnum):
    """Kafka's ``AlterConfigOp.OpType``."""

    SET = 0
    DELETE = 1
    APPEND = 2
    SUBTRACT = 3


class ConfigurationControlManager:
    """Reads the current configs from the shared ``ControllerMetadata``."""

    def __init__(self, metadata: ControllerMetadata) -> None:
        self.metadata = metadata

    def current(self, resource: ConfigResource) -> Mapping[str, str]:
        return self.metadata.image.configs.config_map(resource)

    def topic_config(self, topic: str, key: str) -> str | None:
        return self.current(ConfigResource(ConfigResourceType.TOPIC, topic)).get(key)

    def cluster_config(self, key: str) -> str | None:
        return self.current(ConfigResource(ConfigResourceType.BROKER, "")).get(key)

    def unclean_leader_election_enabled_for_topic(self, topic: str) -> bool:
        """The topic's value, else the cluster default, else Kafka's default (false)."""
        value = self.topic_config(topic, "unclean.leader.election.enable")
        if value is None:
            value = self.cluster_config("unclean.leader.election.enable")
        return value is not None and value.strip().lower() == "true"

    # -- IncrementalAlterConfigs -------------------------------------------------------------

    def incremental_alter_configs(self, request: IncrementalAlterConfigsRequest
                                  ) -> ControllerResult[dict[ConfigResource, ApiError]]:
        records: list[Message] = []
        results: dict[ConfigResource, ApiError] = {}
        for res in request.resources:
            resource = _resource(res.resource_type, res.resource_name)
            ops = {c.name: (OpType(c.config_operation) if c.config_operation in OpType.__members__.values()
                            else None, c.value) for c in res.configs}
            result = self.incremental_alter_config(resource, ops, new_resource=False)
            results[resource] = result.response
            records += result.records
        if request.validate_only:
            return ControllerResult.of([], results)
        return ControllerResult.atomic_of(records, results)

    def incremental_alter_config(self, resource: ConfigResource,
                                 ops: Mapping[str, tuple[OpType | None, str | None]],
                                 new_resource: bool) -> ControllerResult[ApiError]:
        """The records for one resource's alterations, or its error (and no records)."""
        current = dict(self.current(resource))
        new = dict(current)
        records: list[Message] = []
        for key, (op, value) in ops.items():
            if op is None:
                return ControllerResult.of([], ApiError(ErrorCode.INVALID_REQUEST,
                                                        f"Unknown operation type for key {key}"))
            if op == OpType.SET:
                new_value: str | None = value
            elif op == OpType.DELETE:
                new_value = None
            else:
                if config_type(resource.type, key) != ConfigType.LIST:
                    return ControllerResult.of([], ApiError(
                        ErrorCode.INVALID_REQUEST,
                        f"Can't {op.name} to key {key} because its type is not LIST."))
                items = [] if current.get(key) in (None, "") else current[key].split(",")
                given = [] if not value else value.split(",")
                if op == OpType.APPEND:
                    items += [v for v in given if v not in items]
                else:
                    items = [v for v in items if v not in given]
                new_value = ",".join(items)
            if new_value is None:
                new.pop(key, None)
            else:
                new[key] = new_value
            if current.get(key) != new_value:
                records.append(ConfigRecord(resource_type=int(resource.type),
                                            resource_name=resource.name, name=key,
                                            value=new_value))
        error = self.validate(resource, new, {k for k, (op, _) in ops.items() if op != OpType.DELETE},
                              new_resource)
        if not error.is_success():
            return ControllerResult.of([], error)
        return ControllerResult.of(records, API_ERROR_NONE)

    # -- AlterConfigs (legacy: the given set replaces the whole config) -------------------

    def legacy_alter_configs(self, request: AlterConfigsRequest
                             ) -> ControllerResult[dict[ConfigResource, ApiError]]:
        records: list[Message] = []
        results: dict[ConfigResource, ApiError] = {}
        for res in request.resources:
            resource = _resource(res.resource_type, res.resource_name)
            current = self.current(resource)
            new = {c.name: c.value for c in res.configs if c.value is not None}
            changes: list[Message] = []
            for key, value in new.items():
                if current.get(key) != value:
                    changes.append(ConfigRecord(resource_type=int(resource.type),
                                                resource_name=resource.name, name=key, value=value))
            for key in current:
                if key not in new:
                    changes.append(ConfigRecord(resource_type=int(resource.type),
                                                resource_name=resource.name, name=key, value=None))
            error = self.validate(resource, new, set(new), new_resource=False)
            results[resource] = error
            if error.is_success():
                records += changes
        if request.validate_only:
            return ControllerResult.of([], results)
        return ControllerResult.atomic_of(records, results)

    # -- validation --------------------------------------------------------------------------

    def validate(self, resource: ConfigResource, new: Mapping[str, str], changed: set[str],
                 new_resource: bool) -> ApiError:
        """Kafka's ``ControllerConfigurationValidator``: name by type, then keys and values."""
        t = resource.type
        if t == ConfigResourceType.BROKER:
            if resource.name and not _is_int(resource.name):
                return ApiError(ErrorCode.INVALID_REQUEST,
                                f"Illegal non-integral BROKER resource type name {resource.name}")
            return API_ERROR_NONE
        if t == ConfigResourceType.TOPIC:
            try:
                validate_topic_name(resource.name)
            except InvalidTopicName as e:
                return ApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, str(e))
            if not new_resource and self.metadata.image.topic(resource.name) is None:
                return ApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                f"The topic '{resource.name}' does not exist.")
        elif t in (ConfigResourceType.CLIENT_METRICS, ConfigResourceType.GROUP):
            if not resource.name:
                return ApiError(ErrorCode.INVALID_REQUEST,
                                "Subscription name can't be empty"
                                if t == ConfigResourceType.CLIENT_METRICS
                                else "Group name can't be empty.")
        else:
            return ApiError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {int(t)}")
        schema = schema_for(t)
        assert schema is not None
        label = {ConfigResourceType.TOPIC: "topic", ConfigResourceType.CLIENT_METRICS: "client metrics",
                 ConfigResourceType.GROUP: "group"}[t]
        for key in sorted(changed):
            kind = schema.get(key)
            if kind is None:
                return ApiError(ErrorCode.INVALID_CONFIG, f"Unknown {label} config name: {key}")
            value = new.get(key)
            if value is not None:
                message = validate_value(key, kind, value)
                if message is not None:
                    return ApiError(ErrorCode.INVALID_CONFIG, message)
        return API_ERROR_NONE


def _resource(resource_type: int, name: str) -> ConfigResource:
    try:
        t = ConfigResourceType(resource_type)
    except ValueError:
        t = ConfigResourceType.UNKNOWN
    return ConfigResource(t, name)


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True
