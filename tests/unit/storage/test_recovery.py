import errno
import logging
import os

import pytest

from kafpy.protocol.records import iter_batches
from kafpy.storage import KafkaStorageError, LogConfig, LogManager
from kafpy.storage.log import Log
from kafpy.storage.log_manager import previous_broker_epoch

from .helpers import FakeClock, batch_of, decode_all, kp_batch, open_log, reopen


def all_offsets(lg):
    out = []
    off = lg.log_start_offset
    while off < lg.log_end_offset:
        data = lg.read(off, 1 << 20).records.read_bytes()
        recs = decode_all(data)
        out += [r[0] for r in recs if r[0] >= off]
        off = recs[-1][0] + 1
    return out


def fill(lg, n, size=100):
    for i in range(n):
        lg.append_as_leader(batch_of(1, size=size, start=i), 1)


def test_truncated_tail_is_cut_on_unclean_open(tmp_path):
    lg = open_log(tmp_path, segment_bytes=1000, index_interval_bytes=100)
    fill(lg, 20)
    seg = lg.active_segment
    for s in lg.segments:
        s.offset_index.flush()
    size = seg.size
    os.truncate(seg.log_path, size - 7)  # torn last batch
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), recovery_point=0, needs_recovery=True)
    assert lg2.log_end_offset == 19
    assert all_offsets(lg2) == list(range(19))
    assert lg2.append_as_leader(batch_of(1), 1).first_offset == 19


def test_bit_flip_in_middle_truncates_there_and_drops_later_segments(tmp_path):
    lg = open_log(tmp_path, segment_bytes=1000)
    fill(lg, 30)
    segs = lg.segments
    assert len(segs) >= 3
    victim = segs[1]
    # flip a byte inside the second batch of the second segment
    positions = [p for p, _ in iter_batches(open(victim.log_path, "rb").read())]
    with open(victim.log_path, "r+b") as f:
        f.seek(positions[1] + 70)
        b = f.read(1)
        f.seek(positions[1] + 70)
        f.write(bytes([b[0] ^ 0x40]))
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), recovery_point=0, needs_recovery=True)
    first_bad = victim.base_offset + 1
    assert lg2.log_end_offset == first_bad
    assert all_offsets(lg2) == list(range(first_bad))
    assert len(lg2.segments) == 2


def test_clean_open_does_not_scan(tmp_path, monkeypatch):
    lg = open_log(tmp_path, segment_bytes=1000)
    fill(lg, 20)
    lg.close()
    from kafpy.storage.segment import LogSegment

    called = []
    monkeypatch.setattr(LogSegment, "recover", lambda self, *a, **k: called.append(self) or 0)
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), needs_recovery=False)
    assert called == [] and lg2.log_end_offset == 20


def test_unclean_open_scans_only_from_recovery_point(tmp_path, monkeypatch):
    lg = open_log(tmp_path, segment_bytes=1000)
    fill(lg, 30)
    rp = lg.segments[-2].base_offset
    from kafpy.storage.segment import LogSegment

    real = LogSegment.recover
    scanned = []

    def spy(self, *a, **k):
        scanned.append(self.base_offset)
        return real(self, *a, **k)
    monkeypatch.setattr(LogSegment, "recover", spy)
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), recovery_point=rp, needs_recovery=True)
    assert scanned == [s.base_offset for s in lg.segments[-2:]]
    assert all_offsets(lg2) == list(range(30))


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate"])
def test_missing_or_corrupt_index_is_rebuilt(tmp_path, damage):
    lg = open_log(tmp_path, segment_bytes=3000, index_interval_bytes=150)
    fill(lg, 40)
    lg.close()
    first = lg.segments[0]
    idx = first.offset_index.path
    original = open(idx, "rb").read()
    assert len(original) > 16
    if damage == "delete":
        os.unlink(idx)
        os.unlink(first.time_index.path)
    elif damage == "garbage":
        open(idx, "wb").write(b"\xff" * len(original))
    else:
        open(idx, "wb").write(original[:5])
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), needs_recovery=False)
    assert all_offsets(lg2) == list(range(40))
    lg2.close()
    assert open(idx, "rb").read() == original


def test_leftover_files_are_handled(tmp_path, caplog):
    lg = open_log(tmp_path, segment_bytes=1000)
    fill(lg, 10)
    lg.close()
    for name in ("00000000000000000000.log.cleaned", "leader-epoch-checkpoint.tmp",
                 "00000000000000000003.log.deleted"):
        open(os.path.join(lg.dir, name), "wb").write(b"junk")
    open(os.path.join(lg.dir, "notes.log"), "w").write("hello")
    with caplog.at_level(logging.WARNING):
        lg2 = Log(lg.dir, lg.config, clock=FakeClock(), needs_recovery=False)
    names = os.listdir(lg.dir)
    assert "00000000000000000000.log.cleaned" not in names
    assert "leader-epoch-checkpoint.tmp" not in names
    assert "00000000000000000003.log.deleted" not in names
    assert "notes.log" in names and "notes.log" in caplog.text
    assert all_offsets(lg2) == list(range(10))


def test_log_manager_ignores_unrelated_entries(tmp_path, caplog):
    d = tmp_path / "logs"
    lm = LogManager([str(d)], LogConfig(), clock=FakeClock(), start_cleaner=False)
    lm.startup(cluster_id="c1", broker_id=1)
    lm.get_or_create_log("t", 0).append_as_leader(batch_of(2), 0)
    lm.shutdown()
    (d / "README").write_text("x")
    (d / "lost+found").mkdir()
    (d / "t-1.abc-delete").mkdir()
    with caplog.at_level(logging.WARNING):
        lm2 = LogManager([str(d)], LogConfig(), clock=FakeClock(), start_cleaner=False)
        lm2.startup(cluster_id="c1", broker_id=1)
    assert "README" in caplog.text and "lost+found" in caplog.text
    assert not (d / "t-1.abc-delete").exists()
    assert list(lm2.logs()) == [("t", 0)] and lm2.get_log("t", 0).log_end_offset == 2
    lm2.shutdown()
    with pytest.raises(KafkaStorageError):
        LogManager([str(d)], LogConfig(), start_cleaner=False).startup(cluster_id="other", broker_id=1)


def test_full_disk_append_raises_and_nothing_acknowledged_is_lost(tmp_path, monkeypatch):
    lg = open_log(tmp_path)
    fill(lg, 5)
    before = lg.read(0, 1 << 20).records.read_bytes()
    real = os.write
    seg_fd = lg.active_segment.file.fileno()
    state = {"n": 0}

    def enospc(fd, data):
        if fd == seg_fd:
            # write part of the data, then fail, as a filling disk does
            state["n"] += 1
            if state["n"] == 1:
                return real(fd, bytes(data)[:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    def enospc_v(fd, bufs):
        return enospc(fd, b"".join(bytes(b) for b in bufs))
    real_v = os.writev
    monkeypatch.setattr(os, "write", enospc)
    monkeypatch.setattr(os, "writev", enospc_v)
    with pytest.raises(KafkaStorageError) as e:
        lg.append_as_leader(batch_of(3), 1)
    assert e.value.error_code == 56
    monkeypatch.setattr(os, "write", real)
    monkeypatch.setattr(os, "writev", real_v)
    assert lg.log_end_offset == 5
    assert lg.read(0, 1 << 20).records.read_bytes() == before
    assert lg.append_as_leader(batch_of(1), 1).first_offset == 5
    lg2 = reopen(lg, clean=False, recovery_point=0)
    assert all_offsets(lg2) == list(range(6))


def test_failed_write_of_an_idempotent_batch_leaves_its_sequence_unrecorded(tmp_path, monkeypatch):
    """The plain path records a producer's batch just before writing it: a failed write
    takes that record back, so the client's retry is written (neither a duplicate of a
    batch that is not in the log nor out of sequence)."""
    lg = open_log(tmp_path)

    def idem(seq):
        return bytearray(kp_batch([(b"k", b"v")], producer_id=9, producer_epoch=0, base_sequence=seq))
    assert lg.append_as_leader(idem(0), 1).first_offset == 0  # a new producer: recorded after the write
    real, seg_fd = os.write, lg.active_segment.file.fileno()

    def enospc(fd, data):
        if fd == seg_fd:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)
    monkeypatch.setattr(os, "write", enospc)
    with pytest.raises(KafkaStorageError):
        lg.append_as_leader(idem(1), 1)
    monkeypatch.setattr(os, "write", real)
    info = lg.append_as_leader(idem(1), 1)
    assert (info.first_offset, info.duplicate) == (1, False)
    dup = lg.append_as_leader(idem(1), 1)
    assert (dup.first_offset, dup.duplicate) == (1, True)
    assert lg.append_as_leader(idem(0), 1).duplicate
    assert lg.producer_state.producers[9].last_seq == 1
    assert lg.log_end_offset == 2


def test_clean_shutdown_marker_roundtrip(tmp_path):
    d = str(tmp_path / "logs")
    lm = LogManager([d], LogConfig(segment_bytes=1000), clock=FakeClock(), start_cleaner=False)
    lm.startup()
    lg = lm.get_or_create_log("a", 0)
    fill(lg, 20)
    lg.update_high_watermark(12)
    lm.shutdown()
    assert os.path.exists(os.path.join(d, ".kafka_cleanshutdown"))
    assert open(os.path.join(d, "replication-offset-checkpoint")).read() == "0\n1\na 0 12\n"
    assert open(os.path.join(d, "recovery-point-offset-checkpoint")).read() == "0\n1\na 0 20\n"
    lm2 = LogManager([d], LogConfig(segment_bytes=1000), clock=FakeClock(), start_cleaner=False)
    lm2.startup()
    assert not os.path.exists(os.path.join(d, ".kafka_cleanshutdown"))
    lg2 = lm2.get_log("a", 0)
    assert (lg2.log_end_offset, lg2.high_watermark, lg2.recovery_point) == (20, 12, 20)
    lm2.shutdown()


def test_the_clean_shutdown_files_keep_the_broker_epoch(tmp_path):
    """Kafka's CleanShutdownFileHandler content: the epoch a KRaft broker shut down with, read
    back at the next start for its registration's PreviousBrokerEpoch (KIP-966); -1 unless
    every dir has a file and all agree."""
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    lm = LogManager(dirs, LogConfig(segment_bytes=1000), clock=FakeClock(), start_cleaner=False)
    lm.startup()
    assert lm.previous_broker_epoch == -1  # a first start: no file
    lm.shutdown(broker_epoch=42)
    assert open(os.path.join(dirs[0], ".kafka_cleanshutdown")).read() == '{"version":0,"brokerEpoch":42}'
    lm2 = LogManager(dirs, LogConfig(segment_bytes=1000), clock=FakeClock(), start_cleaner=False)
    lm2.startup()
    assert lm2.previous_broker_epoch == 42
    lm2.shutdown()  # a ZooKeeper-mode broker's: -1
    assert open(os.path.join(dirs[1], ".kafka_cleanshutdown")).read() == '{"version":0,"brokerEpoch":-1}'


@pytest.mark.parametrize("contents, expected", [
    (['{"version":0,"brokerEpoch":7}', '{"version":0,"brokerEpoch":7}'], 7),
    (['{"version":0,"brokerEpoch":7}', '{"version":0,"brokerEpoch":8}'], -1),  # the dirs disagree
    (['{"version":0,"brokerEpoch":7}', None], -1),  # one dir was not shut down cleanly
    (['', '{"version":0,"brokerEpoch":7}'], -1),  # an empty file, as older versions wrote
    (['{"version":0,"brokerEpoch":-1}'], -1),
    (['[1]'], -1),
])
def test_previous_broker_epoch_needs_every_dir_to_agree(tmp_path, contents, expected):
    markers = []
    for i, text in enumerate(contents):
        if text is None:
            markers.append(None)
            continue
        path = tmp_path / f"marker{i}"
        path.write_text(text)
        markers.append(str(path))
    assert previous_broker_epoch(markers) == expected


def test_new_logs_go_to_least_loaded_dir(tmp_path):
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    lm = LogManager(dirs, LogConfig(), clock=FakeClock(), start_cleaner=False)
    lm.startup()
    for p in range(4):
        lm.get_or_create_log("t", p)
    assert sorted(lm.log_dir_of("t", p) for p in range(4)) == sorted(dirs * 2)
    lm.delete_log("t", 0)
    assert lm.get_log("t", 0) is None
    assert not os.path.exists(os.path.join(dirs[0], "t-0"))
    lm.shutdown()


def test_damaged_base_offset_is_caught_by_the_next_segment_bound(tmp_path):
    import struct

    lg = open_log(tmp_path, segment_bytes=1000)
    fill(lg, 30)
    victim = lg.segments[0]
    positions = [p for p, _ in iter_batches(open(victim.log_path, "rb").read())]
    last_pos = positions[-1]
    with open(victim.log_path, "r+b") as f:
        f.seek(last_pos)
        (base,) = struct.unpack(">q", f.read(8))
        f.seek(last_pos)
        f.write(struct.pack(">q", base + 65536))  # outside the CRC: only bounds can tell
    lg2 = Log(lg.dir, lg.config, clock=FakeClock(), recovery_point=0, needs_recovery=True)
    assert lg2.log_end_offset == base
    assert all_offsets(lg2) == list(range(base))


def _manager_with_hw(tmp_path, n: int):
    """A started LogManager with one log ("a", 0) of ``n`` records, all below the HW."""
    d = str(tmp_path / "logs")
    lm = LogManager([d], LogConfig(segment_bytes=1000), clock=FakeClock(), start_cleaner=False)
    lm.startup()
    lg = lm.get_or_create_log("a", 0)
    fill(lg, n)
    lg.update_high_watermark(n)
    return lm, lg, os.path.join(d, "replication-offset-checkpoint")


def test_checkpoint_writer_snapshots_now_and_writes_later(tmp_path):
    """The broker takes the snapshot on its loop and writes it from a thread."""
    import threading

    lm, lg, hw_path = _manager_with_hw(tmp_path, 5)
    write = lm.checkpoint_writer()
    fill(lg, 3)  # after the snapshot: not in this write
    lg.update_high_watermark(8)
    t = threading.Thread(target=write)
    t.start()
    t.join()
    assert open(hw_path).read() == "0\n1\na 0 5\n"
    lm.checkpoint()
    assert open(hw_path).read() == "0\n1\na 0 8\n"
    lm.shutdown()


def test_an_older_checkpoint_snapshot_never_overwrites_a_newer_one(tmp_path):
    lm, lg, hw_path = _manager_with_hw(tmp_path, 4)
    stale = lm.checkpoint_writer()
    fill(lg, 2)
    lg.update_high_watermark(6)
    lm.checkpoint_writer()()
    stale()  # finishes last, e.g. a slow thread: must not go back to 4
    assert open(hw_path).read() == "0\n1\na 0 6\n"
    lm.shutdown()
