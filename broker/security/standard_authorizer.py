"""The authorizer of a KRaft node (Kafka's ``org.apache.kafka.metadata.authorizer.StandardAuthorizer``):
the ZooKeeper-mode ``AclAuthorizer``'s decisions (one matcher for both modes: super users,
``allow.everyone.if.no.acl.found``, DENY over ALLOW, the implied operations) over the ACLs of
the metadata image (``ImageAclStore``).

Until the node has published its first image (Kafka's ``completeInitialLoad``) the
authorizer is not ready: a super user is answered, anyone else's check raises
``AuthorizerNotReady`` (Kafka's ``AuthorizerNotReadyException``, which the request answers as
UNKNOWN_SERVER_ERROR). Kafka serves only the listeners of ``early.start.listeners`` (and the
controller listeners) before that; ``kafpy.broker.authorization`` holds the other listeners'
requests until ``wait_ready``.

ACL changes are not made here: a KRaft broker forwards CreateAcls/DeleteAcls to the active
controller, whose ``AclControlManager`` writes the records.

Who calls it: ``KRaftBroker`` and ``ControllerServer`` build it with ``create_kraft_authorizer``.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kafpy.broker.config import ConfigError
from kafpy.broker.security.acl import AclOperation, ResourceType
from kafpy.broker.security.authorizer import AclAuthorizer, Authorizer
from kafpy.broker.security.image_acl_store import ImageAclStore

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig

STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
# ZooKeeper-mode classes Kafka 4 no longer ships: a KRaft node cannot load them
ZOOKEEPER_AUTHORIZERS = frozenset({"kafka.security.authorizer.AclAuthorizer", "kafka.security.auth.SimpleAclAuthorizer"})


class AuthorizerNotReady(Exception):
    """The ACLs are not loaded yet (Kafka's AuthorizerNotReadyException)."""


class StandardAuthorizer(AclAuthorizer):
    """``AclAuthorizer`` whose store is the metadata image's ACLs, not ready before the first
    image is published."""

    def __init__(self, config: KafkaConfig, store: ImageAclStore) -> None:
        super().__init__(config, store)
        self.image_store = store

    @property
    def ready(self) -> bool:
        return self.image_store.loaded

    async def wait_ready(self) -> None:
        await self.image_store.wait_loaded()

    def authorize(self, principal: str, host: str, operation: AclOperation,
                  resource_type: ResourceType, name: str) -> bool:
        if not self.image_store.loaded and principal not in self.super_users:
            raise AuthorizerNotReady()
        return super().authorize(principal, host, operation, resource_type, name)

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        if not self.image_store.loaded and principal not in self.super_users:
            raise AuthorizerNotReady()
        return super().authorize_by_resource_type(principal, host, operation, resource_type)


def create_kraft_authorizer(config: KafkaConfig, store: ImageAclStore) -> Authorizer | None:
    """The authorizer ``authorizer.class.name`` names on a KRaft node: None when empty, the
    ``StandardAuthorizer`` for Kafka's class, a custom ``Authorizer`` subclass at a dotted
    Python path (``cls(config, store)``); the ZooKeeper-mode class names are refused as Kafka 4
    refuses them (the class cannot be found)."""
    name = (config.get("authorizer.class.name", "") or "").strip()
    if not name:
        return None
    if name == STANDARD_AUTHORIZER:
        return StandardAuthorizer(config, store)
    if name in ZOOKEEPER_AUTHORIZERS:
        raise ConfigError(f"Invalid value {name} for configuration authorizer.class.name: Class {name} cannot be "
                          f"found (java.lang.ClassNotFoundException: {name}; a KRaft node uses "
                          f"{STANDARD_AUTHORIZER})")
    module_name, _, class_name = name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name) if module_name else None
    except (ImportError, AttributeError):
        cls = None
    if not (isinstance(cls, type) and issubclass(cls, Authorizer)):
        raise ConfigError(f"Invalid value {name} for configuration authorizer.class.name: Class {name} cannot be "
                          "found (neither Kafka's StandardAuthorizer nor a broker.security.authorizer.Authorizer)")
    authorizer: Authorizer = cls(config, store)
    return authorizer
