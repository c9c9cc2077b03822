"""What the ZooKeeper-mode controller's helpers may use of it: the narrow view handed to
``LeaderElections``, ``LogDirEvents``, ``PartitionReassignments`` and
``TopicDeletionManager``, as Kafka hands its TopicDeletionManager and state machines the
context, the event manager and a request batch instead of the whole KafkaController.

``KafkaController`` satisfies ``ControllerOps``; the helpers import this module, never
controller.py, so the arrows run one way (controller -> helpers -> this).

Who may call it: the helpers above, from the controller's event task only. No I/O here.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from kafpy.protocol.errors import ErrorCode

from kafpy.replication.controller_channel import ControllerRequestBatch
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.controller_events import ControllerEvent, ControllerStats
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_client import KafkaZkClient

Decide = Callable[[TopicPartition, LeaderAndIsr], LeaderAndIsr | ErrorCode | None]
"""A partition's next state from its current one: the new state to write, an ErrorCode
to answer for it, or None to leave it as it is."""


class ControllerConfig(Protocol):
    """The broker settings a helper reads (``auto.leader.rebalance.enable``, ...)."""

    def __getitem__(self, key: str) -> Any: ...


class ControllerOps(Protocol):
    """The controller as its helpers see it."""

    ctx: ControllerContext
    zk: KafkaZkClient
    broker_id: int
    loop: asyncio.AbstractEventLoop
    stats: ControllerStats

    @property
    def config(self) -> ControllerConfig:
        """The broker's settings (read only here)."""

    def put(self, event: ControllerEvent) -> None:
        """Queue ``event`` behind the others (dropped once the controller stopped)."""

    def new_batch(self) -> ControllerRequestBatch:
        """An empty batch of LeaderAndIsr / UpdateMetadata / StopReplica requests."""

    def send(self, batch: ControllerRequestBatch) -> None:
        """Send ``batch`` to the brokers (nothing once the controller resigned)."""

    def live_replicas(self, tp: TopicPartition) -> list[int]:
        """The replicas of ``tp`` on live brokers."""

    async def update_partitions(self, tps: Iterable[TopicPartition], decide: Decide
                                ) -> dict[TopicPartition, LeaderAndIsr | ErrorCode]:
        """Write each partition's state ``decide`` picks, fenced by the controller epoch;
        what was written, or the decision's ErrorCode."""

    async def on_replicas_offline(self, batch: ControllerRequestBatch,
                                  dead: dict[TopicPartition, list[int]]) -> None:
        """The OfflineReplica transition of these replicas (leaders elected elsewhere,
        replicas out of the ISR), its requests added to ``batch``."""
