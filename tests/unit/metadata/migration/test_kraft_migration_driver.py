"""The migration driver's decisions (Kafka 3.9's KRaftMigrationDriver events) with the clock
passed in."""
from __future__ import annotations

import pytest

from kafpy.metadata.migration.kraft_migration_driver import IllegalMigrationTransition, KRaftMigrationDriver
from kafpy.metadata.migration.zk_migration_state import MigrationDriverState as S
from kafpy.metadata.migration.zk_migration_state import ZkMigrationLeadershipState, ZkMigrationState


def _active(now: int = 0) -> KRaftMigrationDriver:
    d = KRaftMigrationDriver(3000, now)
    d.recovered(ZkMigrationLeadershipState(), now)
    assert d.state is S.INACTIVE
    assert d.on_controller_change(3000, 4, now)
    d.became_active(ZkMigrationLeadershipState(), now)
    assert d.state is S.WAIT_FOR_CONTROLLER_QUORUM
    assert (d.leadership.kraft_controller_id, d.leadership.kraft_controller_epoch) == (3000, 4)
    return d


def test_a_fresh_migration_waits_for_the_quorum_then_every_broker() -> None:
    d = _active()
    d.wait_for_controller_quorum(ZkMigrationState.PRE_MIGRATION, False, 0)
    assert d.state is S.WAIT_FOR_CONTROLLER_QUORUM
    d.wait_for_controller_quorum(ZkMigrationState.PRE_MIGRATION, True, 0)
    assert d.state is S.WAIT_FOR_BROKERS
    assert not d.zk_brokers_ready({}, {0, 1}, set())
    assert not d.zk_brokers_ready({0: True, 1: True}, set(), set())
    assert not d.zk_brokers_ready({0: True, 1: False}, {0, 1}, set())  # 1 registered as a KRaft broker
    assert not d.zk_brokers_ready({0: True, 1: True}, {0, 1}, {0, 1, 2})  # 2 holds replicas but is down
    assert d.zk_brokers_ready({0: True, 1: True, 2: True}, {0, 1}, {0, 1, 2})


def test_claim_migrate_and_the_offset_kept() -> None:
    d = _active()
    d.wait_for_controller_quorum(ZkMigrationState.PRE_MIGRATION, True, 0)
    d.transition_to(S.BECOME_CONTROLLER, 0)
    assert not d.claimed(d.leadership.with_unknown_zk_controller())
    assert d.claimed(d.leadership.with_zk_controller(7, 6))
    d.after_claim(0)
    assert d.state is S.ZK_MIGRATION
    d.migrated(120, 4, 55, 0)
    assert d.state is S.SYNC_KRAFT_TO_ZK and d.leadership.initial_zk_migration_complete()
    assert (d.leadership.kraft_metadata_offset, d.leadership.kraft_metadata_epoch) == (120, 4)


def test_a_restarted_controller_skips_the_copy_when_zookeeper_says_it_was_done() -> None:
    d = _active()
    d.apply("recovered", d.leadership.with_kraft_metadata_offset_and_epoch(120, 4))
    d.wait_for_controller_quorum(ZkMigrationState.MIGRATION, True, 0)
    assert d.state is S.BECOME_CONTROLLER
    assert d.claimed(d.leadership.with_zk_controller(8, 7))
    d.after_claim(0)
    assert d.state is S.SYNC_KRAFT_TO_ZK


@pytest.mark.parametrize("state", [ZkMigrationState.NONE, ZkMigrationState.POST_MIGRATION, ZkMigrationState.MIGRATION])
def test_states_that_must_not_migrate_make_the_driver_inactive(state: ZkMigrationState) -> None:
    d = _active()  # MIGRATION without an offset in /migration: the log and ZooKeeper disagree
    d.wait_for_controller_quorum(state, True, 0)
    assert d.state is S.INACTIVE


def test_losing_leadership_and_illegal_moves() -> None:
    d = _active()
    assert not d.on_controller_change(3001, 5, 0)
    assert d.state is S.INACTIVE
    with pytest.raises(IllegalMigrationTransition):
        d.transition_to(S.ZK_MIGRATION, 0)


def test_the_poll_backs_off_to_a_minute_and_a_transition_resets_it() -> None:
    d = _active(1000)
    assert [d.schedule_poll(1000) - 1000 for _ in range(3)] == [100, 200, 400]
    for _ in range(20):
        d.schedule_poll(1000)
    assert d.schedule_poll(1000) - 1000 == 60_000
    d.wait_for_controller_quorum(ZkMigrationState.PRE_MIGRATION, True, 2000)
    assert d.next_poll_ms == 2000 and d.schedule_poll(2000) == 2100
