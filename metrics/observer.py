"""The socket server's one per-request hook: ``RequestObserver.completed`` records request
metrics, topic metrics for Produce and Fetch, and the request log line.

Who may call it: ``broker.server.KafkaConnection`` after a handler answered (or raised);
nothing else. Built by the broker when ``kafpy.metrics.enable`` is true (the default);
with it false the server has no observer and pays nothing.
"""
from __future__ import annotations

from typing import Callable, cast

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import error_code_for
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import FetchRequest, FetchResponse, ProduceResponse
from kafpy.metrics.request_logger import RequestContextView, RequestLogger
from kafpy.metrics.request_metrics import FETCH_CONSUMER, FETCH_FOLLOWER, BrokerTopicStats, RequestMetrics

# plain ints for the per-request comparisons (an IntEnum member compares slower than an int)
PRODUCE = int(ApiKey.PRODUCE)
FETCH = int(ApiKey.FETCH)


class RequestObserver:
    """Keeps the broker's ``RequestMetrics`` and ``BrokerTopicStats`` (``topics``: the broker
    hands the same object to its ReplicaManager, which counts produces as it appends them);
    ``names`` gives an API's name (Kafka's: "Produce", "Fetch", ...), ``topic_name`` a
    topic's name from its id."""

    def __init__(self, names: Callable[[int], str], topic_name: Callable[[bytes], str | None],
                 request_logger: RequestLogger) -> None:
        self.requests = RequestMetrics()
        self.topics = BrokerTopicStats()
        self.names = names
        self.topic_name = topic_name
        self.request_logger = request_logger

    def completed(self, ctx: RequestContextView, api_key: int, request: Message,
                  response: Message | BaseException | None, elapsed_s: float,
                  throttle_ms: int = 0, remote_s: float = 0.0) -> None:
        """A request answered with ``response`` (None: no answer, as acks=0) or failed with it
        (an exception), its client throttled for ``throttle_ms`` by a quota, its handler
        waiting ``remote_s`` of ``elapsed_s`` (0: it never waited)."""
        header = ctx.header
        version = header.request_api_version
        record = self.requests.record
        if isinstance(response, BaseException):
            record(api_key, version, elapsed_s, int(error_code_for(response)), remote_s,
                   throttle_ms)
        elif response is None:   # acks=0: no answer, so no error counts (as Kafka's NoOpResponse)
            record(api_key, version, elapsed_s, None, remote_s, throttle_ms)
        elif api_key == PRODUCE:
            # every partition's error, NONE included (Kafka's ProduceResponse.errorCounts);
            # messages and bytes in were counted on the append path (BrokerTopicStats)
            errors = record(api_key, version, elapsed_s, None, remote_s, throttle_ms).errors
            produced = cast(ProduceResponse, response)   # the answer to api_key's request
            codes = [pr.error_code for tr in produced.responses for pr in tr.partition_responses]
            if any(codes):
                for code in codes:
                    errors[code] = errors.get(code, 0) + 1
            elif codes:   # the common answer: one count for all
                errors[0] = errors.get(0, 0) + len(codes)
        elif api_key == FETCH:
            # the top-level error and every partition's (Kafka's FetchResponse.errorCounts)
            fetched, fetch = cast(FetchResponse, response), cast(FetchRequest, request)
            errors = record(api_key, version, elapsed_s, fetched.error_code, remote_s, throttle_ms).errors
            replica_id = fetch.replica_state.replica_id if version >= 15 else fetch.replica_id
            # timed again as FetchFollower or FetchConsumer, as Kafka does
            record(FETCH_FOLLOWER if replica_id >= 0 else FETCH_CONSUMER, version, elapsed_s, None, remote_s,
                   throttle_ms)
            # bytes out per topic and every partition's error code in one pass
            self.topics.on_fetch(fetched, replica_id >= 0, self.topic_name, errors)
        else:
            record(api_key, version, elapsed_s, _top_level_error(response), remote_s, throttle_ms)
        if throttle_ms:
            resource = "Produce" if api_key == PRODUCE else "Fetch" if api_key == FETCH else "Request"
            self.requests.throttled(resource, getattr(ctx.principal, "name", str(ctx.principal)), header.client_id,
                                    throttle_ms)
        logger = self.request_logger
        if logger.wanted(elapsed_s):
            logger.completed(ctx, self.names(api_key), elapsed_s * 1000.0, request, remote_s * 1000.0, throttle_ms)


def _top_level_error(response: Message) -> int:
    """A response's top-level ErrorCode field, 0 for the APIs whose responses have none."""
    return int(getattr(response, "error_code", 0))
