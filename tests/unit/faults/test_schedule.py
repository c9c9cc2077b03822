"""Fault schedules: a kept seed draws the same faults after a kind is added (issue 15)."""
from __future__ import annotations

import argparse

import pytest

from tests.faults.__main__ import parse_kinds
from tests.faults.faults import (DURATIONS, KIND_LISTS, KINDS, KINDS_BEFORE_SLOW_DISK, kinds_for,
                                 schedule)
from tests.faults.regressions import CI_SEEDS, KINDS_FOUND_WITH, OPEN, REGRESSIONS

# (kind, at, duration) of kept seeds' schedules as they were drawn when each was found
KEPT = {
    8: [("isolate_peers", 0.23, 7.9), ("kill_leader", 2.01, 2.68)],
    46: [("disk_full", 0.89, 7.27), ("kill_leader", 3.39, 2.44)],
    107: [("pause", 0.25, 8.82), ("kill_controller", 10.62, 5.99), ("kill_zookeeper", 13.0, 3.15)],
    281: [("isolate_all", 0.02, 8.8), ("disk_full", 8.82, 8.13)],
}


@pytest.mark.parametrize("seed", sorted(KEPT))
def test_kept_seeds_draw_the_schedule_they_were_found_with(seed):
    assert [(f.kind, f.at, f.duration) for f in schedule(seed, 6.0, kinds=kinds_for(seed))] == KEPT[seed]


def test_every_kept_seed_names_a_known_list_and_never_draws_slow_disk_before_it_existed():
    assert set(KINDS_FOUND_WITH.values()) <= set(KIND_LISTS)
    for seed in (*REGRESSIONS, *OPEN, *CI_SEEDS):
        kinds = kinds_for(seed)
        assert kinds == KIND_LISTS[KINDS_FOUND_WITH.get(seed, "before_slow_disk")]
        assert {f.kind for f in schedule(seed, 6.0, kinds=kinds)} <= set(kinds)


def test_new_seeds_draw_from_every_kind_and_the_old_list_lacks_only_slow_disk():
    assert kinds_for(100_000) == KINDS == sorted(DURATIONS)
    assert set(KINDS) - set(KINDS_BEFORE_SLOW_DISK) == {"slow_disk"}
    assert len(KINDS_BEFORE_SLOW_DISK) == len(KINDS) - 1
    drawn = {f.kind for seed in range(200) for f in schedule(seed, 6.0)}
    assert drawn == set(KINDS)


def test_kinds_option_takes_a_list_name_or_kinds():
    assert parse_kinds(None) is None
    assert parse_kinds("before_slow_disk") == KINDS_BEFORE_SLOW_DISK
    assert parse_kinds("slow_disk,pause") == ["slow_disk", "pause"]
    with pytest.raises(argparse.ArgumentTypeError, match="slow_dsk"):
        parse_kinds("slow_dsk")
