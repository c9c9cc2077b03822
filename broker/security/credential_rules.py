"""Authorization of the SCRAM credential APIs, as Kafka's KafkaApis checks them:
DescribeUserScramCredentials (50) needs DESCRIBE on the cluster, AlterUserScramCredentials
(51) ALTER on the cluster; refused, every user named in the request is answered
CLUSTER_AUTHORIZATION_FAILED (Kafka's ``getErrorResponse`` of each request).

Who may call it: ``kafpy.broker.authorization_rules`` puts these rules in the per-API table.
"""
from __future__ import annotations

from typing import Any

from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.authz_check import AuthzCheck, Next, Rule
from kafpy.broker.handler import RequestContext
from kafpy.broker.security.acl import AclOperation as Op

REFUSED = ErrorCode.CLUSTER_AUTHORIZATION_FAILED
MESSAGE = "Cluster authorization failed."


async def describe_user_scram_credentials(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.DESCRIBE):
        return await func(ctx, req)
    R = M.DescribeUserScramCredentialsResponse
    return R(error_code=REFUSED, error_message=MESSAGE, results=[
        R.DescribeUserScramCredentialsResult(user=u.name, error_code=REFUSED, error_message=MESSAGE)
        for u in req.users or []])


async def alter_user_scram_credentials(az: AuthzCheck, ctx: RequestContext, req: Any, func: Next) -> Any:
    if az.cluster(Op.ALTER):
        return await func(ctx, req)
    R = M.AlterUserScramCredentialsResponse
    users = sorted({u.name for u in req.deletions} | {u.name for u in req.upsertions})
    return R(results=[R.AlterUserScramCredentialsResult(user=u, error_code=REFUSED, error_message=MESSAGE)
                      for u in users])


def credential_rules() -> dict[ApiKey, Rule]:
    return {
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS: describe_user_scram_credentials,
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS: alter_user_scram_credentials,
    }
