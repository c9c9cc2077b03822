"""The registry of request handlers. Dispatch and the ApiVersions answer both read it, so the
broker advertises exactly the APIs and versions it implements."""
from __future__ import annotations

import logging

from types import ModuleType

from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler
from kafpy.broker.handlers import (
    acls, admin, api_versions, configs, consumer_group, control, credentials, features, fetch, group, metadata,
    offsets, produce, producers, quotas, share, share_group, share_state, standalone, streams_group, txn, txn_markers)

log = logging.getLogger(__name__)

# Every handler lives under broker/handlers/ and is registered here by an explicit import: a
# module not listed serves nothing, and importing one has no side effect on the registry.
HANDLER_MODULES: list[ModuleType] = [
    api_versions, metadata, produce, fetch, offsets, admin, configs, group, features, consumer_group,
    share_group, share, streams_group, txn_markers, producers, txn, share_state, acls, quotas, credentials,
]
# Served only by a ZooKeeper-mode broker (a standalone broker is its own controller).
ZK_HANDLER_MODULES: list[ModuleType] = [control]
# Served only by a standalone broker, as its own controller (a KRaft broker forwards them).
STANDALONE_HANDLER_MODULES: list[ModuleType] = [standalone]


class ApiRegistry:
    """The handlers by ``ApiKey``. Built once at startup; the socket server looks a handler up
    per request, ApiVersions reads the version ranges.

    ``by_key`` is keyed by the plain ``int`` of each ``ApiKey``: the key read from a request
    header is an ``int``, and an ``int`` key finds an ``int`` key without the enum's slower
    equality check, so dispatch costs what it did before names."""

    def __init__(self, handlers: list[Handler]) -> None:
        self.by_key: dict[int, Handler] = {}
        for h in handlers:
            if not isinstance(h.api_key, ApiKey):
                raise TypeError(f"handler {h.func.__name__} is registered under {h.api_key!r}, not an ApiKey")
            if h.api_key in self.by_key:
                raise ValueError(f"two handlers for api key {h.api_key.name}")
            self.by_key[int(h.api_key)] = h
        self._ranges = sorted((int(h.api_key), h.min_version, h.max_version) for h in handlers)
        self._names: dict[int, str] = {}

    @classmethod
    def load(cls, modules: list[ModuleType] | None = None, zk_mode: bool = False) -> "ApiRegistry":
        handlers: list[Handler] = []
        extra = ZK_HANDLER_MODULES if zk_mode else STANDALONE_HANDLER_MODULES if modules is None else []
        for module in (modules or HANDLER_MODULES) + extra:
            handlers.extend(module.HANDLERS)
        return cls(handlers)

    def handler_for(self, api_key: int, version: int) -> Handler | None:
        h = self.by_key.get(api_key)
        if h is None or not h.min_version <= version <= h.max_version:
            return None
        return h

    def version_ranges(self) -> list[tuple[int, int, int]]:
        return list(self._ranges)

    def name(self, api_key: int) -> str:
        if not self._names:
            try:
                from kafpy.protocol.messages import API_KEYS
                self._names = {k: v.name for k, v in API_KEYS.items()}
            except ImportError:  # the generated module missing: the number is the name
                pass
        return self._names.get(api_key, f"api {api_key}")
