"""Topic deletion in the ZooKeeper-mode controller (Kafka's TopicDeletionManager, simplified):
a topic named under ``/admin/delete_topics`` is queued, its partitions leave every broker's
metadata, its live replicas get StopReplica(delete), and its znodes (assignment, partition
states, config, the deletion request) are removed.

Simplification: deletion completes once StopReplica(delete) is queued to the live replicas
(Kafka waits for their answers; a dead replica keeps its log until it is told again).

Who may call it: the KafkaController's event processing only (one task). Nothing on disk:
ZooKeeper is the store.
"""
from __future__ import annotations

import logging
from kazoo.protocol.states import WatchedEvent

from kafpy.replication import controller_events as ce
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_ops import ControllerOps

log = logging.getLogger("kafka.controller.TopicDeletionManager")


class TopicDeletionManager:
    def __init__(self, controller: ControllerOps) -> None:
        self.controller = controller

    def on_watch(self, event: WatchedEvent) -> None:
        """``/admin/delete_topics`` changed (on the loop): queue a TopicDeletion event."""
        self.controller.put(ce.TopicDeletion())

    async def process(self) -> None:
        """Handle every deletion request (and watch for the next ones)."""
        c = self.controller
        ctx, zk = c.ctx, c.zk
        requested = await zk.get_topic_deletions(self.on_watch)
        for topic in sorted(requested):
            if topic not in ctx.assignments or not c.config["delete.topic.enable"]:
                log.info("[Topic Deletion Manager %d] Ignoring request to delete topic %s", c.broker_id, topic)
                await zk.delete_recursive(zd.delete_topic_path(topic), ctx.epoch_zk_version)
                continue
            log.info("[Topic Deletion Manager %d] Handling deletion for topic %s", c.broker_id, topic)
            ctx.topics_to_be_deleted.add(topic)
            batch = c.new_batch()
            tps = ctx.partitions_for_topic(topic)
            batch.add_update_metadata(ctx.live_brokers, [tp for tp in tps if tp in ctx.leadership])
            for tp in tps:
                batch.add_stop_replica(c.live_replicas(tp), tp, delete=True)
            c.send(batch)
            await zk.delete_topic(topic, ctx.epoch_zk_version)
            ctx.remove_topic(topic)
            log.info("[Topic Deletion Manager %d] Deletion of topic %s successfully completed",
                     c.broker_id, topic)
