"""The asyncio driver around ``RaftCore`` (Kafka's ``KafkaRaftClient`` with its IO thread).

One task polls the core with the clock and sleeps until the core's nearest deadline (or until
something woke it: a response, a request, an append). Outbound requests go through the
injected ``NetworkChannel``, one task per request; a failed send is handed to the core as a
``BROKER_NOT_AVAILABLE`` answer, as Kafka's channel does, so the core backs off that node.
Inbound requests (``handle_request``) are answered by the core at once; a leader's Fetch that
finds nothing new is parked until the log or the high watermark moves, or for the fetch's
MaxWaitMs (Kafka's fetch purgatory), so followers do not spin; a Fetch v18 whose follower
reports a high watermark behind the leader's is answered at once instead (KIP-1166).

Who calls it: the controller side of a node (``kafpy.broker.controller_server``) serves the
raft APIs through ``handle_request`` and appends with ``schedule_append``; the controller and
brokers follow the log through ``Listener`` (Kafka's ``RaftClient.Listener``):
``handle_commit`` gets each committed batch once, in order, and ``handle_leader_change`` every
new (leader, epoch). Appends linger ``controller.quorum.append.linger.ms`` so that records
scheduled close together land in one append (Kafka's ``BatchAccumulator``).
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AddRaftVoterRequest, AddRaftVoterResponse, FetchRequest, FetchResponse, RemoveRaftVoterRequest,
    RemoveRaftVoterResponse,
)
from kafpy.raft import raft_messages as msg
from kafpy.raft import voter_changes
from kafpy.raft.network_channel import NetworkChannel, failure_response
from kafpy.raft.raft_core import NotLeaderError, RaftCore
from kafpy.raft.snapshot import SnapshotId
from kafpy.raft.event_wait import wait_event

log = logging.getLogger("org.apache.kafka.raft.KafkaRaftClient")

COMMIT_READ_BYTES = 1024 * 1024  # read per listener step, so a long backlog does not hold the loop
SHUTDOWN_RESIGN_MS = 1000  # how long close() waits for EndQuorumEpoch answers
LOG_CLEAN_INTERVAL_MS = 60_000  # Kafka's RaftMetadataLogCleanerManager: the log's retention check


def wall_clock_ms() -> int:
    """Kafka's ``Time.SYSTEM.milliseconds()``: DescribeQuorum reports these as timestamps."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class LeaderAndEpoch:
    """Kafka's ``LeaderAndEpoch``: the leader known in ``epoch`` (None while unknown)."""

    leader_id: int | None
    epoch: int


@dataclass(frozen=True)
class Batch:
    """One committed batch as a listener sees it (Kafka's ``Batch``): its offsets, the epoch
    that wrote it, and its records still serialized (the listener knows their serde).
    ``control`` batches (leader changes) carry their control records in ``records``.
    ``size_in_bytes`` is the batch's size in the log (what a node counts towards its next
    snapshot) and ``append_time_ms`` its timestamp (-1 when the log has none)."""

    base_offset: int
    last_offset: int
    epoch: int
    records: tuple[bytes, ...]
    control: bool = False
    size_in_bytes: int = 0
    append_time_ms: int = -1


BatchDecoder = Callable[[bytes], Iterable[Batch]]
"""Splits what ``ReplicatedLog.read`` returned into batches; the log's own framing."""


class Listener(Protocol):
    """Kafka's ``RaftClient.Listener``, called on the driver's task (keep it short)."""

    def handle_commit(self, batches: Sequence[Batch]) -> None: ...

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None: ...


class SnapshotListener(Listener, Protocol):
    """A listener that also takes snapshots (Kafka's ``handleLoadSnapshot``): given the
    latest snapshot when it would otherwise start below it (registered on a log that
    starts at a snapshot, or fallen behind the log start); batches follow from its end."""

    def handle_load_snapshot(self, snapshot_id: SnapshotId, data: bytes) -> None: ...


class _ListenerContext:
    """Where one listener is: the next offset it has not been given."""

    def __init__(self, listener: Listener, next_offset: int) -> None:
        self.listener = listener
        self.next_offset = next_offset
        self.last_leader: LeaderAndEpoch | None = None
        self.stalled_at_hw: int | None = None  # no whole batch below this HW to give yet
        self.fresh = True  # given nothing yet (a snapshot listener then starts at the latest snapshot)


class KafkaRaftClient:
    """Keeps the core, the channel, the clock, the listeners, the appends waiting for their
    linger, and the tasks in flight. Use from the event loop's thread only."""

    def __init__(self, core: RaftCore, channel: NetworkChannel, decode_batches: BatchDecoder, *,
                 append_linger_ms: int = 25, time_ms: Callable[[], int] = wall_clock_ms,
                 log_cleaner: Callable[[], object] | None = None) -> None:
        self.core = core
        self.channel = channel
        self.decode_batches = decode_batches
        self.append_linger_ms = append_linger_ms
        self.time_ms = time_ms
        self._listeners: list[_ListenerContext] = []
        self._pending: list[bytes] = []
        self._pending_epoch = -1
        self._linger_deadline: int | None = None
        self._wake = asyncio.Event()
        self._progress: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._seen = (-1, -1, -1)  # (epoch, log end, high watermark) at the last step
        self._flushed_end = core.log.end_offset()  # the log end at the last flush
        self._sends: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.leader_and_epoch = LeaderAndEpoch(core.quorum.leader_id(), core.epoch)
        self._synced_voters: object = None  # the voter set whose addresses the channel has
        # the log's retention by snapshot (KafkaMetadataLog.maybe_clean), run every minute
        self.log_cleaner = log_cleaner
        self._next_clean_ms = time_ms() + LOG_CLEAN_INTERVAL_MS

    # -- life cycle ------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Start the poll task; it ends (with the exception) if the core fails, as Kafka's
        raft IO thread does, so the owner can shut the node down."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="raft-io")
        return self._task

    async def close(self) -> None:
        """Resign if leader and give the EndQuorumEpoch requests a moment, then stop."""
        if self._closed:
            return
        if self.core.is_leader():
            now = self.time_ms()
            self.core.resign(now)
            self._send_all(self.core.poll(now))
            if self._sends:
                await asyncio.wait(set(self._sends), timeout=SHUTDOWN_RESIGN_MS / 1000)
        self._closed = True
        self._wake.set()
        for task in list(self._sends) + ([self._task] if self._task else []):
            task.cancel()
        await asyncio.gather(*self._sends, *([self._task] if self._task else []), return_exceptions=True)
        self._sends.clear()
        await self.channel.close()

    def register(self, listener: Listener) -> None:
        """Deliver every committed batch from the start of the log to ``listener``."""
        self._listeners.append(_ListenerContext(listener, self.core.log.start_offset()))
        self._wake.set()

    # -- the leader's API ------------------------------------------------------------------

    def schedule_append(self, records: Sequence[bytes], epoch: int | None = None) -> int:
        """Queue ``records`` for the leader's next append (after the linger); the offset the
        last one will have. Raises ``NotLeaderError`` when this node is not the leader of
        ``epoch`` (of the current epoch when None)."""
        if not records:
            raise ValueError("nothing to append")
        core = self.core
        if not core.is_leader() or (epoch is not None and epoch != core.epoch):
            raise NotLeaderError(f"node {core.node_id} is not the leader of epoch "
                                 f"{core.epoch if epoch is None else epoch}")
        if self._pending_epoch != core.epoch:
            self._pending = []
            self._pending_epoch = core.epoch
        self._pending.extend(records)
        if self._linger_deadline is None:
            self._linger_deadline = self.time_ms() + self.append_linger_ms
            self._wake.set()
        return core.log.end_offset() + len(self._pending) - 1

    def _maybe_flush(self, now_ms: int) -> None:
        if self._linger_deadline is None or now_ms < self._linger_deadline:
            return
        pending, self._pending, self._linger_deadline = self._pending, [], None
        if pending and self.core.is_leader() and self._pending_epoch == self.core.epoch:
            self.core.append(pending, now_ms)

    # -- the poll task ---------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self._closed:
                now = self.time_ms()
                self._maybe_flush(now)
                self._send_all(self.core.poll(now))
                self._after_step()
                wait_ms = min(self.core.time_until_next_poll_ms(now), self._maybe_clean_log(now))
                if self._linger_deadline is not None:
                    wait_ms = min(wait_ms, max(0, self._linger_deadline - now))
                if self._listeners_behind():
                    wait_ms = 0
                if wait_ms > 0:
                    await wait_event(self._wake, wait_ms / 1000)
                else:
                    await asyncio.sleep(0)
                self._wake.clear()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.error("Unexpected error in the raft IO task; stopping", exc_info=True)
            raise

    def _maybe_clean_log(self, now_ms: int) -> int:
        """Run the log cleaner if its minute is up; the ms until it is due again."""
        if self.log_cleaner is None:
            return LOG_CLEAN_INTERVAL_MS
        if now_ms >= self._next_clean_ms:
            self._next_clean_ms = now_ms + LOG_CLEAN_INTERVAL_MS
            self.log_cleaner()
        return self._next_clean_ms - now_ms

    def _flush_log(self) -> None:
        """fsync what was appended since the last flush, before any request or answer can
        tell another node how far this log goes (Kafka flushes a follower's appends and the
        leader's before they count)."""
        end = self.core.log.end_offset()
        if end != self._flushed_end:
            self.core.log.flush()
            self._flushed_end = end

    def _send_all(self, requests: list[msg.OutboundRequest]) -> None:
        self._flush_log()
        if requests:
            self._sync_addresses()
        loop = asyncio.get_running_loop()
        for request in requests:
            task = loop.create_task(self._send(request))
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    async def _send(self, request: msg.OutboundRequest) -> None:
        try:
            response = await self.channel.send(request.destination, request.api_key, request.data)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure is the same to the core: no answer
            log.debug("Request %s to node %s failed: %s", request.api_key.name, request.destination, e)
            response = failure_response(request.api_key)
        if self._closed:
            return
        if isinstance(response, FetchResponse):
            for node in response.node_endpoints:  # the leader a voter or bootstrap server named
                self.channel.update_address(node.node_id, node.host, node.port)
        self.core.handle_response(request.destination, request.correlation_id, response, self.time_ms())
        self._after_step()
        self._wake.set()

    def _after_step(self) -> None:
        """After the core moved: wake parked fetches, tell listeners of a new leader, hand
        them what is newly committed."""
        self._flush_log()
        core = self.core
        seen = (core.epoch, core.log.end_offset(), core.high_watermark() or -1)
        if seen != self._seen:
            self._seen = seen
            progress, self._progress = self._progress, asyncio.get_running_loop().create_future()
            progress.set_result(None)
        leader = LeaderAndEpoch(core.quorum.leader_id(), core.epoch)
        if leader != self.leader_and_epoch:
            self.leader_and_epoch = leader
            log.info("Leader is now %s in epoch %s", leader.leader_id, leader.epoch)
            if leader.leader_id != core.node_id:
                self._pending, self._linger_deadline = [], None
        for ctx in self._listeners:
            if ctx.last_leader != leader:
                ctx.last_leader = leader
                ctx.listener.handle_leader_change(leader)
            self._deliver_commits(ctx)

    def _listeners_behind(self) -> bool:
        hw = self.core.high_watermark()
        return hw is not None and any(ctx.next_offset < hw and ctx.stalled_at_hw != hw for ctx in self._listeners)

    def _deliver_commits(self, ctx: _ListenerContext) -> None:
        """At most ``COMMIT_READ_BYTES`` per step; the poll loop comes back while behind."""
        hw = self.core.high_watermark()
        if hw is None:
            return
        self._maybe_load_snapshot(ctx)
        if ctx.next_offset >= hw:
            return
        data = self.core.log.read(ctx.next_offset, COMMIT_READ_BYTES)
        batches = [b for b in self.decode_batches(data) if b.last_offset < hw]
        if batches:
            ctx.next_offset = batches[-1].last_offset + 1
            ctx.stalled_at_hw = None
            ctx.listener.handle_commit(batches)
        else:  # the HW is inside a batch: wait for it to move rather than spin
            ctx.stalled_at_hw = hw

    def _maybe_load_snapshot(self, ctx: _ListenerContext) -> None:
        """A listener that takes snapshots and would start below the latest one (with records
        in it) is handed that snapshot first, then batches from its end (Kafka's
        ``maybeFireLoadSnapshot``). Other listeners read the log as before."""
        load = getattr(ctx.listener, "handle_load_snapshot", None)
        if load is None:
            return
        fresh, ctx.fresh = ctx.fresh, False
        latest = self.core.log.latest_snapshot_id()
        if latest is None or latest.end_offset == 0:  # none, or the bootstrap snapshot (no records)
            return
        if not fresh and ctx.next_offset >= self.core.log.start_offset():
            return  # the log still holds what follows
        reader = self.core.log.read_snapshot(latest)
        if reader is None:
            return
        load(latest, reader.slice(0, reader.size_in_bytes()))
        ctx.next_offset = latest.end_offset
        ctx.stalled_at_hw = None

    # -- inbound requests ------------------------------------------------------------------

    async def handle_request(self, api_key: ApiKey, data: msg.RaftRequestData) -> msg.RaftResponseData:
        """Answer a Vote, BeginQuorumEpoch, EndQuorumEpoch or Fetch of ``__cluster_metadata``."""
        response = self._handle_now(api_key, data)
        if not isinstance(data, FetchRequest) or not isinstance(response, FetchResponse):
            return response
        first_hw = self._parkable_high_watermark(response)
        asked = msg.fetch_request_partition(data)
        if first_hw is not None and asked is not None and asked.high_watermark < first_hw:
            first_hw = None   # v18 (KIP-1166): the follower has not heard of this high watermark yet
        deadline = self.time_ms() + data.max_wait_ms
        while first_hw is not None and not self._closed:
            remaining = deadline - self.time_ms()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(asyncio.shield(self._progress), remaining / 1000)
            except asyncio.TimeoutError:
                break
            if self._closed:
                break
            again = self._handle_now(api_key, data)
            if not isinstance(again, FetchResponse):
                break
            response = again
            if self._parkable_high_watermark(response) != first_hw:
                break
        return response

    def _handle_now(self, api_key: ApiKey, data: msg.RaftRequestData) -> msg.RaftResponseData:
        response = self.core.handle_request(-1, api_key, data, self.time_ms())
        self._after_step()
        self._wake.set()
        if isinstance(response, FetchResponse):
            self._add_leader_endpoint(response)
        return response

    # -- dynamic voters (KIP-853) ----------------------------------------------------------

    def _address_of(self, node_id: int) -> tuple[str, int] | None:
        core = self.core
        if node_id == core.node_id:
            return next(((e.host, e.port) for e in core.local_endpoints if e.name == core.listener_name), None)
        voter = core.quorum.voter_set.voters.get(node_id)
        return None if voter is None else voter.address(core.listener_name)

    def _sync_addresses(self) -> None:
        """The channel learns the voters of the log end (a voter added since the start) and
        the voter being added (its ApiVersions)."""
        pending = self.core.pending_voter_change
        if pending is not None and pending.awaiting_api_versions:  # the voter being added
            address = next(((e.host, e.port) for e in pending.endpoints if e.name == self.core.listener_name), None)
            if address is not None:
                self.channel.update_address(pending.voter.id, *address)
        voters = self.core.quorum.voter_set
        if voters is self._synced_voters:
            return
        self._synced_voters = voters
        for node_id in voters.voters:
            address = self._address_of(node_id)
            if address is not None and node_id != self.core.node_id:
                self.channel.update_address(node_id, *address)

    def _add_leader_endpoint(self, response: FetchResponse) -> None:
        """Kafka's Fetch answers name the leader's endpoint (NodeEndpoints), so an observer
        that asked a bootstrap server can reach the leader it is told of."""
        part = msg.fetch_response_partition(response)
        leader_id = -1 if part is None else part.current_leader.leader_id
        address = self._address_of(leader_id) if leader_id >= 0 else None
        if address is not None:
            response.node_endpoints = [FetchResponse.NodeEndpoint(
                node_id=leader_id, host=address[0], port=address[1], rack=None)]

    async def handle_voter_change(self, data: AddRaftVoterRequest | RemoveRaftVoterRequest
                                  ) -> AddRaftVoterResponse | RemoveRaftVoterResponse:
        """AddRaftVoter / RemoveRaftVoter: answered once the VotersRecord commits (or times
        out, or this node stops leading), waiting without holding the loop."""
        now = self.time_ms()
        result: voter_changes.VoterChangeResponse | voter_changes.PendingVoterChange
        if isinstance(data, AddRaftVoterRequest):
            result = voter_changes.handle_add_voter(self.core, data, now)
        else:
            result = voter_changes.handle_remove_voter(self.core, data, now)
        self._after_step()
        self._wake.set()
        if not isinstance(result, voter_changes.PendingVoterChange):
            return result
        while result.response is None and not self._closed:
            remaining = result.deadline_ms - self.time_ms()
            if remaining > 0:
                try:
                    await asyncio.wait_for(asyncio.shield(self._progress), remaining / 1000)
                except asyncio.TimeoutError:
                    pass
            voter_changes.expire(self.core, self.time_ms())
        if result.response is None:
            result.complete(ErrorCode.NOT_LEADER_OR_FOLLOWER)
        assert result.response is not None
        return result.response

    def _parkable_high_watermark(self, response: FetchResponse) -> int | None:
        """The leader's answer brings nothing new (no records, no divergence, no error): the
        high watermark it carries, which a parked fetch waits to see move. None otherwise."""
        if self._closed or response.error_code != 0 or not self.core.is_leader():
            return None
        part = msg.fetch_response_partition(response)
        if part is None or part.error_code != 0 or part.diverging_epoch.epoch >= 0 or part.records:
            return None
        return part.high_watermark
