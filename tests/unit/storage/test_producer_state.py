import os
import struct

import crc32c
import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.records import build_control_batch
from kafpy.storage.errors import InvalidProducerEpochError, OutOfOrderSequenceError
from kafpy.storage.producer_state import ProducerStateManager

from .helpers import FakeClock, batch_of, open_log, reopen

PID = 4000


def idem(seq, n=1, epoch=0, pid=PID, **kw):
    return batch_of(n, producer_id=pid, producer_epoch=epoch, base_sequence=seq, **kw)


def test_sequences_duplicates_and_gaps(tmp_path):
    lg = open_log(tmp_path)
    a = lg.append_as_leader(idem(0, 3), 0)
    b = lg.append_as_leader(idem(3, 2), 0)
    assert (a.first_offset, b.first_offset, b.last_offset) == (0, 3, 4)
    dup = lg.append_as_leader(idem(0, 3), 0)  # retry of the first batch
    assert dup.duplicate and (dup.first_offset, dup.last_offset) == (0, 2)
    assert lg.log_end_offset == 5
    with pytest.raises(OutOfOrderSequenceError) as e:
        lg.append_as_leader(idem(7), 0)
    assert e.value.error_code == 45
    assert lg.append_as_leader(idem(5), 0).first_offset == 5


def test_only_last_five_batches_are_duplicates(tmp_path):
    lg = open_log(tmp_path)
    for s in range(7):
        lg.append_as_leader(idem(s), 0)
    assert lg.append_as_leader(idem(6), 0).duplicate
    assert lg.append_as_leader(idem(2), 0).duplicate
    with pytest.raises(OutOfOrderSequenceError):
        lg.append_as_leader(idem(1), 0)


def test_epochs(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0, epoch=2), 0)
    with pytest.raises(InvalidProducerEpochError) as e:
        lg.append_as_leader(idem(1, epoch=1), 0)
    assert e.value.error_code == 47
    with pytest.raises(OutOfOrderSequenceError):
        lg.append_as_leader(idem(5, epoch=3), 0)  # a new epoch starts at 0
    assert lg.append_as_leader(idem(0, epoch=3), 0).first_offset == 1


def test_unknown_producer_accepts_any_sequence(tmp_path):
    # Kafka accepts any sequence for a producer it has no state for (e.g. after its
    # batches were removed by retention).
    lg = open_log(tmp_path)
    assert lg.append_as_leader(idem(42, pid=77), 0).first_offset == 0
    with pytest.raises(OutOfOrderSequenceError):
        lg.append_as_leader(idem(44, pid=77), 0)


def test_sequence_wraps_at_int32_max(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0x7FFFFFFF - 1, 2), 0)
    assert lg.append_as_leader(idem(0), 0).first_offset == 2


def test_snapshot_format_and_reload(tmp_path):
    lg = open_log(tmp_path, segment_bytes=400)
    for s in range(6):
        lg.append_as_leader(idem(s, size=100), 0)
    snaps = sorted(n for n in os.listdir(lg.dir) if n.endswith(".snapshot"))
    assert snaps and all(len(n) == len("00000000000000000000.snapshot") for n in snaps)
    data = open(os.path.join(lg.dir, snaps[-1]), "rb").read()
    version, crc, count = struct.unpack_from(">hIi", data)
    assert version == 1 and count == 1 and crc == crc32c.crc32c(data[6:])
    pid, epoch, last_seq, last_off, delta, ts, coord, txn = struct.unpack_from(">qhiqiqiq", data, 10)
    assert pid == PID and epoch == 0 and last_seq == last_off
    lg2 = reopen(lg)
    assert lg2.append_as_leader(idem(5, size=100), 0).duplicate
    with pytest.raises(OutOfOrderSequenceError):
        lg2.append_as_leader(idem(9), 0)
    assert lg2.append_as_leader(idem(6), 0).first_offset == 6


def test_state_rebuilt_from_log_without_snapshots(tmp_path):
    lg = open_log(tmp_path)
    for s in range(3):
        lg.append_as_leader(idem(s), 0)
    lg.flush()
    lg2 = reopen(lg, clean=False)
    for n in os.listdir(lg2.dir):
        assert not n.endswith(".snapshot")
    assert lg2.append_as_leader(idem(2), 0).duplicate
    for n in os.listdir(lg.dir):
        if n.endswith(".snapshot"):
            os.unlink(os.path.join(lg.dir, n))
    lg3 = reopen(lg2, clean=False)
    assert lg3.append_as_leader(idem(3), 0).first_offset == 3


def test_corrupt_snapshot_is_deleted_and_state_rebuilt(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0), 0)
    lg.close()
    snap = [n for n in os.listdir(lg.dir) if n.endswith(".snapshot")][-1]
    p = os.path.join(lg.dir, snap)
    raw = bytearray(open(p, "rb").read())
    raw[-1] ^= 1
    open(p, "wb").write(raw)
    from kafpy.storage.log import Log

    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), needs_recovery=False)
    assert not os.path.exists(p)
    assert lg2.append_as_leader(idem(0), 0).duplicate


def test_transactions_and_last_stable_offset(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(batch_of(1), 0)
    lg.append_as_leader(idem(0, 2, transactional=True), 0)  # offsets 1-2, open txn from 1
    lg.update_high_watermark(lg.log_end_offset)
    assert lg.last_stable_offset == 1
    marker = build_control_batch(1, producer_id=PID, producer_epoch=0, coordinator_epoch=3)
    info = lg.append_as_leader(marker, 0, origin="coordinator")
    assert info.first_offset == 3
    lg.update_high_watermark(lg.log_end_offset)
    assert lg.last_stable_offset == 4
    with pytest.raises(Exception):
        lg.append_as_leader(marker, 0)  # clients may not write control batches


def test_a_coordinator_append_after_a_marker_checks_only_the_producer_epoch(tmp_path):
    # TxnOffsetCommit writes the producer's next transaction after a marker that carried a
    # coordinator epoch: only an older producer epoch is refused
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0, 1, epoch=2, transactional=True), 0)
    marker = build_control_batch(0, producer_id=PID, producer_epoch=2, coordinator_epoch=3)
    lg.append_as_leader(marker, 0, origin="coordinator")
    ps = lg.producer_state
    assert ps.epoch_refusal(PID, 2) is None
    assert ps.epoch_refusal(PID + 1, 0) is None
    assert ps.epoch_refusal(PID, 1) == ErrorCode.INVALID_PRODUCER_EPOCH
    assert ps.marker_refusal(PID, 2, 2) == ErrorCode.TRANSACTION_COORDINATOR_FENCED


def test_a_completed_transaction_holds_the_lso_until_its_marker_is_below_the_hw(tmp_path):
    # Kafka's unreplicated transactions: the marker is written, not yet replicated
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0, 2, transactional=True), 0)  # offsets 0-1, open txn from 0
    lg.maybe_increment_high_watermark(2)
    assert lg.last_stable_offset == 0
    marker = build_control_batch(1, producer_id=PID, producer_epoch=0, coordinator_epoch=3)
    assert lg.append_as_leader(marker, 0, origin="coordinator").first_offset == 2
    assert lg.last_stable_offset == 0  # the marker at 2 is not below the HW yet
    assert lg.maybe_increment_high_watermark(3) is True
    assert lg.last_stable_offset == 3


def test_expiration(tmp_path):
    ps = ProducerStateManager(None, producer_id_expiration_ms=1000)
    ps.update((0, 0, 0, 2, 0, 0, 0, 0, 5000, 1, 0, 0, 1), 0, 0, 5000)  # producer 1, epoch 0, seq 0
    ps.remove_expired(5999)
    assert 1 in ps.producers
    ps.remove_expired(6000)
    assert 1 not in ps.producers


def test_aborted_transactions_are_indexed_and_reported(tmp_path):
    lg = open_log(tmp_path, segment_bytes=2000)
    lg.append_as_leader(batch_of(1), 0)                                  # 0
    lg.append_as_leader(idem(0, 2, transactional=True), 0)               # 1-2 (aborted)
    lg.append_as_leader(idem(0, 1, pid=55, transactional=True), 0)       # 3 (committed)
    abort = build_control_batch(0, producer_id=PID, producer_epoch=0, coordinator_epoch=1)
    commit = build_control_batch(1, producer_id=55, producer_epoch=0, coordinator_epoch=1)
    a = lg.append_as_leader(abort, 0, origin="coordinator")              # 4
    lg.append_as_leader(commit, 0, origin="coordinator")                 # 5
    assert a.first_offset == 4
    lg.update_high_watermark(lg.log_end_offset)
    assert lg.last_stable_offset == 6
    res = lg.read(0, 1 << 20, max_offset=lg.last_stable_offset, fetch_aborted=True)
    assert res.aborted_transactions == [(PID, 1)]
    assert lg.read(5, 1 << 20, fetch_aborted=True).aborted_transactions == []
    seg = lg.active_segment
    raw = open(seg.txn_index.path, "rb").read()
    assert len(raw) == 34 and struct.unpack(">hqqqq", raw) == (0, PID, 1, 4, 3)
    lg2 = reopen(lg)
    assert lg2.read(0, 1 << 20, fetch_aborted=True).aborted_transactions == [(PID, 1)]
    lg2.truncate_to(4)
    assert lg2.read(0, 1 << 20, fetch_aborted=True).aborted_transactions == []
    assert not os.path.exists(seg.txn_index.path)


def test_a_version_2_marker_must_be_past_an_open_transactions_epoch(tmp_path):
    lg = open_log(tmp_path)
    lg.append_as_leader(idem(0, 1, epoch=4, transactional=True), 0)
    ps = lg.producer_state
    # transaction version 2: the marker of epoch 4's transaction carries epoch 5
    assert ps.marker_refusal(PID, 5, 1, transaction_version=2) is None
    # a marker of the open transaction's own epoch would end a transaction it does not own
    assert ps.marker_refusal(PID, 4, 1, transaction_version=2) == ErrorCode.INVALID_PRODUCER_EPOCH
    assert ps.marker_refusal(PID, 4, 1) is None                  # version 1 markers keep the epoch
    lg.append_as_leader(build_control_batch(1, producer_id=PID, producer_epoch=5, coordinator_epoch=1),
                        0, origin="coordinator")
    # nothing open any more: the same marker again is a retry
    assert ps.marker_refusal(PID, 5, 1, transaction_version=2) is None
    assert ps.marker_refusal(PID, 4, 1, transaction_version=2) == ErrorCode.INVALID_PRODUCER_EPOCH
