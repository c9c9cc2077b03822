"""Property tests: reads against a model of what was appended, across rolls and reopens."""

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from kafpy.protocol.records import decode_batch, iter_batches

from .helpers import batch_of, open_log, reopen

ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 6), st.integers(1, 400)),
        st.tuples(st.just("read"), st.integers(0, 10_000), st.integers(1, 3000), st.booleans()),
        st.tuples(st.just("truncate"), st.integers(0, 10_000)),
        st.tuples(st.just("reopen"), st.booleans()),
    ),
    min_size=1, max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=ops)
def test_reads_match_model(tmp_path_factory, ops):
    tmp = tmp_path_factory.mktemp("prop")
    lg = open_log(tmp, segment_bytes=4000, index_interval_bytes=300)
    batches = []  # (base, last, size)
    for op in ops:
        if op[0] == "append":
            _, n, size = op
            info = lg.append_as_leader(batch_of(n, size=size), 0)
            assert info.first_offset == (batches[-1][1] + 1 if batches else 0)
            batches.append((info.first_offset, info.last_offset, None))
        elif op[0] == "read":
            _, raw_off, max_bytes, use_hw = op
            leo = lg.log_end_offset
            if leo == 0:
                continue
            off = raw_off % leo
            # a high watermark always sits on a batch boundary (replicas' LEOs do)
            bounds = [b for b, _, _ in batches] + [leo]
            hw = bounds[(raw_off * 7) % len(bounds)] if use_hw else None
            res = lg.read(off, max_bytes, max_offset=hw)
            if hw is not None and off >= hw:
                assert res.records is None
                continue
            assert res.records is not None
            data = res.records.read_bytes()
            hs = [h for _, h in iter_batches(data, strict=True)]
            assert hs[0].base_offset <= off <= hs[0].last_offset
            assert len(hs) == 1 or len(data) <= max_bytes
            expected = [(b, l) for b, l, _ in batches if l >= off][:len(hs)]
            assert [(h.base_offset, h.last_offset) for h in hs] == expected
            if hw is not None:
                assert hs[-1].last_offset < hw
        elif op[0] == "truncate":
            leo = lg.log_end_offset
            if leo == 0:
                continue
            target = op[1] % leo
            lg.truncate_to(target)
            # Kafka's rule: the batch holding the target goes too
            batches = [b for b in batches if b[1] < target]
            assert lg.log_end_offset == (batches[-1][1] + 1 if batches else 0) or \
                lg.log_end_offset == lg.segments[-1].base_offset
            if not batches:
                assert lg.log_end_offset <= target
        else:
            lg.update_high_watermark(lg.log_end_offset)
            lg = reopen(lg, clean=op[1], recovery_point=0)
        expected_leo = batches[-1][1] + 1 if batches else lg.log_end_offset
        assert lg.log_end_offset == expected_leo
    lg.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 25), cut=st.floats(0, 1), flip=st.one_of(st.none(), st.floats(0, 1)),
       bit=st.integers(0, 7))
def test_unclean_recovery_keeps_an_intact_prefix(tmp_path_factory, n, cut, flip, bit):
    import os

    from kafpy.storage.log import Log

    tmp = tmp_path_factory.mktemp("crash")
    lg = open_log(tmp, segment_bytes=1200, index_interval_bytes=200)
    originals = []
    for i in range(n):
        info = lg.append_as_leader(batch_of(1 + i % 3, size=60, start=i), 0)
        originals.append((info.first_offset, info.last_offset))
    for s in lg.segments:
        s.offset_index.flush()
        s.time_index.flush()
    segs = lg.segments
    victim = segs[min(int(cut * len(segs)), len(segs) - 1)]
    size = os.path.getsize(victim.log_path)
    # damage: cut the victim segment short, or flip one bit in it
    if flip is None:
        os.truncate(victim.log_path, int(size * cut))
    elif size:
        pos = min(int(size * flip), size - 1)
        starts = [p for p, _ in iter_batches(open(victim.log_path, "rb").read())]
        # the base offset, length, leader epoch, magic and CRC fields (the first 21 bytes
        # of a batch) are outside the CRC in Kafka's format: a flip there in the base
        # offset or epoch is undetectable by design (Kafka's recovery accepts it too)
        assume(not any(p <= pos < p + 21 for p in starts))
        with open(victim.log_path, "r+b") as f:
            f.seek(pos)
            b = f.read(1)[0]
            f.seek(pos)
            f.write(bytes([b ^ (1 << bit)]))
    lg2 = Log(lg.dir, lg.config, clock=lg.clock, recovery_point=0, needs_recovery=True)
    leo = lg2.log_end_offset
    got = []
    off = lg2.log_start_offset
    while off < leo:
        res = lg2.read(off, 1 << 20)
        assert res.records is not None
        data = res.records.read_bytes()
        for pos, h in iter_batches(data, strict=True):
            decode_batch(data, pos)  # CRC and records intact
            got.append((h.base_offset, h.last_offset))
        off = got[-1][1] + 1
    # what survives is original batches, in order, ending at the LEO
    assert all(g in originals for g in got) and got == sorted(got)
    assert leo == (got[-1][1] + 1 if got else lg2.segments[-1].base_offset)
    if victim is segs[-1]:
        # a torn tail (the crash case): exactly a prefix survives
        assert got == originals[:len(got)]
    assert lg2.append_as_leader(batch_of(1), 0).first_offset == leo
