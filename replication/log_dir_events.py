"""Failed log dirs, as the ZooKeeper-mode controller learns of them (Kafka's
KafkaController.processLogDirEventNotification, onBrokerLogDirFailure and the
LeaderAndIsrResponseReceived handling).

A broker whose log dir fails writes ``/log_dir_event_notification/log_dir_event_<seq>``.
The controller reads and deletes those znodes and sends LeaderAndIsr for every replica of
the brokers named; a broker answers KAFKA_STORAGE_ERROR for a replica in a failed dir. Each
LeaderAndIsr answer updates the context's ``replicas_on_offline_dirs``, and replicas newly
offline go through the OfflineReplica transition: leaders elected elsewhere, the replica
taken out of the ISR. A broker's restart forgets its failed dirs (it reloads them).

Who may call it: the KafkaController's event processing only (one task); the watch and the
response callback only queue events. Nothing on disk: ZooKeeper is the store.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar

from kazoo.protocol.states import WatchedEvent

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import LeaderAndIsrResponse

from kafpy.replication import controller_events as ce
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.controller_ops import ControllerOps

log = logging.getLogger("kafka.controller.KafkaController")


@dataclass(frozen=True)
class LeaderAndIsrResponseReceived(ce.ControllerEvent):
    """A broker answered a LeaderAndIsr: its per-partition errors."""

    state: ClassVar[ce.ControllerState] = ce.ControllerState.LEADER_AND_ISR_RESPONSE_RECEIVED
    broker_id: int
    errors: dict[TopicPartition, int] = field(compare=False)


def partition_errors(ctx: ControllerContext, response: LeaderAndIsrResponse) -> dict[TopicPartition, int]:
    """The (topic, partition) -> error code of a LeaderAndIsr response, any version (v5+
    names topics by id)."""
    out: dict[TopicPartition, int] = {}
    for e in getattr(response, "partition_errors", None) or ():
        out[(e.topic_name, e.partition_index)] = e.error_code
    names = None
    for t in getattr(response, "topics", None) or ():
        if names is None:
            names = {tid: name for name, tid in ctx.topic_ids.items()}
        name = names.get(t.topic_id)
        if name is not None:
            for e in t.partition_errors:
                out[(name, e.partition_index)] = e.error_code
    return out


def update_offline_dirs(ctx: ControllerContext, broker_id: int,
                        errors: dict[TopicPartition, int]) -> set[TopicPartition]:
    """Record what a LeaderAndIsr answer says of ``broker_id``'s replicas; the replicas it
    newly reports in a failed log dir."""
    before = ctx.replicas_on_offline_dirs.get(broker_id, set())
    offline = {tp for tp, e in errors.items() if e == ErrorCode.KAFKA_STORAGE_ERROR}
    online = {tp for tp, e in errors.items() if e == ErrorCode.NONE}
    now = (before - online) | offline
    if now:
        ctx.replicas_on_offline_dirs[broker_id] = now
    else:
        ctx.replicas_on_offline_dirs.pop(broker_id, None)
    return now - before


class LogDirEvents:
    def __init__(self, controller: ControllerOps) -> None:
        self.controller = controller

    def on_watch(self, event: WatchedEvent) -> None:
        """``/log_dir_event_notification`` changed (on the loop): queue the event."""
        self.controller.put(ce.LogDirEventNotification())

    def on_leader_and_isr_response(self, broker_id: int, response: LeaderAndIsrResponse) -> None:
        """A LeaderAndIsr answer (on the loop, from the channel): queue its errors."""
        errors = partition_errors(self.controller.ctx, response)
        if any(e == ErrorCode.KAFKA_STORAGE_ERROR for e in errors.values()) or \
                broker_id in self.controller.ctx.replicas_on_offline_dirs:
            self.controller.put(LeaderAndIsrResponseReceived(broker_id, errors))

    async def clear_at_failover(self) -> None:
        """A new controller sends LeaderAndIsr for every partition anyway: drop the old
        notifications (as Kafka) and watch for new ones."""
        c = self.controller
        events = await c.zk.get_log_dir_events(self.on_watch)
        if events:
            await c.zk.delete_children(zd.LOG_DIR_EVENT_NOTIFICATION_PATH, events, c.ctx.epoch_zk_version)

    async def process(self) -> None:
        """processLogDirEventNotification: LeaderAndIsr for every replica of the brokers
        named, then the notifications go."""
        c = self.controller
        ctx = c.ctx
        events = await c.zk.get_log_dir_events(self.on_watch)
        if not events:
            return
        try:
            brokers = sorted({b for b in events.values() if b is not None and b in ctx.live_brokers})
            log.info("[Controller id=%d] Handling log directory failure for brokers %s", c.broker_id, brokers)
            batch = c.new_batch()
            for b in brokers:
                for tp in ctx.partitions_on_broker(b):
                    if tp[0] not in ctx.topics_to_be_deleted:
                        batch.add_leader_and_isr([b], tp)
            c.send(batch)
        finally:
            await c.zk.delete_children(zd.LOG_DIR_EVENT_NOTIFICATION_PATH, events, ctx.epoch_zk_version)

    async def process_response(self, event: LeaderAndIsrResponseReceived) -> None:
        """Replicas a broker newly reports in a failed dir go offline (onReplicasBecomeOffline)."""
        c = self.controller
        ctx = c.ctx
        if event.broker_id not in ctx.live_brokers:
            return
        new = update_offline_dirs(ctx, event.broker_id, event.errors)
        if not new:
            return
        log.info("[Controller id=%d] Mark replicas %s on broker %d as offline", c.broker_id,
                 ", ".join(f"{t}-{p}" for t, p in sorted(new)), event.broker_id)
        batch = c.new_batch()
        await c.on_replicas_offline(batch, {tp: [event.broker_id] for tp in sorted(new)})
        c.send(batch)
