"""One quota type's accounting (Kafka's ClientQuotaManager): produce bytes, fetch bytes or
request time, per user / client id.

Keeps the configured limits of each entity and one ``Rate`` per metric-tag pair (a
(user, client-id) pair, or one of them alone when the quota is shared by all values of
the other). ``record`` adds a request's value and answers the throttle time the request
earns; pure, the time is passed in. Kafka keeps a rate sensor only while it is used and
drops it after an hour idle: so do we, swept on ``record``. Nothing on disk. Who may call
it: ``kafpy.broker.quotas.ClientQuotas`` (built by the broker), tests.
"""
from __future__ import annotations

from kafpy.broker.quotas.entity import QuotaEntity, entity_level, limit_for_tags, resolve
from kafpy.broker.quotas.rate import Rate, throttle_time_ms

INACTIVE_SENSOR_EXPIRATION_MS = 3600 * 1000


class ClientQuotaManager:
    """Usage and limits of one quota type. ``config_key`` is the entity config it reads
    (``producer_byte_rate``, ``consumer_byte_rate``, ``request_percentage``)."""

    def __init__(self, quota_type: str, config_key: str, samples: int = 11, window_s: int = 1) -> None:
        self.quota_type = quota_type
        self.config_key = config_key
        self.samples = samples
        self.window_ms = window_s * 1000
        self._overrides: dict[QuotaEntity, float] = {}
        self._levels = 0  # which entity levels were ever configured (Kafka's quotaTypesEnabled)
        self._rates: dict[tuple[str, str], Rate] = {}
        self._last_used: dict[tuple[str, str], int] = {}
        self._next_sweep_ms = 0

    @property
    def enabled(self) -> bool:
        """Whether any quota of this type was ever configured (Kafka keeps counting from then
        until a restart, even when every quota is removed again)."""
        return self._levels != 0

    def update_quota(self, entity: QuotaEntity, limit: float | None) -> None:
        """Sets (or with None removes) an entity's limit; takes effect on the next record."""
        self._levels |= entity_level(entity)
        if limit is None:
            self._overrides.pop(entity, None)
        else:
            self._overrides[entity] = float(limit)

    def quota(self, user: str, client_id: str) -> float | None:
        """The limit that applies to this user and client id (None: unlimited)."""
        return resolve(self._overrides, self._levels, user, client_id)[1]

    def record(self, user: str, client_id: str, value: float, now_ms: int) -> int:
        """Counts ``value`` for this user / client id and answers the throttle time in ms (0
        within the quota): Kafka records first, then measures, so a request that crosses
        the bound is the one throttled."""
        if not self._levels:
            return 0
        tags, limit = resolve(self._overrides, self._levels, user, client_id)
        rate = self._rate(tags, now_ms)
        rate.record(value, now_ms)
        if limit is None:
            return 0
        observed = rate.measure(now_ms)
        if observed <= limit:
            return 0
        return throttle_time_ms(observed, limit, rate.window_size_ms(now_ms))

    def unrecord(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Takes back a value recorded for a response that was not sent (a throttled Fetch
        is answered empty), as Kafka records its negative."""
        if self._levels:
            tags, _ = resolve(self._overrides, self._levels, user, client_id)
            self._rate(tags, now_ms).record(-value, now_ms)

    def max_value_in_window(self, user: str, client_id: str) -> float:
        """The most one request may count without being throttled whatever came before
        (Kafka's getMaxValueInQuotaWindow: limit x (samples - 1) x window); Fetch sizes its
        response by it. Infinity when unlimited."""
        if not self._levels:
            return float("inf")
        limit = self.quota(user, client_id)
        if limit is None:
            return float("inf")
        return limit * (self.samples - 1) * self.window_ms / 1000

    def rate(self, user: str, client_id: str, now_ms: int) -> float:
        """The measured rate that would apply to this user / client id now (for tests, tools)."""
        tags, _ = resolve(self._overrides, self._levels, user, client_id)
        r = self._rates.get(tags)
        return r.measure(now_ms) if r is not None else 0.0

    def limit_for_tags(self, user: str, client_id: str) -> float | None:
        return limit_for_tags(self._overrides, user, client_id)

    def _rate(self, tags: tuple[str, str], now_ms: int) -> Rate:
        if now_ms >= self._next_sweep_ms:
            self._sweep(now_ms)
        rate = self._rates.get(tags)
        if rate is None:
            rate = self._rates[tags] = Rate(self.samples, self.window_ms)
        self._last_used[tags] = now_ms
        return rate

    def _sweep(self, now_ms: int) -> None:
        self._next_sweep_ms = now_ms + 60_000
        for tags, used in list(self._last_used.items()):
            if now_ms - used >= INACTIVE_SENSOR_EXPIRATION_MS:
                del self._last_used[tags]
                self._rates.pop(tags, None)
