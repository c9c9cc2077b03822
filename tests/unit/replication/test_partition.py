"""Partition over a real storage Log in a temp dir, with an injected clock: the high
watermark rules, ISR arithmetic, appends and the epoch rules of make_leader/make_follower."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import build_batch
from kafpy.storage import LogConfig
from kafpy.storage.log import Log

from kafpy.replication.partition import Partition, PartitionError, PartitionState, Replica, Role

ME, F1, F2 = 0, 1, 2


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Listener:
    def __init__(self) -> None:
        self.hw_moves = 0
        self.appends = 0

    def on_records_appended(self, partition) -> None:
        self.appends += 1

    def on_high_watermark_moved(self, partition) -> None:
        self.hw_moves += 1


def batch(n: int = 1) -> bytes:
    return build_batch([(None, b"v%d" % i) for i in range(n)])


def state(leader=ME, epoch=0, replicas=(ME,), isr=None, pe=0) -> PartitionState:
    return PartitionState("t", 0, b"\x01" * 16, leader, epoch, pe, tuple(replicas),
                          tuple(replicas if isr is None else isr))


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def make(tmp_path, clock):
    logs = []

    def factory(min_isr: int = 1) -> tuple[Partition, Listener]:
        lg = Log(str(tmp_path / f"t-{len(logs)}"), LogConfig(), clock=clock)
        logs.append(lg)
        listener = Listener()
        return Partition("t", 0, b"\x01" * 16, lg, False, ME, clock, min_isr, 30000, listener), listener
    yield factory
    for lg in logs:
        lg.close()


def test_standalone_leader_hw_follows_appends(make):
    p, listener = make()
    assert p.make_leader(state())
    info = p.append_records_to_leader(batch(3), required_acks=-1)
    assert (info.first_offset, info.last_offset) == (0, 2)
    # the HW moved, and that one call wakes waiting fetches too (no separate append call)
    assert p.high_watermark == 3 and listener.hw_moves == 1 and listener.appends == 0
    assert p.check_enough_replicas_reach_offset(3) == ErrorCode.NONE


def test_make_leader_records_epoch_and_keeps_hw(make):
    p, _ = make()
    p.make_leader(state(replicas=(ME, F1), isr=(ME, F1)))
    p.append_records_to_leader(batch(2))
    assert p.high_watermark == 0  # F1 has not fetched yet
    assert p.make_leader(state(epoch=3, replicas=(ME, F1), isr=(ME, F1)))
    assert p.leader_epoch == 3 and p.leader_epoch_start_offset == 2
    assert p.log.leader_epoch_cache.entries()[-1] == (3, 2)
    assert p.high_watermark == 0  # never HW := LEO
    assert p.remote_replicas[F1].log_end_offset == -1  # follower state reset


def test_epoch_rules(make):
    p, _ = make()
    assert p.make_leader(state(epoch=2))
    assert not p.make_leader(state(epoch=2))  # equal epoch: ignored
    assert not p.make_follower(state(leader=F1, epoch=1, replicas=(ME, F1)))  # older: ignored
    assert p.role is Role.LEADER
    assert p.make_follower(state(leader=F1, epoch=3, replicas=(ME, F1)))
    assert p.role is Role.FOLLOWER and p.leader_id == F1 and p.isr == () and p.remote_replicas == {}


def test_hw_is_min_leo_over_isr_and_never_backwards(make, clock):
    p, listener = make()
    p.make_leader(state(replicas=(ME, F1, F2), isr=(ME, F1, F2)))
    p.append_records_to_leader(batch(10))
    now = int(clock() * 1000)
    assert p.update_follower_fetch_state(F1, 6, now)
    assert p.high_watermark == 0  # F2 unknown
    assert p.update_follower_fetch_state(F2, 4, now)
    assert p.high_watermark == 4
    p.update_follower_fetch_state(F1, 10, now)
    assert p.high_watermark == 4
    p.update_follower_fetch_state(F2, 8, now)
    assert p.high_watermark == 8
    # a follower that goes back (truncation) never pulls the HW backwards
    p.update_follower_fetch_state(F2, 2, now)
    assert p.high_watermark == 8
    assert not p.maybe_increment_leader_hw(now)


def test_hw_frozen_while_isr_below_min_isr(make, clock):
    p, _ = make(min_isr=2)
    p.make_leader(state(replicas=(ME, F1, F2), isr=(ME,)))
    p.append_records_to_leader(batch(5))
    now = int(clock() * 1000)
    p.update_follower_fetch_state(F1, 5, now)
    p.update_follower_fetch_state(F2, 5, now)
    assert p.high_watermark == 0  # ISR [me] < min ISR 2
    p.make_leader(state(epoch=1, replicas=(ME, F1, F2), isr=(ME, F1)))
    p.update_follower_fetch_state(F1, 5, now)
    assert p.high_watermark == 5


def test_not_enough_replicas_up_front_and_after_append(make, clock):
    p, _ = make(min_isr=2)
    p.make_leader(state(replicas=(ME, F1), isr=(ME,)))
    with pytest.raises(PartitionError) as e:
        p.append_records_to_leader(batch(), required_acks=-1)
    assert e.value.error_code == ErrorCode.NOT_ENOUGH_REPLICAS and p.log.log_end_offset == 0
    p.append_records_to_leader(batch(), required_acks=1)  # acks=1 does not care
    assert p.log.log_end_offset == 1
    # ISR shrank after the append: the data is in, the producer hears AFTER_APPEND
    p2, _ = make(min_isr=2)
    p2.make_leader(state(replicas=(ME, F1), isr=(ME, F1)))
    p2.append_records_to_leader(batch(), required_acks=-1)
    p2.update_follower_fetch_state(F1, 1, int(clock() * 1000))
    assert p2.high_watermark == 1
    p2.isr = (ME,)
    assert p2.check_enough_replicas_reach_offset(1) == ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND


def test_effective_min_isr_is_capped_by_replication_factor(make):
    p, _ = make(min_isr=3)
    p.make_leader(state())  # one replica
    assert p.effective_min_isr == 1
    p.append_records_to_leader(batch(), required_acks=-1)
    assert p.high_watermark == 1


def test_follower_and_stopped_refuse_appends(make):
    p, _ = make()
    p.make_follower(state(leader=F1, replicas=(ME, F1)))
    with pytest.raises(PartitionError) as e:
        p.append_records_to_leader(batch())
    assert e.value.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert p.check_enough_replicas_reach_offset(0) == ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert not p.update_follower_fetch_state(F1, 0, 0)
    q, _ = make()
    q.make_leader(state())
    q.stop()
    assert q.check_enough_replicas_reach_offset(0) == ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_caught_up_rules(make, clock):
    p, _ = make()
    p.make_leader(state(replicas=(ME, F1), isr=(ME, F1)))
    t0 = int(clock() * 1000)
    p.append_records_to_leader(batch(4))
    p.update_follower_fetch_state(F1, 4, t0)  # at the LEO: caught up now
    rep = p.remote_replicas[F1]
    assert rep.last_caught_up_time_ms == t0
    p.append_records_to_leader(batch(2))  # LEO 6
    # fetching from the LEO of the previous fetch: caught up as of that fetch
    p.update_follower_fetch_state(F1, 4, t0 + 10_000)
    assert rep.last_caught_up_time_ms == t0
    assert p.is_caught_up(rep, t0 + 30_000)
    assert not p.is_caught_up(rep, t0 + 30_001)
    assert p.out_of_sync_replicas(t0 + 30_001) == [F1]
    p.update_follower_fetch_state(F1, 6, t0 + 30_001)
    assert p.out_of_sync_replicas(t0 + 30_001) == []


def test_replica_reset():
    r = Replica(1, log_end_offset=5, last_caught_up_time_ms=9)
    r.reset(in_isr=True, now_ms=100)
    assert (r.log_end_offset, r.last_caught_up_time_ms) == (-1, 100)
    r.reset(in_isr=False, now_ms=200)
    assert r.last_caught_up_time_ms == 0


def test_epoch_bump_keeps_the_followers_log_end_offsets(make, clock):
    """Issue 22, defect 5: the controller takes a dead follower out of the ISR with a new
    leader epoch, same leader. The leader keeps the other follower's position, so the high
    watermark (and acks=all) moves at once instead of waiting for that follower's next fetch."""
    p, _ = make()
    p.make_leader(state(replicas=(ME, F1, F2), isr=(ME, F1, F2)))
    now = int(clock() * 1000)
    p.append_records_to_leader(batch(5))
    p.update_follower_fetch_state(F1, 5, now)
    p.update_follower_fetch_state(F2, 5, now)
    assert p.high_watermark == 5
    p.append_records_to_leader(batch(5))  # LEO 10; F2 dies before fetching it
    p.update_follower_fetch_state(F1, 10, now)
    assert p.high_watermark == 5 and p.check_enough_replicas_reach_offset(10) is None
    clock.t += 1
    assert p.make_leader(state(epoch=1, replicas=(ME, F1, F2), isr=(ME, F1), pe=1))
    assert p.remote_replicas[F1].log_end_offset == 10
    assert p.high_watermark == 10
    assert p.check_enough_replicas_reach_offset(10) == ErrorCode.NONE
    # F2, out of the ISR, is known where it was but not counted as caught up
    assert p.remote_replicas[F2].log_end_offset == 5
    assert p.remote_replicas[F2].last_caught_up_time_ms == 0


def test_a_new_leader_knows_nothing_of_its_followers(make, clock):
    p, _ = make()
    p.make_leader(state(replicas=(ME, F1), isr=(ME, F1)))
    p.append_records_to_leader(batch(3))
    p.update_follower_fetch_state(F1, 3, int(clock() * 1000))
    assert p.make_follower(state(leader=F1, epoch=1, replicas=(ME, F1), isr=(ME, F1)))
    assert p.make_leader(state(epoch=2, replicas=(ME, F1), isr=(ME, F1)))
    assert p.remote_replicas[F1].log_end_offset == -1


def test_replica_reset_for_a_reelected_leader():
    r = Replica(1, log_end_offset=5, last_caught_up_time_ms=9, last_fetch_leader_log_end_offset=4,
                last_fetch_time_ms=8)
    r.reset(in_isr=True, now_ms=100, is_new_leader=False, leader_end_offset=7)
    assert (r.log_end_offset, r.last_caught_up_time_ms, r.last_fetch_leader_log_end_offset,
            r.last_fetch_time_ms) == (5, 100, 7, 100)
    r.reset(in_isr=False, now_ms=200, is_new_leader=False, leader_end_offset=7)
    assert (r.log_end_offset, r.last_caught_up_time_ms, r.last_fetch_time_ms) == (5, 0, 0)


def test_kraft_isr_change_without_a_new_leader_epoch_is_taken_from_the_metadata(make, clock):
    """KRaft: the controller took a fenced follower out of the ISR without bumping the leader
    epoch; the leader takes the ISR and partition epoch and keeps its followers' state."""
    p, _ = make()
    assert p.make_leader(state(replicas=(ME, F1, F2), pe=0))
    p.append_records_to_leader(batch(2), required_acks=-1)
    clock.t += 40  # F2 fetched nothing for longer than replica.lag.time.max.ms
    p.update_follower_fetch_state(F1, 2, int(clock.t * 1000))
    assert p.log.high_watermark == 0  # F2 is still in the ISR
    assert not p.make_leader(state(replicas=(ME, F1, F2), isr=(ME, F1), pe=1))  # same leader epoch
    p.update_assignment_and_isr(state(replicas=(ME, F1, F2), isr=(ME, F1), pe=1))
    assert (p.isr, p.partition_epoch, p.leader_epoch) == ((ME, F1), 1, 0)
    assert p.remote_replicas[F1].log_end_offset == 2
    assert p.log.high_watermark == 2  # F2 no longer holds it back
