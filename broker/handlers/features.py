"""UpdateFeatures (57): `kafka-features.sh upgrade/downgrade` setting the cluster's
finalized feature levels (broker/features.py keeps them: `/feature` in ZooKeeper, the
metadata file standalone).

Kafka's rules: every update is checked before any is applied; lowering a level needs a
downgrade (v0 `AllowDowngrade`, v1+ `UpgradeType` 2 safe or 3 unsafe), else
INVALID_UPDATE_VERSION; level 0 removes the feature. v0-1 answer per feature, v2 only
with the top-level error.
"""
from __future__ import annotations

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import UpdateFeaturesResponse
from kafpy.protocol.messages import UpdateFeaturesRequest

from kafpy.broker.features import FeatureUpdateError, validate_level
from kafpy.broker.handler import Handler, RequestContext

_UPGRADE = 1


async def handle_update_features(ctx: RequestContext, req: UpdateFeaturesRequest) -> UpdateFeaturesResponse:
    v = ctx.api_version
    store = ctx.services.features

    def answer(error: int, message: str | None, per_feature: dict[str, tuple[int, str | None]]) -> UpdateFeaturesResponse:
        return UpdateFeaturesResponse(throttle_time_ms=0, error_code=error, error_message=message,
                                      results=[UpdateFeaturesResponse.UpdatableFeatureResult(feature=f, error_code=e, error_message=m)
                                               for f, (e, m) in per_feature.items()] if v <= 1 else [])

    if store is None:
        return answer(ErrorCode.FEATURE_UPDATE_FAILED, "features are not kept by this broker", {})
    current = store.current()
    changes: dict[str, int] = {}
    refused: dict[str, tuple[int, str | None]] = {}
    for u in req.feature_updates:
        level = u.max_version_level
        downgrade = u.allow_downgrade if v == 0 else u.upgrade_type != _UPGRADE
        reason = validate_level(u.feature, level) if level > 0 else None
        if reason is None and level < current.level(u.feature) and not downgrade:
            reason = (f"Can not downgrade finalized feature {u.feature} from "
                      f"{current.level(u.feature)} to {level} without a downgrade type")
        if reason is not None:
            refused[u.feature] = (ErrorCode.INVALID_UPDATE_VERSION, reason)
        else:
            changes[u.feature] = level
    if refused:
        results = {f: refused.get(f, (ErrorCode.NONE, None)) for f in
                   [u.feature for u in req.feature_updates]}
        first = next(iter(refused.values()))
        if v <= 1:
            return answer(ErrorCode.NONE, None, results)
        return answer(first[0], first[1], {})
    try:
        await store.update(changes, validate_only=v >= 1 and req.validate_only)
    except FeatureUpdateError as e:
        return answer(e.error_code, str(e), {})
    except Exception as e:  # noqa: BLE001 - a concurrent writer or ZooKeeper trouble
        return answer(ErrorCode.FEATURE_UPDATE_FAILED, f"updating the features failed: {e}", {})
    return answer(ErrorCode.NONE, None, {f: (ErrorCode.NONE, None) for f in changes})


HANDLERS = [Handler(ApiKey.UPDATE_FEATURES, 0, 2, handle_update_features)]
