"""A leader's ISR decisions over a real storage Log with an injected clock: expansion once a
follower reaches the HW and the leader epoch start (KAFKA-7128), the periodic shrink, one
change in flight with its maximal ISR counted by the HW, and the controller's answers."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import build_batch
from kafpy.storage import LogConfig
from kafpy.storage.log import Log

from kafpy.replication.partition import Partition, PartitionState, PendingIsrChange

ME, F1, F2 = 0, 1, 2
LAG_MS = 10000


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def ms(self) -> int:
        return int(self.t * 1000)


def batch(n: int = 1) -> bytes:
    return build_batch([(None, b"v%d" % i) for i in range(n)])


def state(epoch=0, isr=(ME, F1, F2), pe=0) -> PartitionState:
    return PartitionState("t", 0, b"\x01" * 16, ME, epoch, pe, (ME, F1, F2), tuple(isr))


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def leader(tmp_path, clock):
    """(partition, proposals sent, alive brokers) for a leader of replicas 0,1,2, min ISR 2."""
    lg = Log(str(tmp_path / "t-0"), LogConfig(), clock=clock)
    sent: list[PendingIsrChange] = []
    alive = {ME, F1, F2}
    part = Partition("t", 0, b"\x01" * 16, lg, False, ME, clock, 2, LAG_MS,
                     alter_isr=lambda p, pending: sent.append(pending), is_broker_alive=alive.__contains__)
    yield part, sent, alive
    lg.close()


def test_out_of_sync_follower_is_shrunk_after_the_lag_time(leader, clock):
    part, sent, _ = leader
    part.make_leader(state())
    part.append_records_to_leader(batch(3))
    part.update_follower_fetch_state(F1, 3, clock.ms())
    part.update_follower_fetch_state(F2, 0, clock.ms())
    assert not part.maybe_shrink_isr(clock.ms())  # F2 counts as caught up for the lag time after becoming leader
    clock.t += LAG_MS / 1000 + 1
    part.update_follower_fetch_state(F1, 3, clock.ms())
    assert part.maybe_shrink_isr(clock.ms())
    assert sent == [PendingIsrChange((ME, F1), (ME, F1, F2), 0, 0)]
    # the shrink keeps the old ISR as maximal: F2's log end still holds the HW back
    assert part.high_watermark == 0
    assert not part.maybe_shrink_isr(clock.ms())  # one change in flight
    assert part.on_alter_partition_result(sent[0], ErrorCode.NONE, (ME, F1), 0, 1) is False
    assert part.isr == (ME, F1) and part.partition_epoch == 1 and part.pending_isr is None
    assert part.high_watermark == 3


def test_expansion_waits_for_hw_and_leader_epoch_start(leader, clock):
    part, sent, _ = leader
    part.make_leader(state(isr=(ME, F1)))
    part.append_records_to_leader(batch(4))
    part.update_follower_fetch_state(F1, 4, clock.ms())
    assert part.high_watermark == 4
    part.update_follower_fetch_state(F2, 2, clock.ms())
    assert sent == []  # below the HW
    part.update_follower_fetch_state(F2, 4, clock.ms())
    assert sent == [PendingIsrChange((ME, F1, F2), (ME, F1, F2), 0, 0)]
    # expansion counts the new member at once; answered, the ISR is committed
    assert part.maximal_isr == (ME, F1, F2)
    part.on_alter_partition_result(sent[0], ErrorCode.NONE, (ME, F1, F2), 0, 1)
    assert part.isr == (ME, F1, F2)


def test_follower_behind_the_epoch_start_does_not_join(leader, clock):
    part, sent, _ = leader
    part.make_leader(state(isr=(ME,)))
    part.append_records_to_leader(batch(5))  # HW frozen below min ISR: HW 0, epoch start 0
    part.make_leader(state(epoch=1, isr=(ME,)))  # the new epoch starts at offset 5
    assert part.leader_epoch_start_offset == 5 and part.high_watermark == 0
    part.update_follower_fetch_state(F1, 3, clock.ms())
    assert sent == []  # at or past the HW, but not at the epoch start (KAFKA-7128)
    part.update_follower_fetch_state(F1, 5, clock.ms())
    assert sent and sent[0].new_isr == (ME, F1)


def test_dead_broker_does_not_join(leader, clock):
    part, sent, alive = leader
    alive.discard(F2)
    part.make_leader(state(isr=(ME, F1)))
    part.update_follower_fetch_state(F2, 0, clock.ms())
    assert sent == []


def test_controller_answers(leader, clock):
    part, sent, _ = leader
    part.make_leader(state(isr=(ME, F1)))
    part.update_follower_fetch_state(F2, 0, clock.ms())
    pending = sent[-1]
    # an unexpected error: send again, still pending
    assert part.on_alter_partition_result(pending, ErrorCode.REQUEST_TIMED_OUT) is True
    assert part.pending_isr is pending
    # a fenced epoch or a stale partition epoch: wait for LeaderAndIsr, nothing else is sent
    for code in (ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.INVALID_UPDATE_VERSION):
        assert part.on_alter_partition_result(pending, code) is False
        assert part.pending_isr is pending
    part.update_follower_fetch_state(F2, 0, clock.ms())
    assert len(sent) == 1
    # a new leader epoch clears it; an answer to the old change is then ignored
    part.make_leader(state(epoch=1, isr=(ME, F1), pe=1))
    assert part.pending_isr is None
    assert part.on_alter_partition_result(pending, ErrorCode.NONE, (ME, F1, F2), 0, 2) is False
    assert part.isr == (ME, F1)
    # a rejected change goes back to the committed ISR and may be proposed again
    part.update_follower_fetch_state(F2, 0, clock.ms())
    again = sent[-1]
    assert again.leader_epoch == 1 and again.partition_epoch == 1
    assert part.on_alter_partition_result(again, ErrorCode.INELIGIBLE_REPLICA) is False
    assert part.pending_isr is None and part.isr == (ME, F1)


def test_acks_all_needs_min_isr(leader, clock):
    part, sent, _ = leader
    part.make_leader(state(isr=(ME,)))
    with pytest.raises(Exception) as e:
        part.append_records_to_leader(batch(), required_acks=-1)
    assert e.value.error_code == ErrorCode.NOT_ENOUGH_REPLICAS
    part.make_leader(state(epoch=1, isr=(ME, F1)))
    info = part.append_records_to_leader(batch(), required_acks=-1)
    assert part.check_enough_replicas_reach_offset(info.last_offset + 1) is None
    part.update_follower_fetch_state(F1, 1, clock.ms())
    assert part.check_enough_replicas_reach_offset(info.last_offset + 1) == ErrorCode.NONE
