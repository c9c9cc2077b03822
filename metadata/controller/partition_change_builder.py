"""The PartitionChangeRecord for a change of one partition, as Kafka's ``PartitionChangeBuilder``.

Who calls it: ``ReplicationControlManager`` (ISR changes from AlterPartition, leader
elections when brokers are fenced, unfenced or shut down, ElectLeaders, reassignments).
The caller sets the target ISR / replicas / election type; ``build`` completes a finished
reassignment, elects a leader (the current one while it stays valid, else the first acceptable
replica in the target ISR; PREFERRED tries the first replica first; UNCLEAN falls back to any
acceptable replica and resets the ISR to it, the leader then RECOVERING), forces a leader
epoch bump when replicas leave the assignment, and returns None when nothing changes. The
leader epoch moves only when the record names a leader. With eligible leader replicas
(KIP-966) enabled, replicas leaving an ISR smaller than min.insync.replicas move to the ELR,
the ISR may become empty, an ELR member may be elected, and the last leader of a leaderless
partition is kept as its last known ELR; with them disabled an ISR is never shrunk to empty
(its last member stays in it, leaderless)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import Enum

from kafpy.metadata.image.partition import (
    NO_LEADER,
    NO_LEADER_CHANGE,
    UNASSIGNED,
    LeaderRecoveryState,
    PartitionRegistration,
)
from kafpy.protocol.messages import PartitionChangeRecord

# metadata.version 3.7-IV2 brought directories into partition records
DIRECTORY_ASSIGNMENT_LEVEL = 17


class Election(Enum):
    """Kafka's ``PartitionChangeBuilder.Election``."""

    PREFERRED = 0
    ONLINE = 1
    UNCLEAN = 2


class PartitionChangeBuilder:
    """The partition as it is and the targets the caller sets."""

    def __init__(self, partition: PartitionRegistration, topic_id: bytes, partition_id: int,
                 is_acceptable_leader: Callable[[int], bool], metadata_version: int,
                 default_dir: Callable[[int], bytes] = lambda _: UNASSIGNED,
                 min_isr: int = 1, elr_enabled: bool = False) -> None:
        self.partition = partition
        self.topic_id = topic_id
        self.partition_id = partition_id
        self.is_acceptable_leader = is_acceptable_leader
        self.metadata_version = metadata_version
        self.default_dir = default_dir
        self.target_isr = list(partition.isr)
        self.target_replicas = list(partition.replicas)
        self.target_removing = list(partition.removing_replicas)
        self.target_adding = list(partition.adding_replicas)
        self.target_directories: dict[int, bytes] = dict(zip(partition.replicas, partition.directories))
        self.target_leader_recovery_state = partition.leader_recovery_state
        self.election = Election.ONLINE
        self.min_isr = min_isr
        self.elr_enabled = elr_enabled
        self.target_elr = list(partition.elr)
        self.target_last_known_elr = list(partition.last_known_elr)

    def set_election(self, election: Election) -> PartitionChangeBuilder:
        self.election = election
        return self

    def set_target_isr(self, isr: list[int]) -> PartitionChangeBuilder:
        self.target_isr = list(isr)
        return self

    def set_target_replicas(self, replicas: list[int]) -> PartitionChangeBuilder:
        self.target_replicas = list(replicas)
        return self

    def set_target_removing(self, removing: list[int]) -> PartitionChangeBuilder:
        self.target_removing = list(removing)
        return self

    def set_target_adding(self, adding: list[int]) -> PartitionChangeBuilder:
        self.target_adding = list(adding)
        return self

    def set_target_directories(self, directories: Mapping[int, bytes]) -> PartitionChangeBuilder:
        self.target_directories.update(directories)
        return self

    def set_target_leader_recovery_state(self, state: LeaderRecoveryState) -> PartitionChangeBuilder:
        self.target_leader_recovery_state = state
        return self

    # -- election ----------------------------------------------------------------------------

    def _is_valid_new_leader(self, replica: int) -> bool:
        """In the target ISR, or in the ELR when the ISR is empty; and acceptable."""
        return ((replica in self.target_isr or (not self.target_isr and replica in self.target_elr))
                and self.is_acceptable_leader(replica))

    def _can_elect_last_known_leader(self) -> bool:
        """Kafka's balanced recovery: ISR and ELR empty, the last known ELR holds just the
        last leader (here it must also be acceptable, as Kafka's log line intends)."""
        if not self.elr_enabled or self.target_elr or self.target_isr:
            return False
        last = self.partition.last_known_elr
        return len(last) == 1 and self.is_acceptable_leader(last[0])

    def elect_leader(self) -> tuple[int, bool]:
        """(new leader, unclean?) (Kafka's ``electLeader``)."""
        if self.election == Election.PREFERRED:
            preferred = self.target_replicas[0]
            if self._is_valid_new_leader(preferred):
                return preferred, False
            if self._is_valid_new_leader(self.partition.leader):
                return self.partition.leader, False
            for replica in self.target_replicas[1:]:
                if self._is_valid_new_leader(replica):
                    return replica, False
            if self._can_elect_last_known_leader():
                return self.partition.last_known_elr[0], True
            return NO_LEADER, False
        if self._is_valid_new_leader(self.partition.leader):
            return self.partition.leader, False
        for replica in self.target_replicas:
            if self._is_valid_new_leader(replica):
                return replica, False
        if self._can_elect_last_known_leader():
            return self.partition.last_known_elr[0], True
        if self.election == Election.UNCLEAN:
            for replica in self.target_replicas:
                if self.is_acceptable_leader(replica):
                    return replica, True
        return NO_LEADER, False

    def _try_election(self, record: PartitionChangeRecord) -> None:
        leader, unclean = self.elect_leader()
        if leader == self.partition.leader:
            return
        if leader in self.target_elr:
            # elected from the ELR: it alone is the ISR now
            self.target_isr = [leader]
            self.target_elr = [r for r in self.target_elr if r != leader]
        record.leader = leader
        if unclean:
            # an unclean election forces the ISR to the new leader alone: data may be lost
            record.isr = [leader]
            if self.partition.leader_recovery_state != LeaderRecoveryState.RECOVERING:
                record.leader_recovery_state = int(LeaderRecoveryState.RECOVERING)

    # -- reassignment ------------------------------------------------------------------------

    def _complete_reassignment_if_needed(self) -> None:
        """Kafka's ``PartitionReassignmentReplicas.maybeCompleteReassignment``: once every
        adding replica is in the ISR, the removing replicas leave replicas and ISR (unless
        that would leave the ISR empty)."""
        if not self.target_removing and not self.target_adding:
            return
        if any(r not in self.target_isr for r in self.target_adding):
            return
        new_isr = [r for r in self.target_isr if r not in self.target_removing]
        if not new_isr:
            return
        self.target_isr = new_isr
        self.target_replicas = [r for r in self.target_replicas if r not in self.target_removing]
        self.target_removing = []
        self.target_adding = []

    # -- eligible leader replicas ------------------------------------------------------------

    def _populate_target_elr(self) -> None:
        """Kafka's ``maybePopulateTargetElr``: below min ISR, the ISR members that leave join
        the ELR (and are remembered in the last known ELR); at or above it, both are cleared."""
        if not self.elr_enabled:
            return
        if len(self.target_isr) >= self.min_isr:
            self.target_elr, self.target_last_known_elr = [], []
            return
        candidates = _ordered_union(self.target_elr, self.partition.isr)
        self.target_elr = [r for r in candidates if r not in self.target_isr]
        candidates = _ordered_union(candidates, self.target_last_known_elr)
        self.target_last_known_elr = [r for r in candidates
                                      if r not in self.target_isr and r not in self.target_elr]

    def _update_record_elr(self, record: PartitionChangeRecord) -> None:
        """Kafka's ``maybeUpdateRecordElr`` (with balanced recovery, the last known ELR holds
        the last leader and is set by ``_update_last_known_leader``)."""
        if record.isr is not None or not self.elr_enabled:  # unclean election, or no ELR
            self.target_elr, self.target_last_known_elr = [], []
        if self.target_elr != list(self.partition.elr):
            record.eligible_leader_replicas = list(self.target_elr)

    def _update_last_known_leader(self, record: PartitionChangeRecord) -> None:
        if not self.elr_enabled:
            return
        last = self.partition.last_known_elr
        if record.isr is not None and not record.isr and (len(last) != 1 or last[0] != self.partition.leader):
            record.last_known_elr = [self.partition.leader]
        elif ((record.leader >= 0 or (self.partition.leader != NO_LEADER and record.leader != NO_LEADER))
              and last):
            record.last_known_elr = []

    # -- build -------------------------------------------------------------------------------

    def build(self) -> PartitionChangeRecord | None:
        record = PartitionChangeRecord(topic_id=self.topic_id, partition_id=self.partition_id)
        self._complete_reassignment_if_needed()
        self._populate_target_elr()
        self._try_election(record)
        if (record.leader == NO_LEADER_CHANGE
                and not set(self.partition.replicas) <= set(self.target_replicas)):
            # replicas leave the assignment: bump the leader epoch
            record.leader = self.partition.leader
        self._update_record_elr(record)
        if (record.isr is None and (self.target_isr or self.elr_enabled)
                and self.target_isr != list(self.partition.isr)):
            record.isr = list(self.target_isr)
        self._update_last_known_leader(record)
        self._set_assignment_changes(record)
        if self.target_leader_recovery_state != self.partition.leader_recovery_state:
            record.leader_recovery_state = int(self.target_leader_recovery_state)
        return None if _is_no_op(record) else record

    def _set_assignment_changes(self, record: PartitionChangeRecord) -> None:
        if self.target_replicas and self.target_replicas != list(self.partition.replicas):
            record.replicas = list(self.target_replicas)
        if self.metadata_version >= DIRECTORY_ASSIGNMENT_LEVEL and self.target_replicas:
            directories = [self.target_directories.get(r) or self.default_dir(r)
                           for r in self.target_replicas]
            if directories != list(self.partition.directories):
                record.directories = directories
        if self.target_removing != list(self.partition.removing_replicas):
            record.removing_replicas = list(self.target_removing)
        if self.target_adding != list(self.partition.adding_replicas):
            record.adding_replicas = list(self.target_adding)


def _ordered_union(first: Iterable[int], second: Iterable[int]) -> list[int]:
    """The union, ascending (the order Kafka's HashSet of broker ids iterates in)."""
    return sorted(set(first) | set(second))


def _is_no_op(record: PartitionChangeRecord) -> bool:
    return (record.isr is None and record.leader == NO_LEADER_CHANGE and record.replicas is None
            and record.removing_replicas is None and record.adding_replicas is None
            and record.leader_recovery_state == -1 and record.directories is None
            and record.eligible_leader_replicas is None and record.last_known_elr is None)
