"""Consumer lag: the partition's high watermark minus the group's committed offset, for
partitions this broker has a replica of."""
from types import SimpleNamespace as NS

from kafpy.metrics.lag import consumer_lag


def _group(offsets: dict) -> NS:
    return NS(offsets={tp: NS(offset=o) for tp, o in offsets.items()})


def test_lag_is_end_minus_committed_and_unknown_partitions_are_left_out():
    groups = {"g": _group({("t", 0): 5, ("t", 1): 10, ("other", 0): 1})}
    ends = {("t", 0): 12, ("t", 1): 10}
    rows = {(r.topic, r.partition): r.lag for r in consumer_lag(groups, lambda t, p: ends.get((t, p)))}
    assert rows == {("t", 0): 7, ("t", 1): 0}


def test_a_committed_offset_past_the_end_is_no_lag():
    groups = {"g": _group({("t", 0): 15})}
    [row] = consumer_lag(groups, lambda t, p: 12)
    assert row.lag == 0 and row.committed == 15 and row.end_offset == 12
