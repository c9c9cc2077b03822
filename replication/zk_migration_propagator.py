"""The KRaft controller's requests to the ZooKeeper brokers during a migration (Kafka 3.9's
``MigrationPropagator``): LeaderAndIsr, UpdateMetadata and StopReplica built from the metadata
image, marked ``isKRaftController``, carrying the ZooKeeper controller epoch the KRaft
controller claimed and each broker's KRaft broker epoch.

- ``full_requests(image, ...)``: after the copy (and after a failover), every ZooKeeper broker
  gets a FULL LeaderAndIsr of every partition it replicates and a FULL UpdateMetadata of every
  partition and live broker.
- ``delta_requests(before, after, ...)``: in dual-write mode, what changed between two images:
  LeaderAndIsr of the changed partitions to their replicas, StopReplica (delete) of a deleted
  topic's partitions to its replicas, UpdateMetadata of the changed and deleted partitions (and
  of the brokers when a registration changed) to every ZooKeeper broker.

Pure: returns ``(broker id, api key, builder)`` triples (a builder makes the request at the
version the broker speaks) that ``ControllerChannelManager`` sends in order per broker.
Comparing images part by part is cheap: an image shares every unchanged topic and partition.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from kafpy.metadata.image.cluster import BrokerRegistration
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.messages import LeaderAndIsrRequest, Message, StopReplicaRequest, UpdateMetadataRequest
from kafpy.replication.leader_and_isr import LEADER_DURING_DELETE
from kafpy.replication.metadata_cache import BrokerInfo

Builder = Callable[[int], list[Message]]
Send = tuple[int, ApiKey, Builder]
FULL, INCREMENTAL = 2, 1  # AbstractControlRequest.Type


@dataclass(frozen=True)
class PartitionRef:
    topic: str
    topic_id: bytes
    index: int
    registration: PartitionRegistration


@dataclass(frozen=True)
class ControllerIdentity:
    """Who sends: the KRaft controller's id and the ZooKeeper controller epoch it claimed."""

    controller_id: int
    zk_controller_epoch: int


def zk_brokers(image: MetadataImage) -> list[BrokerRegistration]:
    """The registered migrating ZooKeeper brokers (the only ones these requests go to)."""
    return [b for _, b in sorted(image.cluster.brokers.items()) if b.is_migrating_zk_broker]


def broker_info(reg: BrokerRegistration, listener: str | None = None) -> BrokerInfo:
    """Where the controller reaches a broker: the named listener, else its first one."""
    ep = next((e for e in reg.listeners if e.name == listener), reg.listeners[0])
    return BrokerInfo(reg.id, ep.host or "localhost", ep.port, reg.rack)


def _partitions(image: MetadataImage) -> list[PartitionRef]:
    return [PartitionRef(name, t.id, i, reg) for name, t in sorted(image.topics.topics_by_name.items())
            for i, reg in sorted(t.partitions.items())]


def full_requests(image: MetadataImage, who: ControllerIdentity) -> list[Send]:
    """Kafka's ``sendRPCsToBrokersFromMetadataImage``."""
    parts = _partitions(image)
    out: list[Send] = []
    for broker in zk_brokers(image):
        hosted = [p for p in parts if broker.id in p.registration.replicas]
        out.append((broker.id, ApiKey.LEADER_AND_ISR, _leader_and_isr(who, broker.epoch, FULL, hosted, image)))
    out += _update_metadata_all(image, who, parts, FULL)
    return out


def delta_requests(before: MetadataImage, after: MetadataImage, who: ControllerIdentity) -> list[Send]:
    """Kafka's ``sendRPCsToBrokersFromMetadataDelta``: nothing when no topic or broker changed."""
    changed: list[PartitionRef] = []
    for name, t in sorted(after.topics.topics_by_name.items()):
        old = before.topics.topics_by_name.get(name)
        if old is t:
            continue
        for i, reg in sorted(t.partitions.items()):
            if old is None or old.id != t.id or old.partitions.get(i) != reg:
                changed.append(PartitionRef(name, t.id, i, reg))
    deleted = [PartitionRef(name, t.id, i, reg) for name, t in sorted(before.topics.topics_by_name.items())
               if name not in after.topics.topics_by_name or after.topics.topics_by_name[name].id != t.id
               for i, reg in sorted(t.partitions.items())]
    brokers_changed = before.cluster.brokers is not after.cluster.brokers and \
        dict(before.cluster.brokers) != dict(after.cluster.brokers)
    if not changed and not deleted and not brokers_changed:
        return []
    out: list[Send] = []
    for broker in zk_brokers(after):
        hosted = [p for p in changed if broker.id in p.registration.replicas]
        if hosted:
            out.append((broker.id, ApiKey.LEADER_AND_ISR,
                        _leader_and_isr(who, broker.epoch, INCREMENTAL, hosted, after)))
    um = changed + [PartitionRef(p.topic, p.topic_id, p.index, _deleting(p.registration)) for p in deleted]
    out += _update_metadata_all(after, who, um, INCREMENTAL)
    for broker in zk_brokers(after):
        gone = [p for p in deleted if broker.id in p.registration.replicas]
        if gone:
            out.append((broker.id, ApiKey.STOP_REPLICA, _stop_replica(who, broker.epoch, gone)))
    return out


def _deleting(reg: PartitionRegistration) -> PartitionRegistration:
    """A deleted topic's partition as UpdateMetadata announces it (leader -2: being deleted)."""
    return replace(reg, leader=LEADER_DURING_DELETE)


def _live_brokers(image: MetadataImage) -> list[BrokerRegistration]:
    return [b for _, b in sorted(image.cluster.brokers.items()) if not b.fenced]


def _update_metadata_all(image: MetadataImage, who: ControllerIdentity, parts: Sequence[PartitionRef],
                         kind: int) -> list[Send]:
    live = _live_brokers(image)
    return [(b.id, ApiKey.UPDATE_METADATA, _update_metadata(who, b.epoch, kind, live, parts))
            for b in zk_brokers(image)]


def _leader_and_isr(who: ControllerIdentity, broker_epoch: int, kind: int, parts: Sequence[PartitionRef],
                    image: MetadataImage) -> Builder:
    leaders = sorted({p.registration.leader for p in parts if p.registration.leader >= 0})
    live = {b.id: b for b in _live_brokers(image)}
    R = LeaderAndIsrRequest

    def build(version: int) -> list[Message]:
        states = [R.LeaderAndIsrPartitionState(
            topic_name=p.topic, partition_index=p.index, controller_epoch=who.zk_controller_epoch,
            leader=p.registration.leader, leader_epoch=p.registration.leader_epoch, isr=list(p.registration.isr),
            partition_epoch=p.registration.partition_epoch, replicas=list(p.registration.replicas),
            adding_replicas=list(p.registration.adding_replicas),
            removing_replicas=list(p.registration.removing_replicas), is_new=False,
            leader_recovery_state=int(p.registration.leader_recovery_state)) for p in parts]
        body = R(controller_id=who.controller_id, is_k_raft_controller=True, controller_epoch=who.zk_controller_epoch,
                 broker_epoch=broker_epoch, type=kind,
                 live_leaders=[R.LeaderAndIsrLiveLeader(broker_id=b, host_name=broker_info(live[b]).host,
                                                        port=broker_info(live[b]).port)
                               for b in leaders if b in live])
        if version < 2:
            body.ungrouped_partition_states = states
        else:
            by_topic: dict[tuple[str, bytes], list[LeaderAndIsrRequest.LeaderAndIsrPartitionState]] = {}
            for p, s in zip(parts, states):
                by_topic.setdefault((p.topic, p.topic_id), []).append(s)
            body.topic_states = [R.LeaderAndIsrTopicState(topic_name=t, topic_id=tid, partition_states=ss)
                                 for (t, tid), ss in by_topic.items()]
        return [body]
    return build


def _update_metadata(who: ControllerIdentity, broker_epoch: int, kind: int, live: Iterable[BrokerRegistration],
                     parts: Sequence[PartitionRef]) -> Builder:
    U = UpdateMetadataRequest
    brokers = list(live)

    def build(version: int) -> list[Message]:
        body = U(controller_id=who.controller_id, is_k_raft_controller=True, type=kind,
                 controller_epoch=who.zk_controller_epoch, broker_epoch=broker_epoch, live_brokers=[
                     U.UpdateMetadataBroker(id=b.id, v0_host=b.listeners[0].host, v0_port=b.listeners[0].port,
                                            rack=b.rack, endpoints=[U.UpdateMetadataEndpoint(
                                                port=e.port, host=e.host, listener=e.name,
                                                security_protocol=e.security_protocol) for e in b.listeners])
                     for b in brokers])
        states = [U.UpdateMetadataPartitionState(
            topic_name=p.topic, partition_index=p.index, controller_epoch=who.zk_controller_epoch,
            leader=p.registration.leader, leader_epoch=p.registration.leader_epoch, isr=list(p.registration.isr),
            zk_version=p.registration.partition_epoch, replicas=list(p.registration.replicas), offline_replicas=[])
            for p in parts]
        if version < 5:
            body.ungrouped_partition_states = states
        else:
            by_topic: dict[tuple[str, bytes], list[UpdateMetadataRequest.UpdateMetadataPartitionState]] = {}
            for p, s in zip(parts, states):
                by_topic.setdefault((p.topic, p.topic_id), []).append(s)
            body.topic_states = [U.UpdateMetadataTopicState(topic_name=t, topic_id=tid, partition_states=ss)
                                 for (t, tid), ss in by_topic.items()]
        return [body]
    return build


def _stop_replica(who: ControllerIdentity, broker_epoch: int, parts: Sequence[PartitionRef]) -> Builder:
    S = StopReplicaRequest

    def build(version: int) -> list[Message]:
        by_topic: dict[str, list[StopReplicaRequest.StopReplicaPartitionState]] = {}
        for p in parts:
            by_topic.setdefault(p.topic, []).append(S.StopReplicaPartitionState(
                partition_index=p.index, leader_epoch=LEADER_DURING_DELETE, delete_partition=True))
        return [S(controller_id=who.controller_id, is_k_raft_controller=True,
                  controller_epoch=who.zk_controller_epoch, broker_epoch=broker_epoch,
                  topic_states=[S.StopReplicaTopicState(topic_name=t, partition_states=ps)
                                for t, ps in by_topic.items()])]
    return build
