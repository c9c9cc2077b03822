"""Leader elections the controller runs on request or on a timer (Kafka's
KafkaController.onReplicaElection and checkAndTriggerAutoLeaderRebalance): ElectLeaders with
the preferred or the unclean strategy, and the periodic move of leadership back to preferred
replicas (auto.leader.rebalance.enable).

Who may call it: the KafkaController's event processing only (one task); the rebalance timer
only queues an event. Nothing on disk: ZooKeeper is the store.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode

from replication import controller_events as ce
from replication import election
from replication.controller_context import TopicPartition
from replication.leader_and_isr import LeaderAndIsr

if TYPE_CHECKING:
    from replication.controller import KafkaController

log = logging.getLogger("kafka.controller.KafkaController")

PREFERRED, UNCLEAN = 0, 1  # ElectLeaders' election_type


class LeaderElections:
    def __init__(self, controller: "KafkaController") -> None:
        self.controller = controller
        self._rebalance_task: asyncio.Task | None = None

    async def process(self, election_type: int, partitions: frozenset | None
                      ) -> dict[TopicPartition, Any]:
        """Per partition (ErrorCode, message), ElectLeaders' answer."""
        c = self.controller
        ctx = c.ctx
        tps = sorted(partitions) if partitions is not None else sorted(ctx.leadership)
        out: dict[TopicPartition, Any] = {}
        live = ctx.live_broker_ids
        unclean_ok = election_type == UNCLEAN

        def decide(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | ErrorCode:
            if tp[0] in ctx.topics_to_be_deleted:
                return ErrorCode.INVALID_TOPIC_EXCEPTION
            if unclean_ok:
                return election.elect_unclean(cur, ctx.replicas(tp), live)
            return election.elect_preferred(cur, ctx.replicas(tp), live)
        if election_type not in (PREFERRED, UNCLEAN):
            return {tp: (ErrorCode.INVALID_REQUEST, f"Unknown election type {election_type}") for tp in tps}
        batch = c._batch()
        for tp, r in (await c._update_partitions(tps, decide)).items():
            if isinstance(r, LeaderAndIsr):
                batch.add_leader_and_isr(c._live_replicas(tp), tp)
                out[tp] = (ErrorCode.NONE, None)
            elif r in (ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE):
                kind = "Preferred" if election_type == PREFERRED else "Unclean"
                out[tp] = (r, f"Failed to elect leader for partition {tp[0]}-{tp[1]} under strategy "
                              f"{kind}ReplicaPartitionLeaderElectionStrategy")
            else:
                out[tp] = (r, None)
        c._send(batch)
        return out

    # ------------------------------------------------------------------ auto rebalance
    def schedule_auto_rebalance(self) -> None:
        c = self.controller
        if not c.config["auto.leader.rebalance.enable"]:
            return
        interval = float(c.config["leader.imbalance.check.interval.seconds"])

        async def tick() -> None:
            while True:
                await asyncio.sleep(interval)
                c._put(ce.AutoPreferredReplicaLeaderElection())
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
