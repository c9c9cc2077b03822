"""One replica of a partition as this broker sees it (Kafka's cluster/Partition.scala and
Replica.scala): its role, leader and partition epochs, assignment and ISR, the fetch state of
each follower while this broker leads, and the code that moves a leader's high watermark (a
follower takes its leader's in ``replication/fetcher.py``, through ``FollowerLog``).

Who may call it: the ReplicaManager (state changes, and the appends and reads of its
``append_records`` and ``fetch_messages``), request handlers and the coordinators (state
reads) — all on the event loop. It holds no asyncio objects and reads
time only through the injected clock, so it unit-tests without a loop. Nothing on disk is
its own: the storage Log keeps records, the epoch cache and the high-watermark checkpoint.
"""
from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol

from kafpy.protocol.errors import ErrorCode, KafkaError

if TYPE_CHECKING:
    from kafpy.storage.log import Log, LogAppendInfo

log = logging.getLogger("kafka.cluster.Partition")

NO_LEADER = -1
# The leader Kafka's controller writes while a topic is being deleted (LeaderAndIsr.LeaderDuringDelete).
LEADER_DURING_DELETE = -2


class Role(enum.Enum):
    LEADER = "leader"
    FOLLOWER = "follower"
    NONE = "none"


class PartitionError(KafkaError):
    """A replica-state refusal; ``error_code`` is Kafka's (NOT_LEADER_OR_FOLLOWER, ...)."""

    def __init__(self, error_code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error_code = ErrorCode(error_code)


@dataclass(frozen=True)
class PartitionState:
    """What a LeaderAndIsr (or StopReplica) request says about one partition; the only input
    from which a broker starts, changes or stops hosting a replica."""

    topic: str
    index: int
    topic_id: bytes
    leader: int
    leader_epoch: int
    partition_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    is_new: bool = False
    # stop hosting and delete the log (StopReplica delete_partition=true)
    delete_partition: bool = False


@dataclass(slots=True)
class Replica:
    """A follower's fetch state as the leader tracks it (Replica.scala)."""

    broker_id: int
    log_end_offset: int = -1
    last_caught_up_time_ms: int = 0
    last_fetch_leader_log_end_offset: int = -1
    last_fetch_time_ms: int = 0

    def update_fetch_state(self, fetch_offset: int, fetch_time_ms: int, leader_end_offset: int) -> None:
        """Replica.updateFetchState: a fetch at or past the leader's LEO means caught up now;
        one at or past the LEO the leader had at the previous fetch means caught up then."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, fetch_time_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_end_offset = fetch_offset
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = fetch_time_ms

    def reset(self, in_isr: bool, now_ms: int, is_new_leader: bool = True,
              leader_end_offset: int = -1) -> None:
        """At the start of a leader epoch (Replica.resetReplicaState). A new leader knows
        nothing of this follower's log yet; a leader re-elected in a new epoch keeps the log
        end offset it last heard of (so acks=all does not wait for every follower to fetch
        again) and only restarts the caught-up clock from ``leader_end_offset``. Either way
        a follower outside the ISR is not counted as caught up until it fetches."""
        self.last_caught_up_time_ms = now_ms if in_isr else 0
        if is_new_leader:
            self.log_end_offset = -1
            self.last_fetch_leader_log_end_offset = -1
            self.last_fetch_time_ms = 0
        else:
            self.last_fetch_leader_log_end_offset = leader_end_offset
            self.last_fetch_time_ms = now_ms if in_isr else 0


@dataclass(frozen=True, slots=True)
class PendingIsrChange:
    """An ISR change sent to the controller and not answered yet (Kafka's PendingExpandIsr /
    PendingShrinkIsr). ``maximal_isr`` is what the high watermark counts meanwhile: a shrink
    keeps the old ISR, an expansion counts the new member at once. ``leader_epoch`` and
    ``partition_epoch`` are the state it was proposed from."""

    new_isr: tuple[int, ...]
    maximal_isr: tuple[int, ...]
    leader_epoch: int
    partition_epoch: int


# AlterPartition errors after which the change is dropped (the ISR stays pending, so no other
# change is sent, until a LeaderAndIsr brings the current state; Partition.handleAlterPartitionError)
_WAIT_FOR_LEADER_AND_ISR = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.FENCED_LEADER_EPOCH,
    ErrorCode.INVALID_UPDATE_VERSION, ErrorCode.INVALID_REQUEST, ErrorCode.NEW_LEADER_ELECTED,
    ErrorCode.NOT_LEADER_OR_FOLLOWER,
})
# ... and those after which the controller certainly did not apply it: back to the committed ISR
_REJECTED = frozenset({ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA})

AlterIsr = Callable[["Partition", PendingIsrChange], None]


class PartitionListener(Protocol):
    """Told when records land or the high watermark moves, so delayed operations re-check."""

    def on_records_appended(self, partition: "Partition") -> None:
        """Records were appended as leader and the high watermark did not move."""
    def on_high_watermark_moved(self, partition: "Partition") -> None:
        """Also after an append that moved it: waiting fetches re-check here too."""


class Partition:
    """A hosted replica. ``log`` is the storage Log (the group coordinator reads it too)."""

    def __init__(self, topic: str, index: int, topic_id: bytes, log_: "Log", is_internal: bool,
                 local_broker_id: int, clock: Callable[[], float], min_insync_replicas: int = 1,
                 replica_lag_time_max_ms: int = 30000, listener: PartitionListener | None = None,
                 alter_isr: AlterIsr | None = None, is_broker_alive: Callable[[int], bool] | None = None) -> None:
        """``alter_isr`` sends an ISR change to the controller (the AlterPartitionManager; None:
        the ISR never changes, as standalone); ``is_broker_alive`` says whether a follower may
        join the ISR (the metadata cache's live brokers)."""
        self.topic = topic
        self.index = index
        self.topic_id = topic_id
        self.log: "Log" = log_
        self.is_internal = is_internal
        self.local_broker_id = local_broker_id
        self.min_insync_replicas = min_insync_replicas
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.listener = listener
        self.alter_isr = alter_isr
        self.is_broker_alive = is_broker_alive or (lambda _: True)
        self._clock = clock
        self.role = Role.NONE
        self.leader_id = NO_LEADER
        self.leader_epoch = -1
        self.partition_epoch = -1
        self.assigned_replicas: tuple[int, ...] = ()
        self.isr: tuple[int, ...] = ()
        self.leader_epoch_start_offset = -1
        # followers' fetch state, only while this broker leads
        self.remote_replicas: dict[int, Replica] = {}
        # the one ISR change in flight to the controller
        self.pending_isr: PendingIsrChange | None = None
        # ISR changes this replica committed as leader (Kafka's IsrShrinksPerSec and
        # IsrExpandsPerSec, read by the metrics collector)
        self.isr_shrinks = 0
        self.isr_expands = 0

    def __repr__(self) -> str:
        return (f"Partition({self.topic}-{self.index}, {self.role.value}, leader={self.leader_id}, "
                f"epoch={self.leader_epoch}, isr={list(self.isr)})")

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    @property
    def is_leader(self) -> bool:
        return self.role is Role.LEADER

    @property
    def high_watermark(self) -> int:
        return self.log.high_watermark

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        """The ISR the high watermark and acks=all count: the committed one, or a pending
        change's maximal one."""
        pending = self.pending_isr
        return pending.maximal_isr if pending is not None else self.isr

    @property
    def is_under_min_isr(self) -> bool:
        return self.role is Role.LEADER and len(self.isr) < self.effective_min_isr

    @property
    def effective_min_isr(self) -> int:
        """min(min.insync.replicas, replication factor): a topic with fewer replicas than its
        min.insync.replicas still makes progress with all of them (Partition.effectiveMinIsr)."""
        return min(self.min_insync_replicas, len(self.remote_replicas) + 1)

    # -- state changes (ReplicaManager only) ------------------------------------------------
    def make_leader(self, state: PartitionState) -> bool:
        """Become leader for ``state.leader_epoch``; False (nothing changed) unless that epoch is
        newer than ours. Records (epoch, LEO) in the epoch cache and keeps the old high
        watermark: only maybe_increment_leader_hw moves it (never HW := LEO). A leader that
        stays leader in the new epoch (the controller took a dead follower out of the ISR,
        a reassignment bumped the epoch) keeps what it knows of its followers' logs, as
        Kafka's Partition.makeLeader with isNewLeader false."""
        if state.leader_epoch <= self.leader_epoch:
            return False
        now = self._now_ms()
        is_new_leader = self.role is not Role.LEADER
        lg = self.log
        end = lg.log_end_offset
        lg.leader_epoch_cache.assign(state.leader_epoch, end)
        self.leader_epoch_start_offset = end
        self._set_state(state, Role.LEADER)
        known = {} if is_new_leader else self.remote_replicas
        self.remote_replicas = {}
        for r in state.replicas:
            if r != self.local_broker_id:
                rep = known.get(r) or Replica(r)
                rep.reset(r in state.isr, now, is_new_leader or r not in known, end)
                self.remote_replicas[r] = rep
        log.info("[Partition %s-%d broker=%d] Leader %s-%d with topic id %s starts at leader epoch %d from "
                 "offset %d with partition epoch %d, high watermark %d, ISR %s", self.topic, self.index,
                 self.local_broker_id, self.topic, self.index, self.topic_id.hex(), state.leader_epoch, end,
                 state.partition_epoch, lg.high_watermark, list(state.isr))
        self.maybe_increment_leader_hw(now)
        return True

    def make_follower(self, state: PartitionState) -> bool:
        """Follow ``state.leader``; False unless the leader epoch is newer. A follower keeps
        no ISR and no follower state (the leader owns both)."""
        if state.leader_epoch <= self.leader_epoch:
            return False
        self._set_state(state, Role.FOLLOWER)
        self.isr = ()
        self.remote_replicas = {}
        self.leader_epoch_start_offset = -1
        log.info("[Partition %s-%d broker=%d] Follower %s-%d starts at leader epoch %d from offset %d with "
                 "partition epoch %d and high watermark %d. Current leader is %d.", self.topic, self.index,
                 self.local_broker_id, self.topic, self.index, state.leader_epoch, self.log.log_end_offset,
                 state.partition_epoch, self.log.high_watermark, state.leader)
        return True

    def update_assignment_and_isr(self, state: PartitionState) -> None:
        """KRaft: the controller changed this leader's ISR or replicas without a new leader
        epoch (a fenced follower left the ISR); take them and the partition epoch, keeping
        what is known of the followers that stay (Kafka's makeLeader, isNewLeaderEpoch false)."""
        now = self._now_ms()
        known = self.remote_replicas
        self.remote_replicas = {}
        for r in state.replicas:
            if r != self.local_broker_id:
                rep = known.get(r) or Replica(r)
                if r not in known:
                    rep.reset(r in state.isr, now, True, self.log.log_end_offset)
                self.remote_replicas[r] = rep
        self.assigned_replicas = tuple(state.replicas)
        self.isr = tuple(state.isr)
        self.partition_epoch = state.partition_epoch
        self.pending_isr = None
        log.info("[Partition %s-%d broker=%d] ISR updated to %s from the metadata (partition epoch %d)", self.topic,
                 self.index, self.local_broker_id, ",".join(map(str, state.isr)), state.partition_epoch)
        self.maybe_increment_leader_hw(now)

    def stop(self) -> None:
        """No longer hosted: waits on it must see leadership gone."""
        self.role = Role.NONE
        self.leader_id = NO_LEADER
        self.isr = ()
        self.remote_replicas = {}
        self.pending_isr = None

    def _set_state(self, state: PartitionState, role: Role) -> None:
        self.role = role
        self.leader_id = state.leader
        self.leader_epoch = state.leader_epoch
        self.partition_epoch = state.partition_epoch
        self.assigned_replicas = tuple(state.replicas)
        self.isr = tuple(state.isr)
        self.pending_isr = None

    # -- leader: appends and the high watermark ------------------------------------------------
    def append_records_to_leader(self, records: bytes | memoryview, origin: str = "client",
                                 required_acks: int = 1) -> "LogAppendInfo":
        """Append as leader and return storage's LogAppendInfo. Raises PartitionError
        (NOT_LEADER_OR_FOLLOWER, or NOT_ENOUGH_REPLICAS for acks=-1 with the ISR below the
        effective min ISR: nothing is appended) or a storage error with ``error_code``."""
        if self.role is not Role.LEADER:
            raise PartitionError(ErrorCode.NOT_LEADER_OR_FOLLOWER,
                                 f"Leader not local for partition {self.topic}-{self.index} on broker "
                                 f"{self.local_broker_id}")
        if required_acks == -1 and len(self.isr) < self.effective_min_isr:
            raise PartitionError(ErrorCode.NOT_ENOUGH_REPLICAS,
                                 f"The size of the current ISR {list(self.isr)} is insufficient to satisfy the "
                                 f"min.isr requirement of {self.min_insync_replicas} for partition "
                                 f"{self.topic}-{self.index}")
        info = self.log.append_as_leader(records, self.leader_epoch, origin)
        # as Kafka's appendRecords: a moved HW completes the waits (its listener call), else
        # only fetches waiting for records are tried
        if not self.maybe_increment_leader_hw():
            listener = self.listener
            if listener is not None:
                listener.on_records_appended(self)
        return info

    def maybe_increment_leader_hw(self, now_ms: int | None = None) -> bool:
        """The only way the high watermark moves on a leader: to the lowest LEO over the ISR
        (ours included, plus caught-up followers), never backwards, and not at all while the
        ISR is below the effective min ISR (Kafka 3.7+, KAFKA-15583). Tells the listener and
        returns True when it moved."""
        if self.role is not Role.LEADER:
            return False
        lg = self.log
        new_hw = lg.log_end_offset
        if self.remote_replicas:
            if len(self.isr) < self.effective_min_isr:
                return False
            now = self._now_ms() if now_ms is None else now_ms
            maximal = self.maximal_isr
            for rep in self.remote_replicas.values():
                if rep.log_end_offset < new_hw and (
                        rep.broker_id in maximal
                        or (self.is_caught_up(rep, now) and self.is_broker_alive(rep.broker_id))):
                    new_hw = rep.log_end_offset
        if not lg.maybe_increment_high_watermark(new_hw):
            return False
        listener = self.listener
        if listener is not None:
            listener.on_high_watermark_moved(self)
        return True

    def is_caught_up(self, replica: Replica, now_ms: int, lag_ms: int | None = None) -> bool:
        """Replica.isCaughtUp: at the leader's LEO, or caught up within the lag time."""
        lag = self.replica_lag_time_max_ms if lag_ms is None else lag_ms
        return (replica.log_end_offset == self.log.log_end_offset
                or now_ms - replica.last_caught_up_time_ms <= lag)

    def update_follower_fetch_state(self, replica_id: int, fetch_offset: int, now_ms: int) -> bool:
        """A follower fetched from ``fetch_offset``: record it and maybe move the HW. False
        when ``replica_id`` is not one of our followers (Partition.updateFollowerFetchState)."""
        rep = self.remote_replicas.get(replica_id)
        if rep is None or self.role is not Role.LEADER:
            return False
        previous = rep.log_end_offset
        rep.update_fetch_state(fetch_offset, now_ms, self.log.log_end_offset)
        self.maybe_expand_isr(rep)
        if rep.log_end_offset != previous:
            self.maybe_increment_leader_hw(now_ms)
        return True

    def out_of_sync_replicas(self, now_ms: int) -> list[int]:
        """ISR members (not us) that are no longer caught up, or unknown: the candidates of an
        ISR shrink (Partition.getOutOfSyncReplicas)."""
        return [r for r in self.isr if r != self.local_broker_id
                and ((rep := self.remote_replicas.get(r)) is None or not self.is_caught_up(rep, now_ms))]

    # -- ISR changes (the leader proposes, the controller decides) ---------------------------------
    def maybe_expand_isr(self, rep: Replica) -> bool:
        """Propose ``rep`` for the ISR when it has reached the high watermark and the start of
        this leader epoch (KAFKA-7128), nothing else is in flight and its broker is alive."""
        if (self.role is not Role.LEADER or self.alter_isr is None or self.pending_isr is not None
                or rep.broker_id in self.isr):
            return False
        end = rep.log_end_offset
        if end < self.log.high_watermark or end < self.leader_epoch_start_offset:
            return False
        if not self.is_broker_alive(rep.broker_id):
            return False
        new_isr = self.isr + (rep.broker_id,)
        log.info("[Partition %s-%d broker=%d] Expanding ISR from %s to %s", self.topic, self.index,
                 self.local_broker_id, list(self.isr), list(new_isr))
        self._propose(PendingIsrChange(new_isr, new_isr, self.leader_epoch, self.partition_epoch))
        return True

    def maybe_shrink_isr(self, now_ms: int | None = None) -> bool:
        """The periodic check (every replica.lag.time.max.ms / 2): propose the ISR without
        the followers that are no longer caught up. The leader stays, so the ISR never empties."""
        if self.role is not Role.LEADER or self.alter_isr is None or self.pending_isr is not None:
            return False
        now = self._now_ms() if now_ms is None else now_ms
        out = self.out_of_sync_replicas(now)
        if not out:
            return False
        new_isr = tuple(r for r in self.isr if r not in out)
        lg = self.log
        log.info("[Partition %s-%d broker=%d] Shrinking ISR from %s to %s. Leader: (highWatermark: %d, "
                 "endOffset: %d). Out of sync replicas: %s.", self.topic, self.index, self.local_broker_id,
                 list(self.isr), list(new_isr), lg.high_watermark, lg.log_end_offset,
                 ", ".join(f"(brokerId: {r}, endOffset: {self.remote_replicas[r].log_end_offset if r in self.remote_replicas else -1})"
                           for r in out))
        self._propose(PendingIsrChange(new_isr, self.isr, self.leader_epoch, self.partition_epoch))
        return True

    def _propose(self, pending: PendingIsrChange) -> None:
        self.pending_isr = pending
        assert self.alter_isr is not None
        self.alter_isr(self, pending)
        # an expansion counts the new member at once: the HW may move now
        self.maybe_increment_leader_hw()

    def on_alter_partition_result(self, pending: PendingIsrChange, error: ErrorCode, isr: tuple[int, ...] = (),
                                  leader_epoch: int = -1, partition_epoch: int = -1) -> bool:
        """The controller's answer to ``pending``: adopt the ISR and partition epoch it
        returns, or handle the error as Kafka does. True when the change should be sent again."""
        if self.pending_isr is not pending:
            return False  # a LeaderAndIsr replaced the state meanwhile
        if error != ErrorCode.NONE:
            if error in _REJECTED:
                self.pending_isr = None
                log.info("[Partition %s-%d broker=%d] Failed to alter partition to %s since the controller "
                         "rejected the request with %s. Partition state has been reset to the latest committed "
                         "state %s.", self.topic, self.index, self.local_broker_id, list(pending.new_isr),
                         error.name, list(self.isr))
                return False
            if error in _WAIT_FOR_LEADER_AND_ISR:
                log.info("[Partition %s-%d broker=%d] Failed to alter partition to %s: %s. Partition state may be "
                         "out of sync, awaiting the latest metadata.", self.topic, self.index,
                         self.local_broker_id, list(pending.new_isr), error.name)
                return False
            log.warning("[Partition %s-%d broker=%d] Failed to update ISR to %s due to unexpected %s. Retrying.",
                        self.topic, self.index, self.local_broker_id, list(pending.new_isr), error.name)
            return True
        if leader_epoch != self.leader_epoch or partition_epoch < self.partition_epoch:
            log.debug("Ignoring the ISR %s of leader epoch %d, partition epoch %d: ours are %d, %d", isr,
                      leader_epoch, partition_epoch, self.leader_epoch, self.partition_epoch)
            return False
        self.pending_isr = None
        if len(isr) < len(self.isr):
            self.isr_shrinks += 1
        elif len(isr) > len(self.isr):
            self.isr_expands += 1
        self.isr = tuple(isr)
        self.partition_epoch = partition_epoch
        log.info("[Partition %s-%d broker=%d] ISR updated to %s%s and version updated to %d", self.topic,
                 self.index, self.local_broker_id, ",".join(map(str, isr)),
                 " (under-min-isr)" if self.is_under_min_isr else "", partition_epoch)
        self.maybe_increment_leader_hw()
        return False

    def check_enough_replicas_reach_offset(self, required_offset: int) -> ErrorCode | None:
        """DelayedProduce's question (Partition.checkEnoughReplicasReachOffset): None while the
        high watermark is below ``required_offset``, else the answer for the producer."""
        if self.role is not Role.LEADER:
            return ErrorCode.NOT_LEADER_OR_FOLLOWER
        if self.log.high_watermark < required_offset:
            return None
        if len(self.maximal_isr) < self.effective_min_isr:
            return ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return ErrorCode.NONE

