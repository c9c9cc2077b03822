from kafpy.storage.leader_epoch import LeaderEpochFileCache


def make(tmp_path, leo):
    return LeaderEpochFileCache(str(tmp_path / "leader-epoch-checkpoint"), lambda: leo[0])


def test_assign_and_end_offsets(tmp_path):
    leo = [0]
    c = make(tmp_path, leo)
    assert c.end_offset_for(0) == (-1, -1)
    c.assign(1, 0)
    c.assign(1, 5)  # same epoch: ignored
    c.assign(3, 10)
    c.assign(2, 20)  # older epoch: ignored
    c.assign(5, 30)
    leo[0] = 45
    assert c.entries() == [(1, 0), (3, 10), (5, 30)]
    assert c.end_offset_for(5) == (5, 45)
    assert c.end_offset_for(3) == (3, 30)
    assert c.end_offset_for(4) == (3, 30)  # unknown epoch between: floor epoch, next start
    assert c.end_offset_for(0) == (0, 0)  # below every epoch
    assert c.end_offset_for(9) == (-1, -1)
    assert c.epoch_for_offset(12) == 3 and c.epoch_for_offset(0) == 1
    assert make(tmp_path, leo).entries() == c.entries()  # persisted


def test_truncation(tmp_path):
    c = make(tmp_path, [100])
    for e, o in [(0, 0), (1, 10), (2, 20)]:
        c.assign(e, o)
    c.truncate_from_end(15)
    assert c.entries() == [(0, 0), (1, 10)]
    c.truncate_from_start(12)
    assert c.entries() == [(1, 12)]
    c.truncate_from_start(5)
    assert c.entries() == [(1, 12)]
