"""Client quotas, as Kafka's ``ClientQuotaControlManager``.

Who calls it: the quorum controller for AlterClientQuotas. Each op on a valid entity becomes
a ``ClientQuotaRecord`` (``remove`` set to delete the key); removing a key that is not set
writes nothing. Entities are (``user`` | ``client-id``) or ``ip``, a null name being the
default of its type; keys and value types are Kafka's ``QuotaConfig`` ones."""

from __future__ import annotations

import ipaddress
import math

from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ApiError, ControllerResult
from kafpy.metadata.image.client_quotas import ClientQuotaEntity
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterClientQuotasRequest,
    AlterClientQuotasResponse,
    ClientQuotaRecord,
    Message,
)

USER, CLIENT_ID, IP = "user", "client-id", "ip"
# key -> Kafka's config type of its value (QuotaConfig): the largest an integral one may be
LONG_MAX, INT_MAX = 9.223372036854776e18, 2147483647.0
USER_CLIENT_KEYS: dict[str, tuple[str, float] | None] = {
    "producer_byte_rate": ("a LONG", LONG_MAX), "consumer_byte_rate": ("a LONG", LONG_MAX),
    "request_percentage": None, "controller_mutation_rate": None}
IP_KEYS: dict[str, tuple[str, float] | None] = {"connection_creation_rate": ("an INT", INT_MAX)}


class ClientQuotaControlManager:
    """Reads the quotas from the image."""

    def __init__(self, metadata: ControllerMetadata) -> None:
        self.metadata = metadata

    def alter_client_quotas(self, request: AlterClientQuotasRequest
                            ) -> ControllerResult[AlterClientQuotasResponse]:
        records: list[Message] = []
        response = AlterClientQuotasResponse()
        R = AlterClientQuotasResponse
        for entry in request.entries:
            error, entry_records = self._alter(entry)
            response.entries.append(R.EntryData(
                error_code=int(error.error), error_message=error.message,
                entity=[R.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
                        for e in entry.entity]))
            records += entry_records
        if request.validate_only:
            return ControllerResult.of([], response)
        return ControllerResult.atomic_of(records, response)

    def _alter(self, entry: AlterClientQuotasRequest.EntryData) -> tuple[ApiError, list[Message]]:
        error = validate_entity(entry.entity)
        if error is not None:
            return error, []
        # Kafka reads the entity into a map: a type named twice keeps its last name
        names = {e.entity_type: e.entity_name for e in entry.entity}
        allowed = IP_KEYS if IP in names else USER_CLIENT_KEYS
        entity: ClientQuotaEntity = tuple(sorted(names.items()))
        current = self.metadata.image.client_quotas.quotas(entity)
        records: list[Message] = []
        for op in entry.ops:
            if op.key not in allowed:
                return ApiError(ErrorCode.INVALID_REQUEST, f"Invalid configuration key {op.key}"), []
            if op.remove:
                if op.key in current:
                    records.append(ClientQuotaRecord(entity=_entity(names), key=op.key, remove=True))
                continue
            refused = _invalid_value(op.key, op.value, allowed[op.key])
            if refused is not None:
                return ApiError(ErrorCode.INVALID_REQUEST, refused), []
            if current.get(op.key) != op.value:
                records.append(ClientQuotaRecord(entity=_entity(names), key=op.key, value=op.value))
        return ApiError(), records


def _entity(names: dict[str, str | None]) -> list[ClientQuotaRecord.EntityData]:
    return [ClientQuotaRecord.EntityData(entity_type=t, entity_name=n) for t, n in names.items()]


def _invalid_value(key: str, value: float, integral: tuple[str, float] | None) -> str | None:
    """Kafka 4.4's ``validateQuotaKeyValue``: why ``value`` cannot be ``key``'s quota, or None."""
    if not math.isfinite(value):
        return f"Quota {key} must be a finite number"
    if value <= 0:
        return f"Quota {key} must be greater than 0"
    if integral is not None:
        kind, largest = integral
        if value > largest:
            return f"Proposed value for {key} is too large for {kind}."
        if value != math.floor(value):
            return f"{key} cannot be a fractional value."
    return None


def validate_entity(entity: list[AlterClientQuotasRequest.EntityData]) -> ApiError | None:
    """Kafka 4.4's ``validateEntity`` and the entity checks of ``alterClientQuotaEntity``."""
    if not entity:
        return ApiError(ErrorCode.INVALID_REQUEST, "Invalid empty client quota entity")
    seen: dict[str, str | None] = {}
    for e in entity:   # read into a map as Kafka does: a type named twice keeps its last name
        if e.entity_type not in (USER, CLIENT_ID, IP):
            return ApiError(ErrorCode.INVALID_REQUEST,
                            f"Unhandled client quota entity type: {e.entity_type}")
        seen[e.entity_type] = e.entity_name
    for entity_type, name in seen.items():
        if name is not None and not name:
            return ApiError(ErrorCode.INVALID_REQUEST, f"Empty {entity_type} not supported")
    if IP in seen:
        if len(seen) > 1:
            return ApiError(ErrorCode.INVALID_REQUEST, "Invalid quota entity combination, IP entity "
                            "shouldnot be combined with User or ClientId")
        name = seen[IP]
        if name is not None:
            try:
                ipaddress.ip_address(name)
            except ValueError:
                return ApiError(ErrorCode.INVALID_REQUEST, f"{name} is not a valid IP or resolvable host.")
    return None
