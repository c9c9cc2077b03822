"""Kafka's KafkaZkClient over kazoo, for asyncio: the ZooKeeper reads and writes of a ZK-mode
broker and controller, in Kafka's layout (``zk_data``).

Never blocks the event loop: every request uses kazoo's async API and its completion (run on
kazoo's thread) only settles an asyncio future with ``call_soon_threadsafe``; watch callbacks
and session-state changes are likewise handed to the loop. Only ``start``/``close`` wait for
kazoo in a worker thread. Requests issued together are pipelined (all sent, then gathered).

Fencing (KAFKA-6082): every write made *as controller* is a ZooKeeper multi
``[check(/controller_epoch, epoch_zk_version), op]``; a failed check raises
``ControllerMovedError`` and the caller resigns. Partition state writes are also conditional on
the state znode's version (the partition epoch), so a racing leader or controller is detected.

Watches are one-shot and fire on the loop with kazoo's ``WatchedEvent``; kazoo also fires
every watch with event type NONE when the connection drops, so a handler must treat any event
as "re-read and re-arm". Requests interrupted by a connection loss are retried (as Kafka's
retryRequestsUntilConnected does); after the session expires they raise kazoo's
SessionExpiredError, except the producer id block's read and conditional write, which wait for
the new session and go again (kazoo refuses every request until it has one; Kafka's client
holds a new request while it re-initializes, and only the few in flight fail).

Who may call it: the broker's ZooKeeper registration, the controller, the admin paths that
create topics and change configs. One instance per broker; methods run on one event loop.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import (BadVersionError, ConnectionLoss, NodeExistsError, NoNodeError,
                              OperationTimeoutError, RolledBackError, SessionExpiredError)
from kazoo.protocol.states import WatchedEvent, ZnodeStat
from kazoo.interfaces import IAsyncResult

from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_ops import (MATCH_ANY_VERSION, BrokerIdInUseError, CheckOp, ControllerMovedError,
                                 CreateOp, DeleteOp, Op, SessionState, SetDataOp, TopicPartition,
                                 UpdateLeaderAndIsrResult)

log = logging.getLogger("kafka.zk.KafkaZkClient")

__all__ = [
    "KafkaZkClient", "SessionState", "ControllerMovedError", "BrokerIdInUseError",
    "CreateOp", "SetDataOp", "DeleteOp", "CheckOp", "UpdateLeaderAndIsrResult",
    "MATCH_ANY_VERSION", "NodeExistsError", "NoNodeError", "BadVersionError",
]

MAX_CONNECTION_RETRIES = 20
# a request safe to send twice is sent again after at most this many session expiries
EXPIRY_RETRIES = 2

Watch = Callable[[WatchedEvent], None]


# Reconnect at least every second, as ZooKeeper's own client does; kazoo's default backoff
# doubles up to an hour, so a broker cut from ZooKeeper for some seconds stayed away for tens
# of seconds after the cut healed (and learned of its expired session only then).
CONNECTION_RETRY = {"max_tries": -1, "delay": 0.1, "backoff": 2, "max_delay": 1.0}


class ZooKeeperRequestLatency:
    """Count and recent latencies (ms) of ZooKeeper requests (Kafka's ZooKeeperClientMetrics
    histogram). Recorded in kazoo's thread: a counter increment and a bounded deque's append
    are each atomic under the GIL; readers (metrics, at scrape time) tolerate one request
    less."""

    RECENT = 1024

    def __init__(self) -> None:
        self.count = 0
        self.recent: deque[float] = deque(maxlen=self.RECENT)

    def record(self, started: float) -> None:
        self.recent.append((time.perf_counter() - started) * 1000.0)
        self.count += 1


class KafkaZkClient:
    def __init__(self, connect: str, session_timeout_ms: int = 18000,
                 connection_timeout_ms: int | None = None,
                 clock: Callable[[], float] = time.time,
                 on_session_state: Callable[[SessionState], None] | None = None) -> None:
        self.connect = connect
        self._client = KazooClient(hosts=connect, timeout=session_timeout_ms / 1000,
                                   connection_retry=CONNECTION_RETRY)
        self._connection_timeout_s = (connection_timeout_ms or session_timeout_ms) / 1000
        self._session_timeout_s = session_timeout_ms / 1000
        self._clock = clock
        self._session_listeners: list[Callable[[SessionState], None]] = (
            [on_session_state] if on_session_state is not None else [])
        self._loop: asyncio.AbstractEventLoop | None = None
        self._had_session = False
        # kafka.server:type=ZooKeeperClientMetrics,name=ZooKeeperRequestLatencyMs
        self.request_latency = ZooKeeperRequestLatency()
        self._expired = False
        self._closing = False
        self._watchers: dict[Watch, Watch] = {}
        self._client.add_listener(self._state_listener)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(self._client.start, self._connection_timeout_s)

    async def close(self) -> None:
        self._closing = True  # our own session end is not an expiry to act on

        def stop() -> None:
            self._client.stop()
            self._client.close()
        await asyncio.to_thread(stop)

    @property
    def session_id(self) -> int:
        return self._client.client_id[0] if self._client.client_id else 0

    @property
    def kazoo(self) -> KazooClient:
        """The underlying client (tests force session expiry with its credentials)."""
        return self._client

    def _state_listener(self, state: str) -> None:
        # kazoo's connection thread: decide the state here, act on the loop
        if self._closing:
            return
        if state == KazooState.CONNECTED:
            event = SessionState.NEW_SESSION if self._expired else SessionState.CONNECTED
            self._expired = False
            self._had_session = True
        elif state == KazooState.SUSPENDED:
            event = SessionState.SUSPENDED
        else:
            if not self._had_session:
                return
            self._expired = True
            event = SessionState.EXPIRED
        for listener in list(self._session_listeners):
            self._to_loop(listener, event)

    def add_session_listener(self, listener: Callable[[SessionState], None]) -> None:
        """Also tell ``listener`` (on the loop) of session changes: the broker re-registers,
        the controller resigns at once on expiry."""
        self._session_listeners.append(listener)

    def remove_session_listener(self, listener: Callable[[SessionState], None]) -> None:
        if listener in self._session_listeners:
            self._session_listeners.remove(listener)

    def _to_loop(self, fn: Callable[..., object], *args: object) -> None:
        if self._loop is None:
            return
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # loop closed while kazoo was still talking
            log.debug("Dropped a ZooKeeper callback: event loop closed")

    def _watch(self, watch: Watch | None) -> Watch | None:
        """The kazoo watcher for ``watch``: the same object every time, so re-arming a watch
        on a path that already has it does not make it fire twice."""
        if watch is None:
            return None
        wrapper = self._watchers.get(watch)
        if wrapper is None:
            wrapper = self._watchers[watch] = lambda event: self._to_loop(watch, event)
        return wrapper

    # ------------------------------------------------------------------ bridging
    def _bridge(self, async_result: IAsyncResult, started: float) -> asyncio.Future:
        """A future of kazoo's ``async_result``; the request's latency (from ``started``, a
        ``time.perf_counter()`` value taken before it was sent) is recorded in kazoo's thread
        as the answer arrives, so a busy event loop does not add to it."""
        loop = self._loop
        latency = self.request_latency
        assert loop is not None, "start() first"
        fut = loop.create_future()

        def settle(exc: BaseException | None, value: object) -> None:
            if fut.done():
                return
            if exc is not None:
                fut.set_exception(exc)
            else:
                fut.set_result(value)

        def on_done(result: IAsyncResult) -> None:
            latency.record(started)
            try:
                loop.call_soon_threadsafe(settle, result.exception, result.value)
            except RuntimeError:
                pass
        async_result.rawlink(on_done)
        return fut

    async def _call(self, start: Callable[[], IAsyncResult], *, across_expiry: bool = False) -> Any:
        """Run one kazoo async request, again after a connection loss. After the session
        expired it raises SessionExpiredError, unless ``across_expiry`` (a request that is
        safe to send twice: a read, a write conditional on a version): then it waits (up to a
        session timeout) for the new session and sends it again there."""
        expiries = 0
        for attempt in range(MAX_CONNECTION_RETRIES):
            try:
                started = time.perf_counter()
                return await self._bridge(start(), started)
            except (ConnectionLoss, OperationTimeoutError):
                if attempt == MAX_CONNECTION_RETRIES - 1:
                    raise
                await asyncio.sleep(min(0.1 * (attempt + 1), 1.0))
            except SessionExpiredError:
                expiries += 1
                if not across_expiry or self._closing or expiries > EXPIRY_RETRIES:
                    raise
                await self._until_connected(self._session_timeout_s)
        raise AssertionError("unreachable")

    async def _until_connected(self, timeout_s: float) -> None:
        """Return once kazoo has a live session again (at most ``timeout_s`` later: the send
        after that fails as it would have)."""
        deadline = time.monotonic() + timeout_s
        while not self._client.connected and time.monotonic() < deadline and not self._closing:
            await asyncio.sleep(0.05)

    # ------------------------------------------------------------------ generic reads
    async def get_data(self, path: str, watch: Watch | None = None
                       ) -> tuple[bytes | None, ZnodeStat | None]:
        """(data, stat), or (None, None) when the znode does not exist."""
        try:
            return await self._call(lambda: self._client.get_async(path, self._watch(watch)))
        except NoNodeError:
            return None, None

    async def get_children(self, path: str, watch: Watch | None = None) -> list[str]:
        """Child names ([] when the znode does not exist)."""
        try:
            return list(await self._call(
                lambda: self._client.get_children_async(path, self._watch(watch))))
        except NoNodeError:
            return []

    async def exists(self, path: str, watch: Watch | None = None) -> ZnodeStat | None:
        """The stat, or None; the watch fires on creation too."""
        return await self._call(lambda: self._client.exists_async(path, self._watch(watch)))

    # ------------------------------------------------------------------ multi and fencing
    async def multi(self, ops: Sequence[Op]) -> list[object]:
        """One ZooKeeper transaction; per op kazoo's result or the exception instance
        (the failing op's error, RolledBackError for the others)."""
        def start() -> IAsyncResult:
            txn = self._client.transaction()
            for op in ops:
                if isinstance(op, CreateOp):
                    txn.create(op.path, op.data, ephemeral=op.ephemeral, sequence=op.sequential)
                elif isinstance(op, SetDataOp):
                    txn.set_data(op.path, op.data, op.version)
                elif isinstance(op, DeleteOp):
                    txn.delete(op.path, op.version)
                else:
                    txn.check(op.path, op.version)
            return txn.commit_async()
        return list(await self._call(start))

    async def controller_op(self, op: Op, epoch_zk_version: int) -> object:
        """``op`` as controller: fenced by ``/controller_epoch``'s version; returns the op's
        result or raises its error (NodeExistsError, BadVersionError, NoNodeError...)."""
        if epoch_zk_version == MATCH_ANY_VERSION:
            result = (await self.multi([op]))[0]
        else:
            check, result = await self.multi([CheckOp(zd.CONTROLLER_EPOCH_PATH, epoch_zk_version), op])
            if isinstance(check, (BadVersionError, NoNodeError)):
                raise ControllerMovedError(
                    f"Controller epoch zkVersion check fails. Expected zkVersion = {epoch_zk_version}")
        if isinstance(result, Exception):
            raise result
        return result

    async def _controller_ops(self, ops: Sequence[Op], epoch_zk_version: int) -> list[object]:
        """Pipelined fenced ops; per op the result or its exception. ControllerMovedError is
        raised, not returned."""
        results = await asyncio.gather(*(self.controller_op(op, epoch_zk_version) for op in ops),
                                       return_exceptions=True)
        for r in results:
            # fencing failures and cancellation are not per-op results
            if isinstance(r, ControllerMovedError) or (
                    isinstance(r, BaseException) and not isinstance(r, Exception)):
                raise r
        return list(results)

    # ------------------------------------------------------------------ startup paths
    async def ensure_path(self, path: str) -> None:
        """Create ``path`` and its missing parents holding no data (null), as Kafka's
        createRecursive does: kazoo's ensure_path writes an empty array instead, which a Java
        reader gets as empty JSON and Kafka fails to parse (``/latest_producer_id_block``)."""
        parts = path.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            node = "/" + "/".join(parts[:i])
            try:
                await self._call(functools.partial(self._client.create_async, node, None))
            except NodeExistsError:
                pass

    async def ensure_persistent_paths(self) -> None:
        """Create what every broker ensures at startup (ZkData.PersistentZkPaths)."""
        await asyncio.gather(*(self.ensure_path(p) for p in zd.PERSISTENT_PATHS))

    async def get_cluster_id(self) -> str | None:
        data, _ = await self.get_data(zd.CLUSTER_ID_PATH)
        return zd.decode_cluster_id(data) if data else None

    async def get_or_create_cluster_id(self, proposed: str) -> str:
        """The cluster id stored in ZooKeeper, writing ``proposed`` if there is none."""
        existing = await self.get_cluster_id()
        if existing is not None:
            return existing
        await self.ensure_path(zd.CLUSTER_PATH)
        try:
            await self._call(lambda: self._client.create_async(
                zd.CLUSTER_ID_PATH, zd.encode_cluster_id(proposed)))
            return proposed
        except NodeExistsError:
            existing = await self.get_cluster_id()
            assert existing is not None
            return existing

    # ------------------------------------------------------------------ brokers
    async def register_broker(self, registration: zd.BrokerRegistration) -> int:
        """Create the ephemeral ``/brokers/ids/<id>``; returns its czxid, the broker epoch."""
        path = zd.broker_path(registration.broker_id)
        data = registration.encode(self._now_ms())
        try:
            _, stat = await self._call(lambda: self._client.create_async(
                path, data, ephemeral=True, include_data=True))
        except NodeExistsError:
            _, stat = await self.get_data(path)
            if stat is None or stat.ephemeralOwner != self.session_id:
                owner = stat.ephemeralOwner if stat else None
                raise BrokerIdInUseError(
                    f"Error while creating ephemeral at {path}, node already exists and owner "
                    f"'{owner}' does not match current session '{self.session_id}'") from None
        log.info("Registered broker %d at path %s with addresses: %s, czxid (broker epoch): %d",
                 registration.broker_id, path,
                 [e.connection_string for e in registration.endpoints], stat.czxid)
        return stat.czxid

    async def get_broker(self, broker_id: int) -> tuple[zd.BrokerRegistration, int] | None:
        """(registration, broker epoch) of a live broker."""
        data, stat = await self.get_data(zd.broker_path(broker_id))
        if data is None or stat is None:
            return None
        return zd.BrokerRegistration.decode(broker_id, data), stat.czxid

    async def get_all_brokers_and_epochs(self, watch: Watch | None = None
                                         ) -> dict[int, tuple[zd.BrokerRegistration, int]]:
        """Every registered broker with its epoch; ``watch`` is set on ``/brokers/ids``."""
        ids = sorted(int(c) for c in await self.get_children(zd.BROKER_IDS_PATH, watch))
        found = await asyncio.gather(*(self.get_broker(i) for i in ids))
        return {i: b for i, b in zip(ids, found) if b is not None}

    # ------------------------------------------------------------------ controller election
    async def get_controller_id(self, watch: Watch | None = None) -> int | None:
        """The active controller's broker id; ``watch`` also fires when one appears."""
        stat = await self.exists(zd.CONTROLLER_PATH, watch)
        if stat is None:
            return None
        data, _ = await self.get_data(zd.CONTROLLER_PATH)
        return zd.ControllerRegistration.decode(data).broker_id if data else None

    async def get_controller_epoch(self) -> tuple[int, int] | None:
        """(controller epoch, zkVersion of ``/controller_epoch``)."""
        data, stat = await self.get_data(zd.CONTROLLER_EPOCH_PATH)
        if data is None or stat is None:
            return None
        return zd.decode_controller_epoch(data), stat.version

    async def register_controller_and_increment_epoch(self, controller_id: int) -> tuple[int, int]:
        """Try to become controller: one multi creating the ephemeral ``/controller`` and setting
        ``/controller_epoch`` to epoch + 1 at its read version. Returns (new epoch, its zkVersion),
        the fencing token of every later controller write; raises ControllerMovedError when
        another broker won."""
        current = await self.get_controller_epoch()
        if current is None:
            current = await self._create_controller_epoch()
        epoch, version = current
        new_epoch = epoch + 1
        ops: list[Op] = [
            CreateOp(zd.CONTROLLER_PATH, zd.ControllerRegistration(controller_id).encode(self._now_ms()), ephemeral=True),
            SetDataOp(zd.CONTROLLER_EPOCH_PATH, zd.encode_controller_epoch(new_epoch), version)]
        create, set_data = await self.multi(ops)
        if isinstance(create, NodeExistsError) or isinstance(set_data, BadVersionError):
            return await self._check_controller_and_epoch(controller_id, new_epoch)
        for result in (create, set_data):
            if isinstance(result, Exception) and not isinstance(result, RolledBackError):
                raise result
        assert isinstance(set_data, ZnodeStat)  # a SetData op's result in a transaction
        return new_epoch, set_data.version

    async def _create_controller_epoch(self) -> tuple[int, int]:
        try:
            await self._call(lambda: self._client.create_async(
                zd.CONTROLLER_EPOCH_PATH, zd.encode_controller_epoch(zd.INITIAL_CONTROLLER_EPOCH)))
            return zd.INITIAL_CONTROLLER_EPOCH, 0
        except NodeExistsError:
            current = await self.get_controller_epoch()
            if current is None:
                raise ControllerMovedError(
                    f"{zd.CONTROLLER_EPOCH_PATH} existed before but went away") from None
            return current

    async def _check_controller_and_epoch(self, controller_id: int, new_epoch: int) -> tuple[int, int]:
        # the multi may have succeeded before a connection loss and been retried
        current_id = await self.get_controller_id()
        if current_id is None:
            raise ControllerMovedError(
                f"The ephemeral node at {zd.CONTROLLER_PATH} went away while checking whether the "
                f"controller election succeeds. Aborting controller startup procedure")
        if current_id == controller_id:
            current = await self.get_controller_epoch()
            if current is not None and current[0] == new_epoch:
                return current
        raise ControllerMovedError(
            "Controller moved to another broker. Aborting controller startup procedure")

    async def delete_controller(self, epoch_zk_version: int) -> None:
        """Resign: delete ``/controller`` (fenced, absent is fine)."""
        try:
            await self.controller_op(DeleteOp(zd.CONTROLLER_PATH), epoch_zk_version)
        except NoNodeError:
            pass

    # ------------------------------------------------------------------ topics
    async def get_all_topics(self, watch: Watch | None = None) -> set[str]:
        return set(await self.get_children(zd.TOPICS_PATH, watch))

    async def get_topic_assignment(self, topic: str, watch: Watch | None = None
                                   ) -> zd.TopicAssignment | None:
        data, stat = await self.get_data(zd.topic_path(topic), watch)
        return None if stat is None else zd.TopicAssignment.decode(data)

    async def get_topic_assignments(self, topics: Iterable[str]) -> dict[str, zd.TopicAssignment]:
        names = list(topics)
        found = await asyncio.gather(*(self.get_topic_assignment(t) for t in names))
        return {t: a for t, a in zip(names, found) if a is not None}

    async def create_topic_assignment(self, topic: str, assignment: zd.TopicAssignment) -> None:
        """Admin path (not fenced): NodeExistsError when the topic exists."""
        await self._call(lambda: self._client.create_async(
            zd.topic_path(topic), assignment.encode(), makepath=True))

    async def set_topic_assignment(self, topic: str, assignment: zd.TopicAssignment,
                                   epoch_zk_version: int) -> ZnodeStat:
        """As controller (added partitions, reassignment steps, assigning a missing topic id)."""
        return await self.controller_op(SetDataOp(zd.topic_path(topic), assignment.encode()),
                                        epoch_zk_version)

    # ------------------------------------------------------------------ partition states
    async def create_partition_states(self, states: Mapping[TopicPartition, LeaderAndIsr],
                                      controller_epoch: int, epoch_zk_version: int
                                      ) -> dict[TopicPartition, LeaderAndIsr | Exception]:
        """NewPartition -> Online: create the state znodes (and their parents); per partition
        the created state (partition epoch 0) or the error (NodeExistsError if present)."""
        tps = list(states)
        for parents in ({zd.topic_partitions_path(t) for t, _ in tps},
                        {zd.topic_partition_path(t, p) for t, p in tps}):
            for r in await self._controller_ops([CreateOp(p) for p in sorted(parents)],
                                                epoch_zk_version):
                if isinstance(r, Exception) and not isinstance(r, NodeExistsError):
                    raise r
        results = await self._controller_ops(
            [CreateOp(zd.partition_state_path(t, p),
                      zd.encode_partition_state(states[(t, p)], controller_epoch)) for t, p in tps],
            epoch_zk_version)
        return {tp: (r if isinstance(r, Exception) else states[tp].with_partition_epoch(0))
                for tp, r in zip(tps, results)}

    async def get_partition_state(self, topic: str, partition: int
                                  ) -> zd.LeaderIsrAndControllerEpoch | None:
        data, stat = await self.get_data(zd.partition_state_path(topic, partition))
        return None if stat is None else zd.decode_partition_state(data, stat.version)

    async def get_partition_states(self, partitions: Iterable[TopicPartition]
                                   ) -> dict[TopicPartition, zd.LeaderIsrAndControllerEpoch]:
        tps = list(partitions)
        found = await asyncio.gather(*(self.get_partition_state(t, p) for t, p in tps))
        return {tp: s for tp, s in zip(tps, found) if s is not None}

    async def update_leader_and_isr(self, states: Mapping[TopicPartition, LeaderAndIsr],
                                    controller_epoch: int, epoch_zk_version: int
                                    ) -> UpdateLeaderAndIsrResult:
        """Conditional writes at each state's partition epoch. A version conflict (a leader's
        AlterPartition or another writer got there first) puts the partition in ``to_retry``."""
        tps = list(states)
        results = await self._controller_ops(
            [SetDataOp(zd.partition_state_path(t, p),
                       zd.encode_partition_state(states[(t, p)], controller_epoch),
                       states[(t, p)].partition_epoch) for t, p in tps],
            epoch_zk_version)
        out = UpdateLeaderAndIsrResult()
        for tp, r in zip(tps, results):
            if isinstance(r, BadVersionError):
                out.to_retry.append(tp)
            elif isinstance(r, Exception):
                out.finished[tp] = r
            else:
                assert isinstance(r, ZnodeStat)  # a SetData op's result in a transaction
                out.finished[tp] = states[tp].with_partition_epoch(r.version)
        return out

    # ------------------------------------------------------------------ configs
    async def get_entity_config(self, entity_type: str, entity_name: str) -> dict[str, str]:
        data, _ = await self.get_data(zd.config_entity_path(entity_type, entity_name))
        return zd.decode_entity_config(data)

    async def set_or_create_entity_config(self, entity_type: str, entity_name: str,
                                          config: Mapping[str, str]) -> None:
        path = zd.config_entity_path(entity_type, entity_name)
        data = zd.encode_entity_config(config)
        try:
            await self._call(lambda: self._client.set_async(path, data))
        except NoNodeError:
            try:
                await self._call(lambda: self._client.create_async(path, data, makepath=True))
            except NodeExistsError:
                await self._call(lambda: self._client.set_async(path, data))

    async def create_config_change_notification(self, entity_path: str) -> str:
        """Sequential ``/config/changes/config_change_<seq>``; returns the created path."""
        return await self._call(lambda: self._client.create_async(
            f"{zd.CONFIG_CHANGES_PATH}/{zd.CONFIG_CHANGE_PREFIX}",
            zd.encode_config_change(entity_path), sequence=True, makepath=True))

    async def change_entity_config(self, entity_type: str, entity_name: str,
                                   config: Mapping[str, str]) -> None:
        """AdminZkClient.changeConfigs: store the whole config, then notify every broker."""
        await self.set_or_create_entity_config(entity_type, entity_name, config)
        await self.create_config_change_notification(f"{entity_type}/{entity_name}")

    # ------------------------------------------------------------------ topic deletion
    async def create_delete_topic_path(self, topic: str) -> None:
        """Ask the controller to delete ``topic``; NodeExistsError if already asked."""
        await self._call(lambda: self._client.create_async(zd.delete_topic_path(topic),
                                                           makepath=True))

    async def get_topic_deletions(self, watch: Watch | None = None) -> set[str]:
        return set(await self.get_children(zd.DELETE_TOPICS_PATH, watch))

    async def delete_recursive(self, path: str, epoch_zk_version: int) -> None:
        """Delete ``path`` and everything below it, each delete fenced; absent is fine."""
        for child in await self.get_children(path):
            await self.delete_recursive(f"{path}/{child}", epoch_zk_version)
        try:
            await self.controller_op(DeleteOp(path), epoch_zk_version)
        except NoNodeError:
            pass

    async def delete_topic(self, topic: str, epoch_zk_version: int) -> None:
        """The controller's last deletion step: topic znode, its config, then the marker."""
        await self.delete_recursive(zd.topic_path(topic), epoch_zk_version)
        await self.delete_recursive(zd.config_entity_path(zd.ConfigType.TOPIC, topic), epoch_zk_version)
        await self.delete_recursive(zd.delete_topic_path(topic), epoch_zk_version)

    # ------------------------------------------------------------------ legacy admin requests
    async def get_admin_request(self, path: str, watch: Watch | None = None) -> bytes | None:
        """``/admin/reassign_partitions`` or ``/admin/preferred_replica_election``'s data, None
        when absent; ``watch`` is set with exists, so it also fires when one is created."""
        if await self.exists(path, watch) is None:
            return None
        data, stat = await self.get_data(path)
        return None if stat is None else data or b""

    async def create_admin_request(self, path: str, data: bytes) -> None:
        """As Kafka 2.x tools (not fenced): NodeExistsError while one is in progress."""
        await self._call(lambda: self._client.create_async(path, data, makepath=True))

    # ------------------------------------------------------------------ producer ids
    async def allocate_producer_id_block(self, broker_id: int) -> zd.ProducerIdBlock:
        """The next block of 1000 producer ids: read ``/latest_producer_id_block`` and its
        version, write the following block conditionally, again on a conflict.

        Both requests go through a session expiry: a producer's InitProducerId that came while
        ZooKeeper expired this broker's session gets its id once the new session is there,
        not UNKNOWN_SERVER_ERROR, which clients take as fatal. A write that reached ZooKeeper
        before the expiry makes the second one conflict: one block is skipped, none given twice."""
        path = zd.PRODUCER_ID_BLOCK_PATH
        while True:
            try:
                data, stat = await self._call(lambda: self._client.get_async(path), across_expiry=True)
            except NoNodeError:
                await self.ensure_path(path)
                continue
            block = zd.ProducerIdBlock.next_after(zd.ProducerIdBlock.decode(data), broker_id)
            try:
                await self._call(lambda: self._client.set_async(path, block.encode(), stat.version),
                                 across_expiry=True)
            except BadVersionError:
                log.debug("Conflict while allocating a producer id block, retrying")
                continue
            log.info("Acquired new producerId block %s by writing to Zk with path version %d",
                     block, stat.version + 1)
            return block

    # ------------------------------------------------------------------ notifications
    async def propagate_log_dir_event(self, broker_id: int) -> str:
        """A broker's log dir failed: sequential ``/log_dir_event_notification/log_dir_event_<seq>``
        for the controller (KafkaZkClient.propagateLogDirEvent); returns the created path."""
        return await self._call(lambda: self._client.create_async(
            f"{zd.LOG_DIR_EVENT_NOTIFICATION_PATH}/{zd.LOG_DIR_EVENT_PREFIX}",
            zd.encode_log_dir_event(broker_id), sequence=True, makepath=True))

    async def get_log_dir_events(self, watch: Watch | None = None) -> dict[str, int | None]:
        """Each log dir event notification and the broker it names (None if unreadable)."""
        children = sorted(c for c in await self.get_children(zd.LOG_DIR_EVENT_NOTIFICATION_PATH, watch)
                          if c.startswith(zd.LOG_DIR_EVENT_PREFIX))
        out: dict[str, int | None] = {}
        for c in children:
            data, stat = await self.get_data(f"{zd.LOG_DIR_EVENT_NOTIFICATION_PATH}/{c}")
            try:
                out[c] = None if stat is None else zd.decode_log_dir_event(data)
            except zd.ZkDataError:
                out[c] = None
        return out

    async def delete_children(self, parent: str, children: Iterable[str], epoch_zk_version: int) -> None:
        """Drop processed sequential notifications (isr_change_, log_dir_event_) as controller."""
        results = await self._controller_ops(
            [DeleteOp(f"{parent}/{c}") for c in children], epoch_zk_version)
        for r in results:
            if isinstance(r, Exception) and not isinstance(r, NoNodeError):
                raise r

    # ------------------------------------------------------------------ ACLs (not as controller)
    async def conditional_set_or_create(self, path: str, data: bytes, version: int | None) -> None:
        """Set ``path`` at ``version``, or create it (with parents) when ``version`` is None;
        BadVersionError / NodeExistsError when another writer got there first."""
        if version is None:
            await self._call(lambda: self._client.create_async(path, data, makepath=True))
        else:
            await self._call(lambda: self._client.set_async(path, data, version))

    async def conditional_delete(self, path: str, version: int) -> None:
        """Delete ``path`` at ``version`` (BadVersionError if it changed; gone is fine)."""
        try:
            await self._call(lambda: self._client.delete_async(path, version))
        except NoNodeError:
            pass

    async def create_sequential(self, prefix_path: str, data: bytes) -> str:
        """A persistent-sequential ``<prefix_path><seq>`` (parents created); its path."""
        return await self._call(lambda: self._client.create_async(
            prefix_path, data, sequence=True, makepath=True))

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)
