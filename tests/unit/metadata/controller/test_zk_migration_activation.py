"""A quorum controller with ``zookeeper.metadata.migration.enable`` (Kafka 3.9's
``ActivationRecordsGenerator`` and ``ClusterControlManager``): an empty log is bootstrapped into
PRE_MIGRATION, ZooKeeper brokers may register, and a controller restarted without the flag after
the migration finalizes it (POST_MIGRATION)."""
from __future__ import annotations

import dataclasses

import pytest

from kafpy.metadata.bootstrap import BootstrapMetadata
from kafpy.metadata.controller.quorum_controller import ControllerSettings, QuorumController, encode_records
from kafpy.metadata.migration.zk_migration_state import ZkMigrationState
from kafpy.protocol.messages import (
    BeginTransactionRecord, EndTransactionRecord, FeatureLevelRecord, Message, RegisterBrokerRecord,
    ZkMigrationStateRecord,
)
from kafpy.raft.kafka_raft_client import Batch

from tests.unit.metadata.controller.helpers import CLUSTER_ID, registration

MV_3_9 = 21  # 3.9-IV0


def _controller(migration: bool, mv: int = MV_3_9) -> QuorumController:
    return QuorumController(ControllerSettings(1, CLUSTER_ID, (1,), zk_migration_enabled=migration),
                            BootstrapMetadata.from_versions(mv, {}, "test bootstrap"))


def _activate(c: QuorumController, epoch: int, offset: int) -> list[Message]:
    c.leader_changed(1, epoch)
    c.replay_batch(Batch(offset, offset, epoch, (), control=True))
    return c.activate(epoch, 0)


def _replay(c: QuorumController, offset: int, epoch: int, records: list[Message]) -> int:
    encoded = tuple(encode_records(records))
    c.replay_batch(Batch(offset, offset + len(encoded) - 1, epoch, encoded))
    return offset + len(encoded)


def test_an_empty_log_is_bootstrapped_into_pre_migration() -> None:
    c = _controller(True)
    records = _activate(c, 1, 0)
    assert records == [BeginTransactionRecord(name="Bootstrap records"),
                       FeatureLevelRecord(name="metadata.version", feature_level=MV_3_9),
                       ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.PRE_MIGRATION)),
                       EndTransactionRecord()]
    _replay(c, 1, 1, records)
    assert c.zk_migration_state is ZkMigrationState.PRE_MIGRATION
    # without the flag, Kafka 4.4's bootstrap is unchanged: no migration state written
    assert not any(isinstance(r, ZkMigrationStateRecord) for r in _activate(_controller(False), 1, 0))


def test_a_metadata_version_without_transactions_cannot_migrate() -> None:
    with pytest.raises(RuntimeError, match="does not support ZK migrations"):
        _activate(_controller(True, mv=12), 1, 0)


def test_zookeeper_brokers_register_only_while_migrating() -> None:
    c = _controller(True)
    _replay(c, 1, 1, _activate(c, 1, 0))
    req = registration(7, mv_range=(7, MV_3_9))
    req.is_migrating_zk_broker = True
    (record,) = [r for r in c.cluster.register_broker(req, 5, 0).records if isinstance(r, RegisterBrokerRecord)]
    assert record.is_migrating_zk_broker and record.broker_id == 7


def test_a_controller_restarted_without_the_flag_finalizes_the_migration() -> None:
    c = _controller(True)
    offset = _replay(c, 1, 1, _activate(c, 1, 0))
    offset = _replay(c, offset, 1, [ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.MIGRATION))])
    assert c.zk_migration_state is ZkMigrationState.MIGRATION
    restarted = QuorumController(dataclasses.replace(c.settings, zk_migration_enabled=False), c.bootstrap)
    _replay(restarted, 1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=MV_3_9),
                              ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.MIGRATION))])
    assert _activate(restarted, 2, offset) == [
        ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.POST_MIGRATION))]
    # enabling the migration again on a finished or a KRaft-born cluster is refused
    again = QuorumController(c.settings, c.bootstrap)
    _replay(again, 1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=MV_3_9),
                          ZkMigrationStateRecord(zk_migration_state=int(ZkMigrationState.POST_MIGRATION))])
    with pytest.raises(RuntimeError, match="already completed"):
        _activate(again, 2, 5)
    born = QuorumController(c.settings, c.bootstrap)
    _replay(born, 1, 1, [FeatureLevelRecord(name="metadata.version", feature_level=MV_3_9)])
    with pytest.raises(RuntimeError, match="created in KRaft mode"):
        _activate(born, 2, 5)
