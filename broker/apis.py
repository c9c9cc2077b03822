"""The registry of request handlers. Dispatch and the ApiVersions answer both read it, so the
broker advertises exactly the APIs and versions it implements."""
from __future__ import annotations

import importlib
import logging

from broker.handler import Handler

log = logging.getLogger(__name__)

# Handler modules, each exporting HANDLERS. A module that is missing (not written yet) is an
# error at startup, not a silent gap in ApiVersions.
HANDLER_MODULES = [
    "broker.handlers.api_versions",
    "broker.handlers.metadata",
    "broker.handlers.produce",
    "broker.handlers.fetch",
    "broker.handlers.offsets",
    "broker.handlers.admin",
    "broker.handlers.configs",
    "broker.handlers.group",
    "broker.txn_markers",
    "broker.handlers.producers",
    "broker.handlers.txn",
    "broker.handlers.acls",
    "broker.handlers.quotas",
    "broker.security.handlers",
]
# Served only by a ZooKeeper-mode broker (a standalone broker is its own controller).
ZK_HANDLER_MODULES = ["broker.handlers.control"]


class ApiRegistry:
    def __init__(self, handlers: list[Handler]) -> None:
        self.by_key: dict[int, Handler] = {}
        for h in handlers:
            if h.api_key in self.by_key:
                raise ValueError(f"two handlers for api key {h.api_key}")
            self.by_key[h.api_key] = h
        self._ranges = sorted((h.api_key, h.min_version, h.max_version) for h in handlers)
        self._names: dict[int, str] = {}

    @classmethod
    def load(cls, modules: list[str] | None = None, zk_mode: bool = False) -> "ApiRegistry":
        handlers: list[Handler] = []
        for name in (modules or HANDLER_MODULES) + (ZK_HANDLER_MODULES if zk_mode else []):
            handlers.extend(importlib.import_module(name).HANDLERS)
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
                from protocol.messages import API_KEYS
                self._names = {k: v.name for k, v in API_KEYS.items()}
            except Exception:
                pass
        return self._names.get(api_key, f"api {api_key}")
