"""The broker's authorizer: Kafka's ACL semantics over an in-memory copy of the ACLs.

``AclAuthorizer`` keeps every ACL in memory (resource pattern -> entries) as its ``AclStore``
last reported them (ZooKeeper's ``/kafka-acl`` tree, or the standalone metadata file), and
answers ``authorize`` from that copy: super users may do anything; a resource with no
matching ACL is allowed only with ``allow.everyone.if.no.acl.found``; a matching DENY wins
over any ALLOW; an ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE, ALTER_CONFIGS
implies DESCRIBE_CONFIGS, ALL implies everything. Decisions are cached per (principal, host,
operation, resource) and the cache is dropped whenever an ACL changes, so a hot Produce or
Fetch costs one dict lookup per topic.

Custom authorizers (``authorizer.class.name=my_pkg.module.MyAuthorizer``): a subclass of
``Authorizer`` constructed as ``cls(config, store)``; the broker awaits ``start()`` before it
serves and calls ``authorize`` on the event loop for every check (it must not block).
``create_acls``/``delete_acls``/``acls`` back the ACL APIs; the base class answers them with
SECURITY_DISABLED (``AclManagementDisabled``), as Kafka does for an authorizer without ACLs.

Who may call it: the broker builds one (``create_authorizer``); ``kafpy.broker.authorization`` and
the ACL handlers use it. Nothing on disk itself: the store persists.
"""
from __future__ import annotations

import functools
import importlib
import logging
from collections import defaultdict
from typing import TYPE_CHECKING, AbstractSet, Iterable, Protocol

from kafpy.broker.security.acl import (IMPLIED_BY, WILDCARD, WILDCARD_PRINCIPAL, AccessControlEntry, AclBinding,
                                 AclBindingFilter, AclOperation, AclPermissionType, PatternType,
                                 ResourcePattern, ResourceType)

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig
    from collections.abc import Callable

log = logging.getLogger("kafka.authorizer.logger")

# Kafka's own class names; both mean "the ACL authorizer" here (ZooKeeper or standalone store).
KAFKA_AUTHORIZER_CLASSES = frozenset({
    "kafka.security.authorizer.AclAuthorizer",
    "kafka.security.auth.SimpleAclAuthorizer",
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
})
DECISION_CACHE_SIZE = 100_000

Entries = frozenset[AccessControlEntry]


class AclManagementDisabled(Exception):
    """This authorizer keeps no ACLs: the ACL APIs answer SECURITY_DISABLED."""


class AclStore(Protocol):
    """Where ACLs live. ``start(on_change)`` loads every pattern's entries and reports them,
    then reports each later change (from any broker) by calling ``on_change(pattern,
    entries)``; ``update(pattern, fn)`` applies ``fn(old_entries) -> new_entries`` atomically
    and returns (old, new)."""

    async def start(self, on_change: "Callable[[ResourcePattern, Entries], None]") -> None: ...
    async def update(self, pattern: ResourcePattern,
                     fn: "Callable[[Entries], Entries]") -> tuple[Entries, Entries]: ...
    async def close(self) -> None: ...


class Authorizer:
    """The hook a custom authorizer implements (see the module docstring)."""

    def __init__(self, config: KafkaConfig, store: AclStore | None = None) -> None:
        self.config = config
        self.store = store
        # moves whenever an ACL changes: a decision kept beyond one request (a consumer
        # group's resolved regular expression) is made again when it moved
        self.acl_version = 0

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    @property
    def ready(self) -> bool:
        """Whether it answers everyone (a KRaft node's authorizer is not ready before its
        initial ACL load; until then only super users are answered)."""
        return True

    async def wait_ready(self) -> None:
        """Returns once ``ready``."""

    def is_super_user(self, principal: str) -> bool:
        return False

    def authorize(self, principal: str, host: str, operation: AclOperation,
                  resource_type: ResourceType, name: str) -> bool:
        raise NotImplementedError

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        """Whether ``principal`` may do ``operation`` on at least one resource of the type
        (Kafka's authorizeByResourceType; the default asks about the wildcard resource)."""
        return self.authorize(principal, host, operation, resource_type, WILDCARD)

    def acls(self, flt: AclBindingFilter) -> list[AclBinding]:
        raise AclManagementDisabled()

    async def create_acls(self, bindings: list[AclBinding]) -> list[str | None]:
        raise AclManagementDisabled()

    async def delete_acls(self, filters: list[AclBindingFilter]) -> list[list[AclBinding]]:
        raise AclManagementDisabled()


def _add_entries(old: frozenset[AccessControlEntry], new: AbstractSet[AccessControlEntry]
                 ) -> frozenset[AccessControlEntry]:
    return old | new


def parse_super_users(value: str) -> frozenset[str]:
    """``super.users``: principals separated by ';' (as Kafka splits them)."""
    return frozenset(p.strip() for p in (value or "").split(";") if p.strip())


class AclAuthorizer(Authorizer):
    def __init__(self, config: KafkaConfig, store: AclStore | None = None) -> None:
        super().__init__(config, store)
        get = config.get if hasattr(config, "get") else (lambda k, d=None: d)
        self.super_users = parse_super_users(get("super.users", ""))
        self.allow_if_no_acls = bool(get("allow.everyone.if.no.acl.found", False))
        # resource type -> literal name -> entries; resource type -> prefix -> entries
        self._literal: dict[ResourceType, dict[str, Entries]] = defaultdict(dict)
        self._prefixed: dict[ResourceType, dict[str, Entries]] = defaultdict(dict)
        self._cache: dict[tuple, bool] = {}

    async def start(self) -> None:
        if self.store is not None:
            await self.store.start(self.apply)

    async def close(self) -> None:
        if self.store is not None:
            await self.store.close()

    # -- the in-memory copy ------------------------------------------------------------
    def apply(self, pattern: ResourcePattern, entries: Iterable[AccessControlEntry]) -> None:
        """The store's report of a pattern's entries (empty: the pattern has none left)."""
        table = self._prefixed if pattern.pattern_type == PatternType.PREFIXED else self._literal
        entries = frozenset(entries)
        if entries:
            table[pattern.resource_type][pattern.name] = entries
        else:
            table[pattern.resource_type].pop(pattern.name, None)
        self._cache.clear()
        self.acl_version += 1

    def bindings(self) -> list[AclBinding]:
        out: list[AclBinding] = []
        for pattern_type, table in ((PatternType.LITERAL, self._literal), (PatternType.PREFIXED, self._prefixed)):
            for rtype, by_name in table.items():
                for name, entries in by_name.items():
                    p = ResourcePattern(rtype, name, pattern_type)
                    out.extend(AclBinding(p, e) for e in entries)
        return out

    def _matching(self, resource_type: ResourceType, name: str) -> list[AccessControlEntry]:
        literal = self._literal.get(resource_type)
        prefixed = self._prefixed.get(resource_type)
        found: list[AccessControlEntry] = []
        if literal:
            found.extend(literal.get(name, ()))
            if name != WILDCARD:
                found.extend(literal.get(WILDCARD, ()))
        if prefixed:
            for prefix, entries in prefixed.items():
                if name.startswith(prefix):
                    found.extend(entries)
        return found

    # -- decisions ---------------------------------------------------------------------
    def is_super_user(self, principal: str) -> bool:
        return principal in self.super_users

    def authorize(self, principal: str, host: str, operation: AclOperation,
                  resource_type: ResourceType, name: str) -> bool:
        key = (principal, host, operation, resource_type, name)
        decision = self._cache.get(key)
        if decision is None:
            decision = self._decide(principal, host, operation, resource_type, name)
            if len(self._cache) >= DECISION_CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = decision
            if not decision:
                log.info("Principal = %s is Denied Operation = %s from host = %s on resource = %s:LITERAL:%s",
                         principal, operation.zk_name, host, resource_type.zk_name, name)
        return decision

    def _decide(self, principal: str, host: str, operation: AclOperation,
                resource_type: ResourceType, name: str) -> bool:
        if principal in self.super_users:
            return True
        entries = self._matching(resource_type, name)
        if not entries:
            return self.allow_if_no_acls
        return self._allowed_by(entries, principal, host, operation)

    @staticmethod
    def _allowed_by(entries: Iterable[AccessControlEntry], principal: str, host: str,
                    operation: AclOperation) -> bool:
        allowed_ops = IMPLIED_BY.get(operation, frozenset((operation,)))
        allowed = False
        for e in entries:
            if e.principal != principal and e.principal != WILDCARD_PRINCIPAL:
                continue
            if e.host != host and e.host != WILDCARD:
                continue
            if e.permission_type == AclPermissionType.DENY:
                if e.operation == operation or e.operation == AclOperation.ALL:
                    return False
            elif e.operation == AclOperation.ALL or e.operation in allowed_ops:
                allowed = True
        return allowed

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        """Allowed on some resource of the type: an ALLOW on any pattern of the type that no
        DENY on the same pattern or on the wildcard overrides (Kafka's rule, simplified to
        whole patterns)."""
        if principal in self.super_users:
            return True
        literal = self._literal.get(resource_type, {})
        wildcard_entries = literal.get(WILDCARD, frozenset())
        any_acl = False
        for table in (literal, self._prefixed.get(resource_type, {})):
            for entries in table.values():
                any_acl = True
                if self._allowed_by(entries | wildcard_entries, principal, host, operation):
                    return True
        return self.allow_if_no_acls and not any_acl

    # -- ACL management ----------------------------------------------------------------
    def acls(self, flt: AclBindingFilter) -> list[AclBinding]:
        return [b for b in self.bindings() if flt.matches(b)]

    async def create_acls(self, bindings: list[AclBinding]) -> list[str | None]:
        """Stores ``bindings`` (already validated), one store update per pattern; per binding
        None or the error message of a failed update."""
        by_pattern: dict[ResourcePattern, set[AccessControlEntry]] = defaultdict(set)
        for b in bindings:
            by_pattern[b.pattern].add(b.entry)
        failed: dict[ResourcePattern, str] = {}
        for pattern, new in by_pattern.items():
            try:
                await self._store().update(pattern, functools.partial(_add_entries, new=new))
            except Exception as e:  # the store's failure is the request's answer, not a crash
                log.exception("Failed to create ACLs for %s", pattern)
                failed[pattern] = f"Failed to update ACLs for {pattern}: {e}"
        return [failed.get(b.pattern) for b in bindings]

    async def delete_acls(self, filters: list[AclBindingFilter]) -> list[list[AclBinding]]:
        """Deletes what each filter matches (read again from the store inside its update);
        per filter the bindings deleted."""
        patterns = {b.pattern for b in self.bindings() if any(f.matches(b) for f in filters)}
        results: list[list[AclBinding]] = [[] for _ in filters]
        for pattern in patterns:
            def keep(old: Entries, pattern: ResourcePattern = pattern) -> Entries:
                return frozenset(e for e in old
                                 if not any(f.matches(AclBinding(pattern, e)) for f in filters))
            old, new = await self._store().update(pattern, keep)
            for e in old - new:
                b = AclBinding(pattern, e)
                for i, f in enumerate(filters):
                    if f.matches(b):
                        results[i].append(b)
        return results

    def _store(self) -> AclStore:
        if self.store is None:
            raise AclManagementDisabled()
        return self.store


def create_authorizer(config: KafkaConfig, store: AclStore | None) -> Authorizer | None:
    """The authorizer ``authorizer.class.name`` names: None when empty (no authorization),
    ours for Kafka's class names, else the class at the dotted Python path."""
    name = (config.get("authorizer.class.name", "") or "").strip()
    if not name:
        return None
    if name in KAFKA_AUTHORIZER_CLASSES:
        return AclAuthorizer(config, store)
    module_name, _, class_name = name.rpartition(".")
    if not module_name:
        raise ValueError(f"authorizer.class.name {name!r} is neither Kafka's nor a Python dotted path")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Authorizer)):
        raise ValueError(f"authorizer.class.name {name!r} is not a broker.security.authorizer.Authorizer")
    return cls(config, store)
