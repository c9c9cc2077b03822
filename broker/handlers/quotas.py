"""DescribeClientQuotas (48) and AlterClientQuotas (49): the user and client-id quota
entities, read from and written to the controller's entity configs (ZooKeeper's
``/config/users`` and ``/config/clients``, or the standalone metadata file), as Kafka's
ZkAdminManager serves them. Other keys of the same entities (SCRAM credentials) are
neither shown nor touched."""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterClientQuotasResponse, DescribeClientQuotasResponse
from kafpy.protocol.messages import AlterClientQuotasRequest, DescribeClientQuotasRequest
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.metadata_cache import TopicError
from kafpy.broker.quotas.entity import (CLIENT_ID_TYPE, CLIENTS, DEFAULT, IP_TYPE, QUOTA_KEYS, USER_TYPE, USERS,
                                  QuotaEntity, format_quota_value, quota_values)

log = logging.getLogger(__name__)

MATCH_EXACT = 0
MATCH_DEFAULT = 1
MATCH_ANY = 2


class InvalidQuotaRequest(ValueError):
    """Answered INVALID_REQUEST with this message."""


def parse_entity(components: list[tuple[str, str | None]]) -> QuotaEntity:
    """Kafka's parseAndSanitizeQuotaEntity: at most one user and one client-id part; a null
    name is the default entity."""
    user = client_id = None
    for entity_type, name in components:
        value = DEFAULT if name is None else name
        if entity_type == USER_TYPE:
            if user is not None:
                raise InvalidQuotaRequest("Duplicate user entity in quota entity")
            user = value
        elif entity_type == CLIENT_ID_TYPE:
            if client_id is not None:
                raise InvalidQuotaRequest("Duplicate client-id entity in quota entity")
            client_id = value
        elif entity_type == IP_TYPE:
            raise InvalidQuotaRequest("IP connection rate quotas are not supported by this broker")
        else:
            raise InvalidQuotaRequest(f"Unhandled client quota entity type: {entity_type}")
    if user is None and client_id is None:
        raise InvalidQuotaRequest("Invalid empty client quota entity")
    return QuotaEntity(user, client_id)


def altered_configs(current: dict[str, str], ops: list[tuple[str, float, bool]]) -> dict[str, str]:
    """An entity's configs after the ops (key, value, remove); InvalidQuotaRequest for an
    unknown key, a long key given a fraction, or a value that is not positive."""
    out = dict(current)
    for key, value, remove in ops:
        if key not in QUOTA_KEYS:
            raise InvalidQuotaRequest(f"Invalid configuration key {key}")
        if remove:
            out.pop(key, None)
            continue
        if not value > 0:
            raise InvalidQuotaRequest(f"Quota {key} must be greater than 0")
        try:
            out[key] = format_quota_value(key, value)
        except ValueError as e:
            raise InvalidQuotaRequest(str(e)) from None
    return out


def _matches(entity: QuotaEntity, components: list[tuple[str, int, str | None]], strict: bool) -> bool:
    parts = {USER_TYPE: entity.user, CLIENT_ID_TYPE: entity.client_id}
    for entity_type, match_type, match in components:
        name = parts.get(entity_type)
        if name is None:
            return False
        if match_type == MATCH_EXACT and name != match:
            return False
        if match_type == MATCH_DEFAULT and name != DEFAULT:
            return False
    if strict:
        present = {t for t, n in parts.items() if n is not None}
        return present == {c[0] for c in components}
    return True


def describe_entities(entity_configs: EntityConfigs, components: list[tuple[str, int, str | None]],
                      strict: bool) -> list[tuple[QuotaEntity, dict[str, float]]]:
    """The quota entities matching the filter with their quota values (Kafka's
    describeClientQuotas); InvalidQuotaRequest for a bad filter."""
    seen: set[str] = set()
    for entity_type, match_type, match in components:
        if entity_type not in (USER_TYPE, CLIENT_ID_TYPE):
            raise InvalidQuotaRequest(f"Unexpected quota entity type: {entity_type}")
        if entity_type in seen:
            raise InvalidQuotaRequest(f"Duplicate {entity_type} filter component entity type")
        seen.add(entity_type)
        if match_type not in (MATCH_EXACT, MATCH_DEFAULT, MATCH_ANY):
            raise InvalidQuotaRequest(f"Unexpected match type: {match_type}")
        if match_type == MATCH_EXACT and match is None:
            raise InvalidQuotaRequest("Exact match requires a non-null name")
    out = []
    for entity_type in (USERS, CLIENTS):
        for name, configs in sorted(entity_configs.entities(entity_type).items()):
            try:
                entity = QuotaEntity.from_config_path(entity_type, name)
            except ValueError:
                continue
            values = quota_values(configs)
            if values and _matches(entity, components, strict):
                out.append((entity, values))
    return out


async def handle_describe_client_quotas(ctx: RequestContext, req: DescribeClientQuotasRequest) -> DescribeClientQuotasResponse:
    components = [(c.entity_type, c.match_type, c.match) for c in req.components]
    try:
        found = describe_entities(ctx.services.controller.entity_configs, components, req.strict)
    except InvalidQuotaRequest as e:
        return DescribeClientQuotasResponse(throttle_time_ms=0, error_code=ErrorCode.INVALID_REQUEST, error_message=str(e), entries=None)
    entries = [DescribeClientQuotasResponse.EntryData(entity=[DescribeClientQuotasResponse.EntityData(entity_type=t, entity_name=n) for t, n in entity.components()],
                                                      values=[DescribeClientQuotasResponse.ValueData(key=k, value=v) for k, v in sorted(values.items())])
               for entity, values in found]
    return DescribeClientQuotasResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, entries=entries)


async def handle_alter_client_quotas(ctx: RequestContext, req: AlterClientQuotasRequest) -> AlterClientQuotasResponse:
    controller = ctx.services.controller
    out = []
    for entry in req.entries:
        error, message = ErrorCode.NONE, None
        try:
            entity = parse_entity([(e.entity_type, e.entity_name) for e in entry.entity])
            entity_type, name = entity.config_path()
            # read as stored, not from this broker's cache (Kafka's fetchEntityConfig)
            current = await controller.fetch_entity_configs(entity_type, name)
            new = altered_configs(current, [(op.key, op.value, op.remove) for op in entry.ops])
            if not req.validate_only and new != current:
                await controller.alter_entity_configs(entity_type, name, new)
        except InvalidQuotaRequest as e:
            error, message = ErrorCode.INVALID_REQUEST, str(e)
        except TopicError as e:   # the store failed (ZooKeeper, the metadata file)
            error, message = e.error_code, e.message
        out.append(AlterClientQuotasResponse.EntryData(error_code=error, error_message=message,
                                                       entity=[AlterClientQuotasResponse.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
                                                               for e in entry.entity]))
    return AlterClientQuotasResponse(throttle_time_ms=0, entries=out)


HANDLERS = [
    Handler(ApiKey.DESCRIBE_CLIENT_QUOTAS, 0, 1, handle_describe_client_quotas),
    Handler(ApiKey.ALTER_CLIENT_QUOTAS, 0, 1, handle_alter_client_quotas),
]
