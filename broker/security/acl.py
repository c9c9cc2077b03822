"""Kafka's ACL model: resource types, pattern types, operations, permissions, bindings and
the filters CreateAcls/DescribeAcls/DeleteAcls carry.

The enum values are Kafka's wire codes (``org.apache.kafka.common.resource.ResourceType`` and
friends); ``zk_name`` is how Kafka spells them in ZooKeeper (``Topic``, ``ReadConfigs`` ...).
Pure data and matching: no I/O, anyone may call it.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TypeVar

WILDCARD = "*"
"""A literal resource name or principal (``User:*``) or host matching everything."""
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"
"""The one CLUSTER resource's name."""



def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


_NamedT = TypeVar("_NamedT", bound="_Named")


class _Named(IntEnum):
    @property
    def zk_name(self) -> str:
        """Kafka's camel-case name (``TRANSACTIONAL_ID`` -> ``TransactionalId``)."""
        return _camel(self.name)

    @classmethod
    def from_zk_name(cls: type[_NamedT], text: str) -> _NamedT:
        for member in cls:
            if member.zk_name.lower() == text.replace("_", "").lower():
                return member
        raise ValueError(f"unknown {cls.__name__} {text!r}")

    @classmethod
    def of(cls: type[_NamedT], code: int) -> _NamedT:
        """The member for a wire code; UNKNOWN for a code this broker does not know."""
        try:
            return cls(code)
        except ValueError:
            return cls(0)


class ResourceType(_Named):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(_Named):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(_Named):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(_Named):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


# An ALLOW for any of these also allows the key (Kafka's AclAuthorizer / StandardAuthorizer).
IMPLIED_BY: dict[AclOperation, frozenset[AclOperation]] = {
    AclOperation.DESCRIBE: frozenset({AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE,
                                      AclOperation.DELETE, AclOperation.ALTER}),
    AclOperation.DESCRIBE_CONFIGS: frozenset({AclOperation.DESCRIBE_CONFIGS,
                                              AclOperation.ALTER_CONFIGS}),
}

# The operations that make sense on each resource type (Kafka's AclEntry.supportedOperations).
SUPPORTED_OPERATIONS: dict[ResourceType, frozenset[AclOperation]] = {
    ResourceType.TOPIC: frozenset({AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                                   AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER,
                                   AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS}),
    ResourceType.GROUP: frozenset({AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE}),
    ResourceType.CLUSTER: frozenset({AclOperation.CREATE, AclOperation.CLUSTER_ACTION,
                                     AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
                                     AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER,
                                     AclOperation.DESCRIBE}),
    ResourceType.TRANSACTIONAL_ID: frozenset({AclOperation.DESCRIBE, AclOperation.WRITE}),
    ResourceType.DELEGATION_TOKEN: frozenset({AclOperation.DESCRIBE}),
    ResourceType.USER: frozenset({AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS}),
}


@dataclass(frozen=True, slots=True)
class ResourcePattern:
    """A resource type, a name, and whether the name is LITERAL (``*`` = every resource of the
    type) or a PREFIXED match."""
    resource_type: ResourceType
    name: str
    pattern_type: PatternType = PatternType.LITERAL

    def matches(self, resource_type: ResourceType, name: str) -> bool:
        """Whether this pattern covers the concrete resource ``(resource_type, name)``."""
        if self.resource_type != resource_type:
            return False
        if self.pattern_type == PatternType.LITERAL:
            return self.name == name or self.name == WILDCARD
        return self.pattern_type == PatternType.PREFIXED and name.startswith(self.name)


@dataclass(frozen=True, slots=True)
class AccessControlEntry:
    """Who (``User:alice``), from where (host or ``*``), what operation, allow or deny."""
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType


@dataclass(frozen=True, slots=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry


@dataclass(frozen=True, slots=True)
class AclBindingFilter:
    """What DescribeAcls/DeleteAcls match: None (or ANY) fields match everything; pattern
    type MATCH matches the literal name, the wildcard and every prefix of the name."""
    resource_type: ResourceType = ResourceType.ANY
    name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission_type: AclPermissionType = AclPermissionType.ANY

    def matches_pattern(self, p: ResourcePattern) -> bool:
        if self.resource_type != ResourceType.ANY and self.resource_type != p.resource_type:
            return False
        if self.pattern_type == PatternType.MATCH:
            if self.name is None:
                return True
            if p.pattern_type == PatternType.LITERAL:
                return p.name == self.name or p.name == WILDCARD
            return p.pattern_type == PatternType.PREFIXED and self.name.startswith(p.name)
        if self.pattern_type != PatternType.ANY and self.pattern_type != p.pattern_type:
            return False
        return self.name is None or self.name == p.name

    def matches_entry(self, e: AccessControlEntry) -> bool:
        return ((self.principal is None or self.principal == e.principal)
                and (self.host is None or self.host == e.host)
                and (self.operation == AclOperation.ANY or self.operation == e.operation)
                and (self.permission_type == AclPermissionType.ANY
                     or self.permission_type == e.permission_type))

    def matches(self, b: AclBinding) -> bool:
        return self.matches_pattern(b.pattern) and self.matches_entry(b.entry)


def validate_binding(b: AclBinding) -> str | None:
    """Why Kafka refuses to create ``b`` (INVALID_REQUEST), or None when it is acceptable."""
    p, e = b.pattern, b.entry
    if p.resource_type in (ResourceType.ANY, ResourceType.UNKNOWN):
        return "Invalid resource type"
    if p.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        return "Invalid resource pattern type"
    if p.resource_type == ResourceType.CLUSTER and p.name != CLUSTER_NAME:
        return "The only valid name for the CLUSTER resource is " + CLUSTER_NAME
    if not p.name:
        return "Resource name is empty"
    if e.operation in (AclOperation.ANY, AclOperation.UNKNOWN):
        return "Invalid operation"
    if e.permission_type not in (AclPermissionType.ALLOW, AclPermissionType.DENY):
        return "Invalid permission type"
    principal_type, sep, _ = e.principal.partition(":")
    if not sep or not principal_type:
        return f"Could not parse principal from `{e.principal}` (no colon is present separating " \
               "the principal type from the principal name)"
    if e.operation != AclOperation.ALL and e.operation not in SUPPORTED_OPERATIONS.get(
            p.resource_type, frozenset()):
        return f"ResourceType {p.resource_type.zk_name} only supports operations " + \
            ",".join(sorted(o.zk_name for o in SUPPORTED_OPERATIONS.get(p.resource_type, ())))
    return None
