"""The states of a ZooKeeper to KRaft migration, as Kafka 3.9 names and numbers them.

- ``ZkMigrationState``: what the metadata log says (``ZkMigrationStateRecord``, kept in the
  features image): PRE_MIGRATION while the controllers wait to copy, MIGRATION once ZooKeeper's
  metadata is in the log (dual writes), POST_MIGRATION once the controllers run without
  ZooKeeper. The byte values are Kafka's (3.4 wrote PRE_MIGRATION as 1, so MIGRATION took 1 and
  PRE_MIGRATION 2).
- ``MigrationDriverState``: where the active controller's migration driver stands, with the
  only transitions Kafka's ``KRaftMigrationDriver.isValidStateChange`` allows.
- ``ZkMigrationLeadershipState``: what the driver keeps of ZooKeeper (the ``/migration`` znode
  and the ZooKeeper controller epoch it claimed), immutable, and the znode's JSON codec.

Pure: no I/O, no clock (times are passed in). Who uses it: the migration driver and its
ZooKeeper client (``kafpy.replication.zk_migration_client``), the quorum controller's
activation.
"""
from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass


class ZkMigrationState(enum.IntEnum):
    """Kafka's ``ZkMigrationState`` with its record values."""

    NONE = 0
    MIGRATION = 1
    PRE_MIGRATION = 2
    POST_MIGRATION = 3
    ZK = 4

    def in_progress(self) -> bool:
        return self in (ZkMigrationState.PRE_MIGRATION, ZkMigrationState.MIGRATION)


class MigrationDriverState(enum.Enum):
    """Kafka's ``MigrationDriverState``; ``allow_dual_write`` as Kafka's flag."""

    UNINITIALIZED = "UNINITIALIZED"
    INACTIVE = "INACTIVE"
    WAIT_FOR_CONTROLLER_QUORUM = "WAIT_FOR_CONTROLLER_QUORUM"
    WAIT_FOR_BROKERS = "WAIT_FOR_BROKERS"
    BECOME_CONTROLLER = "BECOME_CONTROLLER"
    ZK_MIGRATION = "ZK_MIGRATION"
    SYNC_KRAFT_TO_ZK = "SYNC_KRAFT_TO_ZK"
    KRAFT_CONTROLLER_TO_BROKER_COMM = "KRAFT_CONTROLLER_TO_BROKER_COMM"
    DUAL_WRITE = "DUAL_WRITE"

    @property
    def allow_dual_write(self) -> bool:
        return self in (MigrationDriverState.KRAFT_CONTROLLER_TO_BROKER_COMM, MigrationDriverState.DUAL_WRITE)


_S = MigrationDriverState
_VALID: dict[MigrationDriverState, frozenset[MigrationDriverState]] = {
    _S.UNINITIALIZED: frozenset({_S.INACTIVE}),
    _S.DUAL_WRITE: frozenset({_S.INACTIVE}),
    _S.INACTIVE: frozenset({_S.WAIT_FOR_CONTROLLER_QUORUM}),
    _S.WAIT_FOR_CONTROLLER_QUORUM: frozenset({_S.INACTIVE, _S.BECOME_CONTROLLER, _S.WAIT_FOR_BROKERS}),
    _S.WAIT_FOR_BROKERS: frozenset({_S.INACTIVE, _S.BECOME_CONTROLLER}),
    _S.BECOME_CONTROLLER: frozenset({_S.INACTIVE, _S.ZK_MIGRATION, _S.SYNC_KRAFT_TO_ZK}),
    _S.ZK_MIGRATION: frozenset({_S.INACTIVE, _S.SYNC_KRAFT_TO_ZK}),
    _S.SYNC_KRAFT_TO_ZK: frozenset({_S.INACTIVE, _S.KRAFT_CONTROLLER_TO_BROKER_COMM}),
    _S.KRAFT_CONTROLLER_TO_BROKER_COMM: frozenset({_S.INACTIVE, _S.DUAL_WRITE}),
}


def is_valid_state_change(current: MigrationDriverState, new: MigrationDriverState) -> bool:
    """Kafka's ``isValidStateChange``: staying is always allowed, UNINITIALIZED never re-entered."""
    if current is new:
        return True
    if new is MigrationDriverState.UNINITIALIZED:
        return False
    return new in _VALID[current]


UNKNOWN_ZK_VERSION = -2  # ZkMigrationLeadershipState.UNKNOWN_ZK_VERSION
EMPTY_ZK_VERSION = -2
MIGRATION_PATH = "/migration"


class MigrationZNodeError(ValueError):
    """A ``/migration`` znode Kafka would not parse (bad JSON, unknown version)."""


@dataclass(frozen=True)
class ZkMigrationLeadershipState:
    """Kafka's ``ZkMigrationLeadershipState``: the KRaft controller that last wrote to
    ZooKeeper and the metadata offset/epoch it wrote up to (both in ``/migration``, whose
    ``migration_zk_version`` guards every dual write), and the ZooKeeper controller epoch this
    KRaft controller claimed with ``/controller_epoch``'s zkVersion (-2: not claimed)."""

    kraft_controller_id: int = -1
    kraft_controller_epoch: int = -1
    kraft_metadata_offset: int = -1
    kraft_metadata_epoch: int = -1
    last_updated_time_ms: int = -1
    migration_zk_version: int = EMPTY_ZK_VERSION
    zk_controller_epoch: int = -1
    zk_controller_epoch_zk_version: int = UNKNOWN_ZK_VERSION

    def initial_zk_migration_complete(self) -> bool:
        """Kafka's test: the copy wrote an offset to ``/migration``."""
        return self.kraft_metadata_offset > 0

    def with_new_kraft_controller(self, controller_id: int, epoch: int) -> ZkMigrationLeadershipState:
        return dataclasses.replace(self, kraft_controller_id=controller_id, kraft_controller_epoch=epoch)

    def with_zk_controller(self, epoch: int, epoch_zk_version: int) -> ZkMigrationLeadershipState:
        return dataclasses.replace(self, zk_controller_epoch=epoch, zk_controller_epoch_zk_version=epoch_zk_version)

    def with_unknown_zk_controller(self) -> ZkMigrationLeadershipState:
        return self.with_zk_controller(-1, UNKNOWN_ZK_VERSION)

    def with_migration_zk_version(self, version: int) -> ZkMigrationLeadershipState:
        return dataclasses.replace(self, migration_zk_version=version)

    def with_kraft_metadata_offset_and_epoch(self, offset: int, epoch: int) -> ZkMigrationLeadershipState:
        return dataclasses.replace(self, kraft_metadata_offset=offset, kraft_metadata_epoch=epoch)

    def encode(self) -> bytes:
        """``MigrationZNode.encode``: version 0, the KRaft controller and the offset written."""
        return json.dumps({"version": 0, "kraft_controller_id": self.kraft_controller_id,
                           "kraft_controller_epoch": self.kraft_controller_epoch,
                           "kraft_metadata_offset": self.kraft_metadata_offset,
                           "kraft_metadata_epoch": self.kraft_metadata_epoch}, separators=(",", ":")).encode()

    @staticmethod
    def decode(data: bytes, zk_version: int, modify_time_ms: int) -> ZkMigrationLeadershipState:
        """``MigrationZNode.decode``: the znode's fields with its version and mtime; the ZooKeeper
        controller is unknown until claimed."""
        try:
            obj = json.loads(data)
            if int(obj["version"]) != 0:
                raise MigrationZNodeError(f"Encountered unknown version {obj['version']} when parsing migration "
                                          f"json {data.decode(errors='replace')}")
            return ZkMigrationLeadershipState(
                int(obj["kraft_controller_id"]), int(obj["kraft_controller_epoch"]),
                int(obj["kraft_metadata_offset"]), int(obj["kraft_metadata_epoch"]), modify_time_ms, zk_version)
        except (ValueError, KeyError, TypeError) as e:
            if isinstance(e, MigrationZNodeError):
                raise
            raise MigrationZNodeError(f"Failed to parse the migration json {data[:200]!r}") from e
