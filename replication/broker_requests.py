"""The ZooKeeper-mode controller's answers to the requests brokers send it: AlterPartition
(ISR changes from a leader), ControlledShutdown (leaderships moved off a stopping broker) and
AllocateProducerIds (a block of producer ids from ``/latest_producer_id_block``), as Kafka's
KafkaController processAlterPartition / processControlledShutdown /
processAllocateProducerIds.

Who may call it: ``KafkaController``'s event handlers, on its event task, when it is active.
It sees the controller through ``ControllerOps`` and never imports controller.py. Nothing on
disk: ZooKeeper is the store.
"""
from __future__ import annotations

import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest, AlterPartitionResponse

from kafpy.replication import election
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import TopicPartition, alter_partition_plan, alter_partition_response
from kafpy.replication.controller_ops import ControllerOps
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.reassignment import PartitionReassignments

log = logging.getLogger("kafka.controller.KafkaController")


class BrokerRequests:
    """Keeps nothing of its own: the controller's context and ZooKeeper client are read
    through ``controller`` on each request; ``reassignments`` is told of ISR changes, which
    may complete a reassignment."""

    def __init__(self, controller: ControllerOps, reassignments: PartitionReassignments) -> None:
        self.controller = controller
        self.reassignments = reassignments

    async def alter_partition(self, request: AlterPartitionRequest, version: int) -> AlterPartitionResponse:
        """Kafka's processAlterPartition: ISR changes from a partition's leader, written when
        their partition epoch is current; a stale broker epoch refuses the request whole."""
        ctx = self.controller.ctx
        epoch = ctx.broker_epochs.get(request.broker_id)
        if epoch is None or epoch != request.broker_epoch:
            return AlterPartitionResponse(error_code=ErrorCode.STALE_BROKER_EPOCH)
        answers, to_write = alter_partition_plan(ctx, request, version)

        def decide(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | ErrorCode:
            n = to_write[tp]
            if cur.partition_epoch != n.partition_epoch:
                return ErrorCode.INVALID_UPDATE_VERSION
            return n
        written = await self.controller.update_partitions(list(to_write), decide)
        answers.update(written)
        if written:
            batch = self.controller.new_batch()
            batch.add_update_metadata(ctx.live_brokers, [tp for tp, r in written.items()
                                                         if isinstance(r, LeaderAndIsr)])
            self.controller.send(batch)
            await self.reassignments.maybe_complete(tp for tp, r in written.items() if isinstance(r, LeaderAndIsr))
        return alter_partition_response(request, version, ctx, answers)

    async def allocate_producer_ids(self, broker_id: int, broker_epoch: int
                                    ) -> zd.ProducerIdBlock | ErrorCode:
        """Kafka's processAllocateProducerIds: only a live broker with its current epoch."""
        ctx = self.controller.ctx
        epoch = ctx.broker_epochs.get(broker_id) if broker_id in ctx.live_brokers else None
        if epoch is None:
            log.warning("[Controller id=%d] Ignoring AllocateProducerIds due to unknown broker %d",
                        self.controller.broker_id, broker_id)
            return ErrorCode.BROKER_ID_NOT_REGISTERED
        if epoch != broker_epoch:
            log.warning("[Controller id=%d] Ignoring AllocateProducerIds due to stale broker epoch %d for "
                        "broker %d", self.controller.broker_id, broker_epoch, broker_id)
            return ErrorCode.STALE_BROKER_EPOCH
        return await self.controller.zk.allocate_producer_id_block(broker_id)

    async def controlled_shutdown(self, broker_id: int, broker_epoch: int
                                  ) -> tuple[ErrorCode, frozenset[TopicPartition]]:
        """Kafka's processControlledShutdown: the broker's leaderships moved away, its
        follower replicas stopped; the partitions it still leads (asked again later)."""
        ctx = self.controller.ctx
        if broker_id not in ctx.live_brokers:
            return ErrorCode.BROKER_NOT_AVAILABLE, frozenset()
        if broker_epoch != -1 and broker_epoch < ctx.broker_epochs[broker_id]:
            return ErrorCode.STALE_BROKER_EPOCH, frozenset()
        log.info("[Controller id=%d] Shutting down broker %d", self.controller.broker_id, broker_id)
        ctx.shutting_down_broker_ids.add(broker_id)
        mine = [tp for tp in ctx.partitions_on_broker(broker_id)
                if len(ctx.replicas(tp)) > 1 and tp in ctx.leadership and tp[0] not in ctx.topics_to_be_deleted]
        led = [tp for tp in mine if (state := ctx.leader_and_isr(tp)) is not None and state.leader == broker_id]
        followed = [tp for tp in mine if tp not in led]
        live, down = ctx.live_broker_ids, ctx.shutting_down_broker_ids
        batch = self.controller.new_batch()
        moved = await self.controller.update_partitions(led, lambda tp, cur: election.elect_for_controlled_shutdown(
            cur, ctx.replicas(tp), live, down))
        for tp, r in moved.items():
            if isinstance(r, LeaderAndIsr):
                batch.add_leader_and_isr(self.controller.live_replicas(tp), tp)
        for tp in followed:
            batch.add_stop_replica([broker_id], tp, delete=False)
        await self.controller.on_replicas_offline(batch, {tp: [broker_id] for tp in followed})
        self.controller.send(batch)
        remaining = frozenset(tp for tp in ctx.partitions_led_by(broker_id) if len(ctx.replicas(tp)) > 1)
        return ErrorCode.NONE, remaining
