"""DescribeConfigs on a KRaft controller (Kafka's ``ConfigHelper`` over the controller's
metadata image): a topic's configs from the committed image's ConfigRecords with the
controller's own broker defaults as synonyms, the controller node's own broker configs for
its id, and the cluster-wide dynamic defaults for the empty name.

The dynamic broker configs come from the image (the cluster default's ConfigRecords with
resource name "", this node's with its id), laid over a copy of the node's static config, as
Kafka's controller applies them to its own ``KafkaConfig``.

Who calls it: ``kafpy.broker.controller_requests.ControllerRequests`` (a read: no event)."""
from __future__ import annotations

import copy

from kafpy.metadata.image.configs import ConfigResource, ConfigResourceType
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import DescribeConfigsRequest, DescribeConfigsResponse

from kafpy.broker.config import KafkaConfig
from kafpy.broker.handlers.configs import _broker_entries, topic_config_entry
from kafpy.broker.topic_config import CONFIG_TYPE_IDS, DEFAULT_CONFIG, TOPIC_CONFIGS

Result = DescribeConfigsResponse.DescribeConfigsResult
Entry = DescribeConfigsResponse.DescribeConfigsResourceResult
Synonym = DescribeConfigsResponse.DescribeConfigsSynonym


def _topic_entries(image: MetadataImage, config: KafkaConfig, name: str, keys: list[str] | None,
                   synonyms: bool) -> list[Entry]:
    overrides = dict(image.configs.resource_data.get(ConfigResource(ConfigResourceType.TOPIC, name), {}))
    out = []
    for cname in sorted(TOPIC_CONFIGS):
        if keys is not None and cname not in keys:
            continue
        value, source, syn = topic_config_entry(config, cname, overrides)
        out.append(Entry(name=cname, value=value, read_only=False, is_default=source == DEFAULT_CONFIG,
                         config_source=source, is_sensitive=False,
                         synonyms=[Synonym(name=n, value=v, source=s) for n, v, s in syn] if synonyms else [],
                         config_type=CONFIG_TYPE_IDS[TOPIC_CONFIGS[cname].type], documentation=None))
    return out


def with_dynamic_configs(image: MetadataImage, config: KafkaConfig) -> KafkaConfig:
    """A copy of ``config`` with the image's dynamic broker configs (the cluster default and
    this node's own) as its dynamic layers."""
    node_id = int(config.values["node.id"])
    out = copy.copy(config)
    out.dynamic_default = dict(image.configs.resource_data.get(ConfigResource(ConfigResourceType.BROKER, ""), {}))
    out.dynamic_broker = dict(image.configs.resource_data.get(
        ConfigResource(ConfigResourceType.BROKER, str(node_id)), {}))
    return out


def describe_configs(image: MetadataImage, static_config: KafkaConfig, request: DescribeConfigsRequest,
                     version: int) -> DescribeConfigsResponse:
    synonyms = version >= 1 and request.include_synonyms
    config = with_dynamic_configs(image, static_config)
    node_id = int(config.values["node.id"])
    results = []
    for r in request.resources:
        res = Result(error_code=0, error_message=None, resource_type=r.resource_type,
                     resource_name=r.resource_name, configs=[])
        results.append(res)
        keys = list(r.configuration_keys) if r.configuration_keys is not None else None
        if r.resource_type == ConfigResourceType.TOPIC:
            if image.topic(r.resource_name) is None:
                res.error_code = int(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
                res.error_message = f"Topic '{r.resource_name}' does not exist."
                continue
            res.configs = _topic_entries(image, config, r.resource_name, keys, synonyms)
        elif r.resource_type == ConfigResourceType.BROKER:
            if r.resource_name not in ("", str(node_id)):
                res.error_code = int(ErrorCode.INVALID_REQUEST)
                res.error_message = (f"Unexpected broker id, expected {node_id} or empty string, but received "
                                     f"{r.resource_name}")
                continue
            res.configs = _broker_entries(config, keys, synonyms, entity_default=r.resource_name == "")
        else:
            res.error_code = int(ErrorCode.INVALID_REQUEST)
            res.error_message = f"Unsupported resource type {r.resource_type}"
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)
