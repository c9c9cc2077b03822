"""A partition-state write that ZooKeeper applied but whose answer was lost with the connection
(fault seed 12): sent again, it meets the version it made itself and fails on it. The
controller must take that for its own write, not decide again from it (there would be nothing
left to do, and no broker would hear of the new leader epoch)."""
from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from kafpy.replication import zk_data as zd
from kafpy.replication.controller import KafkaController
from kafpy.replication.controller_context import ControllerContext, TopicPartition
from kafpy.replication.leader_and_isr import LeaderAndIsr
from kafpy.replication.zk_ops import UpdateLeaderAndIsrResult

TP = ("t", 0)
EPOCH = 3


class LostAnswerZk:
    """Answers the first write of each partition with a version conflict, as the retry of a
    landed write gets; then ``stored`` is what a read finds, and later writes succeed."""

    def __init__(self, stored: dict[TopicPartition, zd.LeaderIsrAndControllerEpoch]) -> None:
        self.stored = stored
        self.writes: list[dict[TopicPartition, LeaderAndIsr]] = []

    async def update_leader_and_isr(self, states: Mapping[TopicPartition, LeaderAndIsr], controller_epoch: int,
                                    epoch_zk_version: int) -> UpdateLeaderAndIsrResult:
        self.writes.append(dict(states))
        out = UpdateLeaderAndIsrResult()
        for tp, state in states.items():
            if len(self.writes) == 1:
                out.to_retry.append(tp)
            else:
                out.finished[tp] = state.with_partition_epoch(state.partition_epoch + 1)
        return out

    async def get_partition_states(self, partitions: Iterable[TopicPartition]
                                   ) -> dict[TopicPartition, zd.LeaderIsrAndControllerEpoch]:
        return {tp: self.stored[tp] for tp in partitions if tp in self.stored}


def controller(current: LeaderAndIsr, zk: LostAnswerZk) -> KafkaController:
    c = KafkaController.__new__(KafkaController)
    c.broker_id = 0
    c.ctx = ControllerContext(epoch=EPOCH, epoch_zk_version=EPOCH)
    c.ctx.leadership[TP] = zd.LeaderIsrAndControllerEpoch(current, EPOCH)
    c.zk = zk  # type: ignore[assignment]
    return c


def remove_broker_2(tp: TopicPartition, cur: LeaderAndIsr) -> LeaderAndIsr | None:
    """As the controller's ISR removal: nothing to do once 2 is out."""
    if 2 not in cur.isr:
        return None
    return LeaderAndIsr(cur.leader, cur.leader_epoch + 1, tuple(b for b in cur.isr if b != 2),
                        cur.leader_recovery_state, cur.partition_epoch)


def test_a_landed_write_whose_answer_was_lost_counts_as_written() -> None:
    current = LeaderAndIsr(1, 4, (1, 2, 0), partition_epoch=7)
    ours = LeaderAndIsr(1, 5, (1, 0), partition_epoch=8)
    zk = LostAnswerZk({TP: zd.LeaderIsrAndControllerEpoch(ours, EPOCH)})
    c = controller(current, zk)
    written = asyncio.run(c.update_partitions([TP], remove_broker_2))
    assert written == {TP: ours}  # so the caller tells the replicas of leader epoch 5
    assert len(zk.writes) == 1 and c.ctx.leader_and_isr(TP) == ours


def test_another_writers_state_is_decided_again() -> None:
    current = LeaderAndIsr(1, 4, (1, 2, 0), partition_epoch=7)
    theirs = LeaderAndIsr(1, 4, (1, 2), partition_epoch=8)  # the leader's AlterPartition got there first
    zk = LostAnswerZk({TP: zd.LeaderIsrAndControllerEpoch(theirs, EPOCH)})
    c = controller(current, zk)
    written = asyncio.run(c.update_partitions([TP], remove_broker_2))
    assert zk.writes[1] == {TP: LeaderAndIsr(1, 5, (1,), partition_epoch=8)}
    assert written == {TP: LeaderAndIsr(1, 5, (1,), partition_epoch=9)}


def test_the_same_content_from_an_older_controller_or_two_writes_later_is_not_ours() -> None:
    current = LeaderAndIsr(1, 4, (1, 2, 0), partition_epoch=7)
    for found in (zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 5, (1, 0), partition_epoch=8), EPOCH - 1),
                  zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 5, (1, 0), partition_epoch=9), EPOCH)):
        zk = LostAnswerZk({TP: found})
        written = asyncio.run(controller(current, zk).update_partitions([TP], remove_broker_2))
        assert written == {} and len(zk.writes) == 1  # decided again from it: nothing to do
