"""The batch scan of a log read: boundaries, byte ranges, control batches and aborted
transactions skipped, a batch cut off by the byte limit left out."""
from kafpy.broker.share.log_batches import scan_batches
from kafpy.protocol.batch_builder import build_batch, build_control_batch
from kafpy.protocol.batch_header import CONTROL_ABORT, CONTROL_COMMIT


def _records(n: int) -> list:
    return [(None, b"x")] * n


def test_boundaries_and_byte_ranges():
    a = build_batch(_records(3), base_offset=0)
    b = build_batch(_records(2), base_offset=3)
    scan = scan_batches(a + b)
    assert scan.batches == [(0, 2), (3, 4)]
    assert scan.positions == [(0, len(a)), (len(a), len(b))]
    assert scan.byte_range(3, 4) == (len(a), len(b))
    assert scan.skipped == []


def test_partial_batch_is_left_out():
    a = build_batch(_records(3), base_offset=0)
    b = build_batch(_records(2), base_offset=3)
    assert scan_batches(a + b[:-5]).batches == [(0, 2)]


def test_aborted_transaction_and_markers_skipped():
    aborted = build_batch(_records(2), base_offset=0, producer_id=7, producer_epoch=0, base_sequence=0,
                          is_transactional=True)
    abort = build_control_batch(CONTROL_ABORT, producer_id=7, producer_epoch=0, base_offset=2)
    committed = build_batch(_records(2), base_offset=3, producer_id=8, producer_epoch=0, base_sequence=0,
                            is_transactional=True)
    commit = build_control_batch(CONTROL_COMMIT, producer_id=8, producer_epoch=0, base_offset=5)
    later = build_batch(_records(1), base_offset=6, producer_id=7, producer_epoch=0, base_sequence=2,
                        is_transactional=True)
    scan = scan_batches(aborted + abort + committed + commit + later, aborted=[(7, 0)])
    assert scan.batches == [(0, 1), (2, 2), (3, 4), (5, 5), (6, 6)]
    # the aborted batch and both markers; producer 7's next transaction is not aborted
    assert scan.skipped == [(0, 1), (2, 2), (5, 5)]
