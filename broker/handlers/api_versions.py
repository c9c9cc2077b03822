"""ApiVersions (18): the version ranges of every API this broker implements, read from the
same registry that dispatches requests.

Versions 0-5: v5 (KIP-1242, beyond our checked-in specs; ``kafpy.protocol.codec`` carries it) lets
a client name the cluster and node it means to reach; when it names a cluster,
another cluster id or node id answers REBOOTSTRAP_REQUIRED, so a client whose metadata points
at the wrong broker starts over.
Java 4.2+ clients open every connection with v5.

From v3 the answer also carries the features (broker/features.py): the levels this broker
supports and the cluster's finalized levels with their epoch, which Kafka 4.x clients and
`kafka-features.sh describe` read. APIs a feature gates (ConsumerGroupHeartbeat/Describe
need group.version 1) are listed only while the feature is finalized at that level."""
from __future__ import annotations

import re

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ApiVersionsRequest, ApiVersionsResponse
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.features import FinalizedFeatures, KRaftFeatures, supported_features
from kafpy.broker.handler import Handler, RequestContext

_SOFTWARE_NAME = re.compile(r"^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$")


async def handle_api_versions(ctx: RequestContext, req: ApiVersionsRequest) -> ApiVersionsResponse:
    features = ctx.services.features
    finalized = features.current() if features is not None else FinalizedFeatures()
    keys = [ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, lo, hi in ctx.services.apis.version_ranges() if finalized.enables(k)]
    error = ErrorCode.NONE
    if ctx.api_version >= 3:
        # Kafka validates the client software name/version (KIP-511) and answers
        # INVALID_REQUEST with the version ranges still listed.
        if not (_SOFTWARE_NAME.match(req.client_software_name or "")
                and _SOFTWARE_NAME.match(req.client_software_version or "")):
            error = ErrorCode.INVALID_REQUEST
    if ctx.api_version >= 5 and not error:
        # As Kafka: checked only when the client names a cluster; then the node must match too.
        if req.cluster_id is not None and (req.cluster_id != ctx.services.metadata_cache.cluster_id
                                           or req.node_id != ctx.services.broker_id):
            return ApiVersionsResponse(error_code=ErrorCode.REBOOTSTRAP_REQUIRED, api_keys=[], throttle_time_ms=0)
    response = ApiVersionsResponse(error_code=error, api_keys=keys, throttle_time_ms=0)
    if ctx.api_version >= 3:
        supported = supported_features()
        if isinstance(features, KRaftFeatures):
            supported = features.supported
            if ctx.api_version < 4:
                # KIP-1022, as Kafka 4.4's KRaft broker: a client before v4 may not read a
                # supported range starting at 0, so those ranges are left out for it
                supported = {n: r for n, r in supported.items() if r[0] != 0}
        response.supported_features = [
            ApiVersionsResponse.SupportedFeatureKey(name=n, min_version=lo, max_version=hi)
            for n, (lo, hi) in supported.items()]
        response.finalized_features_epoch = finalized.epoch
        response.finalized_features = [
            ApiVersionsResponse.FinalizedFeatureKey(name=n, max_version_level=lv, min_version_level=lv)
            for n, lv in finalized.levels.items()]
    return response


HANDLERS = [Handler(ApiKey.API_VERSIONS, 0, 5, handle_api_versions)]
