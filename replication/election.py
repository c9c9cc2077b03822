"""Kafka's partition leader elections as pure functions (controller/Election.scala and
PartitionLeaderElectionAlgorithms in PartitionStateMachine.scala).

Inputs are plain values: the replica assignment (its order matters: the first eligible replica
wins, ``assignment[0]`` is the preferred leader), the current ISR, the live brokers and, for a
controlled shutdown, the brokers shutting down. "Live" means registered in ``/brokers/ids``
and not shutting down, as in Kafka's ``ControllerContext.liveBrokerIds``.

Every result is a new ``LeaderAndIsr`` made with ``new_leader_and_isr`` (leader epoch + 1,
partition epoch still the expected zkVersion of the write) or None when no leader can be
chosen. The callers write it to ZooKeeper and send LeaderAndIsr/UpdateMetadata.

Who may call it: the controller (partition and replica state machines, ElectLeaders,
controlled shutdown). No I/O, no clock.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

from kafpy.protocol.errors import ErrorCode
from kafpy.replication.leader_and_isr import NO_LEADER, LeaderAndIsr


# --------------------------------------------------------------------------- leader choice
def offline_partition_leader(assignment: Sequence[int], isr: Collection[int],
                             live: Collection[int], unclean: bool) -> int | None:
    """First assigned replica that is live and in the ISR; else, if unclean election is
    enabled, the first live assigned replica (it may lack committed data)."""
    for replica in assignment:
        if replica in live and replica in isr:
            return replica
    if unclean:
        for replica in assignment:
            if replica in live:
                return replica
    return None


def reassign_partition_leader(target_replicas: Sequence[int], isr: Collection[int],
                              live: Collection[int]) -> int | None:
    """First replica of the reassignment's target set that is live and in the ISR."""
    return next((r for r in target_replicas if r in live and r in isr), None)


def preferred_replica_leader(assignment: Sequence[int], isr: Collection[int],
                             live: Collection[int]) -> int | None:
    """The preferred replica (``assignment[0]``) if it is live and in the ISR."""
    if assignment and assignment[0] in live and assignment[0] in isr:
        return assignment[0]
    return None


def controlled_shutdown_leader(assignment: Sequence[int], isr: Collection[int],
                               live: Collection[int], shutting_down: Collection[int]) -> int | None:
    """First assigned replica that is live, in the ISR and not shutting down."""
    return next((r for r in assignment
                 if r in live and r in isr and r not in shutting_down), None)


# --------------------------------------------------------------------------- new states
def new_partition_state(assignment: Sequence[int], live: Collection[int]) -> LeaderAndIsr | None:
    """NewPartition -> OnlinePartition: leader = first live replica, ISR = the live replicas,
    leader epoch 0. None when no assigned replica is live (the partition stays new)."""
    live_replicas = [r for r in assignment if r in live]
    if not live_replicas:
        return None
    return LeaderAndIsr.initial(live_replicas[0], live_replicas)


def elect_offline(current: LeaderAndIsr, assignment: Sequence[int], live: Collection[int],
                  unclean: bool, leader_recovery_supported: bool = True) -> LeaderAndIsr | None:
    """OfflinePartition -> OnlinePartition.

    A clean choice keeps the live part of the ISR. An unclean one makes the leader the whole
    ISR and, since 3.2 (KIP-704), marks the partition RECOVERING.
    """
    leader = offline_partition_leader(assignment, current.isr, live, unclean)
    if leader is None:
        return None
    if leader in current.isr:
        return current.new_leader_and_isr(leader, [r for r in current.isr if r in live])
    if leader_recovery_supported:
        return current.new_recovering_leader_and_isr(leader, [leader])
    return current.new_leader_and_isr(leader, [leader])


def elect_for_reassignment(current: LeaderAndIsr, target_replicas: Sequence[int],
                           live: Collection[int]) -> LeaderAndIsr | None:
    """Leader for a partition whose reassignment moves its leader away; ISR unchanged."""
    leader = reassign_partition_leader(target_replicas, current.isr, live)
    return None if leader is None else current.new_leader(leader)


def elect_preferred(current: LeaderAndIsr, assignment: Sequence[int],
                    live: Collection[int]) -> LeaderAndIsr | ErrorCode:
    """ElectLeaders(PREFERRED) for one partition, with Kafka's per-partition outcomes:
    ELECTION_NOT_NEEDED when the preferred replica already leads,
    PREFERRED_LEADER_NOT_AVAILABLE when it is dead or out of the ISR."""
    if assignment and current.leader == assignment[0]:
        return ErrorCode.ELECTION_NOT_NEEDED
    leader = preferred_replica_leader(assignment, current.isr, live)
    if leader is None:
        return ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
    return current.new_leader(leader)


def elect_unclean(current: LeaderAndIsr, assignment: Sequence[int], live: Collection[int],
                  leader_recovery_supported: bool = True) -> LeaderAndIsr | ErrorCode:
    """ElectLeaders(UNCLEAN) for one partition: ELECTION_NOT_NEEDED while a live leader exists,
    ELIGIBLE_LEADERS_NOT_AVAILABLE when no assigned replica is live."""
    if current.leader != NO_LEADER and current.leader in live:
        return ErrorCode.ELECTION_NOT_NEEDED
    result = elect_offline(current, assignment, live, True, leader_recovery_supported)
    return ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE if result is None else result


def elect_for_controlled_shutdown(current: LeaderAndIsr, assignment: Sequence[int],
                                  live: Collection[int],
                                  shutting_down: Collection[int]) -> LeaderAndIsr | None:
    """Move leadership off brokers shutting down; they also leave the ISR."""
    leader = controlled_shutdown_leader(assignment, current.isr, set(live) | set(shutting_down),
                                        shutting_down)
    if leader is None:
        return None
    return current.new_leader_and_isr(leader, [r for r in current.isr if r not in shutting_down])


def remove_replica_from_isr(current: LeaderAndIsr, replica: int) -> LeaderAndIsr | None:
    """OfflineReplica on the controller: drop ``replica`` from the ISR, but never empty it.

    When the replica is the ISR's last member it stays (the only copy known to hold every
    committed record) and the partition loses its leader. If the replica led, the leader
    becomes NO_LEADER. None when the replica is not in the ISR (nothing to write).
    """
    if replica not in current.isr:
        return None
    leader = NO_LEADER if current.leader == replica else current.leader
    isr = current.isr if len(current.isr) == 1 else tuple(r for r in current.isr if r != replica)
    return current.new_leader_and_isr(leader, isr)
