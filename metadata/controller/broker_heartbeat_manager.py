"""Broker sessions and the broker lifecycle state machine, as Kafka's ``BrokerHeartbeatManager``.

Soft state, never replicated: the last heartbeat of each broker, the metadata offset it
reported, whether the controller considers it fenced, and the offset its controlled shutdown
completes at. Who calls it: ``ClusterControlManager`` (sessions, registration) and
``ReplicationControlManager`` (each heartbeat; fencing brokers whose session expired after
``broker.session.timeout.ms``). The clock (milliseconds) is passed in by the caller."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from kafpy.protocol.messages import BrokerHeartbeatRequest

log = logging.getLogger(__name__)

MAX_OFFSET = 2**63 - 1


class BrokerControlState(Enum):
    """Kafka's ``BrokerControlState``: (fenced, in controlled shutdown, should shut down)."""

    FENCED = (True, False, False)
    UNFENCED = (False, False, False)
    CONTROLLED_SHUTDOWN = (False, True, False)
    SHUTDOWN_NOW = (True, False, True)

    @property
    def fenced(self) -> bool:
        return self.value[0]

    @property
    def in_controlled_shutdown(self) -> bool:
        return self.value[1]

    @property
    def should_shut_down(self) -> bool:
        return self.value[2]


@dataclass
class BrokerHeartbeatState:
    """One broker's session: last contact, reported metadata offset, fenced in the
    controller's view, and the controlled shutdown offset (-1 when not shutting down)."""

    id: int
    last_contact_ms: int
    metadata_offset: int = -1
    fenced: bool = True
    controlled_shutdown_offset: int = -1

    def shutting_down(self) -> bool:
        return self.controlled_shutdown_offset >= 0


class BrokerHeartbeatManager:
    """Sessions of the registered brokers (a broker gets one when it registers)."""

    def __init__(self, session_timeout_ms: int) -> None:
        self.session_timeout_ms = session_timeout_ms
        self.brokers: dict[int, BrokerHeartbeatState] = {}

    def register(self, broker_id: int, fenced: bool, now_ms: int) -> None:
        """A broker registered: a fresh session unless it already has one."""
        state = self.brokers.get(broker_id)
        if state is None:
            self.brokers[broker_id] = BrokerHeartbeatState(broker_id, now_ms, fenced=fenced)

    def remove(self, broker_id: int) -> None:
        self.brokers.pop(broker_id, None)

    def touch(self, broker_id: int, fenced: bool, metadata_offset: int, now_ms: int) -> None:
        state = self.brokers.setdefault(broker_id, BrokerHeartbeatState(broker_id, now_ms))
        state.last_contact_ms = now_ms
        state.fenced = fenced
        state.metadata_offset = metadata_offset
        if fenced:
            state.controlled_shutdown_offset = -1

    def fence(self, broker_id: int) -> None:
        state = self.brokers.get(broker_id)
        if state is not None:
            state.fenced = True
            state.controlled_shutdown_offset = -1

    def maybe_update_controlled_shutdown_offset(self, broker_id: int, offset: int) -> None:
        """Enter controlled shutdown, completing at ``offset`` (kept if already in it)."""
        state = self.brokers.get(broker_id)
        if state is not None and not state.fenced and state.controlled_shutdown_offset < 0:
            state.controlled_shutdown_offset = offset

    def has_valid_session(self, broker_id: int, now_ms: int) -> bool:
        state = self.brokers.get(broker_id)
        if state is None or state.fenced:
            return False
        return state.last_contact_ms + self.session_timeout_ms >= now_ms

    def find_one_stale_broker(self, now_ms: int) -> int | None:
        """An unfenced broker whose session expired (the one heard from longest ago)."""
        stale = [s for s in self.brokers.values()
                 if not s.fenced and s.last_contact_ms + self.session_timeout_ms < now_ms]
        if not stale:
            return None
        return min(stale, key=lambda s: (s.last_contact_ms, s.id)).id

    def lowest_active_offset(self) -> int:
        """The lowest metadata offset an unfenced broker not shutting down has reported."""
        offsets = [s.metadata_offset for s in self.brokers.values()
                   if not s.fenced and not s.shutting_down()]
        return min(offsets) if offsets else MAX_OFFSET

    def current_state(self, broker_id: int) -> BrokerControlState:
        state = self.brokers[broker_id]
        if state.shutting_down():
            return BrokerControlState.CONTROLLED_SHUTDOWN
        return BrokerControlState.FENCED if state.fenced else BrokerControlState.UNFENCED

    def calculate_next_broker_state(
            self, broker_id: int, request: BrokerHeartbeatRequest,
            register_broker_record_offset: int,
            has_leaderships: Callable[[], bool]) -> tuple[BrokerControlState, BrokerControlState]:
        """(current, next) state of the broker after this heartbeat (Kafka's rules)."""
        state = self.brokers[broker_id]
        current = self.current_state(broker_id)
        S = BrokerControlState
        if current == S.FENCED:
            if request.want_shut_down:
                log.info("Fenced broker %d has requested and been granted an immediate shutdown.",
                         broker_id)
                return current, S.SHUTDOWN_NOW
            if not request.want_fence and request.current_metadata_offset >= register_broker_record_offset:
                log.info("The request from broker %d to unfence has been granted because it has "
                         "caught up with the offset of its register broker record %d.",
                         broker_id, register_broker_record_offset)
                return current, S.UNFENCED
            return current, S.FENCED
        if current == S.UNFENCED:
            if request.want_fence:
                return current, S.SHUTDOWN_NOW if request.want_shut_down else S.FENCED
            if request.want_shut_down:
                if has_leaderships():
                    log.info("Unfenced broker %d has requested and been granted a controlled "
                             "shutdown.", broker_id)
                    return current, S.CONTROLLED_SHUTDOWN
                return current, S.SHUTDOWN_NOW
            return current, S.UNFENCED
        # in controlled shutdown
        if has_leaderships():
            return current, S.CONTROLLED_SHUTDOWN
        if state.controlled_shutdown_offset <= self.lowest_active_offset():
            log.info("The request from broker %d to shut down has been granted since the lowest "
                     "active offset %d is now greater than the broker's controlled shutdown "
                     "offset %d.", broker_id, self.lowest_active_offset(),
                     state.controlled_shutdown_offset)
            return current, S.SHUTDOWN_NOW
        return current, S.CONTROLLED_SHUTDOWN
