import os

from kafpy.storage import LogConfig, LogManager
from kafpy.storage.cleaner import CLEANER_CHECKPOINT

from .helpers import FakeClock, decode_all, kp_batch


def make(tmp_path, clock, **cfg):
    base = dict(cleanup_policy="compact", segment_bytes=600, min_cleanable_dirty_ratio=0.0,
                delete_retention_ms=1000)
    base.update(cfg)
    lm = LogManager([str(tmp_path / "d")], LogConfig(**base), clock=clock, start_cleaner=False)
    lm.startup()
    from kafpy.storage.cleaner import LogCleaner

    cleaner = LogCleaner(lm, clock=clock)
    return lm, lm.get_or_create_log("compacted", 0), cleaner


def contents(lg):
    out = []
    off = lg.log_start_offset
    while off < lg.log_end_offset:
        res = lg.read(off, 1 << 20)
        if res.records is None:
            break
        recs = decode_all(res.records.read_bytes())
        out += [(o, k, v) for o, k, v, _ in recs if o >= off]
        from kafpy.protocol.records import iter_batches

        off = [h for _, h in iter_batches(res.records.read_bytes())][-1].last_offset + 1
    return out


def test_compaction_keeps_latest_per_key_and_offsets(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    expected_latest = {}
    off = 0
    for round_ in range(6):
        recs = [(b"key%d" % k, b"v%d-%d" % (k, round_) * 5) for k in range(4)]
        lg.append_as_leader(kp_batch(recs, timestamp=clock.ms), 0)
        for k in range(4):
            expected_latest[b"key%d" % k] = (off + k, b"v%d-%d" % (k, round_) * 5)
        off += 4
    lg.append_as_leader(kp_batch([(b"key0", b"final")], timestamp=clock.ms), 0)  # offset 24
    expected_latest[b"key0"] = (24, b"final")
    lg.update_high_watermark(lg.log_end_offset)
    assert len(lg.segments) >= 3
    before_size = lg.size_in_bytes()
    assert cleaner.clean_once(clock.ms)
    after = contents(lg)
    active_base = lg.active_segment.base_offset
    cleaned_keys = [k for o, k, v in after if o < active_base]
    assert sorted(cleaned_keys) == sorted(set(cleaned_keys))  # one record per key left
    assert [o for o, _, _ in after] == sorted(o for o, _, _ in after)
    # every latest value is still readable at its original offset
    seen = {k: (o, v) for o, k, v in after}
    assert seen == expected_latest
    assert lg.size_in_bytes() < before_size
    assert lg.log_end_offset == 25
    # what the LogCleaner gauges read: the dirty share of the log chosen, and the recopy
    assert 0 < cleaner.stats["last_dirty_percent"] <= 100
    assert 0 < cleaner.stats["bytes_written"] < cleaner.stats["bytes_read"]
    assert cleaner.stats["last_clean_secs"] >= 0 and cleaner.dead_thread_count == 0
    assert not any(n.endswith((".cleaned", ".swap")) for n in os.listdir(lg.dir))
    cp = open(os.path.join(lm.log_dirs[0], CLEANER_CHECKPOINT)).read().split("\n")
    assert cp[0] == "0" and cp[2].startswith("compacted 0 ")
    # reopen: the cleaned log loads and appends continue
    lm.shutdown()
    lm2 = LogManager(lm.log_dirs, lg.config, clock=clock, start_cleaner=False)
    lm2.startup()
    lg2 = lm2.get_log("compacted", 0)
    assert {k: (o, v) for o, k, v in contents(lg2)} == expected_latest
    assert lg2.append_as_leader(kp_batch([(b"x", b"y")]), 0).first_offset == 25
    lm2.shutdown()


def test_tombstones_survive_first_cleaning_then_expire(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    for i in range(5):
        lg.append_as_leader(kp_batch([(b"a", b"1" * 100), (b"b", b"2" * 100)], timestamp=clock.ms), 0)
    lg.append_as_leader(kp_batch([(b"a", None)], timestamp=clock.ms), 0)  # tombstone for a
    for i in range(4):
        lg.append_as_leader(kp_batch([(b"c", b"3" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    cleaner.clean_once(clock.ms, force=True)
    keys = [(k, v) for _, k, v in contents(lg)]
    assert (b"a", None) in keys and not any(k == b"a" and v for k, v in keys)
    clock.advance(5000)
    for i in range(4):
        lg.append_as_leader(kp_batch([(b"d", b"4" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    cleaner.clean_once(clock.ms, force=True)
    keys = [k for _, k, _ in contents(lg)]
    assert b"a" not in keys and b"b" in keys
    lm.shutdown()


def test_dirty_ratio_and_compaction_lag_are_honoured(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock, min_cleanable_dirty_ratio=0.5, min_compaction_lag_ms=10_000)
    for i in range(8):
        lg.append_as_leader(kp_batch([(b"k", b"v" * 200)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    assert not cleaner.clean_once(clock.ms)  # records too young
    clock.advance(20_000)
    assert cleaner.clean_once(clock.ms)
    assert not cleaner.clean_once(clock.ms)  # now clean: ratio 0
    lm.shutdown()


def test_idempotent_producer_state_survives_compaction(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    for seq in range(10):
        lg.append_as_leader(kp_batch([(b"same", b"v" * 100)], producer_id=9, producer_epoch=0,
                                     base_sequence=seq, timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    cleaner.clean_once(clock.ms, force=True)
    lm.shutdown()
    lm2 = LogManager(lm.log_dirs, lg.config, clock=clock, start_cleaner=False)
    lm2.startup()
    lg2 = lm2.get_log("compacted", 0)
    assert lg2.append_as_leader(kp_batch([(b"same", b"v" * 100)], producer_id=9, producer_epoch=0,
                                         base_sequence=9), 0).duplicate
    assert lg2.append_as_leader(kp_batch([(b"same", b"w")], producer_id=9, producer_epoch=0,
                                         base_sequence=10), 0).first_offset == 10
    lm2.shutdown()


def test_interrupted_swap_is_completed_on_load(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    for i in range(10):
        lg.append_as_leader(kp_batch([(b"k%d" % (i % 2), b"v" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    # build the cleaned group but "crash" before the swap
    first_dirty = lg.log_start_offset
    eligible, dirty, end = cleaner.cleanable_range(lg, clock.ms, first_dirty)
    keys, _ = cleaner._build_offset_map(dirty, first_dirty, end)
    group = cleaner._group(eligible, lg.config.segment_bytes, lg.config.segment_index_bytes)[0]
    new = cleaner._clean_group(lg, group, keys, set(id(s) for s in dirty), {}, clock.ms)
    assert os.path.exists(new.log_path) and new.log_path.endswith(".swap")
    expected = {k: v for _, k, v in contents(lg)}
    for seg in lg.segments:
        seg.offset_index.flush()
    from kafpy.storage.log import Log

    lg2 = Log(lg.dir, lg.config, clock=clock, needs_recovery=True)
    assert not any(n.endswith(".swap") for n in os.listdir(lg.dir))
    assert {k: v for _, k, v in contents(lg2)} == expected
    assert lg2.log_end_offset == 10


def test_cleaner_thread_runs_in_background(tmp_path):
    clock = FakeClock()
    base = LogConfig(cleanup_policy="compact", segment_bytes=600, min_cleanable_dirty_ratio=0.0)
    lm = LogManager([str(tmp_path / "d")], base, clock=clock)
    lm.startup()
    lm.cleaner.backoff_ms = 10
    lg = lm.get_or_create_log("bg", 0)
    for i in range(10):
        lg.append_as_leader(kp_batch([(b"k", b"v" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    lm.cleaner.wakeup()
    for _ in range(500):
        if lm.cleaner.stats["cleaned_logs"]:
            break
        import time

        time.sleep(0.01)
    assert lm.cleaner.stats["cleaned_logs"] >= 1
    lm.shutdown()
    assert lm.cleaner is None


def test_max_compaction_lag_forces_cleaning(tmp_path):
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock, min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=60_000)
    for i in range(8):
        lg.append_as_leader(kp_batch([(b"k%d" % (i % 4), b"v" * 200)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    # clean once so the ratio drops below 0.99 afterwards
    assert cleaner.clean_once(clock.ms, force=True)
    for i in range(8):
        lg.append_as_leader(kp_batch([(b"k%d" % (i % 4), b"w" * 200)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    assert not cleaner.clean_once(clock.ms)
    clock.advance(120_000)
    assert cleaner.clean_once(clock.ms)
    lm.shutdown()


def test_cleaner_thread_races_appends_reads_and_retention(tmp_path):
    import threading

    clock = FakeClock()
    base = LogConfig(cleanup_policy="compact,delete", segment_bytes=700, min_cleanable_dirty_ratio=0.0,
                     retention_bytes=20_000, file_delete_delay_ms=0)
    lm = LogManager([str(tmp_path / "d")], base, clock=clock, start_cleaner=False)
    lm.startup()
    from kafpy.storage.cleaner import LogCleaner

    cleaner = LogCleaner(lm, clock=clock)
    lg = lm.get_or_create_log("race", 0)
    stop = threading.Event()
    errors = []

    def clean_loop():
        try:
            for _ in range(2000):
                if stop.is_set():
                    break
                cleaner.clean_once(clock.ms, force=True)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    t = threading.Thread(target=clean_loop)
    t.start()
    latest = {}
    try:
        for i in range(400):
            key = b"k%d" % (i % 13)
            info = lg.append_as_leader(kp_batch([(key, b"v%d" % i * 10)], timestamp=clock.ms), 0)
            latest[key] = b"v%d" % i * 10
            lg.update_high_watermark(lg.log_end_offset)
            if i % 25 == 0:
                lm.run_housekeeping(clock.ms)
            off = max(lg.log_start_offset, info.first_offset - 30)
            res = lg.read(off, 1 << 16)
            assert res.records is not None
            for o, k, v, _ in decode_all(res.records.read_bytes()):
                assert v.startswith(b"v")
    finally:
        stop.set()
        t.join(timeout=120)
    assert not errors, errors
    # the newest value of every key is still there
    seen = {}
    off = lg.log_start_offset
    while off < lg.log_end_offset:
        recs = decode_all(lg.read(off, 1 << 20).records.read_bytes())
        for o, k, v, _ in recs:
            seen[k] = v
        off = recs[-1][0] + 1
    assert seen == latest
    lm.shutdown()


def test_cleaner_threads_follow_reconfiguration_and_never_share_a_log(tmp_path):
    import threading
    import time

    clock = FakeClock()
    base = LogConfig(cleanup_policy="compact", segment_bytes=600, min_cleanable_dirty_ratio=0.0)
    lm = LogManager([str(tmp_path / "d")], base, clock=clock, cleaner_threads=1, cleaner_backoff_ms=10)
    lm.startup()
    cleaner = lm.cleaner

    def running() -> set:
        return {t.name for t in threading.enumerate() if t.name.startswith("kafka-log-cleaner-thread-")}

    def until(cond) -> None:
        deadline = time.monotonic() + 10
        while not cond():
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.01)

    until(lambda: running() == {"kafka-log-cleaner-thread-0"})
    cleaner.reconfigure(3, 10)
    assert cleaner.thread_names == [f"kafka-log-cleaner-thread-{i}" for i in range(3)]
    until(lambda: len(running()) == 3)
    # many dirty logs, three threads: every log is cleaned, none by two threads at once
    logs = [lm.get_or_create_log("bg", p) for p in range(6)]
    for lg in logs:
        for _ in range(10):
            lg.append_as_leader(kp_batch([(b"k", b"v" * 100)], timestamp=clock.ms), 0)
        lg.update_high_watermark(lg.log_end_offset)
    cleaner.wakeup()
    until(lambda: cleaner.stats["cleaned_logs"] >= 6 and not cleaner._in_progress)
    for lg in logs:   # the latest record of the cleaned segments and the active segment's one
        assert [o for o, _, _ in contents(lg)] == [8, 9]
    cleaner.reconfigure(1, 10)
    until(lambda: running() == {"kafka-log-cleaner-thread-0"})
    lm.shutdown()
    until(lambda: not running())


def test_a_full_offset_map_cleans_up_to_where_it_stopped_and_the_next_pass_goes_on(tmp_path):
    """log.cleaner.dedupe.buffer.size bounds the offset map: with room for a few keys, a pass
    cleans the prefix the map covers, checkpoints where it stopped, and later passes finish
    the rest; nothing newer than what a pass mapped is lost on the way."""
    from kafpy.storage.cleaner import ENTRY_BYTES

    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    # 12 keys written twice (offsets 0-11, then 12-23), then one more batch so the rest rolls
    latest = {}
    for round_ in range(2):
        for k in range(12):
            lg.append_as_leader(kp_batch([(b"key%02d" % k, b"r%d" % round_ * 30)], timestamp=clock.ms), 0)
            latest[b"key%02d" % k] = (round_ * 12 + k, b"r%d" % round_ * 30)
    lg.append_as_leader(kp_batch([(b"tail", b"t" * 30)], timestamp=clock.ms), 0)
    latest[b"tail"] = (24, b"t" * 30)
    lg.update_high_watermark(lg.log_end_offset)
    end = lg.active_segment.base_offset
    assert end > 12

    # room for 5 keys of 5 bytes: the map stops at the 6th distinct key of the dirty range
    keys, map_end = cleaner._build_offset_map(lg.segments[:-1], 0, end, budget=5 * (5 + ENTRY_BYTES))
    assert (len(keys), map_end) == (5, 5)
    # a budget smaller than one key still maps one, so a pass always moves on
    keys, map_end = cleaner._build_offset_map(lg.segments[:-1], 0, end, budget=1)
    assert (len(keys), map_end) == (1, 1)

    cleaner.dedupe_buffer_size = int(5 * (5 + ENTRY_BYTES) / cleaner.load_factor) + 1
    checkpoints = []
    for _ in range(20):
        if not cleaner.clean_once(clock.ms):
            break
        cp = open(os.path.join(lm.log_dirs[0], CLEANER_CHECKPOINT)).read().split("\n")[2]
        checkpoints.append(int(cp.split()[-1]))
        # after every pass each key still reads back its latest value at its offset
        assert {k: (o, v) for o, k, v in contents(lg)} == latest
    assert checkpoints == sorted(checkpoints) and len(checkpoints) >= 3   # several bounded passes
    assert checkpoints[0] == 5 and checkpoints[-1] == lg.active_segment.base_offset
    # cleaned through: one record per key below the active segment
    below = [k for o, k, _ in contents(lg) if o < lg.active_segment.base_offset]
    assert sorted(below) == sorted(set(below))
    lm.shutdown()


def test_the_map_budget_is_the_threads_share_of_the_dedupe_buffer_at_the_load_factor(tmp_path):
    from kafpy.storage.cleaner import LogCleaner

    lm = LogManager([str(tmp_path / "d")], LogConfig(), start_cleaner=False)
    assert LogCleaner(lm).map_budget == int(134217728 * 0.9)
    assert LogCleaner(lm, threads=4, dedupe_buffer_size=40_000_000, load_factor=0.5).map_budget == 5_000_000
    huge = LogCleaner(lm, dedupe_buffer_size=2**40, load_factor=1.0)
    assert huge.map_budget == 2**31 - 1   # as Kafka's map, at most 2 GiB per thread
    c = LogCleaner(lm)
    c.reconfigure(1, 15000, dedupe_buffer_size=2_000_000, load_factor=0.75)
    assert c.map_budget == 1_500_000


def test_io_max_bytes_per_second_throttles_reads_and_writes(tmp_path):
    """log.cleaner.io.max.bytes.per.second: the cleaner's naps add up to what its bytes read
    and written take at that rate (a fake clock that moves a microsecond per look)."""
    from kafpy.storage.throttler import Throttler

    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    for i in range(20):
        lg.append_as_leader(kp_batch([(b"k%d" % (i % 3), b"v" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    now = [0.0]

    def look() -> float:
        now[0] += 1e-6
        return now[0]
    naps: list[float] = []

    def nap(s: float) -> None:
        naps.append(s)
        now[0] += s
    cleaner.throttler = Throttler(10_000.0, check_interval_s=0.0, clock=look, sleep=nap)
    assert cleaner.clean_once(clock.ms)
    moved = cleaner.stats["bytes_read"] + cleaner.stats["bytes_written"]
    # the rewrite reads every segment again: more was moved than the two stats count
    assert sum(naps) >= 0.99 * moved / 10_000.0 and len(naps) > 3
    lm.shutdown()


def test_shutdown_ends_a_throttle_nap(tmp_path):
    import time

    clock = FakeClock()
    base = LogConfig(cleanup_policy="compact", segment_bytes=600, min_cleanable_dirty_ratio=0.0)
    lm = LogManager([str(tmp_path / "d")], base, clock=clock, cleaner_io_max_bytes_per_s=1.0)
    lm.startup()
    cleaner = lm.cleaner
    cleaner.throttler.check_interval_s = 0.0   # nap from the first batch read: ~100 s for 100 bytes
    lg = lm.get_or_create_log("slow", 0)
    for i in range(10):
        lg.append_as_leader(kp_batch([(b"k", b"v" * 100)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    cleaner.wakeup()
    for _ in range(500):
        if cleaner.throttler._observed or cleaner.stats["bytes_read"]:
            break
        time.sleep(0.01)
    assert cleaner.stats["bytes_read"] > 0, "the cleaner started reading"
    started = time.monotonic()
    lm.shutdown()
    assert time.monotonic() - started < 10
    assert cleaner.throttler.slept_s > 50   # it was in a nap of that length when shut down


def _txn(lg, clock, pid, records, *, commit: bool, epoch: int = 0, seq: int = 0) -> None:
    """A transaction of producer ``pid``: one batch of ``records``, then its marker."""
    from kafpy.protocol.batch_builder import CONTROL_ABORT, CONTROL_COMMIT, build_control_batch

    lg.append_as_leader(kp_batch(records, producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                                 transactional=True, timestamp=clock.ms), 0)
    lg.append(build_control_batch(CONTROL_COMMIT if commit else CONTROL_ABORT, producer_id=pid,
                                  producer_epoch=epoch, timestamp=clock.ms), 0, origin="coordinator")


def _committed_view(lg):
    """What a read_committed consumer reads: key -> latest value, aborted records dropped."""
    from kafpy.protocol.records import iter_batches

    aborted = {}
    for seg in lg.segments:
        for t in seg.txn_index.entries:
            aborted.setdefault(t.producer_id, []).append((t.first_offset, t.last_offset))
    latest = {}
    off = lg.log_start_offset
    while off < lg.last_stable_offset:
        res = lg.read(off, 1 << 20, max_offset=lg.last_stable_offset)
        if res.records is None:
            break
        data = res.records.read_bytes()
        headers = {h.base_offset: h for _, h in iter_batches(data)}
        for o, k, v, _ in decode_all(data):
            h = max((b for b in headers.values() if b.base_offset <= o), key=lambda b: b.base_offset)
            if h.attributes & 0x20:   # control batch
                continue
            if h.is_transactional and any(f <= h.base_offset <= last for f, last in aborted.get(h.producer_id, [])):
                continue
            if o >= off:
                latest[k] = v
        off = max(headers.values(), key=lambda b: b.base_offset).last_offset + 1
    return latest


def test_an_aborted_transaction_neither_hides_a_committed_value_nor_survives_cleaning(tmp_path):
    """Kafka's cleaner leaves aborted transactions' records out of the offset map and drops
    them: a key's committed value stays readable when a later transaction that wrote the same
    key aborted. Markers whose transaction has no data left go after delete.retention.ms, as
    tombstones do; the producers' last batches (emptied) and markers keep their state."""
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    _txn(lg, clock, 5, [(b"k", b"committed"), (b"j", b"j1")], commit=True)
    _txn(lg, clock, 6, [(b"k", b"aborted"), (b"only-aborted", b"x")], commit=False)
    _txn(lg, clock, 5, [(b"j", b"j2")], commit=True, seq=2)
    _txn(lg, clock, 6, [(b"i", b"i6")], commit=True, seq=2)   # so the aborted batch is not producer 6's last
    for i in range(8):
        lg.append_as_leader(kp_batch([(b"f%d" % i, b"x" * 150)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    before = _committed_view(lg)
    assert before[b"k"] == b"committed" and b"only-aborted" not in before
    cleaner.clean_once(clock.ms, force=True)
    after = _committed_view(lg)
    assert after == before
    values = [v for _, _, v in contents(lg)]
    assert b"aborted" not in values and b"x" not in values   # gone for read_uncommitted too
    # the abort marker stays (its transaction's data was seen in this pass) and so does the entry
    assert any(t.producer_id == 6 for s in lg.segments for t in s.txn_index.entries)
    # a later pass past delete.retention.ms drops the abort marker and the index entry, and the
    # first commit marker (its data compacted away); producer 6's state survives a reload
    clock.advance(5000)
    for i in range(8, 12):
        lg.append_as_leader(kp_batch([(b"f%d" % i, b"x" * 150)], timestamp=clock.ms), 0)
    lg.update_high_watermark(lg.log_end_offset)
    cleaner.clean_once(clock.ms, force=True)
    assert _committed_view(lg) == {**before, **{b"f%d" % i: b"x" * 150 for i in range(8, 12)}}
    assert not any(t.producer_id == 6 for s in lg.segments for t in s.txn_index.entries)
    lm.shutdown()
    lm2 = LogManager(lm.log_dirs, lg.config, clock=clock, start_cleaner=False)
    lm2.startup()
    lg2 = lm2.get_log("compacted", 0)
    assert {pid: (e.epoch, e.last_seq) for pid, e in lg2.producer_state.producers.items()} == {5: (0, 2), 6: (0, 2)}
    assert lg2.last_stable_offset == lg2.log_end_offset   # no transaction left open by a dropped marker
    lm2.shutdown()


def test_an_aborted_transaction_that_is_its_producers_last_keeps_an_empty_batch_and_its_marker(tmp_path):
    """The producer's last batch is kept emptied, and with it its marker and index entry, so
    the producer's sequence survives a reload and its transaction reads as closed."""
    clock = FakeClock()
    lm, lg, cleaner = make(tmp_path, clock)
    _txn(lg, clock, 7, [(b"k", b"aborted")], commit=False)
    for rnd in range(2):
        for i in range(6):
            lg.append_as_leader(kp_batch([(b"f%d" % i, b"x" * 150)], timestamp=clock.ms), 0)
        lg.update_high_watermark(lg.log_end_offset)
        cleaner.clean_once(clock.ms, force=True)
        clock.advance(5000)
    assert b"aborted" not in [v for _, _, v in contents(lg)]
    assert [t.producer_id for s in lg.segments for t in s.txn_index.entries] == [7]
    lm.shutdown()
    lm2 = LogManager(lm.log_dirs, lg.config, clock=clock, start_cleaner=False)
    lm2.startup()
    lg2 = lm2.get_log("compacted", 0)
    assert lg2.producer_state.producers[7].last_seq == 0
    assert lg2.last_stable_offset == lg2.log_end_offset
    lm2.shutdown()


def test_a_cleaning_writes_through_its_share_of_the_io_buffer(tmp_path, monkeypatch):
    """Records that all survive are written in pieces of the thread's half of its share of
    log.cleaner.io.buffer.size (a batch larger than that alone), never a whole segment at once."""
    from kafpy.storage.cleaner import LogCleaner
    from kafpy.storage.segment import LogSegment

    clock = FakeClock()
    lm, lg, _ = make(tmp_path, clock, segment_bytes=64 * 1024)
    cleaner = LogCleaner(lm, clock=clock, threads=2, io_buffer_size=8 * 1024)
    assert cleaner.write_buffer_bytes == 2048
    expected = {}
    for i in range(120):
        value = b"v" * (5000 if i == 60 else 200)   # one batch larger than the buffer
        lg.append_as_leader(kp_batch([(b"key%d" % i, value)], timestamp=clock.ms), 0)
        expected[b"key%d" % i] = value
    lg.roll()
    lg.append_as_leader(kp_batch([(b"key0", b"newest")], timestamp=clock.ms), 0)
    expected[b"key0"] = b"newest"
    lg.update_high_watermark(lg.log_end_offset)
    writes: list[int] = []
    append = LogSegment.append

    def recording(self, pieces, batches, total=None):
        if self.log_path.endswith(".cleaned"):
            writes.append(len(pieces))
        return append(self, pieces, batches, total)
    monkeypatch.setattr(LogSegment, "append", recording)
    assert cleaner.clean_once(clock.ms, force=True)
    assert len(writes) > 10 and max(writes) > 5000 and sorted(writes)[-2] <= 2048
    assert {k: v for _, k, v in contents(lg)} == expected
    cleaner.reconfigure(2, 15000, io_buffer_size=1 << 20)
    assert cleaner.write_buffer_bytes == 256 * 1024
    lm.shutdown()
