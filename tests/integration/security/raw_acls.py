"""CreateAcls and DeleteAcls sent raw through the project's codec, for tests that change
ACLs without starting a JVM tool."""
from __future__ import annotations

from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from tests.integration.broker.raw import RawConnection

ANON = "User:ANONYMOUS"
TOPIC, GROUP = 2, 3
LITERAL, PREFIXED = 3, 4
ANY, READ, DESCRIBE = 1, 3, 8
DENY, ALLOW = 2, 3


def create_acl(broker, resource_type: int, name: str, operation: int, permission: int,
               pattern_type: int = LITERAL, principal: str = ANON) -> None:
    C = M.CreateAclsRequest
    with RawConnection(broker.host, broker.port) as c:
        resp = c.request(30, 3, C(creations=[C.AclCreation(
            resource_type=resource_type, resource_name=name, resource_pattern_type=pattern_type,
            principal=principal, host="*", operation=operation, permission_type=permission)]))
    assert [r.error_code for r in resp.results] == [ErrorCode.NONE], resp.results


def delete_acls(broker, resource_type: int, name: str, pattern_type: int = LITERAL) -> int:
    """Deletes every ACL of the pattern; how many there were."""
    D = M.DeleteAclsRequest
    with RawConnection(broker.host, broker.port) as c:
        resp = c.request(31, 3, D(filters=[D.DeleteAclsFilter(
            resource_type_filter=resource_type, resource_name_filter=name, pattern_type_filter=pattern_type,
            principal_filter=None, host_filter=None, operation=ANY, permission_type=ANY)]))
    (result,) = resp.filter_results
    assert result.error_code == ErrorCode.NONE, result.error_message
    return len(result.matching_acls)


def topic_acls(broker) -> set[tuple[str, str, str, int, int]]:
    """Every literal topic ACL: (topic, principal, host, operation, permission)."""
    with RawConnection(broker.host, broker.port) as c:
        resp = c.request(29, 3, M.DescribeAclsRequest(
            resource_type_filter=TOPIC, resource_name_filter=None, pattern_type_filter=LITERAL,
            principal_filter=None, host_filter=None, operation=ANY, permission_type=ANY))
    assert resp.error_code == ErrorCode.NONE, resp.error_message
    return {(r.resource_name, a.principal, a.host, a.operation, a.permission_type)
            for r in resp.resources for a in r.acls}
