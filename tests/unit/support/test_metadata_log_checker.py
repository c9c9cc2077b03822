"""The metadata-log checker finds each violation it names, and none in agreeing logs; read
from real segment files our metadata log wrote."""
from __future__ import annotations

from pathlib import Path

from kafpy.raft.metadata_log import KafkaMetadataLog, MetadataLogConfig
from kafpy.raft.quorum_state_store import ReplicaKey
from tests.support.metadata_log_checker import LogEntry, check_logs, read_log_entries


def lc(offset: int, epoch: int, leader: int) -> LogEntry:
    return LogEntry(offset, offset, epoch, crc=1000 * epoch + offset, leader_id=leader)


def data(offset: int, epoch: int, crc: int | None = None) -> LogEntry:
    return LogEntry(offset, offset + 1, epoch, crc=crc if crc is not None else 7 * offset + epoch)


GOOD = [lc(0, 1, 1), data(1, 1), data(3, 1), lc(5, 2, 2), data(6, 2)]


def test_agreeing_logs_and_a_lagging_node_pass():
    lagging = GOOD[:3]
    assert check_logs({1: GOOD, 2: GOOD, 3: lagging}, high_watermark=8) == []
    # converged: the lagging node must have every committed batch
    problems = check_logs({1: GOOD, 2: GOOD, 3: lagging}, high_watermark=8, converged=True)
    assert problems and all("node 3 differs" in p for p in problems)


def test_two_leaders_in_one_epoch():
    other = [lc(0, 1, 1), data(1, 1), data(3, 1), lc(5, 2, 3)]
    problems = check_logs({1: GOOD, 2: GOOD, 3: other}, high_watermark=5)
    assert any("epoch 2 has two leaders" in p for p in problems)


def test_different_bytes_at_the_same_offset_and_epoch():
    bad = [*GOOD[:2], data(3, 1, crc=999)]
    problems = check_logs({1: GOOD, 2: bad}, high_watermark=0)
    assert problems == ["nodes 1 and 2 hold different batches at offset 3 in epoch 1"]


def test_agreeing_on_a_batch_but_not_before_it():
    bad = [lc(0, 1, 1), data(1, 1, crc=5), data(3, 1), lc(5, 2, 2), data(6, 2)]
    problems = check_logs({1: GOOD, 2: bad}, high_watermark=0)
    assert any("different batches at offset 1" in p for p in problems)
    bad_epoch = [lc(0, 1, 1), LogEntry(1, 2, 9, 5), data(3, 1), lc(5, 2, 2), data(6, 2)]
    problems = check_logs({1: GOOD, 2: bad_epoch}, high_watermark=0)
    assert problems == ["nodes 1 and 2 agree at offset 6 but differ before it, at 1"]


def test_a_committed_batch_on_a_minority_is_lost():
    lost = [*GOOD[:3]]  # nodes 2 and 3 never got epoch 2's batches
    problems = check_logs({1: GOOD, 2: lost, 3: lost}, high_watermark=8)
    assert "committed batch at offset 5 is on 1 of 3 nodes only" in problems
    assert "committed batch at offset 6 is on 1 of 3 nodes only" in problems
    # above the high watermark a minority is allowed (not committed yet)
    assert check_logs({1: GOOD, 2: lost, 3: lost}, high_watermark=5) == []


def test_reads_the_batches_a_metadata_log_wrote(tmp_path: Path):
    log = KafkaMetadataLog(tmp_path, MetadataLogConfig(), now_ms=lambda: 1000)  # the metadata dir
    try:
        log.append_leader_change(1, 3, [ReplicaKey(1), ReplicaKey(3)], [ReplicaKey(3)])
        log.append_as_leader([b"a", b"b"], 1)
        log.flush()
    finally:
        log.close()
    entries = read_log_entries(tmp_path / "__cluster_metadata-0")
    assert [(e.base_offset, e.last_offset, e.epoch, e.leader_id) for e in entries] == [(0, 0, 1, 3), (1, 2, 1, None)]
    assert check_logs({1: entries, 2: entries, 3: entries}, high_watermark=3, converged=True) == []
