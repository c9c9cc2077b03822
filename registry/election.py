"""Primary election through Kafka's group protocol, as Confluent's registry does it: every
instance joins the group ``schema-registry`` with protocol type ``sr`` and protocol ``v0``,
its metadata its identity (JSON: version, host, port, scheme, master_eligibility); the group
leader assigns itself primary (another eligible member if it is not eligible) and every
member learns the primary's identity from its SyncGroup assignment (JSON: version, error,
master, master_identity).

Who may call: ``RegistryApp`` (``start``/``stop``); ``rest`` reads ``is_primary`` and
``primary_url`` to serve or forward writes. ``on_primary`` is awaited when this instance
becomes primary, before it accepts a write (the store reads ``_schemas`` to its end there,
so ids continue after every id a former primary had acknowledged).

Why a hand-written member rather than a consumer: a consumer's coordinator speaks only the
``consumer`` protocol type; this one sends JoinGroup/SyncGroup/Heartbeat/LeaveGroup itself
through aiokafka's client, on the caller's loop.
"""
from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from kafpy.replication.tasks import cancel_and_wait

if TYPE_CHECKING:
    from aiokafka.client import AIOKafkaClient
    from aiokafka.protocol.api import Request, Response

log = logging.getLogger("kafka.schemaregistry.leaderelector")

GROUP_ID = "schema-registry"
PROTOCOL_TYPE = "sr"
PROTOCOL = "v0"
NONE, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR = 0, 15, 16
ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS = 22, 25, 27
MEMBER_ID_REQUIRED = 79


@dataclass(frozen=True)
class Identity:
    host: str
    port: int
    scheme: str = "http"
    eligible: bool = True

    def to_json(self) -> dict:
        return {"version": 1, "host": self.host, "port": self.port,
                "master_eligibility": self.eligible, "scheme": self.scheme}

    @classmethod
    def from_json(cls, d: dict) -> "Identity":
        return cls(d["host"], int(d["port"]), d.get("scheme", "http"),
                   bool(d.get("master_eligibility", d.get("leader_eligibility", True))))

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}"


def assign(leader_id: str, members: dict[str, Identity]) -> tuple[str | None, bytes]:
    """The leader's assignment: itself if eligible, else the eligible member first by id."""
    eligible = sorted(m for m, ident in members.items() if ident.eligible)
    primary = leader_id if members.get(leader_id, Identity("", 0, eligible=False)).eligible else (
        eligible[0] if eligible else None)
    body = {"version": 1, "error": 0 if primary else 1, "master": primary,
            "master_identity": members[primary].to_json() if primary else None}
    return primary, json.dumps(body).encode()


class LeaderElector:
    """Keeps this member's id and generation and the primary's identity."""

    def __init__(self, bootstrap: str, identity: Identity, on_primary: Callable[[], Awaitable[None]],
                 session_timeout_ms: int = 10000, heartbeat_interval_ms: int = 1000,
                 client_config: dict | None = None) -> None:
        self.bootstrap = bootstrap
        self.identity = identity
        self.on_primary = on_primary
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.client_config = dict(client_config or {})
        self.member_id = ""
        self.generation = -1
        self.primary: Identity | None = None
        self.is_primary = False
        self._client: AIOKafkaClient | None = None
        self._coordinator: int | None = None
        self._task: asyncio.Task | None = None
        self.ready = asyncio.Event()

    @property
    def primary_url(self) -> str | None:
        return self.primary.url if self.primary is not None else None

    async def start(self) -> None:
        from aiokafka.client import AIOKafkaClient
        self._client = AIOKafkaClient(bootstrap_servers=self.bootstrap, **self.client_config)
        await self._client.bootstrap()
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
        if self._coordinator is not None and self.member_id:
            from aiokafka.protocol.group import LeaveGroupRequest
            try:
                await asyncio.wait_for(self._send(LeaveGroupRequest(GROUP_ID, self.member_id)), 5)
            except Exception:  # noqa: BLE001,S110 - leaving is a courtesy: the session times out anyway
                pass
        if self._client is not None:
            await self._client.close()

    async def _send(self, request: Request) -> Response:
        from aiokafka.client import ConnectionGroup
        assert self._client is not None, "start() made the client"
        return await self._client.send(self._coordinator, request, group=ConnectionGroup.COORDINATION)

    async def _run(self) -> None:
        while True:
            try:
                if self._coordinator is None:
                    from aiokafka.client import CoordinationType
                    assert self._client is not None, "start() made the client before the loop"
                    self._coordinator = await self._client.coordinator_lookup(CoordinationType.GROUP, GROUP_ID)
                await self._join()
                await self._heartbeat_until_rebalance()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - logged; the member rejoins
                log.info("Group %s: %s; rejoining", GROUP_ID, e)
                self._lose_primary()
                self._coordinator = None
                await asyncio.sleep(self.heartbeat_interval_ms / 1000)

    def _lose_primary(self) -> None:
        if self.is_primary:
            log.info("No longer the primary (member %s)", self.member_id)
        self.is_primary = False

    async def _join(self) -> None:
        from aiokafka.protocol.group import JoinGroupRequest, SyncGroupRequest
        while True:
            resp = await self._send(JoinGroupRequest(
                GROUP_ID, self.session_timeout_ms, self.session_timeout_ms, self.member_id, None,
                PROTOCOL_TYPE, [(PROTOCOL, json.dumps(self.identity.to_json()).encode())]))
            if resp.error_code == MEMBER_ID_REQUIRED:
                self.member_id = resp.member_id
                continue
            if resp.error_code in (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION):
                self.member_id = ""
                continue
            if resp.error_code == REBALANCE_IN_PROGRESS:
                continue
            if resp.error_code != NONE:
                raise RuntimeError(f"JoinGroup error {resp.error_code}")
            self.member_id, self.generation = resp.member_id, resp.generation_id
            assignments: list[tuple[str, bytes]] = []
            if resp.leader_id == self.member_id:
                members = {m[0]: Identity.from_json(json.loads(m[-1])) for m in resp.members}
                primary, body = assign(self.member_id, members)
                assignments = [(m, body) for m in members]
            self._lose_primary()
            sync = await self._send(SyncGroupRequest(GROUP_ID, self.generation, self.member_id, None, assignments))
            if sync.error_code == REBALANCE_IN_PROGRESS:
                continue
            if sync.error_code != NONE:
                raise RuntimeError(f"SyncGroup error {sync.error_code}")
            await self._on_assignment(json.loads(sync.member_assignment))
            return

    async def _on_assignment(self, assignment: dict) -> None:
        ident = assignment.get("master_identity")
        self.primary = Identity.from_json(ident) if ident else None
        if assignment.get("master") == self.member_id:
            await self.on_primary()
            self.is_primary = True
            log.info("This instance (%s, member %s) is the primary, generation %d",
                     self.identity.url, self.member_id, self.generation)
        else:
            log.info("The primary is %s (generation %d)", self.primary_url, self.generation)
        self.ready.set()

    async def _heartbeat_until_rebalance(self) -> None:
        from aiokafka.protocol.group import HeartbeatRequest
        while True:
            await asyncio.sleep(self.heartbeat_interval_ms / 1000)
            resp = await self._send(HeartbeatRequest(GROUP_ID, self.generation, self.member_id))
            if resp.error_code == NONE:
                continue
            if resp.error_code in (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION):
                self.member_id = ""
            if resp.error_code in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE):
                self._coordinator = None
                raise RuntimeError(f"coordinator moved (error {resp.error_code})")
            self._lose_primary()
            return
