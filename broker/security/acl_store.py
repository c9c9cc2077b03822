"""Where the ACLs live: ZooKeeper (as Kafka's ZkAclStore lays them out, so every broker of a
cluster, and Apache Kafka's own tools, see the same ACLs) or, standalone, the broker's
metadata file beside the topics.

``ZkAclStore`` keeps nothing itself: each pattern's entries are the znode
``/kafka-acl/<Type>/<name>`` (prefixed: ``/kafka-acl-extended/prefixed/<Type>/<name>``), updated
with a version check and retried when another broker wrote in between; every update then
creates an ``acl_changes_<seq>`` notification, and every broker watches the change paths and
reloads the named pattern, so a change made on one broker is seen at once by all.
``LocalAclStore`` holds the ACLs in memory and hands the whole set to ``persist`` (the
StandaloneController's state file) before an update is answered.

Who may call it: the authorizer, on the event loop.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from kazoo.exceptions import BadVersionError, NodeExistsError

from kafpy.broker.security.acl import (AccessControlEntry, AclOperation, AclPermissionType, PatternType,
                                 ResourcePattern, ResourceType)
from kafpy.protocol.json_value import JsonObject, JsonValue, as_array, as_object
from kafpy.replication import zk_data as zd

if TYPE_CHECKING:
    from kafpy.replication.zk_client import KafkaZkClient

log = logging.getLogger("kafka.security.authorizer.AclAuthorizer")

Entries = frozenset[AccessControlEntry]
OnChange = Callable[[ResourcePattern, Entries], None]
STORED_TYPES = (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER,
                ResourceType.TRANSACTIONAL_ID, ResourceType.DELEGATION_TOKEN, ResourceType.USER)


def entry_to_json(e: AccessControlEntry) -> dict[str, str]:
    return {"principal": e.principal, "permissionType": e.permission_type.zk_name,
            "operation": e.operation.zk_name, "host": e.host}


def _text(v: JsonValue, what: str) -> str:
    """A stored section's string field; ValueError when the file holds something else."""
    if not isinstance(v, str):
        raise ValueError(f"{what} must be a JSON string, not {type(v).__name__}")
    return v


def _entry_from_section(a: JsonValue) -> AccessControlEntry:
    """One entry of a standalone broker's stored section (``entry_to_json``'s shape)."""
    d = as_object(a, "an ACL entry")
    return entry_from_json({k: _text(v, k) for k, v in d.items()})


def entry_from_json(d: dict[str, str]) -> AccessControlEntry:
    return AccessControlEntry(d["principal"], d["host"], AclOperation.from_zk_name(d["operation"]),
                              AclPermissionType.from_zk_name(d["permissionType"]))


class LocalAclStore:
    """ACLs of a standalone broker. ``persist(sections)`` stores the whole list (JSON-ready:
    ``[{"resourceType", "name", "patternType", "acls": [...]}]``) and is awaited before an
    update returns."""

    def __init__(self, initial: list[JsonObject],
                 persist: Callable[[list[JsonObject]], Awaitable[None]]) -> None:
        self._acls: dict[ResourcePattern, Entries] = {}
        for section in initial:
            pattern = ResourcePattern(ResourceType.from_zk_name(_text(section["resourceType"], "resourceType")),
                                      _text(section["name"], "name"),
                                      PatternType.from_zk_name(_text(section["patternType"], "patternType")))
            self._acls[pattern] = frozenset(_entry_from_section(a) for a in as_array(section["acls"], "acls"))
        self._persist = persist
        self._on_change: OnChange | None = None
        self._lock = asyncio.Lock()

    async def start(self, on_change: OnChange) -> None:
        self._on_change = on_change
        for pattern, entries in self._acls.items():
            on_change(pattern, entries)

    async def update(self, pattern: ResourcePattern,
                     fn: Callable[[Entries], Entries]) -> tuple[Entries, Entries]:
        async with self._lock:  # one write at a time, in order
            old = self._acls.get(pattern, frozenset())
            new = frozenset(fn(old))
            if new == old:
                return old, new
            if new:
                self._acls[pattern] = new
            else:
                self._acls.pop(pattern, None)
            await self._persist(self.sections())
        if self._on_change is not None:
            self._on_change(pattern, new)
        return old, new

    def sections(self) -> list[JsonObject]:
        return [{"resourceType": p.resource_type.zk_name, "name": p.name, "patternType": p.pattern_type.zk_name,
                 "acls": _json_entries(entries)}
                for p, entries in sorted(self._acls.items(), key=lambda kv: (kv[0].resource_type, kv[0].name,
                                                                           kv[0].pattern_type))]

    async def close(self) -> None:
        pass


def _json_entries(entries: Entries) -> list[JsonValue]:
    """A section's entries as stored, in a stable order."""
    return [{k: v for k, v in d.items()} for d in sorted((entry_to_json(e) for e in entries), key=lambda d: sorted(d.items()))]


class ZkAclStore:
    """ACLs in ZooKeeper (``zk`` is a ``kafpy.replication.zk_client.KafkaZkClient``); ``clock`` in
    seconds ages notifications for purging."""

    def __init__(self, zk: KafkaZkClient, clock: Callable[[], float]) -> None:
        self.zk = zk
        self.clock = clock
        self._on_change: OnChange | None = None
        self._seen = {zd.ACL_CHANGES_PATH: -1, zd.EXTENDED_ACL_CHANGES_PATH: -1}
        self._processing: dict[str, asyncio.Task] = {}
        self._again: set[str] = set()
        # one watcher object per path, so re-arming never doubles a watch
        self._watchers = {p: (lambda _event, p=p: self._schedule(p)) for p in self._seen}
        self._closed = False

    async def start(self, on_change: OnChange) -> None:
        """Create the paths, note the notifications already there (what they announce is in
        the full load), arm the change watches, then load every ACL."""
        self._on_change = on_change
        paths = [zd.ACL_CHANGES_PATH, zd.EXTENDED_ACL_CHANGES_PATH]
        for root in (zd.ACL_PATH, zd.EXTENDED_ACL_PATH):
            paths.extend(f"{root}/{t.zk_name}" for t in STORED_TYPES)
        await asyncio.gather(*(self.zk.ensure_path(p) for p in paths))
        for change_path in self._seen:
            children = await self.zk.get_children(change_path, self._watcher(change_path))
            self._seen[change_path] = max((self._seq(c) for c in children), default=-1)
        loads = []
        for prefixed in (False, True):
            for t in STORED_TYPES:
                root = zd.EXTENDED_ACL_PATH if prefixed else zd.ACL_PATH
                for name in await self.zk.get_children(f"{root}/{t.zk_name}"):
                    loads.append(ResourcePattern(t, name, PatternType.PREFIXED if prefixed else PatternType.LITERAL))
        for pattern, (entries, _) in zip(loads, await asyncio.gather(*(self._read(p) for p in loads))):
            on_change(pattern, entries)

    async def close(self) -> None:
        """Stops reading notifications: later watch events are ignored (a ZooKeeper watch
        cannot be taken back) and the reads in flight are cancelled and awaited."""
        self._closed = True
        tasks = [t for t in self._processing.values() if not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._processing.clear()

    @staticmethod
    def _seq(child: str) -> int:
        try:
            return zd.sequence_number(child, zd.ACL_CHANGE_PREFIX)
        except (zd.ZkDataError, ValueError):
            return -1

    @staticmethod
    def _path(p: ResourcePattern) -> str:
        return zd.acl_resource_path(p.pattern_type == PatternType.PREFIXED, p.resource_type.zk_name, p.name)

    async def _read(self, pattern: ResourcePattern) -> tuple[Entries, int | None]:
        data, stat = await self.zk.get_data(self._path(pattern))
        if stat is None:
            return frozenset(), None
        return frozenset(entry_from_json(a) for a in zd.decode_acls(data)), stat.version

    async def update(self, pattern: ResourcePattern,
                     fn: Callable[[Entries], Entries]) -> tuple[Entries, Entries]:
        """Read, apply ``fn``, write back at the read version (retrying on a concurrent
        write), then announce the change."""
        path = self._path(pattern)
        while True:
            old, version = await self._read(pattern)
            new = frozenset(fn(old))
            if new == old:
                return old, new
            try:
                if not new:
                    assert version is not None   # old was not empty, so its node was read
                    await self.zk.conditional_delete(path, version)
                else:
                    data = zd.encode_acls(entry_to_json(e) for e in sorted(new, key=str))
                    await self.zk.conditional_set_or_create(path, data, version)
                break
            except (BadVersionError, NodeExistsError):
                continue
        if pattern.pattern_type == PatternType.LITERAL:
            await self.zk.create_sequential(f"{zd.ACL_CHANGES_PATH}/{zd.ACL_CHANGE_PREFIX}",
                                            zd.encode_literal_acl_change(pattern.resource_type.name, pattern.name))
        else:
            await self.zk.create_sequential(
                f"{zd.EXTENDED_ACL_CHANGES_PATH}/{zd.ACL_CHANGE_PREFIX}",
                zd.encode_extended_acl_change(pattern.resource_type.name, pattern.name, pattern.pattern_type.name))
        if self._on_change is not None:  # this broker sees its own change before answering
            self._on_change(pattern, new)
        return old, new

    # -- notifications -----------------------------------------------------------------
    def _watcher(self, change_path: str) -> Callable[[object], None]:
        return self._watchers[change_path]

    def _schedule(self, change_path: str) -> None:
        """A watch fired: process the notifications, again if it fires while processing."""
        if self._closed:
            return
        self._again.add(change_path)
        task = self._processing.get(change_path)
        if task is None or task.done():
            self._processing[change_path] = asyncio.get_running_loop().create_task(self._drain(change_path))

    async def _drain(self, change_path: str) -> None:
        while change_path in self._again and not self._closed:
            self._again.discard(change_path)
            await self._process(change_path)

    async def _process(self, change_path: str) -> None:
        """Reload each pattern named by a notification newer than the last seen; delete
        notifications older than 15 minutes."""
        try:
            children = await self.zk.get_children(change_path, self._watcher(change_path))
            now_ms = int(self.clock() * 1000)
            for child in sorted(children, key=self._seq):
                seq = self._seq(child)
                data, stat = await self.zk.get_data(f"{change_path}/{child}")
                if stat is None:
                    continue
                if seq > self._seen[change_path]:
                    self._seen[change_path] = seq
                    pattern = self._decode_change(change_path, data)
                    if pattern is not None and self._on_change is not None:
                        entries, _ = await self._read(pattern)
                        self._on_change(pattern, entries)
                if stat.ctime < now_ms - zd.ACL_CHANGE_EXPIRATION_MS:
                    await self.zk.conditional_delete(f"{change_path}/{child}", -1)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Failed to process ACL change notifications under %s", change_path)

    @staticmethod
    def _decode_change(change_path: str, data: bytes | None) -> ResourcePattern | None:
        try:
            if change_path == zd.ACL_CHANGES_PATH:
                rtype, name = zd.decode_literal_acl_change(data)
                return ResourcePattern(ResourceType.from_zk_name(rtype), name, PatternType.LITERAL)
            rtype, name, ptype = zd.decode_extended_acl_change(data)
            return ResourcePattern(ResourceType.from_zk_name(rtype), name, PatternType.from_zk_name(ptype))
        except ValueError:
            log.warning("Ignoring a malformed ACL change notification %r", data)
            return None
