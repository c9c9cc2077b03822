"""The checker's judgement of an idempotent producer's copies, per producer id and epoch,
on hand-made histories (no brokers, no sockets)."""
from __future__ import annotations

from tests.faults.checker import check, sequence_problems


def final(partition: int, values: list[str]) -> dict:
    return {"t": 9.0, "kind": "final", "partition": partition, "end": len(values),
            "records": [[off, v] for off, v in enumerate(values)]}


def batches(partition: int, ranges: list[list[int]], log_end: int) -> dict:
    return {"t": 9.5, "kind": "batches", "partition": partition, "broker": 1, "log_end": log_end,
            "ranges": ranges}


# ck-idem sent :0..:2 under epoch 0, bumped its epoch and re-sent :1 and :2 from sequence 0
# (librdkafka after KIP-360), then went on with :3.
RESENT = ["ck-idem:0", "ck-idem:1", "ck-idem:2", "ck-idem:1", "ck-idem:2", "ck-idem:3"]
ACROSS_EPOCHS = [[1000, 0, 0, 0, 2], [1000, 1, 0, 3, 5]]


def test_copies_under_another_epoch_are_counted_not_violations():
    v = check([final(0, RESENT), batches(0, ACROSS_EPOCHS, 6)])
    assert v.ok, v.violations
    assert (v.duplicates, v.duplicates_across_epochs) == (0, 2)
    assert len(v.notes) == 2 and "epoch 1" in v.notes[0]


def test_copies_under_another_producer_id_are_counted_not_violations():
    v = check([final(0, RESENT), batches(0, [[1000, 0, 0, 0, 2], [1001, 0, 0, 3, 5]], 6)])
    assert v.ok, v.violations
    assert (v.duplicates, v.duplicates_across_epochs) == (0, 2)


def test_copies_under_one_epoch_are_violations():
    # the broker wrote sequences 1 and 2 again under the same epoch: two batches, the second
    # one repeating sequences (it should have answered DUPLICATE_SEQUENCE_NUMBER)
    v = check([final(0, RESENT), batches(0, [[1000, 0, 0, 0, 2], [1000, 0, 1, 3, 4],
                                              [1000, 0, 3, 5, 5]], 6)])
    assert (v.duplicates, v.duplicates_across_epochs) == (2, 0)
    assert any("wrote 'ck-idem:1' 2 times" in x and "epoch 0" in x for x in v.violations)
    assert any("repeats after sequence 2" in x for x in v.violations)
    assert any("(order)" in x for x in v.violations)


def test_without_batch_headers_every_copy_is_a_violation():
    v = check([final(0, RESENT)])
    assert (v.duplicates, v.duplicates_across_epochs) == (2, 0)
    assert sum("2 times" in x for x in v.violations) == 2
    assert any("'ck-idem:1' at 3 after ck-idem:2 at 2 (order)" in x for x in v.violations)


def test_copies_past_the_replica_read_are_judged_strictly():
    # the replica whose headers were read ends at offset 3: the later copies are unattributed
    v = check([final(0, RESENT), batches(0, [[1000, 0, 0, 0, 2]], 3)])
    assert v.duplicates == 2 and not v.ok


def test_order_is_judged_per_epoch():
    values = ["kp-idem:5", "kp-idem:4", "kp-idem:6"]
    ok = check([final(0, values), batches(0, [[7, 0, 0, 0, 0], [7, 1, 0, 1, 2]], 3)])
    assert ok.ok, ok.violations
    bad = check([final(0, values), batches(0, [[7, 0, 0, 0, 2]], 3)])
    assert any("'kp-idem:4' at 1 after kp-idem:5 at 0 (producer id 7 epoch 0) (order)" in x
               for x in bad.violations)


def test_an_idempotent_record_outside_idempotent_batches_is_a_violation():
    v = check([final(0, ["kp-idem:0", "ck-all:0"]), batches(0, [[7, 0, 0, 1, 1]], 2)])
    assert any("'kp-idem:0' at 0 is in no idempotent batch of broker 1" in x for x in v.violations)


def test_plain_producers_may_duplicate_whatever_the_headers_say():
    v = check([final(0, ["ck-all:0", "ck-all:0"]), batches(0, [], 2)])
    assert v.ok and v.duplicates_plain == 1


def test_sequences_continue_within_an_epoch():
    assert sequence_problems(0, [[7, 0, 0, 0, 4], [9, 0, 0, 5, 5], [7, 0, 5, 6, 6]]) == []
    gap = sequence_problems(0, [[7, 0, 0, 0, 4], [7, 0, 7, 6, 6]])
    assert gap == ["partition 0: producer id 7 epoch 0 sequence 7 at offset 6 skips after "
                   "sequence 4 (OUT_OF_ORDER_SEQUENCE expected)"]
    assert sequence_problems(0, [[7, 0, 2147483646, 0, 1], [7, 0, 0, 2, 2]]) == []  # wraps


def test_epochs_only_go_forward_and_start_at_sequence_zero():
    assert sequence_problems(0, [[7, 0, 0, 0, 4], [7, 1, 0, 5, 9]]) == []
    assert sequence_problems(0, [[7, 3, 12, 0, 4]]) == []  # the first this log has of the id
    late = sequence_problems(0, [[7, 0, 0, 0, 4], [7, 1, 3, 5, 9]])
    assert len(late) == 1 and "a new epoch not from sequence 0" in late[0]
    back = sequence_problems(0, [[7, 1, 0, 0, 4], [7, 0, 5, 5, 9]])
    assert len(back) == 1 and "after epoch 1 (INVALID_PRODUCER_EPOCH expected)" in back[0]


def test_a_same_epoch_copy_is_told_after_many_allowed_ones():
    values = [f"ck-idem:{n}" for n in range(5)] * 2 + ["ck-idem:9", "ck-idem:9"]
    ranges = [[1000, 0, 0, 0, 4], [1000, 1, 0, 5, 9], [1000, 1, 5, 10, 10], [1000, 1, 5, 11, 11]]
    v = check([final(0, values), batches(0, ranges, 12)])
    assert (v.duplicates, v.duplicates_across_epochs) == (1, 5)
    assert len(v.notes) == 3
    assert any("wrote 'ck-idem:9' 2 times" in x for x in v.violations)
