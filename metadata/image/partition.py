"""One partition's registration, as Kafka's ``PartitionRegistration``.

Built from a ``PartitionRecord`` and changed by ``PartitionChangeRecord``s through ``merge``,
which follows Kafka's ``PartitionRegistration.merge``: a null field leaves the value as it
is, leader -2 (``NO_LEADER_CHANGE``) keeps the leader and its epoch, any other leader (even
the same one) bumps the leader epoch, leader recovery state -1 keeps it, and every change
bumps the partition epoch. Directories left empty mean "not yet assigned by a broker that
knows directories" (Kafka's ``DirectoryId.MIGRATING`` for every replica)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.uuids import uuid_str
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import PartitionChangeRecord, PartitionRecord

NO_LEADER = -1
NO_LEADER_CHANGE = -2
# Kafka's DirectoryId: reserved directory ids
MIGRATING = bytes(16)
UNASSIGNED = bytes(15) + b"\x01"
LOST = bytes(15) + b"\x02"


class LeaderRecoveryState(IntEnum):
    """Kafka's ``LeaderRecoveryState``: RECOVERING after an unclean election until the new
    leader has recovered the log."""

    RECOVERED = 0
    RECOVERING = 1

    @staticmethod
    def of(value: int) -> LeaderRecoveryState:
        try:
            return LeaderRecoveryState(value)
        except ValueError:
            raise MetadataReplayError(f"unknown leader recovery state {value}") from None

    def change_to(self, value: int) -> LeaderRecoveryState:
        """The state a PartitionChangeRecord's ``leader_recovery_state`` asks for
        (-1: no change)."""
        return self if value == -1 else LeaderRecoveryState.of(value)


def _migrating_if_empty(directories: tuple[bytes, ...], replicas: int) -> tuple[bytes, ...]:
    """No directories (a record from before directory assignment): every replica MIGRATING."""
    return directories if directories else (MIGRATING,) * replicas


@dataclass(frozen=True)
class PartitionRegistration:
    """The replicas, ISR, leader and epochs of one partition."""

    replicas: tuple[int, ...]
    directories: tuple[bytes, ...]
    isr: tuple[int, ...]
    removing_replicas: tuple[int, ...]
    adding_replicas: tuple[int, ...]
    leader: int
    leader_recovery_state: LeaderRecoveryState
    leader_epoch: int
    partition_epoch: int
    elr: tuple[int, ...] = ()
    last_known_elr: tuple[int, ...] = ()

    @staticmethod
    def from_record(record: PartitionRecord) -> PartitionRegistration:
        replicas = tuple(record.replicas)
        directories = tuple(record.directories)
        if directories and len(directories) != len(replicas):
            raise MetadataReplayError(
                f"PartitionRecord for {_tp(record.topic_id, record.partition_id)} has "
                f"{len(directories)} directories for {len(replicas)} replicas")
        return PartitionRegistration(
            replicas=replicas, directories=_migrating_if_empty(directories, len(replicas)),
            isr=tuple(record.isr), removing_replicas=tuple(record.removing_replicas),
            adding_replicas=tuple(record.adding_replicas), leader=record.leader,
            leader_recovery_state=LeaderRecoveryState.of(record.leader_recovery_state),
            leader_epoch=record.leader_epoch, partition_epoch=record.partition_epoch,
            elr=tuple(record.eligible_leader_replicas or ()),
            last_known_elr=tuple(record.last_known_elr or ()))

    def merge(self, record: PartitionChangeRecord) -> PartitionRegistration:
        """This partition with ``record`` applied (Kafka's ``PartitionRegistration.merge``)."""
        replicas = self.replicas if record.replicas is None else tuple(record.replicas)
        if record.directories is None:
            directories = self.directories
        else:
            directories = tuple(record.directories)
            if (record.replicas is not None and directories
                    and len(directories) != len(record.replicas)):
                raise MetadataReplayError(
                    f"PartitionChangeRecord for {_tp(record.topic_id, record.partition_id)} "
                    f"has {len(directories)} directories for {len(record.replicas)} replicas")
        directories = _migrating_if_empty(directories, len(replicas))
        if record.leader == NO_LEADER_CHANGE:
            leader, leader_epoch = self.leader, self.leader_epoch
        else:
            leader, leader_epoch = record.leader, self.leader_epoch + 1
        return PartitionRegistration(
            replicas=replicas, directories=directories,
            isr=self.isr if record.isr is None else tuple(record.isr),
            removing_replicas=(self.removing_replicas if record.removing_replicas is None
                               else tuple(record.removing_replicas)),
            adding_replicas=(self.adding_replicas if record.adding_replicas is None
                             else tuple(record.adding_replicas)),
            leader=leader,
            leader_recovery_state=self.leader_recovery_state.change_to(record.leader_recovery_state),
            leader_epoch=leader_epoch, partition_epoch=self.partition_epoch + 1,
            elr=(self.elr if record.eligible_leader_replicas is None
                 else tuple(record.eligible_leader_replicas)),
            last_known_elr=(self.last_known_elr if record.last_known_elr is None
                            else tuple(record.last_known_elr)))

    def has_leader(self) -> bool:
        return self.leader != NO_LEADER

    def directory(self, replica: int) -> bytes | None:
        """The directory of ``replica`` (None when it is not a replica)."""
        try:
            return self.directories[self.replicas.index(replica)]
        except ValueError:
            return None

    def to_record(self, topic_id: bytes, partition_id: int) -> ApiMessageAndVersion:
        """The PartitionRecord a snapshot holds: the directories always (MIGRATING ones too,
        as Kafka writes them once directory assignment exists), the ELR fields only when not
        empty, as Kafka writes these tagged fields."""
        return with_version(PartitionRecord(
            partition_id=partition_id, topic_id=topic_id, replicas=list(self.replicas),
            isr=list(self.isr), removing_replicas=list(self.removing_replicas),
            adding_replicas=list(self.adding_replicas), leader=self.leader,
            leader_recovery_state=int(self.leader_recovery_state),
            leader_epoch=self.leader_epoch, partition_epoch=self.partition_epoch,
            directories=list(self.directories),
            eligible_leader_replicas=list(self.elr) if self.elr else None,
            last_known_elr=list(self.last_known_elr) if self.last_known_elr else None))


def _tp(topic_id: bytes, partition_id: int) -> str:
    return f"{uuid_str(topic_id)}:{partition_id}"
