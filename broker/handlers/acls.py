"""CreateAcls (30), DescribeAcls (29), DeleteAcls (31).

Without an authorizer, or with one that keeps no ACLs, every result is SECURITY_DISABLED,
as Kafka answers (MirrorMaker 2's topic-ACL sync tolerates exactly that). Who may call these
(ALTER / DESCRIBE on the cluster) is checked by ``kafpy.broker.authorization`` before they run.
"""
from __future__ import annotations

from typing import overload

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.acl import (AccessControlEntry, AclBinding, AclBindingFilter, AclOperation,
                                 AclPermissionType, PatternType, ResourcePattern, ResourceType,
                                 validate_binding)
from kafpy.broker.security.authorizer import AclManagementDisabled, Authorizer

NO_AUTHORIZER = "No Authorizer is configured."
AclRequest = messages.CreateAclsRequest | messages.DeleteAclsRequest | messages.DescribeAclsRequest
AclResponse = messages.CreateAclsResponse | messages.DeleteAclsResponse | messages.DescribeAclsResponse


@overload
def acl_management_disabled(req: messages.CreateAclsRequest) -> messages.CreateAclsResponse: ...
@overload
def acl_management_disabled(req: messages.DeleteAclsRequest) -> messages.DeleteAclsResponse: ...
@overload
def acl_management_disabled(req: messages.DescribeAclsRequest) -> messages.DescribeAclsResponse: ...


def acl_management_disabled(req: AclRequest) -> AclResponse:
    """Kafka's answer when no authorizer is configured: SECURITY_DISABLED "No Authorizer is
    configured." for every creation or filter (a KRaft controller answers with it too)."""
    if isinstance(req, messages.CreateAclsRequest):
        return messages.CreateAclsResponse(results=[messages.CreateAclsResponse.AclCreationResult(
            error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER) for _ in req.creations])
    if isinstance(req, messages.DeleteAclsRequest):
        return messages.DeleteAclsResponse(filter_results=[messages.DeleteAclsResponse.DeleteAclsFilterResult(
            error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER) for _ in req.filters])
    return messages.DescribeAclsResponse(error_code=ErrorCode.SECURITY_DISABLED, error_message=NO_AUTHORIZER)


def _filter(f: messages.DescribeAclsRequest | messages.DeleteAclsRequest.DeleteAclsFilter, version: int) -> AclBindingFilter:
    return AclBindingFilter(
        ResourceType.of(f.resource_type_filter), f.resource_name_filter,
        PatternType.of(f.pattern_type_filter) if version >= 1 else PatternType.LITERAL,
        f.principal_filter, f.host_filter, AclOperation.of(f.operation),
        AclPermissionType.of(f.permission_type))


async def handle_create_acls(ctx: RequestContext, req: messages.CreateAclsRequest) -> messages.CreateAclsResponse:
    authorizer = ctx.services.authorizer
    bindings: list[AclBinding] = []
    results: list[messages.CreateAclsResponse.AclCreationResult | AclBinding] = []
    for c in req.creations:
        b = AclBinding(
            ResourcePattern(ResourceType.of(c.resource_type), c.resource_name,
                            PatternType.of(c.resource_pattern_type) if ctx.api_version >= 1 else PatternType.LITERAL),
            AccessControlEntry(c.principal, c.host, AclOperation.of(c.operation),
                               AclPermissionType.of(c.permission_type)))
        problem = validate_binding(b)
        results.append(messages.CreateAclsResponse.AclCreationResult(error_code=ErrorCode.INVALID_REQUEST, error_message=problem) if problem else b)
        if not problem:
            bindings.append(b)
    try:
        if authorizer is None:
            raise AclManagementDisabled()
        errors = iter(await authorizer.create_acls(bindings) if bindings else [])
    except AclManagementDisabled:
        return acl_management_disabled(req)
    out = []
    for r in results:
        if isinstance(r, AclBinding):
            err = next(errors)
            r = messages.CreateAclsResponse.AclCreationResult(error_code=ErrorCode.UNKNOWN_SERVER_ERROR if err else ErrorCode.NONE, error_message=err)
        out.append(r)
    return messages.CreateAclsResponse(results=out)


def _group_by_pattern(bindings: list[AclBinding]) -> dict[ResourcePattern, list[AccessControlEntry]]:
    grouped: dict[ResourcePattern, list[AccessControlEntry]] = {}
    for b in sorted(bindings, key=lambda b: (b.pattern.resource_type, b.pattern.name, b.pattern.pattern_type)):
        grouped.setdefault(b.pattern, []).append(b.entry)
    return grouped


async def handle_describe_acls(ctx: RequestContext, req: messages.DescribeAclsRequest) -> messages.DescribeAclsResponse:
    return describe_acls(ctx.services.authorizer, req, ctx.api_version)


def describe_acls(authorizer: Authorizer | None, req: messages.DescribeAclsRequest, version: int
                  ) -> messages.DescribeAclsResponse:
    """The ACLs ``authorizer`` keeps that the request's filter matches (a KRaft controller
    answers from its image through this too)."""
    flt = _filter(req, version)
    try:
        if authorizer is None:
            raise AclManagementDisabled()
        found = authorizer.acls(flt)
    except AclManagementDisabled:
        return acl_management_disabled(req)
    Res = messages.DescribeAclsResponse.DescribeAclsResource
    Desc = messages.DescribeAclsResponse.AclDescription
    resources = [
        Res(resource_type=p.resource_type, resource_name=p.name, pattern_type=p.pattern_type,
            acls=[Desc(principal=e.principal, host=e.host, operation=e.operation, permission_type=e.permission_type)
                  for e in entries])
        for p, entries in _group_by_pattern(found).items()
        # v0 knows literal patterns only
        if version >= 1 or p.pattern_type == PatternType.LITERAL]
    return messages.DescribeAclsResponse(error_code=ErrorCode.NONE, resources=resources)


async def handle_delete_acls(ctx: RequestContext, req: messages.DeleteAclsRequest) -> messages.DeleteAclsResponse:
    FR = messages.DeleteAclsResponse.DeleteAclsFilterResult
    Match = messages.DeleteAclsResponse.DeleteAclsMatchingAcl
    authorizer = ctx.services.authorizer
    filters = [_filter(f, ctx.api_version) for f in req.filters]
    try:
        if authorizer is None:
            raise AclManagementDisabled()
        deleted = await authorizer.delete_acls(filters) if filters else []
    except AclManagementDisabled:
        return acl_management_disabled(req)
    return messages.DeleteAclsResponse(filter_results=[
        FR(error_code=ErrorCode.NONE, matching_acls=[
            Match(error_code=ErrorCode.NONE, resource_type=b.pattern.resource_type, resource_name=b.pattern.name,
                  pattern_type=b.pattern.pattern_type, principal=b.entry.principal, host=b.entry.host,
                  operation=b.entry.operation, permission_type=b.entry.permission_type)
            for b in bindings])
        for bindings in deleted])


HANDLERS = [
    Handler(ApiKey.DESCRIBE_ACLS, 0, 3, handle_describe_acls),
    Handler(ApiKey.CREATE_ACLS, 0, 3, handle_create_acls),
    Handler(ApiKey.DELETE_ACLS, 0, 3, handle_delete_acls),
]
