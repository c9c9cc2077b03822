"""Client quotas, as Kafka's ``ClientQuotaControlManager``.

Who calls it: the quorum controller for AlterClientQuotas. Each op on a valid entity becomes
a ``ClientQuotaRecord`` (``remove`` set to delete the key); removing a key that is not set
writes nothing. Entities are (``user`` | ``client-id``) or ``ip``, a null name being the
default of its type; keys and value types are Kafka's ``QuotaConfig`` ones."""

from __future__ import annotations

import ipaddress

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
# key -> must the value be integral (Kafka's LONG) rather than a DOUBLE
USER_CLIENT_KEYS = {"producer_byte_rate": True, "consumer_byte_rate": True,
                    "request_percentage": False, "controller_mutation_rate": False}
IP_KEYS = {"connection_creation_rate": True}


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
        types = {e.entity_type for e in entry.entity}
        allowed = IP_KEYS if IP in types else USER_CLIENT_KEYS
        entity: ClientQuotaEntity = tuple(sorted((e.entity_type, e.entity_name) for e in entry.entity))
        current = self.metadata.image.client_quotas.quotas(entity)
        records: list[Message] = []
        for op in entry.ops:
            integral = allowed.get(op.key)
            if integral is None:
                return ApiError(ErrorCode.INVALID_REQUEST, f"Invalid configuration key {op.key}"), []
            if op.remove:
                if op.key in current:
                    records.append(ClientQuotaRecord(entity=_entity(entry), key=op.key, remove=True))
                continue
            if integral and op.value != int(op.value):
                return ApiError(ErrorCode.INVALID_REQUEST,
                                f"Configuration {op.key} must be a Long value"), []
            if op.value <= 0 and op.key != "controller_mutation_rate":
                return ApiError(ErrorCode.INVALID_REQUEST,
                                f"Invalid value {op.value} for {op.key}: must be positive"), []
            if current.get(op.key) != op.value:
                records.append(ClientQuotaRecord(entity=_entity(entry), key=op.key, value=op.value))
        return ApiError(), records


def _entity(entry: AlterClientQuotasRequest.EntryData) -> list[ClientQuotaRecord.EntityData]:
    return [ClientQuotaRecord.EntityData(entity_type=e.entity_type, entity_name=e.entity_name)
            for e in entry.entity]


def validate_entity(entity: list[AlterClientQuotasRequest.EntityData]) -> ApiError | None:
    """Kafka's ``ClientQuotaControlManager.validateEntity``."""
    if not entity:
        return ApiError(ErrorCode.INVALID_REQUEST, "Invalid empty client quota entity")
    seen: set[str] = set()
    for e in entity:
        if e.entity_type not in (USER, CLIENT_ID, IP):
            return ApiError(ErrorCode.INVALID_REQUEST,
                            f"Unhandled client quota entity type: {e.entity_type}")
        if e.entity_type in seen:
            return ApiError(ErrorCode.INVALID_REQUEST,
                            f"Invalid empty client quota entity, duplicate entity entry {e.entity_type}")
        seen.add(e.entity_type)
        if e.entity_type == IP and e.entity_name is not None:
            try:
                ipaddress.ip_address(e.entity_name)
            except ValueError:
                return ApiError(ErrorCode.INVALID_REQUEST,
                                f"{e.entity_name} is not a valid IP or resolvable host.")
    if IP in seen and len(seen) > 1:
        return ApiError(ErrorCode.INVALID_REQUEST, "Invalid quota entity combination, IP entity "
                        "should not be used with user/client ID entity.")
    return None
