"""The cleaner's view of transactions, batch by batch (no files)."""
from kafpy.protocol.batch_builder import CONTROL_ABORT, CONTROL_COMMIT
from kafpy.storage.cleaned_transactions import AbortedRanges, CleanedTransactions
from kafpy.storage.txn_index import AbortedTxn

A1 = AbortedTxn(producer_id=6, first_offset=10, last_offset=14, last_stable_offset=10)
A2 = AbortedTxn(producer_id=6, first_offset=30, last_offset=31, last_stable_offset=30)


def test_aborted_ranges_hold_their_producers_batches_up_to_the_marker():
    ranges = AbortedRanges([A2, A1])
    assert [ranges.containing(6, o) for o in (9, 10, 14, 15, 30, 31, 32)] == [None, A1, A1, None, A2, A2, None]
    assert ranges.containing(5, 12) is None and not AbortedRanges([])


def test_an_abort_marker_stays_while_its_data_is_seen_and_goes_with_its_index_entry_after():
    txns = CleanedTransactions(AbortedRanges([A1]))
    assert txns.on_batch(6, 10, True) is True           # aborted: its records go
    assert txns.on_batch(5, 11, True) is False          # another producer's, committed later
    assert txns.on_batch(7, 12, False) is False         # not transactional
    assert txns.on_marker(6, 14, CONTROL_ABORT) is False
    assert txns.index_entries == [A1]
    later = CleanedTransactions(AbortedRanges([A1]))    # the next pass: no batch of it left
    assert later.on_marker(6, 14, CONTROL_ABORT) is True and later.index_entries == []


def test_a_commit_marker_goes_once_no_batch_of_its_transaction_is_left():
    txns = CleanedTransactions(AbortedRanges([]))
    txns.on_batch(5, 0, True)
    assert txns.on_marker(5, 3, CONTROL_COMMIT) is False
    assert txns.on_marker(5, 9, CONTROL_COMMIT) is True   # the second transaction's data is gone
    assert txns.on_marker(5, 9, 7) is False               # an unknown control type is kept
