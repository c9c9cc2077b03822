"""What the active controller knows of the cluster (Kafka's ControllerContext): live brokers
with their epochs, the brokers shutting down, topics with ids and replica assignments, every
partition's leadership and the topics queued for deletion.

It is a cache of ZooKeeper, loaded on failover and kept current by the controller's event
handlers; it never reads ZooKeeper itself and keeps nothing on disk. Its queries are the pure
parts of the controller's decisions (who is live, which partitions a broker leads, which
partitions are offline), so they unit-test without a ZooKeeper.

Who may call it: the KafkaController's event processing only (one task, no locking).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest, AlterPartitionResponse
from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import NO_LEADER, LeaderAndIsr, LeaderRecoveryState

TopicPartition = tuple[str, int]


@dataclass
class ControllerContext:
    epoch: int = 0
    epoch_zk_version: int = -1
    live_brokers: dict[int, zd.BrokerRegistration] = field(default_factory=dict)
    broker_epochs: dict[int, int] = field(default_factory=dict)
    shutting_down_broker_ids: set[int] = field(default_factory=set)
    topic_ids: dict[str, bytes] = field(default_factory=dict)
    assignments: dict[str, dict[int, zd.ReplicaAssignment]] = field(default_factory=dict)
    leadership: dict[TopicPartition, zd.LeaderIsrAndControllerEpoch] = field(default_factory=dict)
    topics_to_be_deleted: set[str] = field(default_factory=set)
    # replicas a live broker answered KAFKA_STORAGE_ERROR for (in a failed log dir)
    replicas_on_offline_dirs: dict[int, set[TopicPartition]] = field(default_factory=dict)

    # ------------------------------------------------------------------ brokers
    @property
    def live_broker_ids(self) -> set[int]:
        """Registered and not shutting down (who may lead)."""
        return set(self.live_brokers) - self.shutting_down_broker_ids

    @property
    def live_or_shutting_down_broker_ids(self) -> set[int]:
        """Registered (who receives control requests)."""
        return set(self.live_brokers)

    def is_live(self, broker_id: int) -> bool:
        return broker_id in self.live_brokers and broker_id not in self.shutting_down_broker_ids

    def add_live_brokers(self, brokers: dict[int, tuple[zd.BrokerRegistration, int]]) -> None:
        for broker_id, (registration, epoch) in brokers.items():
            self.live_brokers[broker_id] = registration
            self.broker_epochs[broker_id] = epoch

    def remove_live_brokers(self, broker_ids: Iterable[int]) -> None:
        for broker_id in broker_ids:
            self.replicas_on_offline_dirs.pop(broker_id, None)  # a restart brings its dirs back
            self.live_brokers.pop(broker_id, None)
            self.broker_epochs.pop(broker_id, None)
            self.shutting_down_broker_ids.discard(broker_id)

    # ------------------------------------------------------------------ topics
    @property
    def all_topics(self) -> set[str]:
        return set(self.assignments)

    def set_topic(self, topic: str, assignment: zd.TopicAssignment, topic_id: bytes) -> None:
        self.topic_ids[topic] = topic_id
        self.assignments[topic] = dict(assignment.partitions)

    def remove_topic(self, topic: str) -> None:
        self.topic_ids.pop(topic, None)
        for p in self.assignments.pop(topic, {}):
            self.leadership.pop((topic, p), None)
            for offline in self.replicas_on_offline_dirs.values():
                offline.discard((topic, p))
        self.topics_to_be_deleted.discard(topic)

    def all_partitions(self) -> Iterator[TopicPartition]:
        for topic, parts in self.assignments.items():
            for p in parts:
                yield topic, p

    def partitions_for_topic(self, topic: str) -> list[TopicPartition]:
        return [(topic, p) for p in sorted(self.assignments.get(topic, {}))]

    def replicas(self, tp: TopicPartition) -> tuple[int, ...]:
        a = self.assignments.get(tp[0], {}).get(tp[1])
        return a.replicas if a is not None else ()

    def assignment(self, tp: TopicPartition) -> zd.ReplicaAssignment | None:
        return self.assignments.get(tp[0], {}).get(tp[1])

    def known_assignment(self, tp: TopicPartition) -> zd.ReplicaAssignment:
        """``assignment`` of a partition the caller knows exists (KeyError otherwise)."""
        return self.assignments[tp[0]][tp[1]]

    def leader_and_isr(self, tp: TopicPartition) -> LeaderAndIsr | None:
        s = self.leadership.get(tp)
        return s.leader_and_isr if s is not None else None

    # ------------------------------------------------------------------ derived questions
    def partitions_on_broker(self, broker_id: int) -> list[TopicPartition]:
        return sorted(tp for tp in self.all_partitions() if broker_id in self.replicas(tp))

    def partitions_led_by(self, broker_id: int) -> list[TopicPartition]:
        return sorted(tp for tp, s in self.leadership.items()
                      if s.leader_and_isr.leader == broker_id)

    def is_replica_online(self, broker_id: int, tp: TopicPartition) -> bool:
        """Kafka's isReplicaOnline: a live broker whose log dir holding ``tp`` works."""
        return broker_id in self.live_brokers and tp not in self.replicas_on_offline_dirs.get(broker_id, ())

    def live_broker_ids_for(self, tp: TopicPartition) -> set[int]:
        """``live_broker_ids`` less the brokers whose replica of ``tp`` is in a failed log
        dir (who may lead ``tp``)."""
        return {b for b in self.live_broker_ids if tp not in self.replicas_on_offline_dirs.get(b, ())}

    def offline_replicas(self, tp: TopicPartition) -> list[int]:
        return [r for r in self.replicas(tp) if not self.is_replica_online(r, tp)]

    def is_online(self, tp: TopicPartition) -> bool:
        """A partition is online while its leader is a live broker with its replica online."""
        lai = self.leader_and_isr(tp)
        return lai is not None and lai.leader >= 0 and self.is_replica_online(lai.leader, tp)

    def partitions_needing_election(self) -> list[TopicPartition]:
        """New partitions (no state yet) and offline ones (leader dead or none), skipping
        topics queued for deletion (Kafka's triggerOnlinePartitionStateChange)."""
        return sorted(tp for tp in self.all_partitions()
                      if tp[0] not in self.topics_to_be_deleted and not self.is_online(tp))

    def preferred_imbalance(self) -> dict[int, list[TopicPartition]]:
        """Per preferred leader (first replica), its partitions led by someone else
        (auto leader rebalance's input)."""
        out: dict[int, list[TopicPartition]] = {}
        for tp in self.all_partitions():
            replicas = self.replicas(tp)
            lai = self.leader_and_isr(tp)
            if replicas and lai is not None and tp[0] not in self.topics_to_be_deleted:
                out.setdefault(replicas[0], [])
                if lai.leader != replicas[0]:
                    out[replicas[0]].append(tp)
        return out

    def partitions_to_rebalance(self, max_ratio: float) -> list[TopicPartition]:
        """Partitions to give back to their live preferred leader, for every broker whose
        share of preferred partitions led by others exceeds ``max_ratio``."""
        todo = []
        for broker, not_led in sorted(self.preferred_imbalance().items()):
            total = sum(1 for tp in self.all_partitions() if self.replicas(tp)[:1] == (broker,))
            if total and len(not_led) / total > max_ratio and self.is_live(broker):
                todo.extend(not_led)
        return todo

    def reset(self) -> None:
        """Forget everything (resignation)."""
        self.live_brokers.clear()
        self.broker_epochs.clear()
        self.shutting_down_broker_ids.clear()
        self.topic_ids.clear()
        self.assignments.clear()
        self.leadership.clear()
        self.topics_to_be_deleted.clear()
        self.replicas_on_offline_dirs.clear()
        self.epoch_zk_version = -1


def alter_partition_decision(ctx: ControllerContext, tp: TopicPartition, broker_id: int,
                             request: AlterPartitionRequest.PartitionData, version: int
                             ) -> ErrorCode | tuple[bool, LeaderAndIsr]:
    """One partition of an AlterPartition, checked in the order Kafka's ZooKeeper-mode
    controller checks it (``KafkaController``'s AlterPartition handling): an error, (False,
    current state) for a request already applied, or (True, state to write) — the leader's
    ISR at the same leader epoch, written at the current partition epoch.

    ``request`` is the request's PartitionData (v3 names ISR members with their epochs)."""
    cur = ctx.leader_and_isr(tp)
    if cur is None or tp[0] in ctx.topics_to_be_deleted:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if version >= 3:
        isr = tuple(b.broker_id for b in request.new_isr_with_epochs)
        stale = [b.broker_id for b in request.new_isr_with_epochs
                 if b.broker_epoch != -1 and ctx.broker_epochs.get(b.broker_id) != b.broker_epoch]
    else:
        isr, stale = tuple(request.new_isr), []
    recovery = LeaderRecoveryState(request.leader_recovery_state if version >= 1 else 0)
    new = LeaderAndIsr(broker_id, request.leader_epoch, isr, recovery, request.partition_epoch)
    if new.leader_epoch > cur.leader_epoch or new.partition_epoch > cur.partition_epoch:
        return ErrorCode.NOT_CONTROLLER  # the request knows a newer state than this controller
    if new.leader_epoch < cur.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH
    if cur.leader != broker_id:
        return ErrorCode.NOT_LEADER_OR_FOLLOWER
    if new.equals_allow_stale_partition_epoch(cur):
        return False, cur
    if new.partition_epoch < cur.partition_epoch:
        return ErrorCode.INVALID_UPDATE_VERSION
    if recovery is LeaderRecoveryState.RECOVERING and (
            len(isr) > 1 or cur.leader_recovery_state is LeaderRecoveryState.RECOVERED):
        return ErrorCode.INVALID_REQUEST
    if stale or any(not ctx.is_live(r) for r in isr):
        return ErrorCode.INELIGIBLE_REPLICA if version > 1 else ErrorCode.OPERATION_NOT_ATTEMPTED
    return True, LeaderAndIsr(cur.leader, cur.leader_epoch, isr, recovery, cur.partition_epoch)


def _topic_name(ctx: ControllerContext, topic: AlterPartitionRequest.TopicData, version: int) -> str | None:
    if version < 2:
        return topic.topic_name
    return next((t for t, tid in ctx.topic_ids.items() if tid == topic.topic_id), None)


def alter_partition_plan(ctx: ControllerContext, request: AlterPartitionRequest, version: int
                         ) -> tuple[dict[TopicPartition, ErrorCode | LeaderAndIsr],
                                    dict[TopicPartition, LeaderAndIsr]]:
    """(answers known now, states to write) for a whole AlterPartition whose broker epoch
    was checked. Topics are named (v0-1) or identified (v2+)."""
    answers: dict[TopicPartition, ErrorCode | LeaderAndIsr] = {}
    to_write: dict[TopicPartition, LeaderAndIsr] = {}
    for t in request.topics:
        name = _topic_name(ctx, t, version)
        for p in t.partitions:
            tp = (name or "", p.partition_index)
            d = ErrorCode.UNKNOWN_TOPIC_ID if name is None else \
                alter_partition_decision(ctx, tp, request.broker_id, p, version)
            if isinstance(d, tuple):
                (to_write if d[0] else answers)[tp] = d[1]
            else:
                answers[tp] = d
    return answers, to_write


def alter_partition_response(request: AlterPartitionRequest, version: int, ctx: ControllerContext,
                             answers: dict[TopicPartition, ErrorCode | LeaderAndIsr]) -> AlterPartitionResponse:
    """The response, per partition the written/current state or the error."""
    out = []
    for t in request.topics:
        name = _topic_name(ctx, t, version)
        parts = []
        for p in t.partitions:
            a = answers.get((name or "", p.partition_index), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
            if isinstance(a, LeaderAndIsr):
                parts.append(AlterPartitionResponse.PartitionData(partition_index=p.partition_index, error_code=ErrorCode.NONE,
                                             leader_id=a.leader, leader_epoch=a.leader_epoch, isr=list(a.isr),
                                             leader_recovery_state=int(a.leader_recovery_state),
                                             partition_epoch=a.partition_epoch))
            else:
                parts.append(AlterPartitionResponse.PartitionData(partition_index=p.partition_index, error_code=a))
        out.append(AlterPartitionResponse.TopicData(topic_name=t.topic_name, topic_id=t.topic_id, partitions=parts))
    return AlterPartitionResponse(error_code=ErrorCode.NONE, topics=out)


__all__ = ["ControllerContext", "TopicPartition", "NO_LEADER", "alter_partition_decision",
           "alter_partition_plan", "alter_partition_response"]
