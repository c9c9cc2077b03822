"""What a response earns under the client quotas, per API as Kafka's KafkaApis decides:

- Produce: the request's size against the produce byte rate, and (unless acks=0, which
  gets no response) the request quota; the larger throttle wins.
- Fetch from a consumer: the response's record bytes against the fetch byte rate, and the
  request quota; a throttled Fetch is answered empty (its bytes taken back from the rate)
  so the client reads again after the throttle time. Followers' fetches are exempt.
- Every other request with a ``throttle_time_ms`` field: the request quota.

``throttle_response`` sets ``throttle_time_ms`` on the response and answers how long the
connection is to be muted. Pure apart from the ClientQuotas it records into. Who may call
it: the socket server, once per request, only while some quota is configured.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.messages import FetchRequest, FetchResponse

from kafpy.broker.quotas.client_quotas import ClientQuotas

if TYPE_CHECKING:
    from kafpy.broker.handler import RequestContext


def throttle_response(quotas: ClientQuotas, ctx: RequestContext, api_key: int, request: Any, response: Any,
                      request_size: int, busy_s: float, now_ms: int) -> int:
    if api_key == ApiKey.PRODUCE:
        bandwidth = quotas.produce_throttle_ms(ctx, request_size, now_ms)
        time_ms = 0 if request.acks == 0 else quotas.request_throttle_ms(ctx, api_key, busy_s, now_ms)
    elif api_key == ApiKey.FETCH:
        if _is_follower(ctx, request):
            return 0
        time_ms = quotas.request_throttle_ms(ctx, api_key, busy_s, now_ms)
        bandwidth = 0
        if response is not None and response.error_code == 0:
            size = fetch_response_size(response)
            bandwidth = quotas.fetch_throttle_ms(ctx, size, now_ms)
            if bandwidth or time_ms:
                quotas.fetch_unrecord(ctx, size, now_ms)
                _empty_fetch_response(request, response)
    else:
        bandwidth = 0
        time_ms = quotas.request_throttle_ms(ctx, api_key, busy_s, now_ms)
    throttle = max(bandwidth, time_ms)
    if throttle and response is not None and hasattr(response, "throttle_time_ms"):
        response.throttle_time_ms = max(response.throttle_time_ms or 0, throttle)
    return throttle


def _is_follower(ctx: RequestContext, request: FetchRequest) -> bool:
    if ctx.api_version >= 15:
        state = request.replica_state
        return state is not None and state.replica_id >= 0
    return request.replica_id >= 0


def fetch_response_size(response: FetchResponse) -> int:
    """The record bytes of a Fetch response (what a consumer's byte rate counts; headers and
    partition fields are a few dozen bytes each and left out). Per partition, not per record."""
    total = 0
    for topic in response.responses:
        for p in topic.partitions:
            records = p.records
            if records is None:
                continue
            size = getattr(records, "size", None)
            total += size if size is not None else len(records)
    return total


def _empty_fetch_response(request: FetchRequest, response: FetchResponse) -> None:
    """Kafka's getThrottledResponse: no partitions; an incremental session keeps its id
    (the partitions stay in it), a full or sessionless fetch answers no session."""
    response.responses = []
    if getattr(request, "session_epoch", 0) <= 0:
        response.session_id = 0
