"""Which destinations the core may send to now (Kafka's ``RequestManager``): one request in
flight per destination, a request timeout after which it counts as failed, and a retry
backoff after a failure. Responses that are no longer expected (timed out, or sent before a
state change reset everything) are recognised by their correlation id and dropped."""
from __future__ import annotations


class RequestManager:
    """Keeps (correlation id, deadline) per destination in flight and the backoff ends."""

    def __init__(self, request_timeout_ms: int, retry_backoff_ms: int) -> None:
        self.request_timeout_ms = request_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self._in_flight: dict[int, tuple[int, int]] = {}
        self._backoff_until: dict[int, int] = {}

    def expire(self, now_ms: int) -> None:
        """Requests past their timeout fail (and back off)."""
        for destination, (_, deadline) in list(self._in_flight.items()):
            if now_ms >= deadline:
                del self._in_flight[destination]
                self._backoff_until[destination] = now_ms + self.retry_backoff_ms

    def is_ready(self, destination: int, now_ms: int) -> bool:
        return destination not in self._in_flight and now_ms >= self._backoff_until.get(destination, 0)

    def next_deadline(self) -> int | None:
        """The earliest request timeout or backoff end still ahead, if any."""
        times = [deadline for _, deadline in self._in_flight.values()] + list(self._backoff_until.values())
        return min(times) if times else None

    def has_any_in_flight(self) -> bool:
        return bool(self._in_flight)

    def on_send(self, destination: int, correlation_id: int, now_ms: int) -> None:
        self._in_flight[destination] = (correlation_id, now_ms + self.request_timeout_ms)

    def on_response(self, destination: int, correlation_id: int, now_ms: int) -> bool:
        """True when this is the answer we wait for from ``destination``."""
        pending = self._in_flight.get(destination)
        if pending is None or pending[0] != correlation_id:
            return False
        del self._in_flight[destination]
        return True

    def on_failure(self, destination: int, now_ms: int) -> None:
        self._backoff_until[destination] = now_ms + self.retry_backoff_ms

    def reset_all(self) -> None:
        self._in_flight.clear()
        self._backoff_until.clear()
