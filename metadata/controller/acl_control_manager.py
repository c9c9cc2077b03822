"""ACLs, as Kafka's ``AclControlManager`` (the StandardAuthorizer's writes).

Who calls it: the quorum controller for CreateAcls and DeleteAcls. A new ACL gets a
``AccessControlEntryRecord`` under a fresh id from the ``new_uuid`` callable passed in (an
ACL that already exists gets none, and succeeds); DeleteAcls removes every ACL a filter
matches with ``RemoveAccessControlEntryRecord``. The codes are Kafka's (``ResourceType``,
``PatternType``, ``AclOperation``, ``AclPermissionType``); the broker's ``acl`` module has the
same enums, but this floor may not import it."""

from __future__ import annotations

from collections.abc import Callable

from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ApiError, ControllerResult
from kafpy.metadata.image.acls import StandardAcl
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AccessControlEntryRecord,
    CreateAclsRequest,
    CreateAclsResponse,
    DeleteAclsRequest,
    DeleteAclsResponse,
    Message,
    RemoveAccessControlEntryRecord,
)

UNKNOWN, ANY = 0, 1
PATTERN_MATCH, PATTERN_LITERAL, PATTERN_PREFIXED = 2, 3, 4
RESOURCE_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "CLUSTER",
                  5: "TRANSACTIONAL_ID", 6: "DELEGATION_TOKEN", 7: "USER"}
PATTERN_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "MATCH", 3: "LITERAL", 4: "PREFIXED"}
OPERATIONS = {0: "UNKNOWN", 1: "ANY", 2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE",
              7: "ALTER", 8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS",
              11: "ALTER_CONFIGS", 12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS",
              14: "DESCRIBE_TOKENS", 15: "TWO_PHASE_COMMIT"}
PERMISSION_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "DENY", 3: "ALLOW"}
WILDCARD = "*"


def _name(table: dict[int, str], code: int) -> str:
    return table.get(code, "UNKNOWN")


def validate_new_acl(acl: StandardAcl) -> str | None:
    """Kafka's ``AclControlManager.validateNewAcl``: the INVALID_REQUEST message, or None."""
    if acl.pattern_type not in (PATTERN_LITERAL, PATTERN_PREFIXED):
        return f"Invalid patternType {_name(PATTERN_TYPES, acl.pattern_type)}"
    if acl.operation in (UNKNOWN, ANY) or acl.operation not in OPERATIONS:
        return f"Invalid operation {_name(OPERATIONS, acl.operation)}"
    if acl.permission_type in (UNKNOWN, ANY) or acl.permission_type not in PERMISSION_TYPES:
        return f"Invalid permissionType {_name(PERMISSION_TYPES, acl.permission_type)}"
    if acl.resource_type in (UNKNOWN, ANY) or acl.resource_type not in RESOURCE_TYPES:
        return f"Invalid resourceType {_name(RESOURCE_TYPES, acl.resource_type)}"
    if not acl.resource_name:
        return "Resource name should not be empty"
    if ":" not in acl.principal:
        return f"Could not parse principal from `{acl.principal}` (no colon is found)."
    return None


def filter_matches(f: DeleteAclsRequest.DeleteAclsFilter, acl: StandardAcl) -> bool:
    """Kafka's ``AclBindingFilter.matches``: ANY / null match everything; MATCH matches a
    literal of that name, the literal wildcard and any prefix of the name."""
    if f.resource_type_filter != ANY and f.resource_type_filter != acl.resource_type:
        return False
    name = f.resource_name_filter
    if f.pattern_type_filter == PATTERN_MATCH:
        if acl.pattern_type == PATTERN_LITERAL:
            if name is not None and acl.resource_name not in (name, WILDCARD):
                return False
        elif acl.pattern_type == PATTERN_PREFIXED:
            if name is not None and not name.startswith(acl.resource_name):
                return False
        else:
            return False
    else:
        if f.pattern_type_filter != ANY and f.pattern_type_filter != acl.pattern_type:
            return False
        if name is not None and name != acl.resource_name:
            return False
    if f.principal_filter is not None and f.principal_filter != acl.principal:
        return False
    if f.host_filter is not None and f.host_filter != acl.host:
        return False
    if f.operation != ANY and f.operation != acl.operation:
        return False
    return f.permission_type == ANY or f.permission_type == acl.permission_type


class AclControlManager:
    """Reads the ACLs from the image; ``new_uuid`` gives each new ACL its id."""

    def __init__(self, metadata: ControllerMetadata, new_uuid: Callable[[], bytes]) -> None:
        self.metadata = metadata
        self.new_uuid = new_uuid

    def create_acls(self, request: CreateAclsRequest) -> ControllerResult[CreateAclsResponse]:
        existing = set(self.metadata.image.acls.acls.values())
        records: list[Message] = []
        response = CreateAclsResponse()
        for c in request.creations:
            acl = StandardAcl(c.resource_type, c.resource_name, c.resource_pattern_type,
                              c.principal, c.host, c.operation, c.permission_type)
            problem = validate_new_acl(acl)
            if problem is not None:
                response.results.append(CreateAclsResponse.AclCreationResult(
                    error_code=int(ErrorCode.INVALID_REQUEST), error_message=problem))
                continue
            if acl not in existing:
                existing.add(acl)
                records.append(AccessControlEntryRecord(
                    id=self.new_uuid(), resource_type=acl.resource_type,
                    resource_name=acl.resource_name, pattern_type=acl.pattern_type,
                    principal=acl.principal, host=acl.host, operation=acl.operation,
                    permission_type=acl.permission_type))
            response.results.append(CreateAclsResponse.AclCreationResult(error_code=0,
                                                                         error_message=None))
        return ControllerResult.atomic_of(records, response)

    def delete_acls(self, request: DeleteAclsRequest) -> ControllerResult[DeleteAclsResponse]:
        acls = self.metadata.image.acls.acls
        deleted: set[bytes] = set()
        records: list[Message] = []
        response = DeleteAclsResponse()
        R = DeleteAclsResponse
        for f in request.filters:
            error = self._validate_filter(f)
            if error is not None:
                response.filter_results.append(R.DeleteAclsFilterResult(
                    error_code=int(error.error), error_message=error.message))
                continue
            result = R.DeleteAclsFilterResult(error_code=0, error_message=None)
            for acl_id, acl in acls.items():
                if acl_id in deleted or not filter_matches(f, acl):
                    continue
                deleted.add(acl_id)
                records.append(RemoveAccessControlEntryRecord(id=acl_id))
                result.matching_acls.append(R.DeleteAclsMatchingAcl(
                    error_code=0, error_message=None, resource_type=acl.resource_type,
                    resource_name=acl.resource_name, pattern_type=acl.pattern_type,
                    principal=acl.principal, host=acl.host, operation=acl.operation,
                    permission_type=acl.permission_type))
            response.filter_results.append(result)
        return ControllerResult.atomic_of(records, response)

    @staticmethod
    def _validate_filter(f: DeleteAclsRequest.DeleteAclsFilter) -> ApiError | None:
        if (f.resource_type_filter == UNKNOWN or f.pattern_type_filter == UNKNOWN
                or f.resource_type_filter not in RESOURCE_TYPES
                or f.pattern_type_filter not in PATTERN_TYPES):
            return ApiError(ErrorCode.INVALID_REQUEST, "Unknown patternFilter.")
        if (f.operation == UNKNOWN or f.permission_type == UNKNOWN
                or f.operation not in OPERATIONS or f.permission_type not in PERMISSION_TYPES):
            return ApiError(ErrorCode.INVALID_REQUEST, "Unknown entryFilter.")
        return None
