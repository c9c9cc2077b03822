"""DescribeConfigs (32), AlterConfigs (33) and IncrementalAlterConfigs (44) for topics and
brokers, with Kafka's config names, defaults and config sources."""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterConfigsResponse, DescribeConfigsResponse, IncrementalAlterConfigsResponse
from kafpy.protocol.messages import AlterConfigsRequest, DescribeConfigsRequest, IncrementalAlterConfigsRequest
from kafpy.protocol.api_keys import ApiKey

from kafpy.replication.zk_data import DEFAULT_BROKER_ENTITY

from kafpy.broker import broker_loggers
from kafpy.broker.broker_loggers import DYNAMIC_BROKER_LOGGER_CONFIG
from kafpy.broker.config import BROKER_CONFIGS, ConfigDef, ConfigError, KafkaConfig
from kafpy.broker import group_configs
from kafpy.broker.config_resources import DUPLICATE_RESOURCE_MESSAGE, duplicated
from kafpy.broker.dynamic_config import config_def, to_persistent, validate_broker_update
from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.stored_dynamic_configs import DESCRIBED_ONCE_SET
from kafpy.replication.metadata_cache import TopicError
from kafpy.broker.topic_config import (CONFIG_TYPE_IDS, DEFAULT_CONFIG, DYNAMIC_BROKER_CONFIG,
                                 DYNAMIC_DEFAULT_BROKER_CONFIG, DYNAMIC_TOPIC_CONFIG,
                                 STATIC_BROKER_CONFIG, TOPIC_CONFIGS, InvalidConfig, broker_default,
                                 format_value, validate_topic_configs)

log = logging.getLogger("kafka.server.ConfigHelper")

TOPIC = 2
BROKER = 4
BROKER_LOGGER = 8

OP_SET, OP_DELETE, OP_APPEND, OP_SUBTRACT = 0, 1, 2, 3


# A topic config's broker default and the other broker names for the same setting, in the
# order Kafka lists them as synonyms.
BROKER_SYNONYMS = {
    "log.retention.ms": ("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
    "log.roll.ms": ("log.roll.ms", "log.roll.hours"),
    "log.roll.jitter.ms": ("log.roll.jitter.ms", "log.roll.jitter.hours"),
}


def broker_synonyms(cfg: KafkaConfig, bkey: str) -> list[tuple[str, str | None, int]]:
    """(name, value, source) of the broker settings behind a topic config, as Kafka's
    ConfigHelper lists them: dynamic, then static, then defaults (null defaults left out),
    dropping everything before the first entry for ``bkey`` itself. So a static
    ``log.retention.hours`` alone leaves ``retention.ms`` with no synonym: it reports as a
    default, and kafka-topics --describe does not show it."""
    names = BROKER_SYNONYMS.get(bkey, (bkey,))
    out: list[tuple[str, str | None, int]] = []
    out += [(n, cfg.dynamic_broker[n], DYNAMIC_BROKER_CONFIG) for n in names if n in cfg.dynamic_broker]
    out += [(n, cfg.dynamic_default[n], DYNAMIC_DEFAULT_BROKER_CONFIG) for n in names if n in cfg.dynamic_default]
    out += [(n, cfg.originals[n], STATIC_BROKER_CONFIG) for n in names if n in cfg.originals]
    for n in names:
        d = BROKER_CONFIGS.get(n)
        if d is not None and d.default is not None:
            out.append((n, format_value(d.default), DEFAULT_CONFIG))
    while out and out[0][0] != bkey:
        out.pop(0)
    return out


def topic_config_entry(cfg: KafkaConfig, cname: str, overrides: dict[str, str]
                       ) -> tuple[str | None, int, list[tuple[str, str | None, int]]]:
    """The value, source and synonyms DescribeConfigs (and CreateTopics v5+) report."""
    d = TOPIC_CONFIGS[cname]
    dval, _src, bkey = broker_default(cfg, d)
    syn = broker_synonyms(cfg, bkey) if bkey is not None else []
    value: str | None
    if cname in overrides:
        syn.insert(0, (cname, overrides[cname], DYNAMIC_TOPIC_CONFIG))
        value = overrides[cname]
    else:
        value = dval
    return value, (syn[0][2] if syn else DEFAULT_CONFIG), syn


def _topic_entries(ctx: RequestContext, name: str, keys: list[str] | None, synonyms: bool, v: int) -> list:
    cfg = ctx.services.config
    overrides = ctx.services.metadata_cache.topic_config(name)
    out = []
    for cname in sorted(TOPIC_CONFIGS):
        if keys is not None and cname not in keys:
            continue
        value, source, syn = topic_config_entry(cfg, cname, overrides)
        out.append(DescribeConfigsResponse.DescribeConfigsResourceResult(
            name=cname, value=value, read_only=False, is_default=source == DEFAULT_CONFIG,
            config_source=source, is_sensitive=False,
            synonyms=[DescribeConfigsResponse.DescribeConfigsSynonym(name=n, value=val, source=src) for n, val, src in syn]
            if synonyms else [],
            config_type=CONFIG_TYPE_IDS[TOPIC_CONFIGS[cname].type], documentation=None))
    return out


def _broker_sources(cfg: KafkaConfig, cname: str) -> list[tuple[str | None, int]]:
    """(value, source) of every layer that sets ``cname``, the one in force first: this
    broker's dynamic config, the cluster-wide default, server.properties, the default."""
    out: list[tuple[str | None, int]] = []
    if cname in cfg.dynamic_broker:
        out.append((cfg.dynamic_broker[cname], DYNAMIC_BROKER_CONFIG))
    if cname in cfg.dynamic_default:
        out.append((cfg.dynamic_default[cname], DYNAMIC_DEFAULT_BROKER_CONFIG))
    if cname in cfg.originals:
        out.append((format_value(cfg.values[cname]), STATIC_BROKER_CONFIG))
    out.append((format_value(BROKER_CONFIGS[cname].default), DEFAULT_CONFIG))
    return out


def _broker_entries(cfg: KafkaConfig, keys: list[str] | None, synonyms: bool, entity_default: bool = False) -> list:
    """A broker's configs; for the cluster-wide default entity (resource name ""), only
    the configs set on it, as Kafka answers."""
    out = []
    for cname in sorted(BROKER_CONFIGS):
        if keys is not None and cname not in keys:
            continue
        if entity_default and cname not in cfg.dynamic_default:
            continue
        if cname in DESCRIBED_ONCE_SET and cname not in cfg.dynamic_broker and cname not in cfg.dynamic_default:
            continue
        d = BROKER_CONFIGS[cname]
        layers = _broker_sources(cfg, cname)
        if entity_default:
            layers = [layer for layer in layers if layer[1] == DYNAMIC_DEFAULT_BROKER_CONFIG]
        value, source = layers[0]
        syn = [DescribeConfigsResponse.DescribeConfigsSynonym(name=cname, value=None if d.sensitive else v, source=s)
               for v, s in layers] if synonyms else []
        out.append(DescribeConfigsResponse.DescribeConfigsResourceResult(
            name=cname, value=None if d.sensitive else value, read_only=not d.dynamic,
            is_default=source == DEFAULT_CONFIG, config_source=source, is_sensitive=d.sensitive,
            synonyms=syn, config_type=CONFIG_TYPE_IDS.get(d.type, 0), documentation=None))
    # listener-prefixed settings and names Kafka does not know, stored dynamically: under
    # their full names, read-only (not among Kafka's dynamic names), sensitive unless their
    # type is known and not a password (Kafka's KafkaConfig.maybeSensitive)
    layer = cfg.dynamic_default if entity_default else cfg.dynamic_broker
    source = DYNAMIC_DEFAULT_BROKER_CONFIG if entity_default else DYNAMIC_BROKER_CONFIG
    for cname in sorted(k for k in layer if k not in BROKER_CONFIGS):
        if keys is not None and cname not in keys:
            continue
        known = config_def(cname)
        sensitive = known is None or known.type == "password"
        value = None if sensitive else layer[cname]
        out.append(DescribeConfigsResponse.DescribeConfigsResourceResult(
            name=cname, value=value, read_only=True, is_default=False, config_source=source,
            is_sensitive=sensitive, synonyms=[DescribeConfigsResponse.DescribeConfigsSynonym(name=cname, value=value, source=source)]
            if synonyms else [], config_type=CONFIG_TYPE_IDS.get(known.type, 0) if known else 0, documentation=None))
    return out


def _check_broker_name(ctx: RequestContext, name: str) -> str | None:
    if name == "":
        return None
    try:
        if int(name) == ctx.services.broker_id:
            return None
    except ValueError:
        pass
    return f"Unexpected broker id, expected {ctx.services.broker_id} or empty string, but received {name}"


async def handle_describe_configs(ctx: RequestContext, req: DescribeConfigsRequest) -> DescribeConfigsResponse:
    v = ctx.api_version
    synonyms = v >= 1 and req.include_synonyms
    results = []
    for r in req.resources:
        res = DescribeConfigsResponse.DescribeConfigsResult(error_code=ErrorCode.NONE, error_message=None, resource_type=r.resource_type,
                                                            resource_name=r.resource_name, configs=[])
        results.append(res)
        keys = list(r.configuration_keys) if r.configuration_keys is not None else None
        if r.resource_type == TOPIC:
            if ctx.services.metadata_cache.topic(r.resource_name) is None:
                res.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                res.error_message = f"Topic '{r.resource_name}' does not exist."
                continue
            res.configs = _topic_entries(ctx, r.resource_name, keys, synonyms, v)
        elif r.resource_type == BROKER:
            err = _check_broker_name(ctx, r.resource_name)
            if err:
                res.error_code, res.error_message = ErrorCode.INVALID_REQUEST, err
                continue
            res.configs = _broker_entries(ctx.services.config, keys, synonyms, entity_default=r.resource_name == "")
        elif r.resource_type == BROKER_LOGGER:
            err = _check_broker_name(ctx, r.resource_name)
            if err:
                res.error_code, res.error_message = ErrorCode.INVALID_REQUEST, err
                continue
            res.configs = [DescribeConfigsResponse.DescribeConfigsResourceResult(
                name=name, value=level, read_only=False, is_default=False, config_source=DYNAMIC_BROKER_LOGGER_CONFIG,
                is_sensitive=False, synonyms=[], config_type=CONFIG_TYPE_IDS.get("string", 0), documentation=None)
                for name, level in sorted(broker_loggers.current_loggers().items())
                if keys is None or name in keys]
        elif r.resource_type == group_configs.GROUP_RESOURCE:
            res.configs = group_configs.describe(
                ctx.services.config,
                ctx.services.controller.entity_configs.get(group_configs.GROUP_ENTITY_TYPE, r.resource_name),
                keys, DescribeConfigsResponse.DescribeConfigsResourceResult,
                DescribeConfigsResponse.DescribeConfigsSynonym if req.include_synonyms else None)
        else:
            res.error_code = ErrorCode.INVALID_REQUEST
            res.error_message = f"Unsupported resource type {r.resource_type}"
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)


async def _apply_topic(ctx: RequestContext, name: str, new: dict[str, str], validate_only: bool) -> None:
    if ctx.services.metadata_cache.topic(name) is None:
        raise _Fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic '{name}' does not exist.")
    try:
        validate_topic_configs(new)
    except InvalidConfig as e:
        raise _Fail(ErrorCode.INVALID_CONFIG, str(e)) from None
    if validate_only:
        return
    try:
        await ctx.services.controller.alter_topic_config(name, new)
    except TopicError as e:
        raise _Fail(e.error_code, e.message) from None


async def _apply_broker(ctx: RequestContext, name: str, new: dict[str, str], validate_only: bool) -> None:
    err = _check_broker_name(ctx, name)
    if err:
        raise _Fail(ErrorCode.INVALID_REQUEST, err)
    try:   # a name Kafka 4.4 does not know is stored unchecked, as Kafka stores it
        validate_broker_update(ctx.services.config, new, per_broker=name != "")
    except ConfigError as e:
        raise _Fail(ErrorCode.INVALID_REQUEST, str(e)) from None
    if validate_only:
        return
    try:   # passwords: per broker only; in ZooKeeper encrypted (standalone keeps its file private)
        new = to_persistent(ctx.services.config, new, per_broker=name != "",
                            encrypt=ctx.services.zk_client is not None)
    except ConfigError as e:
        raise _Fail(ErrorCode.INVALID_REQUEST, str(e)) from None
    try:
        if name == "":   # --entity-default: /config/brokers/<default>, read by every broker
            await ctx.services.controller.alter_broker_configs(new, entity_name=DEFAULT_BROKER_ENTITY)
        else:
            await ctx.services.controller.alter_broker_configs(new)
    except TopicError as e:
        raise _Fail(e.error_code, e.message) from None


def _alter_loggers(ctx: RequestContext, r: IncrementalAlterConfigsRequest.AlterConfigsResource,
                   validate_only: bool) -> None:
    """kafka-configs --entity-type broker-loggers --alter: set (or, deleted, reset) the
    levels of this broker's loggers; every entry is checked before any is applied."""
    err = _check_broker_name(ctx, r.resource_name)
    if err:
        raise _Fail(ErrorCode.INVALID_REQUEST, err)
    try:
        for c in r.configs:
            broker_loggers.check_logger_exists(c.name)
            if c.config_operation == OP_SET:
                if c.value is None:
                    raise _Fail(ErrorCode.INVALID_CONFIG, f"Null value not supported for : {c.name}")
                broker_loggers.check_level(c.name, c.value)
            elif c.config_operation == OP_DELETE:
                if c.name == broker_loggers.ROOT_LOGGER:
                    raise _Fail(ErrorCode.INVALID_CONFIG, "Removing the log level of the root logger is not allowed")
            else:
                raise _Fail(ErrorCode.INVALID_REQUEST, f"Operation {c.config_operation} is not allowed for broker loggers")
        if validate_only:
            return
        for c in r.configs:
            if c.config_operation == OP_SET:
                assert c.value is not None   # refused above
                broker_loggers.set_level(c.name, c.value)
            else:
                broker_loggers.unset_level(c.name)
            log.info("Updated the log level of %s to %s", c.name, c.value if c.config_operation == OP_SET else "the root logger's")
        ctx.services.config.reconfigured()   # e.g. kafka.request.logger=DEBUG needs the request observer
    except broker_loggers.LoggerConfigError as e:
        raise _Fail(ErrorCode.INVALID_CONFIG, str(e)) from None


class _BrokerDefs:
    """BROKER_CONFIGS as IncrementalAlterConfigs looks names up, listener-prefixed TLS store
    settings included."""

    def get(self, name: str) -> ConfigDef | None:
        return config_def(name)


class _Fail(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def handle_alter_configs(ctx: RequestContext, req: AlterConfigsRequest) -> AlterConfigsResponse:
    out = []
    twice = duplicated(req.resources)
    for i, r in enumerate(req.resources):
        res = AlterConfigsResponse.AlterConfigsResourceResponse(error_code=ErrorCode.NONE, error_message=None, resource_type=r.resource_type,
                                                                resource_name=r.resource_name)
        out.append(res)
        new = {c.name: c.value for c in r.configs if c.value is not None}
        try:
            if i in twice:
                raise _Fail(ErrorCode.INVALID_REQUEST, DUPLICATE_RESOURCE_MESSAGE)
            if r.resource_type == TOPIC:
                await _apply_topic(ctx, r.resource_name, new, req.validate_only)
            elif r.resource_type == BROKER:
                await _apply_broker(ctx, r.resource_name, new, req.validate_only)
            else:
                raise _Fail(ErrorCode.INVALID_REQUEST, f"Unsupported resource type {r.resource_type}")
        except _Fail as e:
            res.error_code, res.error_message = e.code, e.message
    return AlterConfigsResponse(throttle_time_ms=0, responses=out)


async def handle_incremental_alter_configs(ctx: RequestContext, req: IncrementalAlterConfigsRequest) -> IncrementalAlterConfigsResponse:
    out = []
    twice = duplicated(req.resources)
    for i, r in enumerate(req.resources):
        res = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse(error_code=ErrorCode.NONE, error_message=None, resource_type=r.resource_type,
                                                                           resource_name=r.resource_name)
        out.append(res)
        try:
            if i in twice:
                raise _Fail(ErrorCode.INVALID_REQUEST, DUPLICATE_RESOURCE_MESSAGE)
            if r.resource_type == TOPIC:
                current = ctx.services.metadata_cache.topic_config(r.resource_name)
                defs = TOPIC_CONFIGS
            elif r.resource_type == BROKER:
                cfg = ctx.services.config
                current = dict(cfg.dynamic_default if r.resource_name == "" else cfg.dynamic_broker)
                defs = _BrokerDefs()  # type: ignore[assignment]
            elif r.resource_type == BROKER_LOGGER:
                _alter_loggers(ctx, r, req.validate_only)
                continue
            elif r.resource_type == group_configs.GROUP_RESOURCE:
                await _alter_group(ctx, r, req.validate_only)
                continue
            else:
                raise _Fail(ErrorCode.INVALID_REQUEST, f"Unsupported resource type {r.resource_type}")
            names = [c.name for c in r.configs]
            if len(names) != len(set(names)):
                raise _Fail(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
            for c in r.configs:
                d = defs.get(c.name)
                if d is None and not (r.resource_type == BROKER and c.config_operation in (OP_SET, OP_DELETE)):
                    raise _Fail(ErrorCode.INVALID_CONFIG, f"Unknown config name: {c.name}")
                if c.config_operation == OP_SET:
                    if c.value is None:
                        raise _Fail(ErrorCode.INVALID_REQUEST, f"Null value not supported for : {c.name}")
                    current[c.name] = c.value
                elif c.config_operation == OP_DELETE:
                    current.pop(c.name, None)
                elif c.config_operation in (OP_APPEND, OP_SUBTRACT):
                    assert d is not None   # an unknown name is refused above for these operations
                    if d.type != "list":
                        raise _Fail(ErrorCode.INVALID_CONFIG, f"Config value append is not allowed for config key: {c.name}")
                    if c.name in current:
                        items = [x for x in current[c.name].split(",") if x]
                    elif r.resource_type == TOPIC:
                        items = [x for x in (broker_default(ctx.services.config, d)[0] or "").split(",") if x]
                    else:
                        items = []
                    vals = [x for x in (c.value or "").split(",") if x]
                    if c.config_operation == OP_APPEND:
                        items += [x for x in vals if x not in items]
                    else:
                        items = [x for x in items if x not in vals]
                    current[c.name] = ",".join(items)
                else:
                    raise _Fail(ErrorCode.INVALID_REQUEST, f"Unknown config operation {c.config_operation}")
            if r.resource_type == TOPIC:
                await _apply_topic(ctx, r.resource_name, current, req.validate_only)
            else:
                await _apply_broker(ctx, r.resource_name, current, req.validate_only)
        except _Fail as e:
            res.error_code, res.error_message = e.code, e.message
    return IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=out)


async def _alter_group(ctx: RequestContext, r: IncrementalAlterConfigsRequest.AlterConfigsResource,
                       validate_only: bool) -> None:
    """IncrementalAlterConfigs of a GROUP resource: set or delete overrides."""
    if not r.resource_name:
        raise _Fail(ErrorCode.INVALID_REQUEST, "Group name must not be empty")
    entity = ctx.services.controller.entity_configs
    current = entity.get(group_configs.GROUP_ENTITY_TYPE, r.resource_name)
    for c in r.configs:
        if c.name not in group_configs.ALL_GROUP_CONFIGS:
            raise _Fail(ErrorCode.INVALID_CONFIG, f"Unknown group config name: {c.name}")
        if c.config_operation == OP_SET:
            current[c.name] = c.value  # type: ignore[assignment]  # a null value is group_configs.validate's to refuse
        elif c.config_operation == OP_DELETE:
            current.pop(c.name, None)
        else:
            raise _Fail(ErrorCode.INVALID_CONFIG, f"Config value append is not allowed for config key: {c.name}")
    try:
        group_configs.validate(ctx.services.config, current)
    except group_configs.InvalidGroupConfig as e:
        raise _Fail(ErrorCode.INVALID_CONFIG, str(e)) from None
    if not validate_only:
        try:
            await ctx.services.controller.alter_entity_configs(
                group_configs.GROUP_ENTITY_TYPE, r.resource_name, current)
        except TopicError as e:
            raise _Fail(e.error_code, e.message) from None


HANDLERS = [
    Handler(ApiKey.DESCRIBE_CONFIGS, 0, 4, handle_describe_configs),
    Handler(ApiKey.ALTER_CONFIGS, 0, 2, handle_alter_configs),
    Handler(ApiKey.INCREMENTAL_ALTER_CONFIGS, 0, 1, handle_incremental_alter_configs),
]
