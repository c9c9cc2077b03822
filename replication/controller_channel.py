"""The controller's channels to the brokers (Kafka's ControllerChannelManager and
ControllerBrokerRequestBatch).

One ``NetworkClient`` and one sender task per live broker, the controller's own broker
included (it is reached over the network, as in Kafka). A broker's requests go out one at a
time in the order they were queued; a request that fails (connection refused, timeout) is
retried after a backoff until it succeeds or the broker is removed — a dead broker's queue is
dropped with it.

Request bodies are built when sent, at the version the broker negotiated (LeaderAndIsr v0-7,
UpdateMetadata v0-8, StopReplica v0-4), from values the batch snapshotted when the
controller decided: controller id and epoch, and the *recipient's* broker epoch.

Who may call it: the KafkaController, from its event task. Nothing on disk.
"""
from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kafpy.protocol.errors import UnsupportedVersion
from kafpy.protocol.messages import (LeaderAndIsrRequest, LeaderAndIsrResponse, Message, StopReplicaRequest,
                                     UpdateMetadataRequest)
from kafpy.protocol.api_keys import ApiKey

from kafpy.replication.metadata_cache import BrokerInfo
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.leader_and_isr import LEADER_DURING_DELETE
from kafpy.replication.network_client import NetworkClient
from kafpy.replication.tasks import cancel_and_wait

log = logging.getLogger("kafka.controller.ControllerChannelManager")

SECURITY_PROTOCOL_IDS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
RETRY_BACKOFF_S = 0.1

Builder = Callable[[int], list[Message]]
"""Request bodies for a negotiated version (StopReplica below v3 may need two)."""
Callback = Callable[[Any], None]


@dataclass
class _Queued:
    api_key: ApiKey
    build: Builder
    callback: Callback | None = None


class _BrokerChannel:
    def __init__(self, broker_id: int, client: NetworkClient, loop: asyncio.AbstractEventLoop,
                 controller_id: int) -> None:
        self.broker_id = broker_id
        self.client = client
        self.queue: asyncio.Queue[_Queued] = asyncio.Queue()
        self.task = loop.create_task(self._run(),
                                     name=f"Controller-{controller_id}-to-broker-{broker_id}-send-thread")

    async def _run(self) -> None:
        while True:
            item = await self.queue.get()
            response = None
            while True:
                try:
                    await self.client.ready()
                    version = self.client.api_version(item.api_key)
                    for body in item.build(version):
                        response = await self.client.send(item.api_key, body, version=version)
                    break
                except asyncio.CancelledError:
                    raise
                except UnsupportedVersion as e:
                    log.error("Broker %d cannot take API %d: %s; request dropped", self.broker_id,
                              item.api_key, e)
                    break
                except Exception as e:  # noqa: BLE001 - network: retry until success or removal
                    log.warning("Controller's request %d to broker %d failed: %s; retrying",
                                item.api_key, self.broker_id, e)
                    await asyncio.sleep(RETRY_BACKOFF_S)
            if item.callback is not None and response is not None:
                try:
                    item.callback(response)
                except Exception:
                    log.exception("Error in the callback of a request to broker %d", self.broker_id)

    async def close(self) -> None:
        await cancel_and_wait(self.task)
        await self.client.close()


class ControllerChannelManager:
    def __init__(self, controller_id: int, factory: Callable[[BrokerInfo], NetworkClient],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.controller_id = controller_id
        self._factory = factory
        self._loop = loop
        self._channels: dict[int, _BrokerChannel] = {}

    @property
    def broker_ids(self) -> set[int]:
        return set(self._channels)

    def add_broker(self, broker: BrokerInfo) -> None:
        if broker.node_id in self._channels:
            return
        client = self._factory(broker)
        self._channels[broker.node_id] = _BrokerChannel(broker.node_id, client, self._loop,
                                                        self.controller_id)

    async def remove_broker(self, broker_id: int) -> None:
        channel = self._channels.pop(broker_id, None)
        if channel is not None:
            await channel.close()

    def send(self, broker_id: int, api_key: ApiKey, build: Builder,
             callback: Callback | None = None) -> None:
        channel = self._channels.get(broker_id)
        if channel is None:
            log.warning("Not sending request %d to broker %d, which is not live", api_key, broker_id)
            return
        channel.queue.put_nowait(_Queued(api_key, build, callback))

    async def shutdown(self) -> None:
        for broker_id in list(self._channels):
            await self.remove_broker(broker_id)


def broker_info(registration: zd.BrokerRegistration, listener: str | None = None,
                protocol: str = "PLAINTEXT") -> BrokerInfo:
    """Where the controller (and other brokers) reach a broker: the endpoint of the
    inter-broker listener, else the first with the inter-broker security protocol."""
    eps = registration.endpoints
    ep = next((e for e in eps if listener is not None and e.listener == listener), None) \
        or next((e for e in eps if e.security_protocol == protocol), None) or eps[0]
    return BrokerInfo(registration.broker_id, ep.host or "localhost", ep.port, registration.rack)


# --------------------------------------------------------------------------- the batch
@dataclass
class _LeaderAndIsrEntry:
    state: zd.LeaderIsrAndControllerEpoch
    assignment: zd.ReplicaAssignment
    topic_id: bytes
    is_new: bool


@dataclass
class ControllerRequestBatch:
    """What one controller decision sends: LeaderAndIsr per broker, then UpdateMetadata to
    the chosen brokers, then StopReplica (Kafka's order). ``send`` snapshots the context."""

    context: ControllerContext
    controller_id: int
    leader_and_isr: dict[int, dict[TopicPartition, _LeaderAndIsrEntry]] = field(default_factory=dict)
    stop_replica: dict[int, dict[TopicPartition, tuple[bool, int]]] = field(default_factory=dict)
    update_metadata_brokers: set[int] = field(default_factory=set)
    update_metadata_partitions: set[TopicPartition] = field(default_factory=set)
    stop_replica_callbacks: dict[int, Callback] = field(default_factory=dict)
    # told (broker id, response) of every LeaderAndIsr answer (replicas in failed log dirs)
    leader_and_isr_callback: Callable[[int, LeaderAndIsrResponse], None] | None = None

    def add_leader_and_isr(self, broker_ids: Iterable[int], tp: TopicPartition,
                           is_new: bool = False) -> None:
        ctx = self.context
        state, assignment = ctx.leadership.get(tp), ctx.assignment(tp)
        if state is None or assignment is None:
            return
        for b in broker_ids:
            if b in ctx.live_brokers:
                old = self.leader_and_isr.setdefault(b, {}).get(tp)
                self.leader_and_isr[b][tp] = _LeaderAndIsrEntry(
                    state, assignment, ctx.topic_ids.get(tp[0], bytes(16)),
                    is_new or (old is not None and old.is_new))
        self.add_update_metadata(ctx.live_or_shutting_down_broker_ids, [tp])

    def add_stop_replica(self, broker_ids: Iterable[int], tp: TopicPartition, delete: bool) -> None:
        ctx = self.context
        lai = ctx.leader_and_isr(tp)
        epoch = LEADER_DURING_DELETE if delete else (lai.leader_epoch if lai is not None else -1)
        for b in broker_ids:
            if b in ctx.live_brokers:
                old = self.stop_replica.setdefault(b, {}).get(tp)
                self.stop_replica[b][tp] = (delete or (old is not None and old[0]), epoch)

    def add_update_metadata(self, broker_ids: Iterable[int],
                            partitions: Iterable[TopicPartition] = ()) -> None:
        self.update_metadata_brokers.update(b for b in broker_ids if b in self.context.live_brokers)
        self.update_metadata_partitions.update(partitions)

    def is_empty(self) -> bool:
        return not (self.leader_and_isr or self.stop_replica or self.update_metadata_brokers)

    def send(self, channels: ControllerChannelManager) -> None:
        ctx = self.context
        epoch = ctx.epoch
        for b, entries in sorted(self.leader_and_isr.items()):
            build = _leader_and_isr_builder(self.controller_id, epoch, ctx.broker_epochs.get(b, -1),
                                            entries, ctx)
            cb = self.leader_and_isr_callback
            channels.send(b, ApiKey.LEADER_AND_ISR, build, None if cb is None else functools.partial(cb, b))
        if self.update_metadata_brokers:
            brokers = [ctx.live_brokers[b] for b in sorted(ctx.live_brokers)]
            states = [s for s in (_um_state(ctx, tp) for tp in sorted(self.update_metadata_partitions))
                      if s is not None]
            for b in sorted(self.update_metadata_brokers):
                channels.send(b, ApiKey.UPDATE_METADATA, _update_metadata_builder(
                    self.controller_id, epoch, ctx.broker_epochs.get(b, -1), brokers, states))
        for b, parts in sorted(self.stop_replica.items()):
            channels.send(b, ApiKey.STOP_REPLICA, _stop_replica_builder(
                self.controller_id, epoch, ctx.broker_epochs.get(b, -1), dict(parts)),
                self.stop_replica_callbacks.get(b))
        self.leader_and_isr = {}
        self.stop_replica = {}
        self.update_metadata_brokers = set()
        self.update_metadata_partitions = set()
        self.stop_replica_callbacks = {}


@dataclass(frozen=True)
class _UmState:
    topic: str
    topic_id: bytes
    partition: int
    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    zk_version: int
    replicas: tuple[int, ...]
    offline_replicas: tuple[int, ...]


def _um_state(ctx: ControllerContext, tp: TopicPartition) -> _UmState | None:
    s = ctx.leadership.get(tp)
    if s is None:
        return None
    lai = s.leader_and_isr
    leader = LEADER_DURING_DELETE if tp[0] in ctx.topics_to_be_deleted else lai.leader
    return _UmState(tp[0], ctx.topic_ids.get(tp[0], bytes(16)), tp[1], s.controller_epoch, leader,
                    lai.leader_epoch, lai.isr, lai.partition_epoch, ctx.replicas(tp),
                    tuple(ctx.offline_replicas(tp)))


def _leader_and_isr_builder(controller_id: int, controller_epoch: int, broker_epoch: int,
                            entries: dict[TopicPartition, _LeaderAndIsrEntry],
                            ctx: ControllerContext) -> Builder:
    leaders = {e.state.leader_and_isr.leader for e in entries.values()}
    live_leaders = [broker_info(ctx.live_brokers[b]) for b in sorted(leaders) if b in ctx.live_brokers]

    def build(version: int) -> list[Message]:
        states = []
        for (topic, p), e in sorted(entries.items()):
            lai = e.state.leader_and_isr
            states.append(LeaderAndIsrRequest.LeaderAndIsrPartitionState(
                topic_name=topic, partition_index=p, controller_epoch=e.state.controller_epoch,
                leader=lai.leader, leader_epoch=lai.leader_epoch, isr=list(lai.isr),
                partition_epoch=lai.partition_epoch, replicas=list(e.assignment.replicas),
                adding_replicas=list(e.assignment.adding_replicas),
                removing_replicas=list(e.assignment.removing_replicas), is_new=e.is_new,
                leader_recovery_state=int(lai.leader_recovery_state)))
        body = LeaderAndIsrRequest(controller_id=controller_id, controller_epoch=controller_epoch,
                 broker_epoch=broker_epoch,
                 live_leaders=[LeaderAndIsrRequest.LeaderAndIsrLiveLeader(broker_id=b.node_id, host_name=b.host, port=b.port)
                               for b in live_leaders])
        if version < 2:
            body.ungrouped_partition_states = states
        else:
            by_topic: dict[str, list[LeaderAndIsrRequest.LeaderAndIsrPartitionState]] = {}
            for s in states:
                by_topic.setdefault(s.topic_name, []).append(s)
            body.topic_states = [LeaderAndIsrRequest.LeaderAndIsrTopicState(
                topic_name=t, topic_id=entries[(t, ss[0].partition_index)].topic_id, partition_states=ss)
                for t, ss in by_topic.items()]
        return [body]
    return build


def _update_metadata_builder(controller_id: int, controller_epoch: int, broker_epoch: int,
                             brokers: list[zd.BrokerRegistration], states: list[_UmState]) -> Builder:

    def build(version: int) -> list[Message]:
        live = []
        for reg in brokers:
            first = reg.endpoints[0]
            live.append(UpdateMetadataRequest.UpdateMetadataBroker(
                id=reg.broker_id, v0_host=first.host or "", v0_port=first.port, rack=reg.rack,
                endpoints=[UpdateMetadataRequest.UpdateMetadataEndpoint(
                    port=e.port, host=e.host or "", listener=e.listener,
                    security_protocol=SECURITY_PROTOCOL_IDS.get(e.security_protocol, 0))
                    for e in reg.endpoints]))
        parts = [UpdateMetadataRequest.UpdateMetadataPartitionState(
            topic_name=s.topic, partition_index=s.partition, controller_epoch=s.controller_epoch,
            leader=s.leader, leader_epoch=s.leader_epoch, isr=list(s.isr), zk_version=s.zk_version,
            replicas=list(s.replicas), offline_replicas=list(s.offline_replicas)) for s in states]
        body = UpdateMetadataRequest(controller_id=controller_id, controller_epoch=controller_epoch,
                 broker_epoch=broker_epoch, live_brokers=live)
        if version < 5:
            body.ungrouped_partition_states = parts
        else:
            by_topic: dict[str, tuple[bytes, list[UpdateMetadataRequest.UpdateMetadataPartitionState]]] = {}
            for s, ps in zip(states, parts):
                by_topic.setdefault(s.topic, (s.topic_id, []))[1].append(ps)
            body.topic_states = [UpdateMetadataRequest.UpdateMetadataTopicState(topic_name=t, topic_id=tid, partition_states=ps)
                                 for t, (tid, ps) in by_topic.items()]
        return [body]
    return build


def _stop_replica_builder(controller_id: int, controller_epoch: int, broker_epoch: int,
                          parts: dict[TopicPartition, tuple[bool, int]]) -> Builder:

    def build(version: int) -> list[Message]:
        if version >= 3:
            by_topic: dict[str, list[StopReplicaRequest.StopReplicaPartitionState]] = {}
            for (t, p), (delete, epoch) in sorted(parts.items()):
                by_topic.setdefault(t, []).append(StopReplicaRequest.StopReplicaPartitionState(
                    partition_index=p, leader_epoch=epoch, delete_partition=delete))
            return [StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch,
                      broker_epoch=broker_epoch,
                      topic_states=[StopReplicaRequest.StopReplicaTopicState(topic_name=t, partition_states=ps)
                                    for t, ps in by_topic.items()])]
        bodies: list[Message] = []
        for delete in (False, True):  # before v3 the delete flag is per request
            tps = sorted(tp for tp, (d, _) in parts.items() if d == delete)
            if not tps:
                continue
            body = StopReplicaRequest(controller_id=controller_id, controller_epoch=controller_epoch,
                     broker_epoch=broker_epoch, delete_partitions=delete)
            if version == 0:
                body.ungrouped_partitions = [StopReplicaRequest.StopReplicaPartitionV0(topic_name=t, partition_index=p)
                                             for t, p in tps]
            else:
                grouped: dict[str, list[int]] = {}
                for t, p in tps:
                    grouped.setdefault(t, []).append(p)
                body.topics = [StopReplicaRequest.StopReplicaTopicV1(name=t, partition_indexes=ps) for t, ps in grouped.items()]
            bodies.append(body)
        return bodies
    return build
