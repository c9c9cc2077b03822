"""Kafka's ``kafka.request.logger``: at DEBUG one line per completed request (header,
client, principal, listener, timings), at INFO one line per request slower than
``kafpy.request.logger.slow.ms``.

Who may call it: ``metrics.observer.RequestObserver``, once per request. Whether DEBUG is
on is asked of the logger each time (``Logger.isEnabledFor`` caches the answer until levels
change), so with DEBUG off a request costs one dict lookup here; ``kafka-configs.sh
--entity-type broker-loggers`` turns it on and off on a running broker.
"""
from __future__ import annotations

import logging
from typing import Callable, Protocol

REQUEST_LOGGER = "kafka.request.logger"
log = logging.getLogger(REQUEST_LOGGER)


class RequestHeaderView(Protocol):
    """The request header fields a request line shows (``kafpy.protocol``'s RequestHeader)."""

    @property
    def request_api_version(self) -> int: ...
    @property
    def correlation_id(self) -> int: ...
    @property
    def client_id(self) -> str | None: ...


class RequestContextView(Protocol):
    """What the metrics read of a request's context (``kafpy.broker.handler.RequestContext``,
    a floor above, hence a protocol here)."""

    @property
    def header(self) -> RequestHeaderView: ...
    @property
    def principal(self) -> object: ...
    @property
    def connection_id(self) -> str: ...
    @property
    def client_host(self) -> str: ...
    @property
    def client_port(self) -> int: ...
    @property
    def listener(self) -> str: ...


class RequestLogger:
    """Writes request lines to ``kafka.request.logger``. ``slow_ms`` (negative: never) is
    read through ``threshold`` on every request, so a dynamic config change applies at
    once."""

    def __init__(self, threshold: Callable[[], float]) -> None:
        self.threshold = threshold   # () -> slow-request threshold in ms, < 0 for none

    def wanted(self, elapsed_s: float) -> bool:
        """Whether a request that took ``elapsed_s`` gets a line (cheap: asked per request)."""
        if log.isEnabledFor(logging.DEBUG):
            return True
        slow_ms = self.threshold()
        return 0 <= slow_ms <= elapsed_s * 1000.0

    def completed(self, ctx: RequestContextView, api_name: str, total_ms: float, request: object, remote_ms: float = 0.0,
                  throttle_ms: int = 0) -> None:
        """The line of one request, with Kafka's time breakdown (its stages as
        ``metrics.request_metrics.STAGES`` derives them: no queues, the send untimed)."""
        debug = log.isEnabledFor(logging.DEBUG)
        slow_ms = self.threshold()
        slow = 0 <= slow_ms <= total_ms
        if not (debug or slow):
            return
        header = ctx.header
        principal = ctx.principal
        line = ("Completed request:{api=%s, version=%d, correlationId=%d, clientId=%s} from connection %s "
                "(%s:%d);totalTime:%.3f,requestQueueTime:0.000,localTime:%.3f,remoteTime:%.3f,throttleTime:%d,"
                "responseQueueTime:0.000,sendTime:0.000,principal:%s,listener:%s")
        args = (api_name, header.request_api_version, header.correlation_id, header.client_id, ctx.connection_id,
                ctx.client_host, ctx.client_port, total_ms, max(total_ms - remote_ms, 0.0), remote_ms, throttle_ms,
                principal, ctx.listener)
        if slow:
            log.info("Slow request (over %d ms): " + line, slow_ms, *args)
        else:
            log.debug(line, *args)
