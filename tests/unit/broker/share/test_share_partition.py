"""SharePartition as a state machine: acquisition, acknowledgement, locks, delivery limit,
the start offset, in-flight limit and acquire modes (clock passed in)."""
from kafpy.broker.share.share_partition import (AckBatch, AcquireMode, AcquiredRange, RecordState,
                                                SharePartition, SharePartitionConfig)
from kafpy.coordinator.share_state.persister import StateBatch
from kafpy.protocol.errors import ErrorCode

CFG = SharePartitionConfig(record_lock_duration_ms=1000, delivery_count_limit=3, max_in_flight_records=100)


def sp(**kw) -> SharePartition:
    return SharePartition("g", "t", 0, kw.pop("config", CFG), **kw)


def test_acquire_new_batches_then_nothing_left():
    p = sp()
    got, changed = p.acquire("m1", [(0, 4), (5, 9)], 500, now_ms=0)
    assert got == [AcquiredRange(0, 9, 1)]
    assert p.end_offset == 10 and p.start_offset == 0
    assert p.next_fetch_offset() == 10
    again, _ = p.acquire("m2", [(0, 4), (5, 9)], 500, now_ms=0)
    assert again == []


def test_accept_moves_start_offset():
    p = sp()
    p.acquire("m1", [(0, 9)], 500, now_ms=0)
    err, changed = p.acknowledge("m1", [AckBatch(0, 9, [1])], now_ms=10)
    assert err == ErrorCode.NONE
    assert p.start_offset == 10 and p.runs == []
    assert p.state_batches(changed) == []      # below the new start offset


def test_release_redelivers_with_higher_count():
    p = sp()
    p.acquire("m1", [(0, 9)], 500, now_ms=0)
    err, _ = p.acknowledge("m1", [AckBatch(3, 3, [2])], now_ms=1)
    assert err == ErrorCode.NONE
    assert p.next_fetch_offset() == 3
    got, _ = p.acquire("m2", [(0, 9)], 500, now_ms=2)
    assert got == [AcquiredRange(3, 3, 2)]


def test_reject_never_redelivered_and_per_offset_types():
    p = sp()
    p.acquire("m1", [(0, 4)], 500, now_ms=0)
    err, _ = p.acknowledge("m1", [AckBatch(0, 4, [1, 3, 1, 2, 1])], now_ms=1)
    assert err == ErrorCode.NONE
    assert p.start_offset == 3
    got, _ = p.acquire("m1", [(0, 4)], 500, now_ms=2)
    assert got == [AcquiredRange(3, 3, 2)]


def test_ack_by_other_member_or_twice_is_invalid_record_state():
    p = sp()
    p.acquire("m1", [(0, 9)], 500, now_ms=0)
    assert p.acknowledge("m2", [AckBatch(0, 4, [1])], 1)[0] == ErrorCode.INVALID_RECORD_STATE
    assert p.acknowledge("m1", [AckBatch(5, 9, [1])], 1)[0] == ErrorCode.NONE
    assert p.acknowledge("m1", [AckBatch(5, 9, [1])], 1)[0] == ErrorCode.INVALID_RECORD_STATE


def test_ack_below_the_start_offset_is_skipped_and_a_straddling_one_clipped():
    """Kafka's SharePartition.acknowledge: A's lock on 0-9 ran out, B took and accepted
    0-4 (start offset 5), A takes 5-9 again and acknowledges 0-9: 5-9 are done."""
    p = sp()
    p.acquire("a", [(0, 9)], 500, now_ms=0)
    p.expire_locks(30000)
    p.acquire("b", [(0, 4)], 500, now_ms=30001)
    assert p.acknowledge("b", [AckBatch(0, 4, [1])], 30002)[0] == ErrorCode.NONE
    assert p.start_offset == 5
    got, _ = p.acquire("a", [(0, 9)], 500, now_ms=30003)
    assert got == [AcquiredRange(5, 9, 2)]
    assert p.acknowledge("a", [AckBatch(0, 9, [1])], 30004)[0] == ErrorCode.NONE
    assert p.start_offset == 10 and p.runs == []
    # wholly below: skipped, nothing changes
    assert p.acknowledge("a", [AckBatch(0, 9, [3])], 30005) == (ErrorCode.NONE, [])


def test_per_offset_types_are_clipped_at_the_start_offset():
    p = sp()
    p.acquire("a", [(0, 5)], 500, now_ms=0)
    assert p.acknowledge("a", [AckBatch(0, 1, [1])], 1)[0] == ErrorCode.NONE
    err, _ = p.acknowledge("a", [AckBatch(0, 5, [3, 3, 1, 2, 1, 1])], 2)
    assert err == ErrorCode.NONE
    got, _ = p.acquire("b", [(0, 5)], 500, now_ms=3)
    assert got == [AcquiredRange(3, 3, 2)]      # 0-1 stay accepted, 3 was released


def test_ack_past_the_acquired_records_is_invalid_request():
    p = sp()
    p.acquire("a", [(0, 4)], 500, now_ms=0)
    assert p.acknowledge("a", [AckBatch(0, 5, [1])], 1)[0] == ErrorCode.INVALID_REQUEST
    assert p.acknowledge("a", [AckBatch(7, 9, [1])], 1)[0] == ErrorCode.INVALID_REQUEST
    assert p.acknowledge("a", [AckBatch(0, 4, [1])], 1)[0] == ErrorCode.NONE


def test_gap_acknowledgements_go_through_the_owner_check():
    p = sp()
    p.acquire("a", [(0, 4)], 500, now_ms=0)
    assert p.acknowledge("b", [AckBatch(0, 4, [0])], 1)[0] == ErrorCode.INVALID_RECORD_STATE
    assert p.acknowledge("b", [AckBatch(0, 4, [1, 0, 0, 0, 0])], 1)[0] == \
        ErrorCode.INVALID_RECORD_STATE
    assert p.runs[0].state is RecordState.ACQUIRED and p.runs[0].member_id == "a"
    assert p.acknowledge("a", [AckBatch(0, 4, [0])], 1)[0] == ErrorCode.NONE
    assert p.start_offset == 5


def test_bad_types_are_invalid_request():
    p = sp()
    p.acquire("m1", [(0, 4)], 500, now_ms=0)
    assert p.acknowledge("m1", [AckBatch(0, 4, [1, 1])], 1)[0] == ErrorCode.INVALID_REQUEST
    assert p.acknowledge("m1", [AckBatch(0, 4, [9])], 1)[0] == ErrorCode.INVALID_REQUEST


def test_lock_expiry_releases_and_delivery_limit_archives():
    p = sp()
    for attempt in range(1, 4):
        got, _ = p.acquire("m1", [(0, 1)], 500, now_ms=attempt * 10000)
        assert got == [AcquiredRange(0, 1, attempt)]
        assert p.expire_locks(attempt * 10000 + 999) == []
        assert p.expire_locks(attempt * 10000 + 1000)
    # the third delivery ran out: past the limit of 3, archived, the start offset moves on
    assert p.start_offset == 2
    assert p.acquire("m1", [(0, 1)], 500, now_ms=99999)[0] == []


def test_renew_extends_the_lock():
    p = sp()
    p.acquire("m1", [(0, 0)], 500, now_ms=0)
    assert p.acknowledge("m1", [AckBatch(0, 0, [4])], now_ms=900)[0] == ErrorCode.NONE
    assert p.expire_locks(1500) == []
    assert p.expire_locks(1900)


def test_release_member_on_session_close():
    p = sp()
    p.acquire("m1", [(0, 4)], 500, now_ms=0)
    p.acquire("m2", [(5, 9)], 500, now_ms=0)
    changed = p.release_member("m1")
    assert [(r.first, r.last, r.state) for r in changed] == [(0, 4, RecordState.AVAILABLE)]
    assert p.next_fetch_offset() == 0


def test_in_flight_limit_stops_new_records_but_finishes_a_batch():
    p = sp(config=SharePartitionConfig(1000, 3, max_in_flight_records=8))
    got, _ = p.acquire("m1", [(0, 4), (5, 9), (10, 14)], 500, now_ms=0)
    assert got == [AcquiredRange(0, 9, 1)]
    assert not p.can_acquire()
    p.acknowledge("m1", [AckBatch(0, 9, [1])], 1)
    assert p.can_acquire()


def test_record_limit_mode_splits_a_batch():
    p = sp()
    got, _ = p.acquire("m1", [(0, 9)], 4, now_ms=0, mode=AcquireMode.RECORD_LIMIT)
    assert got == [AcquiredRange(0, 3, 1)]
    assert p.end_offset == 4
    got, _ = p.acquire("m2", [(0, 9)], 4, now_ms=0, mode=AcquireMode.RECORD_LIMIT)
    assert got == [AcquiredRange(4, 7, 1)]


def test_batch_mode_rounds_max_records_up_to_a_batch():
    p = sp()
    got, _ = p.acquire("m1", [(0, 9), (10, 19)], 4, now_ms=0)
    assert got == [AcquiredRange(0, 9, 1)]


def test_skipped_ranges_are_archived_not_delivered():
    p = sp()
    got, _ = p.acquire("m1", [(0, 4), (5, 5), (6, 9)], 500, now_ms=0, archived=[(5, 5)])
    assert got == [AcquiredRange(0, 4, 1), AcquiredRange(6, 9, 1)]
    p.acknowledge("m1", [AckBatch(0, 4, [1])], 1)
    assert p.start_offset == 6


def test_loaded_state_resumes():
    batches = [StateBatch(10, 14, 0, 2), StateBatch(15, 19, 2, 1), StateBatch(20, 24, 4, 5)]
    p = sp(start_offset=10, batches=batches)
    assert p.start_offset == 10 and p.next_fetch_offset() == 10
    got, _ = p.acquire("m1", [(10, 24), (25, 29)], 500, now_ms=0)
    assert got == [AcquiredRange(10, 14, 3), AcquiredRange(25, 29, 1)]
    p.acknowledge("m1", [AckBatch(10, 14, [1])], 1)
    assert p.start_offset == 25


def test_state_batches_write_acquired_as_available():
    p = sp()
    _, changed = p.acquire("m1", [(0, 4)], 500, now_ms=0)
    assert p.state_batches(changed) == [StateBatch(0, 4, 0, 1)]


def test_runs_joined_by_a_change_are_written_once():
    """Releasing two acquired batches joins their runs: the state written covers each
    offset once (no overlapping batches for the persister)."""
    p = sp()
    p.acquire("m1", [(0, 2), (3, 4)], 500, now_ms=0)
    changed = p.release_member("m1")
    assert p.state_batches(changed) == [StateBatch(0, 4, 0, 1)]
    # a change next to an unchanged neighbour writes the joined run
    p.acquire("m1", [(0, 2), (3, 4)], 500, now_ms=0)
    p.acknowledge("m1", [AckBatch(0, 2, [2])], now_ms=1)
    _, changed = p.acknowledge("m1", [AckBatch(3, 4, [2])], now_ms=1)
    assert p.state_batches(changed) == [StateBatch(0, 4, 0, 2)]


def test_overlapping_loaded_batches_are_read_once():
    p = sp(start_offset=0, batches=[StateBatch(0, 4, 0, 1), StateBatch(3, 4, 0, 1)])
    got, _ = p.acquire("m1", [(0, 2), (3, 4)], 500, now_ms=0)
    assert got == [AcquiredRange(0, 4, 2)]


def test_batch_size_splits_acquired_ranges_at_log_batches():
    """ShareFetch's BatchSize as Kafka 4.4 applies it: a new range starts at the first log
    batch at least `batch_size` records past the range's first offset."""
    p = sp()
    got, _ = p.acquire("m1", [(0, 2), (3, 4), (5, 9), (10, 10)], 500, now_ms=0, batch_size=4)
    assert got == [AcquiredRange(0, 4, 1), AcquiredRange(5, 9, 1), AcquiredRange(10, 10, 1)]
    q = sp()
    assert q.acquire("m1", [(0, 2), (3, 4)], 500, now_ms=0, batch_size=0)[0] == [AcquiredRange(0, 4, 1)]
