"""Where SCRAM credentials live, in Kafka's format: the user's entity config
``{"version":1,"config":{"SCRAM-SHA-256":"salt=...,stored_key=...,server_key=...,iterations=4096"}}``.

- ``ZkUserConfigs``: ``/config/users/<sanitized user>`` in ZooKeeper, each change announced
  with a ``/config/changes`` notification (``users/<user>``) as Kafka's AdminZkClient does.
  A login reads the user's znode afresh (one ZooKeeper read per login) instead of caching
  and following the notifications: every broker sees a change at its next login, and there
  is no cache to keep consistent across session expiries.
- ``FileUserConfigs``: a standalone broker keeps the same per-user configs in
  ``<log.dirs[0]>/user-configs.json`` (written atomically).

Other keys of a user's config (quotas such as ``producer_byte_rate``) are kept untouched.
Who may call it: the SASL session (``refresh`` then ``credential``) and the
Alter/DescribeUserScramCredentials handlers.
"""
from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Protocol

from kafpy.broker.controller import _write_atomically
from kafpy.broker.security.scram import HASHES, ScramCredential

if TYPE_CHECKING:
    from kafpy.replication.zk_client import KafkaZkClient

USERS = "users"
USER_CONFIGS_FILE = "user-configs.json"


def sanitize(name: str) -> str:
    """Kafka's ``Sanitizer.sanitize``: URL-encoding, with ``*`` as %2A and ``~`` encoded (Java
    does, Python's quote does not); how a user name becomes a znode name."""
    return urllib.parse.quote(name, safe="-_.*").replace("*", "%2A").replace("~", "%7E")


def desanitize(name: str) -> str:
    return urllib.parse.unquote(name)


class UserConfigs(Protocol):
    def credential(self, user: str, mechanism: str) -> ScramCredential | None: ...
    async def refresh(self, user: str) -> None: ...
    async def users(self) -> list[str]: ...
    async def scram_configs(self, user: str) -> dict[str, ScramCredential]: ...
    async def alter(self, user: str, upserts: dict[str, ScramCredential], deletions: Iterable[str]) -> None: ...


def _scram_of(config: dict[str, str]) -> dict[str, ScramCredential]:
    out = {}
    for mech in HASHES:
        if mech in config:
            try:
                out[mech] = ScramCredential.from_string(config[mech])
            except ValueError:
                continue
    return out


class _Cached:
    """The credentials last read, per user; what the (synchronous) SCRAM server looks up."""

    def __init__(self) -> None:
        self._cache: dict[str, dict[str, ScramCredential]] = {}

    def credential(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._cache.get(user, {}).get(mechanism)


class ZkUserConfigs(_Cached):
    def __init__(self, zk: "KafkaZkClient") -> None:
        super().__init__()
        self.zk = zk

    async def _config(self, user: str) -> dict[str, str]:
        return await self.zk.get_entity_config(USERS, sanitize(user))

    async def refresh(self, user: str) -> None:
        self._cache[user] = _scram_of(await self._config(user))

    async def users(self) -> list[str]:
        from kafpy.replication.zk_data import config_entity_type_path
        return sorted(desanitize(u) for u in await self.zk.get_children(config_entity_type_path(USERS)))

    async def scram_configs(self, user: str) -> dict[str, ScramCredential]:
        return _scram_of(await self._config(user))

    async def alter(self, user: str, upserts: dict[str, ScramCredential], deletions: Iterable[str]) -> None:
        config = await self._config(user)
        for mech in deletions:
            config.pop(mech, None)
        config.update({m: c.to_string() for m, c in upserts.items()})
        await self.zk.change_entity_config(USERS, sanitize(user), config)
        self._cache[user] = _scram_of(config)


class FileUserConfigs(_Cached):
    def __init__(self, log_dir: str) -> None:
        super().__init__()
        self.path = Path(log_dir) / USER_CONFIGS_FILE
        self._configs: dict[str, dict[str, str]] = {}
        if self.path.exists():
            self._configs = {u: dict(c) for u, c in json.loads(self.path.read_text()).get("users", {}).items()}
        self._cache = {u: _scram_of(c) for u, c in self._configs.items()}

    async def refresh(self, user: str) -> None:
        return None

    async def users(self) -> list[str]:
        return sorted(u for u, c in self._configs.items() if _scram_of(c))

    async def scram_configs(self, user: str) -> dict[str, ScramCredential]:
        return dict(self._cache.get(user, {}))

    async def alter(self, user: str, upserts: dict[str, ScramCredential], deletions: Iterable[str]) -> None:
        config = dict(self._configs.get(user, {}))
        for mech in deletions:
            config.pop(mech, None)
        config.update({m: c.to_string() for m, c in upserts.items()})
        if config:
            self._configs[user] = config
        else:
            self._configs.pop(user, None)
        _write_atomically(self.path, json.dumps({"version": 1, "users": self._configs}, indent=1, sort_keys=True))
        self._cache[user] = _scram_of(config)


def user_configs_store(zk: "KafkaZkClient | None", log_dir: str) -> UserConfigs:
    """ZooKeeper's ``/config/users`` in ZooKeeper mode, else the standalone file."""
    return ZkUserConfigs(zk) if zk is not None else FileUserConfigs(log_dir)
