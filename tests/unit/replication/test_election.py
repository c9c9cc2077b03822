"""Kafka's leader elections (Election.scala) on plain values, the cases of Kafka's controller
(KafkaController.scala: offline partitions, reassignment, preferred, controlled shutdown)."""
from __future__ import annotations

from kafpy.protocol.errors import ErrorCode
from kafpy.replication import election
from kafpy.replication.leader_and_isr import NO_LEADER, LeaderAndIsr, LeaderRecoveryState

RECOVERING = LeaderRecoveryState.RECOVERING


def state(leader: int, epoch: int, isr: list[int], zk_version: int = 0) -> LeaderAndIsr:
    return LeaderAndIsr(leader, epoch, tuple(isr), partition_epoch=zk_version)


def test_new_partition_leader_is_first_live_replica_and_isr_the_live_ones():
    new = election.new_partition_state([3, 1, 2], live={1, 2})
    assert new == LeaderAndIsr(1, 0, (1, 2), partition_epoch=0)
    assert election.new_partition_state([3], live={1}) is None


def test_offline_picks_first_live_isr_member_in_assignment_order_and_trims_isr():
    # observed on Kafka 3.9.1: broker 1 died, (1, le0, [1,2,3], v0) -> leader 2, le1, isr [2,3]
    current = state(1, 0, [1, 2, 3])
    new = election.elect_offline(current, [1, 2, 3], live={2, 3}, unclean=False)
    assert new == LeaderAndIsr(2, 1, (2, 3), partition_epoch=0)
    # assignment order decides, not ISR order
    new = election.elect_offline(state(1, 4, [3, 2, 1]), [1, 2, 3], live={2, 3}, unclean=False)
    assert new is not None and new.leader == 2 and new.isr == (3, 2) and new.leader_epoch == 5


def test_offline_without_eligible_replica_stays_leaderless_unless_unclean():
    current = state(NO_LEADER, 3, [1])
    assert election.elect_offline(current, [1, 2, 3], live={2, 3}, unclean=False) is None
    new = election.elect_offline(current, [1, 3, 2], live={2, 3}, unclean=True)
    assert new == LeaderAndIsr(3, 4, (3,), RECOVERING, 0)
    old_style = election.elect_offline(current, [1, 3, 2], live={2, 3}, unclean=True,
                                       leader_recovery_supported=False)
    assert old_style is not None and old_style.leader_recovery_state == LeaderRecoveryState.RECOVERED
    assert election.elect_offline(current, [1, 2], live=set(), unclean=True) is None


def test_unclean_flag_is_not_used_when_a_clean_choice_exists():
    new = election.elect_offline(state(1, 0, [1, 2]), [1, 3, 2], live={2, 3}, unclean=True)
    assert new is not None and (new.leader, new.isr) == (2, (2,))
    assert new.leader_recovery_state == LeaderRecoveryState.RECOVERED


def test_reassignment_uses_target_replicas_and_keeps_isr():
    current = state(1, 2, [1, 2, 4])
    new = election.elect_for_reassignment(current, [4, 5, 2], live={2, 4, 5})
    assert new == LeaderAndIsr(4, 3, (1, 2, 4), partition_epoch=0)
    assert election.elect_for_reassignment(current, [5, 6], live={5, 6}) is None


def test_preferred_election_outcomes():
    assert election.elect_preferred(state(1, 0, [1, 2]), [1, 2], live={1, 2}) \
        == ErrorCode.ELECTION_NOT_NEEDED
    assert election.elect_preferred(state(2, 1, [2]), [1, 2], live={1, 2}) \
        == ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE  # preferred not in ISR
    assert election.elect_preferred(state(2, 1, [1, 2]), [1, 2], live={2}) \
        == ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE  # preferred dead
    assert election.elect_preferred(state(2, 1, [2, 1], 7), [1, 2], live={1, 2}) \
        == LeaderAndIsr(1, 2, (2, 1), partition_epoch=7)


def test_unclean_election_request_outcomes():
    assert election.elect_unclean(state(2, 1, [2]), [1, 2], live={1, 2}) \
        == ErrorCode.ELECTION_NOT_NEEDED
    assert election.elect_unclean(state(NO_LEADER, 1, [3]), [3, 4], live=set()) \
        == ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE
    assert election.elect_unclean(state(3, 1, [3]), [3, 4], live={4}) \
        == LeaderAndIsr(4, 2, (4,), RECOVERING, 0)


def test_controlled_shutdown_moves_leader_and_removes_shutting_down_from_isr():
    # observed on Kafka 3.9.1: SIGTERM 2 turned (2, le2, [2,3,1]) into (1, le3, [3,1])
    current = state(2, 2, [2, 3, 1], zk_version=3)
    new = election.elect_for_controlled_shutdown(current, [1, 2, 3], live={1, 3},
                                                 shutting_down={2})
    assert new == LeaderAndIsr(1, 3, (3, 1), partition_epoch=3)
    # only the shutting-down broker is in the ISR: no leader can be chosen
    assert election.elect_for_controlled_shutdown(state(2, 2, [2]), [1, 2], live={1},
                                                  shutting_down={2}) is None


def test_remove_replica_from_isr_never_empties_it():
    assert election.remove_replica_from_isr(state(1, 0, [1, 2, 3]), 3) \
        == LeaderAndIsr(1, 1, (1, 2), partition_epoch=0)
    # the leader goes: no leader until an election, epoch still bumped
    assert election.remove_replica_from_isr(state(1, 0, [1, 2]), 1) \
        == LeaderAndIsr(NO_LEADER, 1, (2,), partition_epoch=0)
    # last ISR member stays in the ISR, leader becomes -1
    assert election.remove_replica_from_isr(state(1, 5, [1]), 1) \
        == LeaderAndIsr(NO_LEADER, 6, (1,), partition_epoch=0)
    assert election.remove_replica_from_isr(state(1, 5, [1]), 2) is None


def test_leader_and_isr_helpers():
    current = LeaderAndIsr(1, 3, [1, 2], partition_epoch=4)  # a list is stored as a tuple
    assert current.isr == (1, 2) and hash(current)
    assert current.new_leader(2) == LeaderAndIsr(2, 4, (1, 2), partition_epoch=4)
    written = current.new_leader(2).with_partition_epoch(5)
    assert written.partition_epoch == 5
    assert current.equals_allow_stale_partition_epoch(LeaderAndIsr(1, 3, (1, 2), partition_epoch=9))
    assert not current.equals_allow_stale_partition_epoch(LeaderAndIsr(1, 3, (1, 2), partition_epoch=3))
    assert not current.equals_allow_stale_partition_epoch(written)
