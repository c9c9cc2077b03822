"""The ZooKeeper controller's requests to a broker and the broker's to the controller:
LeaderAndIsr (4), StopReplica (5), UpdateMetadata (6), ControlledShutdown (7),
ElectLeaders (43), AlterPartitionReassignments (45), ListPartitionReassignments (46),
AlterPartition (56), AllocateProducerIds (67).

LeaderAndIsr, StopReplica and UpdateMetadata come from the active controller (over the
network, to itself too) and are applied one at a time under the replica manager's state
change lock, with Kafka's fencing: a request whose broker epoch (when it carries one that is
not -1) is older than this broker's registration is STALE_BROKER_EPOCH, one from an older
controller epoch STALE_CONTROLLER_EPOCH. In ZooKeeper mode UpdateMetadata is the only writer
of the metadata cache. ControlledShutdown, AlterPartition, ElectLeaders and AllocateProducerIds are answered by
the cluster controller running on this broker (NOT_CONTROLLER when it is not the active one).

Registered only in ZooKeeper mode (``broker/apis.py``): a standalone broker is its own
controller and takes no orders from another.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (AllocateProducerIdsResponse, AlterPartitionReassignmentsResponse, AlterPartitionResponse,
                               ControlledShutdownResponse, ElectLeadersResponse, LeaderAndIsrResponse,
                               ListPartitionReassignmentsResponse, StopReplicaResponse, UpdateMetadataResponse)
from kafpy.protocol.messages import (AllocateProducerIdsRequest, AlterPartitionReassignmentsRequest,
    AlterPartitionRequest, ControlledShutdownRequest, ElectLeadersRequest, LeaderAndIsrRequest,
    ListPartitionReassignmentsRequest, StopReplicaRequest, UpdateMetadataRequest)
from kafpy.protocol.topics import INTERNAL_TOPICS
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.replication.partition import LEADER_DURING_DELETE, PartitionState, Role

from kafpy.broker.handler import Handler, RequestContext
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache, PartitionInfo, TopicInfo

log = logging.getLogger("kafka.server.KafkaApis")

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig

_UpdatePartitionState = UpdateMetadataRequest.UpdateMetadataPartitionState
UNKNOWN_BROKER_EPOCH = -1  # AbstractControlRequest.UNKNOWN_BROKER_EPOCH
SECURITY_PROTOCOL_NAMES = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}
ELECTION_PREFERRED = 0


def is_broker_epoch_stale(ctx: RequestContext, req: LeaderAndIsrRequest | StopReplicaRequest | UpdateMetadataRequest,
                          since_version: int, what: str) -> bool:
    """Kafka's isBrokerEpochStale for a request that carries the broker epoch from
    ``since_version``: -1 means the controller did not say; a newer epoch than ours can
    arrive before this broker learns of its own re-registration, so only an older one is
    stale."""
    epoch = req.broker_epoch if ctx.api_version >= since_version else UNKNOWN_BROKER_EPOCH
    ours = ctx.services.broker_epoch
    kraft_epoch = ctx.services.kraft_broker_epoch
    if req.is_k_raft_controller:  # Kafka 3.9's ZkBrokerEpochManager: the KRaft epoch
        ours = kraft_epoch() if kraft_epoch is not None else ours
    if epoch == UNKNOWN_BROKER_EPOCH or epoch >= ours:
        return False
    log.info("Received %s request with broker epoch %d smaller than the current broker epoch %d", what, epoch, ours)
    return True


async def topic_configs_from_zk(ctx: RequestContext, topics: set[str]) -> dict[str, dict[str, str]]:
    """The /config/topics overrides of ``topics`` (none without ZooKeeper)."""
    zk = ctx.services.zk_client
    if zk is None or not topics:
        return {}
    names = sorted(topics)
    found = await asyncio.gather(*(zk.get_entity_config("topics", t) for t in names))
    return dict(zip(names, found))


# -- LeaderAndIsr ------------------------------------------------------------------------------
def leader_and_isr_states(req: LeaderAndIsrRequest, version: int
                          ) -> list[tuple[bytes, LeaderAndIsrRequest.LeaderAndIsrPartitionState]]:
    """(topic id, partition state) per partition, whatever the version's layout."""
    if version < 2:
        return [(ZERO_UUID, ps) for ps in req.ungrouped_partition_states]
    out = []
    for ts in req.topic_states:
        for ps in ts.partition_states:
            ps.topic_name = ts.topic_name
            out.append((ts.topic_id, ps))
    return out


def leader_and_isr_response(version: int, error: ErrorCode, results: list[tuple[str, bytes, int, ErrorCode]]
                            ) -> LeaderAndIsrResponse:
    if version < 5:
        return LeaderAndIsrResponse(error_code=error, partition_errors=[
            LeaderAndIsrResponse.LeaderAndIsrPartitionError(topic_name=t, partition_index=p, error_code=code)
            for t, _, p, code in results])
    by_topic: dict[bytes, list] = {}
    for _, tid, p, code in results:
        by_topic.setdefault(tid, []).append(LeaderAndIsrResponse.LeaderAndIsrPartitionError(partition_index=p, error_code=code))
    return LeaderAndIsrResponse(error_code=error, topics=[LeaderAndIsrResponse.LeaderAndIsrTopicError(topic_id=tid, partition_errors=errs)
                                                          for tid, errs in by_topic.items()])


async def handle_leader_and_isr(ctx: RequestContext, req: LeaderAndIsrRequest) -> LeaderAndIsrResponse:
    s = ctx.services
    v = ctx.api_version
    entries = leader_and_isr_states(req, v)
    if is_broker_epoch_stale(ctx, req, 2, "LeaderAndIsr"):
        return leader_and_isr_response(v, ErrorCode.STALE_BROKER_EPOCH, [
            (ps.topic_name, tid, ps.partition_index, ErrorCode.STALE_BROKER_EPOCH) for tid, ps in entries])
    rm = s.replica_manager
    states = [PartitionState(ps.topic_name, ps.partition_index, tid, ps.leader, ps.leader_epoch, ps.partition_epoch,
                             tuple(ps.replicas), tuple(ps.isr), is_new=ps.is_new) for tid, ps in entries]
    async with rm.state_change_lock:
        # a log created now takes its topic's config from ZooKeeper, as Kafka's LogManager does
        new_topics = {st.topic for st in states if rm.get_partition(st.topic, st.index) is None}
        configs = await topic_configs_from_zk(ctx, new_topics)
        error, errors = await rm.become_leader_or_follower_async(req.controller_id, req.controller_epoch,
                                                                 states, configs)
        if req.is_k_raft_controller and error == ErrorCode.NONE:
            take_isr_changes(ctx, states)
    return leader_and_isr_response(v, error, [
        (ps.topic_name, tid, ps.partition_index, error if error != ErrorCode.NONE else errors.get(
            (ps.topic_name, ps.partition_index), ErrorCode.NONE)) for tid, ps in entries])


def take_isr_changes(ctx: RequestContext, states: list[PartitionState]) -> None:
    """Kafka 3.9 accepts a KRaft controller's LeaderAndIsr at the current leader epoch during a
    migration: the controller changed the ISR (a follower fenced or shutting down) or the
    replicas without electing, which the partition epoch says; a leader takes the new ISR, a
    follower the partition epoch (as a KRaft broker's metadata publisher does)."""
    rm = ctx.services.replica_manager
    broker_id = ctx.services.config.broker_id
    for st in states:
        part = rm.get_partition(st.topic, st.index)
        if part is None or part.leader_epoch != st.leader_epoch or st.partition_epoch <= part.partition_epoch:
            continue
        if part.role is Role.LEADER and st.leader == broker_id:
            part.update_assignment_and_isr(st)
        else:
            part.partition_epoch = st.partition_epoch


# -- StopReplica -------------------------------------------------------------------------------
def stop_replica_entries(req: StopReplicaRequest, version: int) -> list[tuple[str, int, int, bool]]:
    """(topic, partition, leader epoch, delete) per partition; before v3 the request has no
    leader epochs (-1) and one delete flag for all."""
    if version == 0:
        return [(p.topic_name, p.partition_index, -1, req.delete_partitions) for p in req.ungrouped_partitions]
    if version < 3:
        return [(t.name, p, -1, req.delete_partitions) for t in req.topics for p in t.partition_indexes]
    return [(t.topic_name, p.partition_index, p.leader_epoch, p.delete_partition)
            for t in req.topic_states for p in t.partition_states]


async def handle_stop_replica(ctx: RequestContext, req: StopReplicaRequest) -> StopReplicaResponse:
    s = ctx.services
    v = ctx.api_version
    entries = stop_replica_entries(req, v)
    errors: dict[tuple[str, int], ErrorCode]
    if is_broker_epoch_stale(ctx, req, 1, "StopReplica"):
        error, errors = ErrorCode.STALE_BROKER_EPOCH, {}
    else:
        async with s.replica_manager.state_change_lock:
            error, errors = s.replica_manager.stop_replicas(req.controller_id, req.controller_epoch, entries)
    return StopReplicaResponse(error_code=error, partition_errors=[
        StopReplicaResponse.StopReplicaPartitionError(topic_name=t, partition_index=p,
                                                      error_code=error if error != ErrorCode.NONE else errors.get((t, p), ErrorCode.NONE))
        for t, p, _, _ in entries])


# -- UpdateMetadata ----------------------------------------------------------------------------
def live_brokers(req: UpdateMetadataRequest, version: int, listener: str) -> list[BrokerInfo]:
    """The request's live brokers, each at its endpoint for ``listener`` (else its first)."""
    out = []
    for b in req.live_brokers:
        if version == 0:
            out.append(BrokerInfo(b.id, b.v0_host, b.v0_port, None))
            continue
        chosen = None
        for ep in b.endpoints:
            name = ep.listener if version >= 3 else SECURITY_PROTOCOL_NAMES.get(ep.security_protocol, "")
            if name == listener:
                chosen = ep
                break
        if chosen is None and b.endpoints:
            chosen = b.endpoints[0]
        if chosen is not None:
            endpoints = {ep.listener: (ep.host, ep.port) for ep in b.endpoints} if version >= 3 else {}
            out.append(BrokerInfo(b.id, chosen.host, chosen.port, b.rack if version >= 2 else None, endpoints))
    return out


def _inter_broker_listener(config: KafkaConfig) -> str:
    """The listener other brokers are reached through: inter.broker.listener.name (or the
    one named by security.inter.broker.protocol) when it is advertised, else the first."""
    names = [li.name for li in config.advertised_listeners]
    name: str | None = getattr(config, "inter_broker_listener_name", None)
    return name if name is not None and name in names else names[0]


def update_metadata_states(req: UpdateMetadataRequest, version: int) -> dict[str, tuple[bytes, list[_UpdatePartitionState]]]:
    """Per topic: (topic id, partition states)."""
    by_topic: dict[str, tuple[bytes, list[_UpdatePartitionState]]] = {}
    if version < 5:
        for ps in req.ungrouped_partition_states:
            by_topic.setdefault(ps.topic_name, (ZERO_UUID, []))[1].append(ps)
        return by_topic
    for ts in req.topic_states:
        tid = ts.topic_id if version >= 7 else ZERO_UUID
        by_topic.setdefault(ts.topic_name, (tid, []))[1].extend(ts.partition_states)
    return by_topic


def topics_after_update(cache: MetadataCache, by_topic: dict[str, tuple[bytes, list[_UpdatePartitionState]]],
                        new_configs: dict[str, dict[str, str]]) -> tuple[list[TopicInfo], list[str]]:
    """ZkMetadataCache.updateMetadata's partition part: the states replace those the cache
    has; a partition whose leader is -2 (topic being deleted) goes, and a topic left without
    partitions is deleted. A topic keeps the configs the cache has for it (new topics take
    ``new_configs``). Returns (changed topics, deleted topic names)."""
    changed, deleted = [], []
    for name, (tid, states) in by_topic.items():
        old = cache.topic(name)
        same_topic = old is not None and (tid == ZERO_UUID or old.topic_id in (tid, ZERO_UUID))
        parts = dict(old.partitions) if old is not None and same_topic else {}
        for ps in states:
            if ps.leader == LEADER_DURING_DELETE:
                parts.pop(ps.partition_index, None)
            else:
                parts[ps.partition_index] = PartitionInfo(ps.leader, ps.leader_epoch, list(ps.replicas),
                                                          list(ps.isr), list(ps.offline_replicas), ps.zk_version)
        if not parts:
            if old is not None:
                deleted.append(name)
            continue
        topic_id = tid if tid != ZERO_UUID else (old.topic_id if old is not None else ZERO_UUID)
        configs = old.configs if old is not None else new_configs.get(name, {})
        changed.append(TopicInfo(name, topic_id, parts, configs, name in INTERNAL_TOPICS))
    return changed, deleted


async def handle_update_metadata(ctx: RequestContext, req: UpdateMetadataRequest) -> UpdateMetadataResponse:
    s = ctx.services
    v = ctx.api_version
    if is_broker_epoch_stale(ctx, req, 5, "UpdateMetadata"):
        return UpdateMetadataResponse(error_code=ErrorCode.STALE_BROKER_EPOCH)
    cache = s.metadata_cache
    brokers = live_brokers(req, v, _inter_broker_listener(s.config))
    by_topic = update_metadata_states(req, v)
    rm = s.replica_manager
    async with rm.state_change_lock:
        new_configs = await topic_configs_from_zk(ctx, {t for t in by_topic if cache.topic(t) is None})

        def update() -> list[str]:
            topics, deleted = topics_after_update(cache, by_topic, new_configs)
            # Kafka 3.9 tells clients an alive broker, not a KRaft controller they cannot reach
            kraft = req.is_k_raft_controller
            cache.kraft_controller_id = req.controller_id if kraft else None
            cache.update(controller_id=s.config.broker_id if kraft else req.controller_id, brokers=brokers,
                         topics=topics, deleted_topics=deleted)
            return deleted
        error = rm.maybe_update_metadata_cache(req.controller_id, req.controller_epoch, update)
    return UpdateMetadataResponse(error_code=error)


# -- requests to the controller ----------------------------------------------------------------
async def handle_controlled_shutdown(ctx: RequestContext, req: ControlledShutdownRequest) -> ControlledShutdownResponse:
    cc = ctx.services.cluster_controller
    if cc is None:
        return ControlledShutdownResponse(error_code=ErrorCode.NOT_CONTROLLER, remaining_partitions=[])
    broker_epoch = req.broker_epoch if ctx.api_version >= 2 else UNKNOWN_BROKER_EPOCH
    error, remaining = await cc.controlled_shutdown(req.broker_id, broker_epoch)
    return ControlledShutdownResponse(error_code=error, remaining_partitions=[ControlledShutdownResponse.RemainingPartition(topic_name=t, partition_index=p)
                                                                              for t, p in remaining])


async def handle_alter_partition(ctx: RequestContext, req: AlterPartitionRequest) -> AlterPartitionResponse:
    cc = ctx.services.cluster_controller
    if cc is None or not cc.is_active:
        return AlterPartitionResponse(throttle_time_ms=0, error_code=ErrorCode.NOT_CONTROLLER, topics=[])
    return await cc.alter_partition(req, ctx.api_version)


async def handle_allocate_producer_ids(ctx: RequestContext, req: AllocateProducerIdsRequest) -> AllocateProducerIdsResponse:
    """A block of producer ids for a broker whose transaction coordinator asks the controller
    (Apache Kafka's RPCProducerIdManager, IBP 3.0+)."""
    cc = ctx.services.cluster_controller
    if cc is None or not cc.is_active:
        return AllocateProducerIdsResponse(throttle_time_ms=0, error_code=ErrorCode.NOT_CONTROLLER, producer_id_start=0, producer_id_len=0)
    block = await cc.allocate_producer_ids(req.broker_id, req.broker_epoch)
    if isinstance(block, ErrorCode):
        return AllocateProducerIdsResponse(throttle_time_ms=0, error_code=block, producer_id_start=0, producer_id_len=0)
    return AllocateProducerIdsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, producer_id_start=block.first_id, producer_id_len=block.size)


async def handle_elect_leaders(ctx: RequestContext, req: ElectLeadersRequest) -> ElectLeadersResponse:
    """Every broker takes it and asks the controller (KafkaApis.handleElectLeaders); all
    partitions when the request names none, then answering only those that needed one."""
    s = ctx.services
    v = ctx.api_version
    election_type = req.election_type if v >= 1 else ELECTION_PREFERRED
    if req.topic_partitions is None:
        wanted = [(t, p) for t, info in s.metadata_cache.topics().items() for p in info.partitions]
    else:
        wanted = [(t.topic, p) for t in req.topic_partitions for p in t.partitions]
    cc = s.cluster_controller
    results: dict[tuple[str, int], tuple[ErrorCode, str | None]]
    if cc is None:
        results = {tp: (ErrorCode.NOT_CONTROLLER, None) for tp in wanted}
    else:
        task = asyncio.ensure_future(cc.elect_leaders(election_type, wanted))
        done, _ = await asyncio.wait({task}, timeout=max(req.timeout_ms, 0) / 1000)
        if done:
            results = task.result()
        else:  # the election goes on; the client hears it did not finish in time
            results = {tp: (ErrorCode.REQUEST_TIMED_OUT, None) for tp in wanted}
    if req.topic_partitions is None:
        results = {tp: r for tp, r in results.items() if r[0] != ErrorCode.ELECTION_NOT_NEEDED}
    by_topic: dict[str, list] = {}
    for (t, p), (code, message) in results.items():
        by_topic.setdefault(t, []).append(ElectLeadersResponse.PartitionResult(partition_id=p, error_code=code, error_message=message))
    return ElectLeadersResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, replica_election_results=[
        ElectLeadersResponse.ReplicaElectionResult(topic=t, partition_result=ps) for t, ps in by_topic.items()])


async def handle_alter_partition_reassignments(ctx: RequestContext, req: AlterPartitionReassignmentsRequest) -> AlterPartitionReassignmentsResponse:
    """Answered by the active controller only (NOT_CONTROLLER elsewhere, so the admin client
    retries there); replicas None cancels a partition's reassignment."""
    cc = ctx.services.cluster_controller
    if cc is None or not cc.is_active:
        return AlterPartitionReassignmentsResponse(throttle_time_ms=0, error_code=ErrorCode.NOT_CONTROLLER, error_message=None, responses=[])
    wanted = {(t.name, p.partition_index): p.replicas for t in req.topics for p in t.partitions}
    results = await cc.alter_partition_reassignments(wanted)
    by_topic: dict[str, list] = {}
    for t in req.topics:
        for p in t.partitions:
            code, message = results.get((t.name, p.partition_index), (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None))
            by_topic.setdefault(t.name, []).append(AlterPartitionReassignmentsResponse.ReassignablePartitionResponse(
                partition_index=p.partition_index, error_code=code, error_message=message))
    return AlterPartitionReassignmentsResponse(throttle_time_ms=0, error_code=ErrorCode.NONE, error_message=None, responses=[
        AlterPartitionReassignmentsResponse.ReassignableTopicResponse(name=t, partitions=ps) for t, ps in by_topic.items()])


async def handle_list_partition_reassignments(ctx: RequestContext, req: ListPartitionReassignmentsRequest) -> ListPartitionReassignmentsResponse:
    cc = ctx.services.cluster_controller
    if cc is None or not cc.is_active:
        return ListPartitionReassignmentsResponse(throttle_time_ms=0, error_code=ErrorCode.NOT_CONTROLLER, error_message=None, topics=[])
    wanted = None if req.topics is None else [(t.name, p) for t in req.topics for p in t.partition_indexes]
    error, ongoing = await cc.list_partition_reassignments(wanted)
    by_topic: dict[str, list] = {}
    for (t, p), a in sorted(ongoing.items()):
        by_topic.setdefault(t, []).append(ListPartitionReassignmentsResponse.OngoingPartitionReassignment(
            partition_index=p, replicas=list(a.replicas), adding_replicas=list(a.adding_replicas),
            removing_replicas=list(a.removing_replicas)))
    return ListPartitionReassignmentsResponse(throttle_time_ms=0, error_code=error, error_message=None, topics=[
        ListPartitionReassignmentsResponse.OngoingTopicReassignment(name=t, partitions=ps) for t, ps in by_topic.items()])


HANDLERS = [
    Handler(ApiKey.LEADER_AND_ISR, 0, 7, handle_leader_and_isr),
    Handler(ApiKey.STOP_REPLICA, 0, 4, handle_stop_replica),
    Handler(ApiKey.UPDATE_METADATA, 0, 8, handle_update_metadata),
    Handler(ApiKey.CONTROLLED_SHUTDOWN, 0, 3, handle_controlled_shutdown),
    Handler(ApiKey.ELECT_LEADERS, 0, 2, handle_elect_leaders),
    Handler(ApiKey.ALTER_PARTITION_REASSIGNMENTS, 0, 0, handle_alter_partition_reassignments),
    Handler(ApiKey.LIST_PARTITION_REASSIGNMENTS, 0, 0, handle_list_partition_reassignments),
    Handler(ApiKey.ALTER_PARTITION, 0, 3, handle_alter_partition),
    Handler(ApiKey.ALLOCATE_PRODUCER_IDS, 0, 0, handle_allocate_producer_ids),
]
