"""Kafka 3.9's migration states: the record values, the driver's legal transitions, and the
``/migration`` znode's JSON."""
from __future__ import annotations

import json

import pytest

from kafpy.metadata.migration.zk_migration_state import (
    MigrationDriverState as S, MigrationZNodeError, ZkMigrationLeadershipState, ZkMigrationState,
    is_valid_state_change,
)


def test_record_values_are_kafkas() -> None:
    # 3.4 wrote PRE_MIGRATION as 1: MIGRATION took 1, PRE_MIGRATION 2
    assert [(s.name, int(s)) for s in ZkMigrationState] == [
        ("NONE", 0), ("MIGRATION", 1), ("PRE_MIGRATION", 2), ("POST_MIGRATION", 3), ("ZK", 4)]
    assert ZkMigrationState.PRE_MIGRATION.in_progress() and not ZkMigrationState.POST_MIGRATION.in_progress()


def test_the_driver_walks_the_migration_path_and_may_drop_to_inactive_anywhere() -> None:
    path = [S.UNINITIALIZED, S.INACTIVE, S.WAIT_FOR_CONTROLLER_QUORUM, S.WAIT_FOR_BROKERS, S.BECOME_CONTROLLER,
            S.ZK_MIGRATION, S.SYNC_KRAFT_TO_ZK, S.KRAFT_CONTROLLER_TO_BROKER_COMM, S.DUAL_WRITE, S.INACTIVE]
    for a, b in zip(path, path[1:]):
        assert is_valid_state_change(a, b), (a, b)
    for s in S:
        assert is_valid_state_change(s, s)
        assert not is_valid_state_change(s, S.UNINITIALIZED) or s is S.UNINITIALIZED
    # a restarted controller during a migration skips the copy and the brokers' wait
    assert is_valid_state_change(S.WAIT_FOR_CONTROLLER_QUORUM, S.BECOME_CONTROLLER)
    assert is_valid_state_change(S.BECOME_CONTROLLER, S.SYNC_KRAFT_TO_ZK)
    assert not is_valid_state_change(S.WAIT_FOR_BROKERS, S.ZK_MIGRATION)
    assert not is_valid_state_change(S.INACTIVE, S.DUAL_WRITE)
    assert [s for s in S if s.allow_dual_write] == [S.KRAFT_CONTROLLER_TO_BROKER_COMM, S.DUAL_WRITE]


def test_migration_znode_round_trips_kafkas_json() -> None:
    state = ZkMigrationLeadershipState().with_new_kraft_controller(3000, 5).with_kraft_metadata_offset_and_epoch(42, 5)
    assert json.loads(state.encode()) == {"version": 0, "kraft_controller_id": 3000, "kraft_controller_epoch": 5,
                                          "kraft_metadata_offset": 42, "kraft_metadata_epoch": 5}
    back = ZkMigrationLeadershipState.decode(state.encode(), 7, 1234)
    assert (back.kraft_controller_id, back.kraft_metadata_offset, back.migration_zk_version,
            back.last_updated_time_ms) == (3000, 42, 7, 1234)
    assert back.initial_zk_migration_complete()
    assert back.zk_controller_epoch_zk_version == -2  # unknown until claimed
    assert not ZkMigrationLeadershipState().initial_zk_migration_complete()


@pytest.mark.parametrize("data", [b"{", b'{"version":1,"kraft_controller_id":1}', b'{"version":0}'])
def test_a_bad_migration_znode_is_refused(data: bytes) -> None:
    with pytest.raises(MigrationZNodeError):
        ZkMigrationLeadershipState.decode(data, 0, 0)
