"""ACLs by id, as Kafka's ``AclsImage`` / ``AclsDelta`` (the StandardAuthorizer's store).

``AccessControlEntryRecord`` adds an ACL under its Uuid; ``RemoveAccessControlEntryRecord``
removes it, and removing an id neither the image nor the delta holds is an error, as in
Kafka."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.uuids import uuid_str
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import AccessControlEntryRecord, RemoveAccessControlEntryRecord


@dataclass(frozen=True)
class StandardAcl:
    """One ACL (Kafka's ``StandardAcl``); the int fields are Kafka's codes (resource type,
    pattern type, operation, permission type) as the record carries them."""

    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int

    @staticmethod
    def from_record(record: AccessControlEntryRecord) -> StandardAcl:
        return StandardAcl(record.resource_type, record.resource_name, record.pattern_type,
                           record.principal, record.host, record.operation,
                           record.permission_type)

    def to_record(self, acl_id: bytes) -> ApiMessageAndVersion:
        return with_version(AccessControlEntryRecord(
            id=acl_id, resource_type=self.resource_type, resource_name=self.resource_name,
            pattern_type=self.pattern_type, principal=self.principal, host=self.host,
            operation=self.operation, permission_type=self.permission_type))


@dataclass(frozen=True)
class AclsImage:
    """ACL id -> ACL."""

    acls: Mapping[bytes, StandardAcl]

    def is_empty(self) -> bool:
        return not self.acls

    def records(self) -> list[ApiMessageAndVersion]:
        return [self.acls[i].to_record(i) for i in sorted(self.acls)]


EMPTY_ACLS = AclsImage(frozen({}))


class AclsDelta:
    """ACL changes on top of ``image`` (None: removed)."""

    def __init__(self, image: AclsImage) -> None:
        self.image = image
        self.changes: dict[bytes, StandardAcl | None] = {}

    def replay(self, record: AccessControlEntryRecord) -> None:
        self.changes[record.id] = StandardAcl.from_record(record)

    def replay_remove(self, record: RemoveAccessControlEntryRecord) -> None:
        if record.id in self.image.acls:
            self.changes[record.id] = None
        elif self.changes.get(record.id) is not None:
            del self.changes[record.id]  # added and removed within this delta
        else:
            raise MetadataReplayError(
                f"Failed to find existing ACL with ID {uuid_str(record.id)} in either image "
                "or changes")

    def apply(self) -> AclsImage:
        if not self.changes:
            return self.image
        return AclsImage(merged(self.image.acls, self.changes))
