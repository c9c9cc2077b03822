"""A partition's leader, leader epoch and ISR as the controller keeps them (kafka.api.LeaderAndIsr).

This is the content of ``/brokers/topics/<t>/partitions/<p>/state`` (see ``zk_data``) plus the
znode's stat.version, which Kafka calls the partition epoch: every write to the state znode is a
setData with ``expected version = partition_epoch``, so a racing writer is detected.

Who may call it: the controller's election and state-machine code, the ZooKeeper client and,
later, the broker's Partition. Pure data, no I/O.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum

NO_LEADER = -1
"""``leader`` when no replica may lead (offline partition)."""
LEADER_DURING_DELETE = -2
"""``leader`` while the topic is being deleted (also StopReplica's leader_epoch for deletion)."""
INITIAL_LEADER_EPOCH = 0
INITIAL_PARTITION_EPOCH = 0


class LeaderRecoveryState(IntEnum):
    """KIP-704: RECOVERING after an unclean election until the leader's ISR grows again."""

    RECOVERED = 0
    RECOVERING = 1


@dataclass(frozen=True)
class LeaderAndIsr:
    """One partition's leadership; ``partition_epoch`` is the state znode's zkVersion."""

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
    partition_epoch: int = INITIAL_PARTITION_EPOCH

    def __post_init__(self) -> None:
        if not isinstance(self.isr, tuple):  # accept lists, keep the value hashable
            object.__setattr__(self, "isr", tuple(self.isr))
        if not isinstance(self.leader_recovery_state, LeaderRecoveryState):
            object.__setattr__(self, "leader_recovery_state",
                               LeaderRecoveryState(self.leader_recovery_state))

    @classmethod
    def initial(cls, leader: int, isr: tuple[int, ...] | list[int]) -> "LeaderAndIsr":
        """The state a new partition is created with: leader epoch 0, partition epoch 0."""
        return cls(leader, INITIAL_LEADER_EPOCH, tuple(isr))

    def new_leader_and_isr(self, leader: int, isr: tuple[int, ...] | list[int]) -> "LeaderAndIsr":
        """A controller-made change: leader epoch + 1, recovery state kept.

        ``partition_epoch`` is left as it is: it is the expected version of the znode write
        that stores this value, and the write's new stat.version replaces it afterwards.
        """
        return dataclasses.replace(self, leader=leader, leader_epoch=self.leader_epoch + 1,
                                   isr=tuple(isr))

    def new_recovering_leader_and_isr(self, leader: int,
                                      isr: tuple[int, ...] | list[int]) -> "LeaderAndIsr":
        """As ``new_leader_and_isr`` for an unclean election: the leader is RECOVERING."""
        return dataclasses.replace(self.new_leader_and_isr(leader, isr),
                                   leader_recovery_state=LeaderRecoveryState.RECOVERING)

    def new_leader(self, leader: int) -> "LeaderAndIsr":
        return self.new_leader_and_isr(leader, self.isr)

    def with_partition_epoch(self, partition_epoch: int) -> "LeaderAndIsr":
        """The same leadership after a write that left the znode at ``partition_epoch``."""
        return dataclasses.replace(self, partition_epoch=partition_epoch)

    @property
    def has_leader(self) -> bool:
        return self.leader >= 0

    def equals_allow_stale_partition_epoch(self, other: "LeaderAndIsr") -> bool:
        """Same leadership as ``other`` with an equal or older partition epoch.

        Kafka uses it to accept a write that failed on a version conflict but had in fact
        already landed (a retried request), and to answer an identical AlterPartition.
        """
        return (self.leader, self.leader_epoch, self.isr, self.leader_recovery_state) == \
            (other.leader, other.leader_epoch, other.isr, other.leader_recovery_state) \
            and self.partition_epoch <= other.partition_epoch
