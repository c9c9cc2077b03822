"""The ZooKeeper-mode controller (Kafka's KafkaController with its partition and replica state
machines): one broker of the cluster, elected through ``/controller``, decides leaders and ISRs,
writes them to ZooKeeper fenced by the controller epoch, and tells the brokers with
LeaderAndIsr / UpdateMetadata / StopReplica through ``ControllerChannelManager``.

All work runs as events on one ``ControllerEventManager`` task; ZooKeeper watches and request
handlers only queue events, so the context needs no locks. Every write as controller goes
through ``KafkaZkClient``'s fenced ops; a ``ControllerMovedError`` makes it resign on the spot,
as does the loss of its ZooKeeper session (the listener stops it acting before the Expire
event runs).

Who may call it: the broker (startup, new session, shutdown) and the control-request handlers
(AlterPartition, ControlledShutdown, ElectLeaders, Alter/ListPartitionReassignments); the legacy
``/admin/reassign_partitions`` and ``/admin/preferred_replica_election`` znodes are watched
from failover on. Nothing on disk: ZooKeeper is the store.

Every event is dispatched from one table (``_event_handlers``: event type -> handler, as
Kafka's ``process(event)`` match). Topic deletion, partition reassignment, requested and
periodic leader elections, failed log dirs and the answers to the brokers' own requests
(AlterPartition, ControlledShutdown, AllocateProducerIds) are helpers of their own
(topic_deletion.py, reassignment.py, leader_elections.py, log_dir_events.py,
broker_requests.py), run by the same events; they see the controller through ``ControllerOps`` (controller_ops.py) and
never import this module.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from kazoo.protocol.states import WatchedEvent

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest, AlterPartitionResponse

from kafpy.replication.config import BrokerConfigView
from kafpy.replication.metadata_cache import BrokerInfo, new_topic_id
from kafpy.replication import controller_events as ce
from kafpy.replication import election
from kafpy.replication import zk_data as zd
from kafpy.replication.controller_channel import ControllerChannelManager, ControllerRequestBatch, broker_info
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.controller_ops import Decide
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.network_client import ConnectionSecurity, NetworkClient, NetworkClientConfig
from kafpy.replication.reassignment import (AlterPartitionReassignments, ListPartitionReassignments,
                                      PartitionReassignments, ReassignmentResult)
from kafpy.replication.leader_elections import LeaderElections, ZkPreferredReplicaElection
from kafpy.replication.log_dir_events import LeaderAndIsrResponseReceived, LogDirEvents
from kafpy.replication.topic_deletion import TopicDeletionManager
from kafpy.replication.broker_requests import BrokerRequests
from kafpy.replication.zk_client import ControllerMovedError, KafkaZkClient, NodeExistsError, SessionState

log = logging.getLogger("kafka.controller.KafkaController")

MAX_WRITE_ATTEMPTS = 10
EventHandler = Callable[[Any], Awaitable[object]]


def _answer(event: ce.RequestEvent, *answer: object) -> None:
    if event.callback is not None:
        event.callback(*answer)


def _our_write_landed(written: LeaderAndIsr, found: zd.LeaderIsrAndControllerEpoch, controller_epoch: int) -> bool:
    """Whether ``found``, read after our conditional write of ``written`` failed on its
    version, is that write itself: ZooKeeper applied it, the connection dropped before the
    answer, and the retry met the version it had made. Exactly one write since the expected
    version, by this controller epoch, with our content. Re-deciding from it instead would
    see nothing left to do (the new leader is live, the dead replica is out of the ISR) and
    tell no broker of the new leader epoch: the leader would stay in the old one, and every
    ISR change it proposes be refused as fenced."""
    state = found.leader_and_isr
    return (found.controller_epoch == controller_epoch
            and state.partition_epoch == written.partition_epoch + 1
            and state.with_partition_epoch(written.partition_epoch) == written)


class KafkaController:
    def __init__(self, config: BrokerConfigView, zk: KafkaZkClient, broker_id: int,
                 clock: Callable[[], float], loop: asyncio.AbstractEventLoop,
                 channel_factory: Callable[[BrokerInfo], NetworkClient] | None = None,
                 security: ConnectionSecurity | None = None) -> None:
        """``security``: the inter-broker listener's, for the channels to the brokers."""
        self.config = config
        self.security = security
        self.zk = zk
        self.broker_id = broker_id
        self.clock = clock
        self.loop = loop
        self.ctx = ControllerContext()
        self._channel_factory = channel_factory or self._network_client
        self._channels: ControllerChannelManager | None = None
        self._events = ce.ControllerEventManager(broker_id, self, clock)
        self.stats = ce.ControllerStats()
        self._active_controller_id = -1
        self._broker_epoch = -1
        self._started = False
        self.reassignments = PartitionReassignments(self)
        self.topic_deletion = TopicDeletionManager(self)
        self.leader_elections = LeaderElections(self)
        self.log_dir_events = LogDirEvents(self)
        self.broker_requests = BrokerRequests(self, self.reassignments)
        self._handlers = self._event_handlers()

    # ------------------------------------------------------------------ public API
    @property
    def is_active(self) -> bool:
        return self._active_controller_id == self.broker_id

    @property
    def epoch(self) -> int:
        return self.ctx.epoch

    @property
    def active_controller_id(self) -> int:
        return self._active_controller_id

    @property
    def event_manager(self) -> ce.ControllerEventManager:
        """The event queue and its timers (read by metrics: EventQueueSize, EventQueueTimeMs,
        the per-state RateAndTimeMs)."""
        return self._events

    async def startup(self, broker_epoch: int) -> None:
        """Watch ``/controller`` and try to become controller (in the event task)."""
        self._broker_epoch = broker_epoch
        self.zk.add_session_listener(self._on_session_state)
        self._events.start()
        self._started = True
        self._events.put(ce.Startup())

    async def on_new_session(self, broker_epoch: int) -> None:
        """The broker registered again after its session expired: elect again."""
        self._broker_epoch = broker_epoch
        self._events.put(ce.RegisterBrokerAndReelect())

    async def shutdown(self) -> None:
        if not self._started:
            return
        self._started = False
        self.zk.remove_session_listener(self._on_session_state)
        await self._events.close()
        await self._on_resignation()

    def enable_default_unclean_leader_election(self) -> None:
        """The broker's unclean.leader.election.enable was turned on (a dynamic config
        change): the active controller elects leaders for offline partitions at once."""
        if self.is_active:
            self.put(ce.UncleanLeaderElectionEnable())

    def enable_topic_unclean_leader_election(self, topic: str) -> None:
        """A topic's unclean.leader.election.enable was set to true (its config change
        notification): the active controller elects leaders for its offline partitions."""
        if self.is_active:
            self.put(ce.TopicUncleanLeaderElectionEnable(topic))

    async def alter_partition(self, request: AlterPartitionRequest, api_version: int) -> AlterPartitionResponse:
        return await self._ask(ce.AlterPartitionReceived, broker_id=request.broker_id,
                               broker_epoch=request.broker_epoch,
                               request=(request, api_version))

    async def controlled_shutdown(self, broker_id: int, broker_epoch: int
                                  ) -> tuple[ErrorCode, list[tuple[str, int]]]:
        error, remaining = await self._ask(ce.ControlledShutdown, broker_id=broker_id,
                                           broker_epoch=broker_epoch)
        return error, sorted(remaining)

    async def allocate_producer_ids(self, broker_id: int, broker_epoch: int) -> zd.ProducerIdBlock | ErrorCode:
        """AllocateProducerIds (67): the next block of producer ids for a broker that asks the
        controller for them (an Apache Kafka broker with IBP 3.0+ does; kafpy brokers claim
        blocks in ZooKeeper themselves, which Kafka's older brokers did too)."""
        return await self._ask(ce.AllocateProducerIds, broker_id=broker_id, broker_epoch=broker_epoch)

    async def elect_leaders(self, election_type: int, partitions: list[tuple[str, int]] | None
                            ) -> dict[tuple[str, int], tuple[ErrorCode, str | None]]:
        wanted = frozenset(partitions) if partitions is not None else None
        result = await self._ask(ce.ReplicaLeaderElection, partitions=wanted,
                                 election_type=election_type)
        return {tp: (r, None) if isinstance(r, ErrorCode) else r for tp, r in result.items()}

    async def alter_partition_reassignments(
            self, reassignments: dict[tuple[str, int], list[int] | None]) -> ReassignmentResult:
        """AlterPartitionReassignments: partition -> target replicas, None to cancel; per
        partition (ErrorCode, message)."""
        return await self._ask(AlterPartitionReassignments, reassignments={
            tp: None if r is None else tuple(r) for tp, r in reassignments.items()})

    async def list_partition_reassignments(self, partitions: list[tuple[str, int]] | None
                                           ) -> tuple[ErrorCode, dict[tuple[str, int], zd.ReplicaAssignment]]:
        """ListPartitionReassignments: (error, partition -> replicas with adding/removing)
        for the partitions being reassigned (all of them when ``partitions`` is None)."""
        return await self._ask(ListPartitionReassignments,
                               partitions=None if partitions is None else frozenset(partitions))

    async def _ask(self, event_type: type, **fields: Any) -> Any:
        """Queue a request event and wait for its answer (NOT_CONTROLLER when preempted)."""
        fut = self.loop.create_future()

        def answer(*args: object) -> None:
            if not fut.done():
                fut.set_result(args[0] if len(args) == 1 else args)
        event = event_type(callback=answer, **fields)
        if not self._started:
            event.preempt()
        else:
            self._events.put(event)
        result = await fut
        if isinstance(result, ErrorCode) and event_type is ce.AlterPartitionReceived:
            return AlterPartitionResponse(error_code=result)
        return result

    # ------------------------------------------------------------------ event processing
    def preempt(self, event: ce.ControllerEvent) -> None:
        event.preempt()

    async def process(self, event: ce.ControllerEvent) -> None:
        try:
            await self._dispatch(event)
        except ControllerMovedError as e:
            log.info("[Controller id=%d] Controller moved to another broker when processing %s: %s",
                     self.broker_id, type(event).__name__, e)
            await self._maybe_resign()
            if isinstance(event, ce.RequestEvent):
                event.preempt()
        except Exception:
            if isinstance(event, ce.RequestEvent):
                event.preempt()
            raise

    async def _dispatch(self, event: ce.ControllerEvent) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            await handler(event)
        elif isinstance(event, ce.RequestEvent):
            event.preempt()
        else:
            log.debug("[Controller id=%d] Ignoring %s", self.broker_id, type(event).__name__)

    def _event_handlers(self) -> dict[type[ce.ControllerEvent], EventHandler]:
        """Event type -> handler, as Kafka's ``KafkaController.process`` match. Work only the
        active controller does goes through ``_when_active``."""
        active = self._when_active
        return {
            ce.Startup: self._process_startup,
            ce.RegisterBrokerAndReelect: self._process_startup,
            ce.Reelect: self._process_reelect,
            ce.ControllerChange: self._process_controller_change,
            ce.Expire: self._process_expire,
            ce.BrokerChange: active(lambda _: self._process_broker_change()),
            ce.TopicChange: active(lambda _: self._process_topic_change()),
            ce.PartitionModifications: active(lambda e: self._process_partition_modifications(e.topic)),
            ce.TopicDeletion: active(lambda _: self.topic_deletion.process()),
            ce.UncleanLeaderElectionEnable: active(lambda _: self._process_unclean_leader_election_enable()),
            ce.TopicUncleanLeaderElectionEnable: active(
                lambda e: self._process_topic_unclean_leader_election_enable(e.topic)),
            ce.AutoPreferredReplicaLeaderElection: active(lambda _: self.leader_elections.process_auto_rebalance()),
            ZkPreferredReplicaElection: active(lambda _: self.leader_elections.process_zk()),
            ce.ReplicaLeaderElection: active(self._answer_replica_leader_election),
            ce.ZkPartitionReassignment: active(lambda _: self.reassignments.process_zk()),
            AlterPartitionReassignments: active(self.reassignments.process),
            ListPartitionReassignments: active(self.reassignments.process),
            ce.LogDirEventNotification: active(lambda _: self.log_dir_events.process()),
            LeaderAndIsrResponseReceived: active(self.log_dir_events.process_response),
            ce.AlterPartitionReceived: active(self._answer_alter_partition),
            ce.ControlledShutdown: active(self._answer_controlled_shutdown),
            ce.AllocateProducerIds: active(self._answer_allocate_producer_ids),
        }

    def _when_active(self, handler: EventHandler) -> EventHandler:
        """``handler`` on the active controller; elsewhere a request event is answered
        NOT_CONTROLLER and any other dropped (Kafka's ``if (!isActive) return``)."""
        async def run(event: Any) -> None:
            if self.is_active:
                await handler(event)
            elif isinstance(event, ce.RequestEvent):
                event.preempt()
        return run

    async def _process_startup(self, _: ce.ControllerEvent) -> None:
        await self._elect()

    async def _process_reelect(self, _: ce.Reelect) -> None:
        await self._maybe_resign()
        await self._elect()

    async def _process_controller_change(self, _: ce.ControllerChange) -> None:
        await self._maybe_resign()

    async def _process_expire(self, _: ce.Expire) -> None:
        was_active = self.is_active
        self._active_controller_id = -1
        if was_active or self._channels is not None:
            await self._on_resignation()

    async def _answer_alter_partition(self, event: ce.AlterPartitionReceived) -> None:
        assert event.request is not None  # the controller's alter_partition always sets it
        request, version = event.request
        _answer(event, await self.broker_requests.alter_partition(request, version))

    async def _answer_controlled_shutdown(self, event: ce.ControlledShutdown) -> None:
        _answer(event, *await self.broker_requests.controlled_shutdown(event.broker_id, event.broker_epoch))

    async def _answer_allocate_producer_ids(self, event: ce.AllocateProducerIds) -> None:
        _answer(event, await self.broker_requests.allocate_producer_ids(event.broker_id, event.broker_epoch))

    async def _answer_replica_leader_election(self, event: ce.ReplicaLeaderElection) -> None:
        _answer(event, await self.leader_elections.process(event.election_type, event.partitions))

    # ------------------------------------------------------------------ watches (on the loop)
    def put(self, event: ce.ControllerEvent) -> None:
        if self._started:
            self._events.put(event)

    def _on_controller_watch(self, event: WatchedEvent) -> None:
        self.put(ce.Reelect() if event.type == "DELETED" else ce.ControllerChange())

    def _on_broker_ids_watch(self, event: WatchedEvent) -> None:
        self.put(ce.BrokerChange())

    def _on_topics_watch(self, event: WatchedEvent) -> None:
        self.put(ce.TopicChange())

    def _on_topic_watch(self, event: WatchedEvent) -> None:
        if event.path:
            self.put(ce.PartitionModifications(event.path.rsplit("/", 1)[1]))

    def _on_session_state(self, state: SessionState) -> None:
        if state is SessionState.EXPIRED and self._started:
            self._active_controller_id = -1  # stop acting now; Expire cleans up
            self._events.clear_and_put(ce.Expire())

    # ------------------------------------------------------------------ election
    async def _elect(self) -> None:
        current = await self.zk.get_controller_id(self._on_controller_watch)
        self._active_controller_id = -1 if current is None else current
        if current is not None:
            log.debug("[Controller id=%d] Broker %d has been elected as the controller, so stopping "
                      "the election process.", self.broker_id, current)
            return
        try:
            epoch, epoch_zk_version = await self.zk.register_controller_and_increment_epoch(self.broker_id)
        except ControllerMovedError:
            log.info("[Controller id=%d] Lost the controller election", self.broker_id)
            current = await self.zk.get_controller_id(self._on_controller_watch)
            self._active_controller_id = -1 if current is None else current
            return
        self.ctx.reset()
        self.ctx.epoch, self.ctx.epoch_zk_version = epoch, epoch_zk_version
        self._active_controller_id = self.broker_id
        log.info("[Controller id=%d] %d successfully elected as the controller. Epoch incremented to %d "
                 "and epoch zk version is now %d", self.broker_id, self.broker_id, epoch, epoch_zk_version)
        await self._on_failover()

    async def _maybe_resign(self) -> None:
        was_active = self.is_active
        current = await self.zk.get_controller_id(self._on_controller_watch)
        self._active_controller_id = -1 if current is None else current
        if was_active and not self.is_active:
            await self._on_resignation()

    async def _on_resignation(self) -> None:
        log.info("[Controller id=%d] Resigning", self.broker_id)
        self.leader_elections.cancel_auto_rebalance()
        channels, self._channels = self._channels, None
        if channels is not None:
            await channels.shutdown()
        epoch = self.ctx.epoch
        self.ctx.reset()
        self.ctx.epoch = epoch

    async def _on_failover(self) -> None:
        zk, ctx = self.zk, self.ctx
        ctx.add_live_brokers(await zk.get_all_brokers_and_epochs(self._on_broker_ids_watch))
        topics = await zk.get_all_topics(self._on_topics_watch)
        await self._load_topics(topics)
        ctx.leadership.update(await zk.get_partition_states(list(ctx.all_partitions())))
        self._channels = ControllerChannelManager(self.broker_id, self._channel_factory, self.loop)
        for b in sorted(ctx.live_brokers):
            self._channels.add_broker(self._broker_info(b))
        batch = self.new_batch()
        batch.add_update_metadata(ctx.live_brokers, list(ctx.leadership))
        for tp in sorted(ctx.leadership):
            batch.add_leader_and_isr(self.live_replicas(tp), tp)
        batch.send(self._channels)
        await self.on_replicas_offline(batch, self._dead_replicas())
        batch.send(self._channels)
        await self.log_dir_events.clear_at_failover()
        await self.reassignments.resume(skip=await self.reassignments.process_zk())
        await self.topic_deletion.process()
        await self.leader_elections.process_zk()
        self.leader_elections.schedule_auto_rebalance()
        log.info("[Controller id=%d] Ready to serve as the new controller with epoch %d",
                 self.broker_id, ctx.epoch)

    # ------------------------------------------------------------------ helpers
    def new_batch(self) -> ControllerRequestBatch:
        return ControllerRequestBatch(self.ctx, self.broker_id,
                                      leader_and_isr_callback=self.log_dir_events.on_leader_and_isr_response)

    def send(self, batch: ControllerRequestBatch) -> None:
        if self._channels is not None:
            batch.send(self._channels)

    def _broker_info(self, broker_id: int) -> BrokerInfo:
        return broker_info(self.ctx.live_brokers[broker_id], self.config["inter.broker.listener.name"],
                           self.config["security.inter.broker.protocol"])

    def _network_client(self, broker: BrokerInfo) -> NetworkClient:
        cfg = NetworkClientConfig(request_timeout_ms=self.config["controller.socket.timeout.ms"])
        return NetworkClient(broker.host, broker.port, client_id=f"controller-{self.broker_id}",
                             node_id=broker.node_id, config=cfg, loop=self.loop, security=self.security)

    def live_replicas(self, tp: TopicPartition) -> list[int]:
        return [r for r in self.ctx.replicas(tp) if r in self.ctx.live_brokers]

    def _dead_replicas(self) -> dict[TopicPartition, list[int]]:
        ctx = self.ctx
        out = {tp: ctx.offline_replicas(tp) for tp in ctx.all_partitions()}
        return {tp: rs for tp, rs in out.items() if rs}

    async def _load_topics(self, topics: Iterable[str]) -> list[str]:
        """Read assignments (watching each topic), give topics without an id one."""
        names = sorted(topics)
        found = await asyncio.gather(*(self.zk.get_topic_assignment(t, self._on_topic_watch)
                                       for t in names))
        loaded = []
        for topic, assignment in zip(names, found):
            if assignment is None:
                continue
            if assignment.topic_id is None:
                assignment = zd.TopicAssignment(zd.topic_id_to_str(new_topic_id()), assignment.partitions)
                await self.zk.set_topic_assignment(topic, assignment, self.ctx.epoch_zk_version)
                log.info("[Controller id=%d] Assigned topic id %s to topic %s", self.broker_id,
                         assignment.topic_id, topic)
            assert assignment.topic_id is not None  # given one just above when it had none
            self.ctx.set_topic(topic, assignment, zd.topic_id_from_str(assignment.topic_id))
            loaded.append(topic)
        return loaded

    async def _unclean_allowed(self, topic: str) -> bool:
        overrides = await self.zk.get_entity_config(zd.ConfigType.TOPIC, topic)
        value = overrides.get("unclean.leader.election.enable")
        if value is None:
            return bool(self.config["unclean.leader.election.enable"])
        return value.strip().lower() == "true"

    # ------------------------------------------------------------------ partition state writes
    async def update_partitions(self, tps: Iterable[TopicPartition], decide: Decide
                                 ) -> dict[TopicPartition, LeaderAndIsr | ErrorCode]:
        """Decide each partition's new state from its current one and write it at the
        current partition epoch; on a version conflict re-read and decide again. Returns
        what was written (partition epoch updated) or the decision's ErrorCode."""
        ctx = self.ctx
        out: dict[TopicPartition, LeaderAndIsr | ErrorCode] = {}
        pending = list(tps)
        for _ in range(MAX_WRITE_ATTEMPTS):
            new: dict[TopicPartition, LeaderAndIsr] = {}
            for tp in pending:
                cur = ctx.leader_and_isr(tp)
                decided = decide(tp, cur) if cur is not None else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                if isinstance(decided, LeaderAndIsr):
                    new[tp] = decided
                elif decided is not None:
                    out[tp] = decided
            if not new:
                break
            result = await self.zk.update_leader_and_isr(new, ctx.epoch, ctx.epoch_zk_version)
            for tp, r in result.finished.items():
                if isinstance(r, Exception):
                    log.error("[Controller id=%d] Failed to write the state of %s: %r",
                              self.broker_id, tp, r)
                    out[tp] = ErrorCode.UNKNOWN_SERVER_ERROR
                else:
                    ctx.leadership[tp] = zd.LeaderIsrAndControllerEpoch(r, ctx.epoch)
                    out[tp] = r
            if not result.to_retry:
                break
            fresh = await self.zk.get_partition_states(result.to_retry)
            for tp, state in fresh.items():
                if state.controller_epoch > ctx.epoch:
                    raise ControllerMovedError(
                        f"Aborted leader election for {tp}: the state was written by controller epoch "
                        f"{state.controller_epoch}, newer than ours ({ctx.epoch})")
                ctx.leadership[tp] = state
                if _our_write_landed(new[tp], state, ctx.epoch):
                    log.info("[Controller id=%d] The state of %s-%d was written before its answer was lost "
                             "with the ZooKeeper connection: %s", self.broker_id, tp[0], tp[1], state.leader_and_isr)
                    out[tp] = state.leader_and_isr
            pending = [tp for tp in result.to_retry if tp not in out]
        return out

    async def _elect_partitions(self, batch: ControllerRequestBatch, tps: Iterable[TopicPartition]) -> None:
        """NewPartition/OfflinePartition -> OnlinePartition, then LeaderAndIsr to the live
        replicas of every partition that got a leader (Kafka's triggerOnlinePartitionStateChange)."""
        ctx = self.ctx
        tps = sorted(tps)
        new = {tp: s for tp in tps if ctx.leader_and_isr(tp) is None
               and (s := election.new_partition_state(ctx.replicas(tp), ctx.live_broker_ids)) is not None}
        if new:
            created = await self.zk.create_partition_states(new, ctx.epoch, ctx.epoch_zk_version)
            for tp, r in created.items():
                if isinstance(r, NodeExistsError):
                    state = await self.zk.get_partition_state(*tp)
                    if state is not None:
                        ctx.leadership[tp] = state
                        if _our_write_landed(new[tp].with_partition_epoch(-1), state, ctx.epoch):
                            # our create, answered NodeExists when sent again after a lost connection
                            batch.add_leader_and_isr(self.live_replicas(tp), tp, is_new=True)
                elif isinstance(r, Exception):
                    log.error("[Controller id=%d] Could not create the state of %s: %r",
                              self.broker_id, tp, r)
                else:
                    ctx.leadership[tp] = zd.LeaderIsrAndControllerEpoch(r, ctx.epoch)
                    batch.add_leader_and_isr(self.live_replicas(tp), tp, is_new=True)
        offline = [tp for tp in tps if tp not in new and ctx.leader_and_isr(tp) is not None]
        unclean = {t: await self._unclean_allowed(t) for t in {t for t, _ in offline}}

        went_unclean: set[TopicPartition] = set()

        def decide(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | None:
            live = ctx.live_broker_ids_for(tp)  # less replicas in failed log dirs
            if cur.leader in live:
                return None
            result = election.elect_offline(cur, ctx.replicas(tp), live, unclean[tp[0]])
            if result is not None and result.leader not in cur.isr:
                went_unclean.add(tp)
            return result
        for tp, written in (await self.update_partitions(offline, decide)).items():
            if isinstance(written, LeaderAndIsr):
                batch.add_leader_and_isr(self.live_replicas(tp), tp)
                if tp in went_unclean:
                    self.stats.unclean_leader_elections += 1
        for tp in offline:
            if not ctx.is_online(tp):
                lai = ctx.leader_and_isr(tp)
                assert lai is not None  # ``offline`` holds partitions that have a state
                log.error("[Controller id=%d] No live replica of %s can lead it (ISR %s)",
                          self.broker_id, tp, lai.isr)

    async def on_replicas_offline(self, batch: ControllerRequestBatch,
                                   dead: dict[TopicPartition, list[int]]) -> None:
        """Elect leaders for partitions that lost theirs, then take dead replicas out of the
        ISRs (never emptying one), telling the remaining replicas: as Kafka's OfflineReplica
        transition, not the replica taken out (a broker shutting down is still registered; it
        got StopReplica and must not be told to follow again)."""
        ctx = self.ctx
        await self._elect_partitions(batch, ctx.partitions_needing_election())

        def decide(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | None:
            result = cur
            for r in dead[tp]:
                result = election.remove_replica_from_isr(result, r) or result
            if result == cur:
                return None
            return LeaderAndIsr(result.leader, cur.leader_epoch + 1, result.isr,
                                result.leader_recovery_state, cur.partition_epoch)
        targets = [tp for tp in sorted(dead) if tp[0] not in ctx.topics_to_be_deleted]
        for tp, r in (await self.update_partitions(targets, decide)).items():
            if isinstance(r, LeaderAndIsr):
                batch.add_leader_and_isr([b for b in self.live_replicas(tp) if b not in dead[tp]], tp)
        batch.add_update_metadata(ctx.live_brokers)

    # ------------------------------------------------------------------ brokers
    async def _process_broker_change(self) -> None:
        ctx, channels = self.ctx, self._channels
        assert channels is not None
        current = await self.zk.get_all_brokers_and_epochs(self._on_broker_ids_watch)
        new = {b: v for b, v in current.items() if b not in ctx.live_brokers}
        dead = sorted(b for b in ctx.live_brokers if b not in current)
        bounced = {b: v for b, v in current.items()
                   if b in ctx.broker_epochs and v[1] > ctx.broker_epochs[b]}
        if not (new or dead or bounced):
            return
        log.info("[Controller id=%d] Newly added brokers: %s, deleted brokers: %s, bounced brokers: %s, "
                 "all live brokers: %s", self.broker_id, sorted(new), dead, sorted(bounced), sorted(current))
        for b in dead + sorted(bounced):
            await channels.remove_broker(b)
        ctx.remove_live_brokers(dead)
        if bounced:
            ctx.remove_live_brokers(bounced)
            await self._on_broker_failure(sorted(bounced))
            ctx.add_live_brokers(bounced)
            await self._on_broker_startup(bounced)
        if dead:
            await self._on_broker_failure(dead)
        if new:
            ctx.add_live_brokers(new)
            await self._on_broker_startup(new)

    async def _on_broker_startup(self, brokers: dict[int, tuple[zd.BrokerRegistration, int]]) -> None:
        ctx = self.ctx
        assert self._channels is not None
        for b in sorted(brokers):
            self._channels.add_broker(self._broker_info(b))
        # As Kafka's onBrokerStartup: UpdateMetadata first, in batches of their own, so a new
        # broker knows every live broker before LeaderAndIsr names one as its leader (an
        # Apache Kafka broker refuses to follow a leader missing from its metadata cache).
        existing = self.new_batch()
        existing.add_update_metadata([b for b in ctx.live_brokers if b not in brokers])
        self.send(existing)
        newcomers = self.new_batch()
        newcomers.add_update_metadata(sorted(brokers), list(ctx.leadership))
        self.send(newcomers)
        batch = self.new_batch()
        for b in sorted(brokers):
            for tp in ctx.partitions_on_broker(b):
                if tp[0] not in ctx.topics_to_be_deleted:
                    batch.add_leader_and_isr([b], tp)
        await self._elect_partitions(batch, ctx.partitions_needing_election())
        self.send(batch)
        await self.reassignments.resume(brokers)

    async def _on_broker_failure(self, brokers: list[int]) -> None:
        dead_set = set(brokers)
        dead = {tp: [r for r in self.ctx.replicas(tp) if r in dead_set]
                for tp in self.ctx.all_partitions()}
        batch = self.new_batch()
        await self.on_replicas_offline(batch, {tp: rs for tp, rs in dead.items() if rs})
        self.send(batch)

    # ------------------------------------------------------------------ topics
    async def _process_topic_change(self) -> None:
        ctx = self.ctx
        topics = await self.zk.get_all_topics(self._on_topics_watch)
        for t in ctx.all_topics - topics:
            ctx.remove_topic(t)
        added = await self._load_topics(topics - ctx.all_topics)
        if not added:
            return
        log.info("[Controller id=%d] New topics: %s", self.broker_id, added)
        batch = self.new_batch()
        await self._elect_partitions(batch, [tp for t in added for tp in ctx.partitions_for_topic(t)])
        batch.add_update_metadata(ctx.live_brokers)
        self.send(batch)

    async def _process_partition_modifications(self, topic: str) -> None:
        ctx = self.ctx
        assignment = await self.zk.get_topic_assignment(topic, self._on_topic_watch)
        if assignment is None or topic not in ctx.assignments or topic in ctx.topics_to_be_deleted:
            return
        added = {p: a for p, a in assignment.partitions.items() if p not in ctx.assignments[topic]}
        if not added:
            return
        log.info("[Controller id=%d] New partitions to be added %s", self.broker_id, sorted(added))
        ctx.assignments[topic].update(added)
        batch = self.new_batch()
        await self._elect_partitions(batch, [(topic, p) for p in sorted(added)])
        self.send(batch)

    # ------------------------------------------------------------------ unclean leader election
    async def _process_unclean_leader_election_enable(self) -> None:
        """Kafka's processUncleanLeaderElectionEnable: elect leaders for every offline
        partition now (each topic's own setting still decides whether it may go unclean)."""
        await self._trigger_online_partition_state_change(self.ctx.partitions_needing_election())

    async def _process_topic_unclean_leader_election_enable(self, topic: str) -> None:
        """Kafka's processTopicUncleanLeaderElectionEnable: the same for one topic."""
        await self._trigger_online_partition_state_change(
            [tp for tp in self.ctx.partitions_needing_election() if tp[0] == topic])

    async def _trigger_online_partition_state_change(self, tps: list[TopicPartition]) -> None:
        if not tps:
            return
        batch = self.new_batch()
        await self._elect_partitions(batch, tps)
        self.send(batch)
