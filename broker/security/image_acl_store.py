"""The ACL store of a KRaft node: the ACLs of the metadata image (``AclsImage``, written by the
controller's ``AclControlManager`` as AccessControlEntryRecord / RemoveAccessControlEntryRecord),
the source Kafka's ``StandardAuthorizer`` reads in KRaft mode.

``ImageAclStore`` keeps the ACLs of the last image it was handed, grouped by resource pattern,
and reports each pattern whose entries changed to the authorizer (the same ``on_change`` the
ZooKeeper store calls), so one matcher (``AclAuthorizer``) serves both modes. ``publish`` is
called by the broker's metadata publisher for every published image, and by a controller
before it authorizes with the image it has replayed; the same ``AclsImage`` object twice is a
no-op (images are immutable), so a controller may call it on every request. The first
publication is Kafka's ``completeInitialLoad``: until then the store is not ``loaded`` and
the authorizer answers only super users.

Writes do not go through this store: a KRaft broker forwards CreateAcls/DeleteAcls to the
active controller, and the controller turns them into records (``update`` refuses).

Who calls it: ``KRaftBroker``'s publisher, ``ControllerServer``; on the event loop.
"""
from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable

from kafpy.broker.security.acl import (AccessControlEntry, AclOperation, AclPermissionType, PatternType,
                                       ResourcePattern, ResourceType)
from kafpy.metadata.image.acls import AclsImage, StandardAcl

Entries = frozenset[AccessControlEntry]
OnChange = Callable[[ResourcePattern, Entries], None]


class AclsNotWritable(Exception):
    """ACLs of a KRaft node change only through the controller's records."""


def binding_of(acl: StandardAcl) -> tuple[ResourcePattern, AccessControlEntry]:
    """A ``StandardAcl`` (Kafka's codes) as the authorizer's pattern and entry."""
    return (ResourcePattern(ResourceType.of(acl.resource_type), acl.resource_name, PatternType.of(acl.pattern_type)),
            AccessControlEntry(acl.principal, acl.host, AclOperation.of(acl.operation),
                               AclPermissionType.of(acl.permission_type)))


def by_pattern(image: AclsImage) -> dict[ResourcePattern, Entries]:
    """The image's ACLs grouped by resource pattern."""
    grouped: dict[ResourcePattern, set[AccessControlEntry]] = defaultdict(set)
    for acl in image.acls.values():
        pattern, entry = binding_of(acl)
        grouped[pattern].add(entry)
    return {p: frozenset(e) for p, e in grouped.items()}


class ImageAclStore:
    """Keeps the last published image's ACLs by pattern, the callback of the authorizer and
    whether the initial load completed."""

    def __init__(self) -> None:
        self._image: AclsImage | None = None
        self._acls: dict[ResourcePattern, Entries] = {}
        self._on_change: OnChange | None = None
        self._loaded = asyncio.Event()

    @property
    def loaded(self) -> bool:
        """Whether an image was published (Kafka's initial ACL load completed)."""
        return self._loaded.is_set()

    async def wait_loaded(self) -> None:
        await self._loaded.wait()

    async def start(self, on_change: OnChange) -> None:
        self._on_change = on_change
        for pattern, entries in self._acls.items():
            on_change(pattern, entries)

    def publish(self, image: AclsImage) -> None:
        """Take ``image``'s ACLs: every pattern whose entries differ is reported."""
        if image is self._image:
            return
        self._image = image
        new = by_pattern(image)
        old = self._acls
        self._acls = new
        if self._on_change is not None:
            for pattern in old.keys() - new.keys():
                self._on_change(pattern, frozenset())
            for pattern, entries in new.items():
                if old.get(pattern) != entries:
                    self._on_change(pattern, entries)
        self._loaded.set()

    async def update(self, pattern: ResourcePattern,
                     fn: Callable[[Entries], Entries]) -> tuple[Entries, Entries]:
        raise AclsNotWritable("the ACLs of a KRaft cluster change through the active controller")

    async def close(self) -> None:
        pass
