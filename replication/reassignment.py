"""Partition reassignment in the ZooKeeper-mode controller (Kafka's
KafkaController.onPartitionReassignment and its AlterPartitionReassignments /
ListPartitionReassignments handling).

A reassignment from the original replicas ORS to the target TRS runs in two phases:
1. the topic znode gets RS = TRS + ORS (distinct, target first) with ``adding_replicas`` =
   TRS - ORS and ``removing_replicas`` = ORS - TRS; the leader epoch is bumped and
   LeaderAndIsr goes to every replica of RS, so the adding replicas start following;
2. once every target replica is in the ISR (checked after each ISR change): the context
   holds TRS alone, the leader moves if it is not a live target replica (first live target
   replica in the ISR) or else its epoch is bumped, the removed replicas leave the ISR and
   get StopReplica(delete), the topic znode gets TRS, and every broker gets UpdateMetadata.
A new reassignment of a partition already moving replaces the old one; replicas no longer
needed stop at once. Cancelling (no target) reassigns to the original replicas.

Whether a partition is being reassigned is read from the context's assignment (its adding or
removing replicas), so a new controller resumes what ZooKeeper shows in progress.

The legacy ``/admin/reassign_partitions`` znode (Kafka 2.x tools) starts reassignments through
the same steps; partitions leave it as they complete or are refused, and it is deleted once
empty. The latest request wins: an API reassignment of a partition removes it from the znode,
and a znode entry replaces an API reassignment in progress (Kafka's controller refuses
neither; only the old tools refused to write the znode while one existed).

Who may call it: the KafkaController's event processing only (one task). Nothing on disk:
ZooKeeper is the store. The pure rules (`reassign_to`, `validate_target`, `validate_zk_target`,
`is_complete`) unit-test without a controller.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from kazoo.exceptions import NoNodeError
from kazoo.protocol.states import WatchedEvent

from kafpy.protocol.errors import ErrorCode

from kafpy.replication import controller_events as ce
from kafpy.replication import election
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_channel import ControllerRequestBatch
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.controller_ops import ControllerOps
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_client import ControllerMovedError, KafkaZkClient, SetDataOp

log = logging.getLogger("kafka.controller.KafkaController")

ReassignmentResult = dict[TopicPartition, tuple[ErrorCode, str | None]]


# --------------------------------------------------------------------------- the rules
def origin_replicas(current: zd.ReplicaAssignment) -> tuple[int, ...]:
    """ORS: the replicas before any reassignment in progress."""
    return tuple(r for r in current.replicas if r not in current.adding_replicas)


def reassign_to(current: zd.ReplicaAssignment, target: Sequence[int]) -> zd.ReplicaAssignment:
    """Kafka's ReplicaAssignment.reassignTo: RS = (TRS ++ ORS).distinct, AR, RR."""
    origin = origin_replicas(current)
    return zd.ReplicaAssignment(tuple(dict.fromkeys((*target, *origin))),
                                tuple(r for r in target if r not in origin),
                                tuple(r for r in origin if r not in target))


def validate_target(current: zd.ReplicaAssignment, target: Sequence[int],
                    live: Collection[int]) -> tuple[ErrorCode, str] | None:
    """KafkaController.validateReplicas: an error for a target Kafka refuses, else None."""
    if not target:
        return (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "Empty replica list specified in partition reassignment.")
    if len(set(target)) != len(target):
        return (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Duplicate replica ids in partition reassignment replica list: {list(target)}")
    if any(r < 0 for r in target):
        return ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Invalid broker id in replica list: {list(target)}"
    adding = reassign_to(current, target).adding_replicas
    if not set(adding) <= set(live):
        return (ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Replica assignment has brokers that are not alive. Replica list: {list(adding)}, "
                f"live broker list: {sorted(live)}")
    return None


def validate_zk_target(current: zd.ReplicaAssignment, target: Sequence[int]) -> tuple[ErrorCode, str] | None:
    """A target from ``/admin/reassign_partitions``: Kafka checks none (the 2.x tools did);
    refuse the shapes that cannot work, but wait for brokers not up yet, as Kafka does."""
    return validate_target(current, target, live=target)


def is_complete(assignment: zd.ReplicaAssignment, isr: Collection[int]) -> bool:
    """Phase 2 may run: every target replica is in the ISR."""
    return all(r in isr for r in assignment.target_replicas)


def _unknown(tp: TopicPartition) -> tuple[ErrorCode, str]:
    return (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            f"Unable to find current replica assignment for partition {tp[0]}-{tp[1]}")


async def _read_zk(zk: KafkaZkClient, watch: Callable[[WatchedEvent], None] | None = None
                   ) -> dict[TopicPartition, tuple[int, ...]] | None:
    """``/admin/reassign_partitions``: partition -> target replicas, None when absent."""
    data = await zk.get_admin_request(zd.REASSIGN_PARTITIONS_PATH, watch)
    return None if data is None else zd.decode_partition_reassignment(data)


# --------------------------------------------------------------------------- events
@dataclass(frozen=True, kw_only=True)
class AlterPartitionReassignments(ce.RequestEvent):
    """AlterPartitionReassignments(45): partition -> target replicas (None cancels);
    ``callback`` gets partition -> (ErrorCode, message)."""

    state: ClassVar[ce.ControllerState] = ce.ControllerState.ALTER_PARTITION_REASSIGNMENT
    reassignments: Mapping[TopicPartition, tuple[int, ...] | None] = field(default_factory=dict,
                                                                           compare=False)

    def not_controller_answer(self) -> tuple[object, ...]:
        return ({tp: (ErrorCode.NOT_CONTROLLER, None) for tp in self.reassignments},)


@dataclass(frozen=True, kw_only=True)
class ListPartitionReassignments(ce.RequestEvent):
    """ListPartitionReassignments(46); ``callback`` gets (ErrorCode, partition -> assignment)."""

    state: ClassVar[ce.ControllerState] = ce.ControllerState.LIST_PARTITION_REASSIGNMENT
    partitions: frozenset[TopicPartition] | None = None  # None: every one in progress

    def not_controller_answer(self) -> tuple[object, ...]:
        return ErrorCode.NOT_CONTROLLER, {}


# --------------------------------------------------------------------------- the steps
class PartitionReassignments:
    """The controller's reassignment steps; uses the controller's context, fenced state
    writes and request batches."""

    def __init__(self, controller: ControllerOps) -> None:
        self.controller = controller

    @property
    def ctx(self) -> ControllerContext:
        return self.controller.ctx

    def in_progress(self) -> list[TopicPartition]:
        return sorted(tp for tp in self.ctx.all_partitions()
                      if self.ctx.known_assignment(tp).is_being_reassigned)

    async def process(self, event: ce.RequestEvent) -> None:
        assert event.callback is not None
        if isinstance(event, AlterPartitionReassignments):
            event.callback(await self.alter(event.reassignments))
        elif isinstance(event, ListPartitionReassignments):
            event.callback(ErrorCode.NONE, self.list(event.partitions))

    def list(self, partitions: Iterable[TopicPartition] | None) -> dict[TopicPartition, zd.ReplicaAssignment]:
        wanted = set(partitions) if partitions is not None else None
        return {tp: self.ctx.known_assignment(tp) for tp in self.in_progress()
                if wanted is None or tp in wanted}

    async def alter(self, reassignments: Mapping[TopicPartition, Sequence[int] | None]) -> ReassignmentResult:
        """KafkaController.handleApiPartitionReassignment + maybeTriggerPartitionReassignment."""
        ctx = self.ctx
        out: ReassignmentResult = {}
        goals: dict[TopicPartition, zd.ReplicaAssignment] = {}
        for tp, target in sorted(reassignments.items()):
            current = ctx.assignment(tp)
            if current is None or tp[0] in ctx.topics_to_be_deleted:
                out[tp] = _unknown(tp)
            elif target is not None and (err := validate_target(current, target, ctx.live_broker_ids)):
                out[tp] = err
            elif target is None and not current.is_being_reassigned:
                out[tp] = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, None)
            else:
                goals[tp] = reassign_to(current, origin_replicas(current) if target is None else target)
        # the latest reassignment wins: the API's replaces any from /admin/reassign_partitions
        await self.remove_from_zk(lambda tp, _: tp in goals)
        for tp, goal in goals.items():
            out[tp] = await self._trigger(tp, goal)
        return out

    async def process_zk(self) -> set[TopicPartition]:
        """``/admin/reassign_partitions`` (KafkaController.processZkPartitionReassignment): start
        what it lists (re-arming the watch); partitions refused leave it. Returns the partitions
        it has running, which failover then need not resume."""
        c, ctx = self.controller, self.ctx
        try:
            wanted = await _read_zk(c.zk, self.on_zk_watch)
        except zd.ZkDataError as e:
            log.error("[Controller id=%d] Ignoring %s: %s", c.broker_id, zd.REASSIGN_PARTITIONS_PATH, e)
            wanted = {}
        if wanted is None:
            return set()
        running: set[TopicPartition] = set()
        failed: ReassignmentResult = {}
        for tp, target in sorted(wanted.items()):
            current = ctx.assignment(tp)
            if current is None or tp[0] in ctx.topics_to_be_deleted:
                failed[tp] = _unknown(tp)
            elif err := validate_zk_target(current, target):
                failed[tp] = err
            elif (goal := reassign_to(current, target)) == current and current.is_being_reassigned:
                running.add(tp)  # already moving there (this very request, or the API's)
            elif (result := await self._trigger(tp, goal))[0] == ErrorCode.NONE:
                running.add(tp)
            else:
                failed[tp] = result
        if failed or not wanted:
            if failed:
                log.warning("[Controller id=%d] Failed reassignment through zk with the following "
                            "errors: %s", c.broker_id, failed)
            await self.remove_from_zk(lambda tp, _: tp in failed)
        return running

    def on_zk_watch(self, event: WatchedEvent) -> None:
        """``/admin/reassign_partitions`` was created (or any change: re-read and re-arm)."""
        self.controller.put(ce.ZkPartitionReassignment())

    async def remove_from_zk(self, remove: Callable[[TopicPartition, tuple[int, ...]], bool]) -> None:
        """maybeRemoveFromZkReassignment: drop the partitions ``remove`` picks from
        ``/admin/reassign_partitions``; delete it once empty (then watch for the next one)."""
        c, zk = self.controller, self.controller.zk
        try:
            wanted = await _read_zk(zk)
        except zd.ZkDataError:
            wanted = {}
        if wanted is None:
            return
        keep = {tp: r for tp, r in wanted.items() if not remove(tp, r)}
        if not keep:
            log.info("[Controller id=%d] No more partitions need to be reassigned. Deleting zk path %s",
                     c.broker_id, zd.REASSIGN_PARTITIONS_PATH)
            await zk.delete_recursive(zd.REASSIGN_PARTITIONS_PATH, self.ctx.epoch_zk_version)
            c.put(ce.ZkPartitionReassignment())
        elif len(keep) < len(wanted):
            log.info("[Controller id=%d] Removing partitions %s from the list of reassigned partitions "
                     "in zookeeper", c.broker_id, sorted(set(wanted) - set(keep)))
            try:
                await zk.controller_op(SetDataOp(zd.REASSIGN_PARTITIONS_PATH,
                                                 zd.encode_partition_reassignment(keep)),
                                       self.ctx.epoch_zk_version)
            except NoNodeError:
                pass

    async def _trigger(self, tp: TopicPartition, goal: zd.ReplicaAssignment) -> tuple[ErrorCode, str | None]:
        """maybeTriggerPartitionReassignment for one partition already checked."""
        try:
            await self.on_partition_reassignment(tp, goal)
            return ErrorCode.NONE, None
        except ControllerMovedError:  # the controller resigns
            raise
        except Exception as e:  # noqa: BLE001 - Kafka: UNKNOWN_SERVER_ERROR for this partition only
            log.error("[Controller id=%d] Error completing reassignment of partition %s: %r",
                      self.controller.broker_id, tp, e)
            return ErrorCode.UNKNOWN_SERVER_ERROR, None

    async def on_partition_reassignment(self, tp: TopicPartition, reassignment: zd.ReplicaAssignment) -> None:
        c, ctx = self.controller, self.ctx
        batch = c.new_batch()
        await self._update_current(batch, tp, reassignment)
        lai = ctx.leader_and_isr(tp)
        if lai is None or not is_complete(reassignment, lai.isr):
            log.info("[Controller id=%d] Reassigning %s: replicas %s, adding %s, removing %s", c.broker_id,
                     tp, list(reassignment.replicas), list(reassignment.adding_replicas),
                     list(reassignment.removing_replicas))
            await self._bump_leader_epoch(batch, tp, reassignment.replicas)
        else:
            await self._complete(batch, tp, reassignment)
        c.send(batch)

    async def maybe_complete(self, tps: Iterable[TopicPartition]) -> None:
        """After ISR changes: finish the reassignments whose targets all joined the ISR."""
        for tp in sorted(tps):
            assignment, lai = self.ctx.assignment(tp), self.ctx.leader_and_isr(tp)
            if assignment is not None and assignment.is_being_reassigned and lai is not None \
                    and is_complete(assignment, lai.isr):
                await self.on_partition_reassignment(tp, assignment)

    async def resume(self, brokers: Collection[int] | None = None,
                     skip: Collection[TopicPartition] = ()) -> None:
        """On failover (every reassignment ZooKeeper shows but those in ``skip``), or when
        brokers come up (those with replicas on them): run the reassignment again from its
        current step."""
        for tp in self.in_progress():
            assignment = self.ctx.known_assignment(tp)
            if tp not in skip and (brokers is None or set(assignment.replicas) & set(brokers)):
                await self.on_partition_reassignment(tp, assignment)

    # ------------------------------------------------------------------ helpers
    async def _update_current(self, batch: ControllerRequestBatch, tp: TopicPartition,
                              reassignment: zd.ReplicaAssignment) -> None:
        """Record the new reassignment (znode, then context); stop replicas a replaced
        reassignment was adding that the new one does not need."""
        current = self.ctx.known_assignment(tp)
        if current == reassignment:
            return
        await self._write_assignment(tp, reassignment)
        unneeded = [r for r in current.replicas if r not in reassignment.replicas]
        if unneeded:
            await self._stop_removed(batch, tp, unneeded)

    async def _write_assignment(self, tp: TopicPartition, assignment: zd.ReplicaAssignment) -> None:
        ctx, (topic, partition) = self.ctx, tp
        ctx.assignments[topic][partition] = assignment
        znode = zd.TopicAssignment(zd.topic_id_to_str(ctx.topic_ids[topic]), dict(ctx.assignments[topic]))
        await self.controller.zk.set_topic_assignment(topic, znode, ctx.epoch_zk_version)

    async def _bump_leader_epoch(self, batch: ControllerRequestBatch, tp: TopicPartition,
                                 replicas: Iterable[int]) -> None:
        """updateLeaderEpochAndSendRequest: same leader and ISR at the next leader epoch."""
        written = await self.controller.update_partitions(
            [tp], lambda _, cur: cur.new_leader_and_isr(cur.leader, cur.isr))
        if isinstance(written.get(tp), LeaderAndIsr):
            batch.add_leader_and_isr([r for r in replicas if r in self.ctx.live_brokers], tp)

    async def _complete(self, batch: ControllerRequestBatch, tp: TopicPartition,
                        reassignment: zd.ReplicaAssignment) -> None:
        c, ctx = self.controller, self.ctx
        target = reassignment.target_replicas
        ctx.assignments[tp[0]][tp[1]] = zd.ReplicaAssignment(target)
        cur = ctx.leader_and_isr(tp)
        assert cur is not None  # a partition being reassigned has a leader and ISR
        if cur.leader in target and ctx.is_live(cur.leader):
            await self._bump_leader_epoch(batch, tp, target)
        else:
            live = ctx.live_broker_ids
            moved = await c.update_partitions([tp], lambda _, lai: election.elect_for_reassignment(
                lai, target, live))
            if not isinstance(moved.get(tp), LeaderAndIsr):  # stays in phase 1; retried later
                ctx.assignments[tp[0]][tp[1]] = reassignment
                log.error("[Controller id=%d] No live replica of %s in its ISR can lead it after "
                          "reassignment to %s", c.broker_id, tp, list(target))
                return
            batch.add_leader_and_isr(c.live_replicas(tp), tp)
        await self._stop_removed(batch, tp, reassignment.removing_replicas)
        await self._write_assignment(tp, zd.ReplicaAssignment(target))
        batch.add_update_metadata(ctx.live_brokers, [tp])
        await self.remove_from_zk(lambda p, replicas: p == tp and replicas == tuple(target))
        log.info("[Controller id=%d] Completed reassignment of %s to %s", c.broker_id, tp, list(target))

    async def _stop_removed(self, batch: ControllerRequestBatch, tp: TopicPartition,
                            removed: Sequence[int]) -> None:
        """OfflineReplica (out of the ISR, never emptying it) then deletion of the replica."""
        if not removed:
            return
        c, gone = self.controller, set(removed)

        def shrink(_: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | None:
            isr = [r for r in cur.isr if r not in gone]
            if not isr or isr == list(cur.isr) or cur.leader in gone:
                return None
            return cur.new_leader_and_isr(cur.leader, isr)
        for _, written in (await c.update_partitions([tp], shrink)).items():
            if isinstance(written, LeaderAndIsr):
                batch.add_leader_and_isr(c.live_replicas(tp), tp)
        batch.add_stop_replica(sorted(gone), tp, delete=True)
