"""Producer ranges read from a stopped replica's segment files (files only, no broker)."""
from __future__ import annotations

from pathlib import Path

from kafpy.protocol.records import build_batch
from tests.faults.history import History, read
from tests.faults.validate import producer_ranges, record_producer_batches


def segment(path: Path, base: int, *batches: bytes) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{base:020d}.log").write_bytes(b"".join(batches))


def idem(offset: int, count: int, pid: int, epoch: int, seq: int) -> bytes:
    return build_batch([(None, b"v")] * count, base_offset=offset, producer_id=pid,
                       producer_epoch=epoch, base_sequence=seq, base_timestamp=0)


def plain(offset: int) -> bytes:
    return build_batch([(None, b"p")], base_offset=offset, base_timestamp=0)


def test_continuing_batches_merge_and_others_start_a_range(tmp_path):
    part = tmp_path / "chaos-0"
    segment(part, 0, idem(0, 2, 7, 0, 0), idem(2, 1, 7, 0, 2), plain(3), idem(4, 1, 7, 0, 3))
    segment(part, 5, idem(5, 2, 7, 1, 0), idem(7, 1, 8, 0, 0), idem(8, 1, 7, 1, 2))
    end, ranges = producer_ranges(part)
    assert end == 9
    assert ranges == [[7, 0, 0, 0, 2], [7, 0, 3, 4, 4], [7, 1, 0, 5, 6], [8, 0, 0, 7, 7],
                      [7, 1, 2, 8, 8]]


def test_one_event_a_partition_from_the_replica_that_reaches_the_read_end(tmp_path):
    short, whole = tmp_path / "b0", tmp_path / "b1"
    segment(short / "chaos-0", 0, idem(0, 2, 7, 0, 0))
    segment(whole / "chaos-0", 0, idem(0, 2, 7, 0, 0), idem(2, 1, 7, 0, 2))
    segment(short / "chaos-1", 0, plain(0))
    h = History(tmp_path / "h.jsonl")
    record_producer_batches(h, [short, whole], "chaos",
                            {0: [(0, "a"), (1, "b"), (2, "c")], 1: [(0, "d")]})
    h.close()
    events = [e for e in read(tmp_path / "h.jsonl")]
    assert [(e["partition"], e["broker"], e["log_end"], e["ranges"]) for e in events] == [
        (0, 1, 3, [[7, 0, 0, 0, 2]]), (1, 0, 1, [])]
