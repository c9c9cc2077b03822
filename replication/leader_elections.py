"""Leader elections the controller runs on request or on a timer (Kafka's
KafkaController.onReplicaElection and checkAndTriggerAutoLeaderRebalance): ElectLeaders with
the preferred or the unclean strategy, and the periodic move of leadership back to preferred
replicas (auto.leader.rebalance.enable), and the legacy ``/admin/preferred_replica_election``
znode Kafka 2.x tools write (served on creation and at failover, then deleted).

Who may call it: the KafkaController's event processing only (one task); the rebalance timer
only queues an event. Nothing on disk: ZooKeeper is the store.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import ClassVar

from kazoo.protocol.states import WatchedEvent

from kafpy.protocol.errors import ErrorCode

from kafpy.replication import controller_events as ce
from kafpy.replication import election
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.controller_ops import ControllerOps
from kafpy.replication.leader_and_isr import LeaderAndIsr

log = logging.getLogger("kafka.controller.KafkaController")

PREFERRED, UNCLEAN = 0, 1  # ElectLeaders' election_type


class ZkPreferredReplicaElection(ce.ControllerEvent):
    """``/admin/preferred_replica_election`` was created (Kafka's ReplicaLeaderElection with
    the ZkTriggered trigger)."""

    state: ClassVar[ce.ControllerState] = ce.ControllerState.MANUAL_LEADER_BALANCE


def preferred_election_targets(ctx: ControllerContext, partitions: Iterable[TopicPartition]
                               ) -> tuple[list[TopicPartition], dict[TopicPartition, str]]:
    """The partitions a preferred election would move, and why each other one is skipped
    (unknown, its topic being deleted, its preferred replica already leads), as Kafka's
    processReplicaLeaderElection sorts them."""
    electable, skipped = [], {}
    for tp in sorted(set(partitions)):
        lai = ctx.leader_and_isr(tp)
        if not ctx.replicas(tp) or lai is None:
            skipped[tp] = "it doesn't exist"
        elif tp[0] in ctx.topics_to_be_deleted:
            skipped[tp] = "its topic is being deleted"
        elif lai.leader == ctx.replicas(tp)[0]:
            skipped[tp] = "its preferred replica already leads"
        else:
            electable.append(tp)
    return electable, skipped


class LeaderElections:
    def __init__(self, controller: ControllerOps) -> None:
        self.controller = controller
        self._rebalance_task: asyncio.Task | None = None

    async def process(self, election_type: int, partitions: frozenset | None
                      ) -> dict[TopicPartition, tuple[ErrorCode, str | None]]:
        """Per partition (ErrorCode, message), ElectLeaders' answer."""
        c = self.controller
        ctx = c.ctx
        tps = sorted(partitions) if partitions is not None else sorted(ctx.leadership)
        out: dict[TopicPartition, tuple[ErrorCode, str | None]] = {}
        live = ctx.live_broker_ids
        unclean_ok = election_type == UNCLEAN
        went_unclean: set[TopicPartition] = set()   # counted once written (ControllerStats)

        def decide(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | ErrorCode:
            if tp[0] in ctx.topics_to_be_deleted:
                return ErrorCode.INVALID_TOPIC_EXCEPTION
            if unclean_ok:
                result = election.elect_unclean(cur, ctx.replicas(tp), live)
                if isinstance(result, LeaderAndIsr) and result.leader not in cur.isr:
                    went_unclean.add(tp)
                return result
            return election.elect_preferred(cur, ctx.replicas(tp), live)
        if election_type not in (PREFERRED, UNCLEAN):
            return {tp: (ErrorCode.INVALID_REQUEST, f"Unknown election type {election_type}") for tp in tps}
        batch = c.new_batch()
        for tp, r in (await c.update_partitions(tps, decide)).items():
            if isinstance(r, LeaderAndIsr):
                batch.add_leader_and_isr(c.live_replicas(tp), tp)
                out[tp] = (ErrorCode.NONE, None)
                if tp in went_unclean:
                    c.stats.unclean_leader_elections += 1
            elif r in (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE):
                kind = "Preferred" if election_type == PREFERRED else "Unclean"
                out[tp] = (r, f"Failed to elect leader for partition {tp[0]}-{tp[1]} under strategy "
                              f"{kind}ReplicaPartitionLeaderElectionStrategy")
            else:
                out[tp] = (r, None)
        c.send(batch)
        return out

    # ------------------------------------------------------------------ /admin/preferred_replica_election
    def on_zk_watch(self, event: WatchedEvent) -> None:
        """The znode was created (or any change: re-read and re-arm)."""
        self.controller.put(ZkPreferredReplicaElection())

    async def process_zk(self) -> None:
        """Elect the preferred leaders the znode lists (re-arming the watch), then delete it;
        on creation and at failover alike."""
        c = self.controller
        data = await c.zk.get_admin_request(zd.PREFERRED_REPLICA_ELECTION_PATH, self.on_zk_watch)
        if data is None:
            return
        try:
            wanted = zd.decode_partition_list(data)
        except zd.ZkDataError as e:
            log.error("[Controller id=%d] Ignoring %s: %s", c.broker_id,
                      zd.PREFERRED_REPLICA_ELECTION_PATH, e)
            wanted = set()
        electable, skipped = preferred_election_targets(c.ctx, wanted)
        for tp, why in skipped.items():
            log.info("[Controller id=%d] Skipping preferred replica leader election for partition %s "
                     "since %s", c.broker_id, tp, why)
        if electable:
            await self.process(PREFERRED, frozenset(electable))
        for tp in electable:
            state = c.ctx.leader_and_isr(tp)
            if state is None:   # deleted meanwhile
                continue
            leader, preferred = state.leader, c.ctx.replicas(tp)[0]
            if leader != preferred:
                log.warning("[Controller id=%d] Partition %s failed to complete preferred replica leader "
                            "election to %d. Leader is still %d", c.broker_id, tp, preferred, leader)
        await c.zk.delete_recursive(zd.PREFERRED_REPLICA_ELECTION_PATH, c.ctx.epoch_zk_version)
        c.put(ZkPreferredReplicaElection())  # watch for the next one

    # ------------------------------------------------------------------ auto rebalance
    def schedule_auto_rebalance(self) -> None:
        c = self.controller
        if not c.config["auto.leader.rebalance.enable"]:
            return
        interval = float(c.config["leader.imbalance.check.interval.seconds"])

        async def tick() -> None:
            while True:
                await asyncio.sleep(interval)
                c.put(ce.AutoPreferredReplicaLeaderElection())
        self._rebalance_task = c.loop.create_task(tick(), name=f"auto-leader-rebalance-{c.broker_id}")

    def cancel_auto_rebalance(self) -> None:
        if self._rebalance_task is not None:
            self._rebalance_task.cancel()
            self._rebalance_task = None

    async def process_auto_rebalance(self) -> None:
        """Move leadership back to preferred replicas of every broker whose share of
        partitions led by someone else exceeds leader.imbalance.per.broker.percentage."""
        c = self.controller
        ctx = c.ctx
        if ctx.shutting_down_broker_ids:
            return
        todo = ctx.partitions_to_rebalance(c.config["leader.imbalance.per.broker.percentage"] / 100)
        if todo:
            log.info("[Controller id=%d] Starting preferred replica leader election for partitions %s",
                     c.broker_id, todo)
            await self.process(PREFERRED, frozenset(todo))
