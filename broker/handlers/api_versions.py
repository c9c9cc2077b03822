"""ApiVersions (18): the version ranges of every API this broker implements, read from the
same registry that dispatches requests."""
from __future__ import annotations

from protocol.messages import ApiVersionsResponse

from broker.handler import Handler, RequestContext

UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42


async def handle_api_versions(ctx: RequestContext, req: ApiVersionsRequest) -> ApiVersionsResponse:  # noqa: F821
    keys = [ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, lo, hi in ctx.broker.apis.version_ranges()]
    error = 0
    if ctx.api_version >= 3:
        # Kafka validates the client software name/version (KIP-511) and answers
        # INVALID_REQUEST with the version ranges still listed.
        import re
        pat = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")
        if not (pat.match(req.client_software_name or "") and pat.match(req.client_software_version or "")):
            error = INVALID_REQUEST
    return ApiVersionsResponse(error_code=error, api_keys=keys, throttle_time_ms=0)


HANDLERS = [Handler(18, 0, 4, handle_api_versions)]
