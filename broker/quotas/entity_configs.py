"""The user and client entity configs a broker knows (``/config/users/...`` and
``/config/clients/...``: quotas, and the SCRAM credentials kept in the same user
entities), and who is told when one changes.

Keeps ``{entity type: {sanitized entity name: {key: value}}}``; an entity whose configs
become empty is dropped. The standalone controller persists this very dict in its
metadata file; the ZooKeeper admin manager fills it from ZooKeeper and ``/config/changes``.
Who may call it: those two controllers (the only writers), and readers such as the quota
handlers; listeners (the broker's ClientQuotas) are called on the event loop after each
change with (entity type, entity name, new configs).
"""
from __future__ import annotations

import logging
from typing import Callable

from kafpy.broker.quotas.entity import CLIENTS, USERS

log = logging.getLogger(__name__)

ENTITY_TYPES = (USERS, CLIENTS)

EntityConfigListener = Callable[[str, str, dict[str, str]], None]


class EntityConfigs:
    def __init__(self, configs: dict[str, dict[str, dict[str, str]]] | None = None) -> None:
        self.by_type: dict[str, dict[str, dict[str, str]]] = configs if configs is not None else {}
        for t in ENTITY_TYPES:
            self.by_type.setdefault(t, {})
        self._listeners: list[EntityConfigListener] = []

    def add_listener(self, listener: EntityConfigListener, replay: bool = True) -> None:
        """Calls ``listener`` on every change from now on, and (``replay``) at once for every
        entity already known."""
        self._listeners.append(listener)
        if replay:
            for entity_type, entities in self.by_type.items():
                for name, configs in list(entities.items()):
                    listener(entity_type, name, dict(configs))

    def get(self, entity_type: str, entity_name: str) -> dict[str, str]:
        return dict(self.by_type.get(entity_type, {}).get(entity_name, {}))

    def entities(self, entity_type: str) -> dict[str, dict[str, str]]:
        return {n: dict(c) for n, c in self.by_type.get(entity_type, {}).items()}

    def set(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
        """Replaces an entity's configs (empty: removes it) and tells the listeners."""
        entities = self.by_type.setdefault(entity_type, {})
        if configs:
            entities[entity_name] = dict(configs)
        else:
            entities.pop(entity_name, None)
        for listener in self._listeners:
            try:
                listener(entity_type, entity_name, dict(configs))
            except Exception:
                log.exception("Applying the configs of %s/%s failed", entity_type, entity_name)
