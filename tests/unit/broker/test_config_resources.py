"""A resource named more than once in an AlterConfigs request, found and answered in the
request's order (broker/config_resources.py, broker/kraft_forwarding.py)."""
from __future__ import annotations

import asyncio
from typing import Any

from kafpy.broker.config_resources import DUPLICATE_RESOURCE_MESSAGE, duplicated
from kafpy.broker.kraft_forwarding import _answering_duplicates
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode

C = M.IncrementalAlterConfigsRequest
R = M.IncrementalAlterConfigsResponse


def _resource(rtype: int, name: str) -> Any:
    return C.AlterConfigsResource(resource_type=rtype, resource_name=name, configs=[])


def test_every_occurrence_of_a_repeated_resource_is_found() -> None:
    resources = [_resource(2, "a"), _resource(4, ""), _resource(2, "a"), _resource(4, "a"), _resource(2, "b")]
    assert duplicated(resources) == {0, 2}   # same name, other type: not a duplicate
    assert duplicated([]) == set()


def test_a_kraft_broker_forwards_the_rest_and_answers_in_the_request_order() -> None:
    sent: list[list[str]] = []

    async def forward(ctx: Any, request: Any) -> Any:
        sent.append([r.resource_name for r in request.resources])
        return R(throttle_time_ms=0, responses=[R.AlterConfigsResourceResponse(
            error_code=0, error_message=None, resource_type=r.resource_type, resource_name=r.resource_name)
            for r in request.resources])
    handle = _answering_duplicates(forward)
    request = C(validate_only=False, resources=[_resource(2, "t"), _resource(2, "u"), _resource(2, "t"),
                                                _resource(4, "")])
    response: Any = asyncio.run(handle(None, request))   # type: ignore[arg-type]
    assert sent == [["u", ""]]
    assert [(x.resource_name, x.error_code, x.error_message) for x in response.responses] == [
        ("t", ErrorCode.INVALID_REQUEST, DUPLICATE_RESOURCE_MESSAGE), ("u", 0, None),
        ("t", ErrorCode.INVALID_REQUEST, DUPLICATE_RESOURCE_MESSAGE), ("", 0, None)]
    # only duplicates: nothing is forwarded
    response = asyncio.run(handle(None, C(validate_only=False, resources=[_resource(2, "t"), _resource(2, "t")])))  # type: ignore[arg-type]
    assert sent == [["u", ""]] and [x.error_code for x in response.responses] == [42, 42]
    # no duplicates: the request goes as it came
    asyncio.run(handle(None, C(validate_only=False, resources=[_resource(2, "v")])))  # type: ignore[arg-type]
    assert sent[-1] == ["v"]
