"""The broker's client quotas: the produce, fetch and request quota managers, fed from the
user and client entity configs, and the throttle time each request earns.

Kafka's throttling (KIP-219): the response goes out at once carrying ``throttle_time_ms``,
and the broker then mutes the connection (reads nothing more from it) for that long;
clients that know the version also wait on their side. Kafka does this for every request
version alike (the broker no longer delays old versions' responses; those clients are
held back by the muted channel alone), and so do we.

Keeps in memory the quota values of every entity (its source of truth is the controller's
store: ZooKeeper or the standalone metadata file). Who may call it: the broker builds one
and feeds it entity configs; the socket server asks ``request_throttle_ms``; the Produce
and Fetch handlers ask ``produce_throttle_ms`` / ``fetch_*``; the quota handlers read
``configs``.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.quotas.entity import (CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE, QuotaEntity,
                                  quota_values)
from kafpy.broker.quotas.manager import ClientQuotaManager

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.security.principal import KafkaPrincipal

log = logging.getLogger("kafka.server.ClientQuotaManager")

# Requests brokers and the controller send each other: Kafka exempts them (ClusterAction)
# from the request quota. LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown,
# WriteTxnMarkers, AlterPartition, and Envelope.
EXEMPT_API_KEYS = frozenset({ApiKey.LEADER_AND_ISR, ApiKey.STOP_REPLICA, ApiKey.UPDATE_METADATA,
                             ApiKey.CONTROLLED_SHUTDOWN, ApiKey.WRITE_TXN_MARKERS, ApiKey.ALTER_PARTITION,
                             ApiKey.ENVELOPE})


class QuotaContext(Protocol):
    """What quotas read of a request's context (``kafpy.broker.handler.RequestContext``, which
    itself reaches the quotas through the broker's services)."""

    @property
    def principal(self) -> KafkaPrincipal: ...

    @property
    def client_id(self) -> str: ...


def principal_user(ctx: QuotaContext) -> str:
    """The user name quotas are kept for: the principal's name once the connection has one
    (``ctx.principal``), ANONYMOUS before authentication, as Kafka's session does."""
    return ctx.principal.name


class ClientQuotas:
    """The three quota managers and the entity configs they were built from."""

    def __init__(self, samples: int = 11, window_s: int = 1) -> None:
        self.produce = ClientQuotaManager("Produce", PRODUCER_BYTE_RATE, samples, window_s)
        self.fetch = ClientQuotaManager("Fetch", CONSUMER_BYTE_RATE, samples, window_s)
        self.request = ClientQuotaManager("Request", REQUEST_PERCENTAGE, samples, window_s)
        self._managers = (self.produce, self.fetch, self.request)
        self.configs: dict[QuotaEntity, dict[str, float]] = {}
        # whether any quota was ever configured: the socket server skips all quota work until then
        self.active = False

    @classmethod
    def from_config(cls, config: KafkaConfig) -> "ClientQuotas":
        return cls(config["quota.window.num"], config["quota.window.size.seconds"])

    def apply_entity_config(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
        """A user or client entity's stored configs changed (or were loaded): ``configs`` is
        the whole new set (empty when the entity was removed). Paths that are not quota
        entities are ignored."""
        try:
            entity = QuotaEntity.from_config_path(entity_type, entity_name)
        except ValueError:
            return
        values = quota_values(configs)
        if values == self.configs.get(entity, {}):
            return
        if values:
            self.configs[entity] = values
        else:
            self.configs.pop(entity, None)
        for m in self._managers:
            limit = values.get(m.config_key)
            if limit is not None or m.enabled:
                m.update_quota(entity, limit)
        self.active = any(m.enabled for m in self._managers)
        log.info("Changing quotas for %s to %s", entity, values)

    # -- what requests earn ---------------------------------------------------------------
    def produce_throttle_ms(self, ctx: QuotaContext, request_size: int, now_ms: int) -> int:
        """Throttle time of a Produce of ``request_size`` bytes (the whole request, as Kafka
        counts it)."""
        if not self.produce.enabled:
            return 0
        return self.produce.record(principal_user(ctx), ctx.client_id, request_size, now_ms)

    def fetch_max_bytes(self, ctx: QuotaContext) -> float:
        """The largest response a consumer's Fetch may get (its quota over the window)."""
        if not self.fetch.enabled:
            return float("inf")
        return self.fetch.max_value_in_window(principal_user(ctx), ctx.client_id)

    def fetch_throttle_ms(self, ctx: QuotaContext, response_size: int, now_ms: int) -> int:
        if not self.fetch.enabled:
            return 0
        return self.fetch.record(principal_user(ctx), ctx.client_id, response_size, now_ms)

    def fetch_unrecord(self, ctx: QuotaContext, response_size: int, now_ms: int) -> None:
        self.fetch.unrecord(principal_user(ctx), ctx.client_id, response_size, now_ms)

    def request_throttle_ms(self, ctx: QuotaContext, api_key: int, busy_s: float, now_ms: int) -> int:
        """Throttle time for ``busy_s`` seconds of broker time spent on this client's
        requests, as a percentage of one second (Kafka's request_percentage)."""
        if not self.request.enabled or api_key in EXEMPT_API_KEYS:
            return 0
        return self.request.record(principal_user(ctx), ctx.client_id, busy_s * 100.0, now_ms)
