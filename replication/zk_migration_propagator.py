"""The KRaft controller's requests to the ZooKeeper brokers during a migration (Kafka 3.9's
``MigrationPropagator``): LeaderAndIsr, UpdateMetadata and StopReplica built from the metadata
image, marked ``isKRaftController``, carrying the ZooKeeper controller epoch the KRaft
controller claimed and each broker's KRaft broker epoch.

- ``full_requests(image, ...)``: after the copy (and after a failover), every live ZooKeeper
  broker first gets an UpdateMetadata of every partition and live broker, then a FULL
  LeaderAndIsr of the partitions it replicates and the FULL UpdateMetadata of them.
- ``delta_requests(before, after, ...)``: in dual-write mode, what changed between two images:
  a ZooKeeper broker that (re)registered learns every partition and its replicas' leaders;
  LeaderAndIsr of the changed partitions to their replicas, StopReplica (delete) of a deleted
  topic's partitions and of replicas taken off a partition, UpdateMetadata of the changed and
  deleted partitions (and of the brokers when a registration changed) to every ZooKeeper broker.

As Kafka's ``MigrationControllerChannelContext``, a partition state's controller epoch is the
KRaft epoch of the image and the request's is the ZooKeeper controller epoch; partitions are
sent ``isNew``, and only unfenced ZooKeeper brokers are sent to.

Pure: returns ``(broker id, api key, builder)`` triples (a builder makes the request at the
version the broker speaks) that ``ControllerChannelManager`` sends in order per broker.
Comparing images part by part is cheap: an image shares every unchanged topic and partition.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
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
UNKNOWN, INCREMENTAL, FULL = 0, 1, 2  # AbstractControlRequest.Type


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
    """Kafka's ``sendRPCsToBrokersFromMetadataImage``: first an UpdateMetadata of every partition
    and live broker (so a broker that has just restarted knows the leaders before it is told to
    follow them: Apache's broker refuses to follow a leader its metadata cache lacks), then a
    FULL LeaderAndIsr of the partitions each broker replicates, with the FULL UpdateMetadata of
    those partitions that comes with a LeaderAndIsr."""
    parts = _partitions(image)
    out = _update_metadata_all(image, who, parts, UNKNOWN)
    out += _leader_and_isr_batch(image, who, FULL, {b.id: [p for p in parts if b.id in p.registration.replicas]
                                                    for b in _live_zk_brokers(image)}, parts)
    return out


def delta_requests(before: MetadataImage, after: MetadataImage, who: ControllerIdentity) -> list[Send]:
    """Kafka's ``sendRPCsToBrokersFromMetadataDelta``: nothing when no topic or broker changed.

    A ZooKeeper broker whose registration changed and that is unfenced (it has just registered,
    or restarted) learns every partition (UpdateMetadata) and gets a LeaderAndIsr of every
    partition it replicates; the others get an UpdateMetadata of the brokers. Then, as
    INCREMENTAL requests: LeaderAndIsr of the changed partitions to their replicas, StopReplica
    (delete) of a deleted topic's partitions and of replicas taken off a partition, and
    UpdateMetadata of the changed and deleted partitions."""
    changed: list[PartitionRef] = []
    removed: list[tuple[PartitionRef, list[int]]] = []
    for name, t in sorted(after.topics.topics_by_name.items()):
        old = before.topics.topics_by_name.get(name)
        if old is t:
            continue
        same = old is not None and old.id == t.id
        for i, reg in sorted(t.partitions.items()):
            was = old.partitions.get(i) if old is not None and same else None
            if was != reg:
                ref = PartitionRef(name, t.id, i, reg)
                changed.append(ref)
                gone = [r for r in (was.replicas if was is not None else []) if r not in reg.replicas]
                if gone:
                    removed.append((ref, gone))
    deleted = [PartitionRef(name, t.id, i, reg) for name, t in sorted(before.topics.topics_by_name.items())
               if name not in after.topics.topics_by_name or after.topics.topics_by_name[name].id != t.id
               for i, reg in sorted(t.partitions.items())]
    brokers_changed = before.cluster.brokers is not after.cluster.brokers and \
        dict(before.cluster.brokers) != dict(after.cluster.brokers)
    if not changed and not deleted and not brokers_changed:
        return []
    new_zk = {b.id for b in _live_zk_brokers(after) if before.cluster.brokers.get(b.id) != b} \
        if brokers_changed else set()
    out: list[Send] = []
    everything = _partitions(after)
    for broker in _live_zk_brokers(after):  # first batch: who is alive, and all of it to the newcomers
        if broker.id in new_zk:
            out.append((broker.id, ApiKey.UPDATE_METADATA, _update_metadata(who, after, broker.epoch, UNKNOWN,
                                                                             everything)))
        elif brokers_changed:
            out.append((broker.id, ApiKey.UPDATE_METADATA, _update_metadata(who, after, broker.epoch, UNKNOWN, [])))
    hosted: dict[int, dict[tuple[str, int], PartitionRef]] = {}
    for p in everything:
        for r in p.registration.replicas:
            if r in new_zk:
                hosted.setdefault(r, {})[(p.topic, p.index)] = p
    for p in changed:
        for r in p.registration.replicas:
            hosted.setdefault(r, {})[(p.topic, p.index)] = p
    um = {(p.topic, p.index): p for ps in hosted.values() for p in ps.values()}
    um.update({(p.topic, p.index): PartitionRef(p.topic, p.topic_id, p.index, _deleting(p.registration))
               for p in deleted})
    stops: dict[int, list[PartitionRef]] = {}
    for p in deleted:
        for r in p.registration.replicas:
            stops.setdefault(r, []).append(p)
    for p, gone in removed:
        for r in gone:
            stops.setdefault(r, []).append(p)
    out += _leader_and_isr_batch(after, who, INCREMENTAL, {b: list(ps.values()) for b, ps in hosted.items()},
                                 list(um.values()), force_update_metadata=bool(changed or deleted))
    live = {b.id: b for b in _live_zk_brokers(after)}
    for broker_id, parts in sorted(stops.items()):
        if broker_id in live:
            out.append((broker_id, ApiKey.STOP_REPLICA, _stop_replica(who, live[broker_id].epoch, parts)))
    return out


def _leader_and_isr_batch(image: MetadataImage, who: ControllerIdentity, kind: int,
                          hosted: dict[int, list[PartitionRef]], um_parts: Sequence[PartitionRef],
                          force_update_metadata: bool = False) -> list[Send]:
    """One batch of Kafka's ``AbstractControllerBrokerRequestBatch``: per live ZooKeeper broker,
    its LeaderAndIsr, then the UpdateMetadata of ``um_parts`` (every LeaderAndIsr partition goes
    to every live broker's metadata)."""
    out: list[Send] = []
    live = _live_zk_brokers(image)
    for broker in live:
        if hosted.get(broker.id):
            out.append((broker.id, ApiKey.LEADER_AND_ISR,
                        _leader_and_isr(who, broker.epoch, kind, hosted[broker.id], image)))
    if um_parts or force_update_metadata:
        out += [(b.id, ApiKey.UPDATE_METADATA, _update_metadata(who, image, b.epoch, kind, um_parts)) for b in live]
    return out


def _deleting(reg: PartitionRegistration) -> PartitionRegistration:
    """A deleted topic's partition as UpdateMetadata announces it (Kafka's
    ``LeaderAndIsr.duringDelete``: leader -2, leader and partition epochs 0)."""
    return replace(reg, leader=LEADER_DURING_DELETE, leader_epoch=0, partition_epoch=0)


def _live_zk_brokers(image: MetadataImage) -> list[BrokerRegistration]:
    """The unfenced migrating ZooKeeper brokers: the only ones Kafka's channel manager sends to."""
    return [b for b in zk_brokers(image) if not b.fenced]


def _live_brokers(image: MetadataImage) -> list[BrokerRegistration]:
    return [b for _, b in sorted(image.cluster.brokers.items()) if not b.fenced]


def _update_metadata_all(image: MetadataImage, who: ControllerIdentity, parts: Sequence[PartitionRef],
                         kind: int) -> list[Send]:
    return [(b.id, ApiKey.UPDATE_METADATA, _update_metadata(who, image, b.epoch, kind, parts))
            for b in _live_zk_brokers(image)]


def _kraft_epoch(image: MetadataImage) -> int:
    """The controller epoch a partition state carries: the KRaft epoch of the image's last record
    (Kafka's ``MigrationControllerChannelContext.partitionLeadershipInfo``), while the request
    itself carries the ZooKeeper controller epoch the KRaft controller claimed."""
    return image.highest_offset_and_epoch[1]


def _leader_and_isr(who: ControllerIdentity, broker_epoch: int, kind: int, parts: Sequence[PartitionRef],
                    image: MetadataImage) -> Builder:
    leaders = sorted({p.registration.leader for p in parts if p.registration.leader >= 0})
    live = {b.id: b for b in _live_brokers(image)}
    R = LeaderAndIsrRequest
    kraft_epoch = _kraft_epoch(image)

    def build(version: int) -> list[Message]:
        states = [R.LeaderAndIsrPartitionState(
            topic_name=p.topic, partition_index=p.index, controller_epoch=kraft_epoch,
            leader=p.registration.leader, leader_epoch=p.registration.leader_epoch, isr=list(p.registration.isr),
            partition_epoch=p.registration.partition_epoch, replicas=list(p.registration.replicas),
            adding_replicas=list(p.registration.adding_replicas),
            removing_replicas=list(p.registration.removing_replicas), is_new=True,
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


def _update_metadata(who: ControllerIdentity, image: MetadataImage, broker_epoch: int, kind: int,
                     parts: Sequence[PartitionRef]) -> Builder:
    U = UpdateMetadataRequest
    brokers = _live_brokers(image)
    kraft_epoch = _kraft_epoch(image)

    def build(version: int) -> list[Message]:
        body = U(controller_id=who.controller_id, is_k_raft_controller=True, type=kind,
                 controller_epoch=who.zk_controller_epoch, broker_epoch=broker_epoch, live_brokers=[
                     U.UpdateMetadataBroker(id=b.id, v0_host=b.listeners[0].host, v0_port=b.listeners[0].port,
                                            rack=b.rack, endpoints=[U.UpdateMetadataEndpoint(
                                                port=e.port, host=e.host, listener=e.name,
                                                security_protocol=e.security_protocol) for e in b.listeners])
                     for b in brokers])
        states = [U.UpdateMetadataPartitionState(
            topic_name=p.topic, partition_index=p.index,
            controller_epoch=who.zk_controller_epoch if p.registration.leader == LEADER_DURING_DELETE else kraft_epoch,
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
