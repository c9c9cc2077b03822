"""Truncation by leader epoch: the rule itself over a scripted follower log, then Kafka's
EpochDrivenReplicationProtocolAcceptanceTest cases over two real storage Logs (leader and
follower, roles swapped on each leader change) with the fetcher driven against an
in-memory leader, both with truncation on fetch (diverging_epoch) and with
OffsetsForLeaderEpoch."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

import pytest

from kafpy.replication.fetch_state import BrokerEndPoint, FetchState, InitialFetchState, ReplicaFetcherConfig
from kafpy.replication.fetcher import FetcherCore
from kafpy.replication.fetcher_thread import ReplicaFetcherThread
from kafpy.replication.follower_log import UNDEFINED_EPOCH, FollowerLog, StorageFollowerLog
from kafpy.replication.truncation import OffsetTruncationState, offset_truncation_state, truncate
from kafpy.protocol.message_base import ZERO_UUID

from .in_memory_leader import TP, InMemoryLeader, append, batches, become_leader, open_log


class ScriptedLog:
    """A follower log of (epoch, start offset) entries and a log end offset."""

    def __init__(self, epochs: list[tuple[int, int]], leo: int) -> None:
        self.epochs = epochs
        self.log_end_offset = leo
        self.truncated_to: list[int] = []

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int] | None:
        below = [(e, s) for e, s in self.epochs if e <= epoch]
        if not below:
            return None
        e, _ = below[-1]
        later = [s for x, s in self.epochs if x > e]
        return e, later[0] if later else self.log_end_offset

    def truncate_to(self, offset: int) -> None:
        self.truncated_to.append(offset)
        self.log_end_offset = offset


@pytest.mark.parametrize("leader, expected", [
    ((2, 7), OffsetTruncationState(7, True)),     # follower has epoch 2, which ends at 9 locally: leader's end wins
    ((2, 12), OffsetTruncationState(9, True)),    # leader's epoch 2 goes further: the follower's end of it
    ((3, 9), OffsetTruncationState(9, False)),    # follower has no epoch 3: its end of epoch 2, then ask again
    ((-1, 4), OffsetTruncationState(4, True)),    # no epoch in the answer (v0): min(leader end, LEO)
    ((5, -1), OffsetTruncationState(6, True)),    # leader knows no such epoch: the initial fetch offset (HW)
])
def test_rule(leader: tuple[int, int], expected: OffsetTruncationState) -> None:
    replica = ScriptedLog([(0, 0), (2, 5), (4, 9)], leo=12)
    log = cast(FollowerLog, replica)   # it has what truncation reads of one
    assert offset_truncation_state(log, leader[0], leader[1], initial_fetch_offset=6) == expected


def test_follower_without_an_epoch_that_old_takes_the_leaders_offset_and_truncate_is_a_no_op_at_the_end() -> None:
    replica = ScriptedLog([(3, 10)], leo=15)
    log = cast(FollowerLog, replica)   # it has what truncation reads of one
    assert offset_truncation_state(log, 1, 8, initial_fetch_offset=10) == OffsetTruncationState(8, True)
    # at the end nothing goes, but the log is still asked (it drops epochs starting there)
    assert not truncate(log, OffsetTruncationState(15, True)) and replica.truncated_to == [15]
    assert truncate(log, OffsetTruncationState(8, True)) and replica.truncated_to == [15, 8]


# --------------------------------------------------------------------------- two real logs
CONFIG = dict(replica_id=1, backoff_ms=1, max_wait_ms=0)


class Replicas:
    """Two logs, "a" and "b", that take turns leading; ``follow`` runs the real fetcher
    of the follower against the leader until both agree, checking on every round that the
    follower's HW never goes back and never covers an offset the leader does not have."""

    def __init__(self, base: Path, truncate_on_fetch: bool) -> None:
        self.logs = {"a": open_log(base, "a"), "b": open_log(base, "b")}
        self.truncate_on_fetch = truncate_on_fetch
        self.truncations: list[int] = []

    def lead(self, name: str, epoch: int, *values: bytes) -> None:
        log = self.logs[name]
        become_leader(log, epoch)
        for v in values:
            append(log, epoch, v)

    def follow(self, follower: str, leader: str, epoch: int, check_hw: bool = True, max_bytes: int = 1 << 20,
               rounds: int = 50, converge: bool = True) -> InMemoryLeader:
        """``rounds`` fetcher rounds at most; with ``converge`` they must end in agreement."""
        return asyncio.run(self._follow(follower, leader, epoch, check_hw, max_bytes, rounds, converge))

    async def _follow(self, follower: str, leader: str, epoch: int, check_hw: bool, max_bytes: int,
                      rounds: int, converge: bool) -> InMemoryLeader:
        f, l_ = self.logs[follower], self.logs[leader]
        config = ReplicaFetcherConfig(truncate_on_fetch=self.truncate_on_fetch, fetch_max_bytes=max_bytes, **CONFIG)
        core = FetcherCore(config, lambda tp: StorageFollowerLog(f) if tp == TP else None)
        endpoint = InMemoryLeader({TP: l_}, epoch)
        thread = ReplicaFetcherThread(0, BrokerEndPoint(0, "leader", 9092), endpoint, core)
        init = f.log_end_offset if (self.truncate_on_fetch and f.leader_epoch_cache.latest_epoch >= 0) \
            else f.high_watermark
        core.add_partitions({TP: InitialFetchState(thread.source, ZERO_UUID, init, epoch)})
        hw = f.high_watermark
        for _ in range(rounds):
            await thread.maybe_truncate()
            await thread.maybe_fetch()
            if check_hw:
                assert f.high_watermark >= hw, "the follower's high watermark went back"
                exposed = [b for b in batches(f) if b[0] < f.high_watermark]
                assert exposed == [b for b in batches(l_) if b[0] < f.high_watermark]
            hw = f.high_watermark
            state = core.states[TP]
            if (state.state is FetchState.FETCHING and state.fetch_offset == f.log_end_offset == l_.log_end_offset
                    and f.high_watermark == l_.high_watermark == l_.log_end_offset):
                break
        else:
            assert not converge, f"no agreement after {rounds} rounds: {core.states[TP]}"
        await thread.shutdown()
        return endpoint

    def epochs(self, name: str) -> list[tuple[int, int]]:
        return self.logs[name].leader_epoch_cache.entries()

    def assert_identical(self) -> None:
        a, b = batches(self.logs["a"]), batches(self.logs["b"])
        assert a == b and a


@pytest.fixture(params=[True, False], ids=["truncate-on-fetch", "offsets-for-leader-epoch"])
def replicas(request: pytest.FixtureRequest, tmp_path: Path) -> Replicas:
    return Replicas(tmp_path, request.param)


def test_should_follow_leader_epoch_basic_workflow(replicas: Replicas) -> None:
    replicas.lead("a", 0, b"m0")
    replicas.follow("b", "a", 0)
    assert replicas.epochs("a") == replicas.epochs("b") == [(0, 0)]
    replicas.lead("b", 1, b"m1")          # a bounced: b leads in epoch 1
    replicas.follow("a", "b", 1)
    assert replicas.epochs("a") == replicas.epochs("b") == [(0, 0), (1, 1)]
    replicas.lead("a", 2, b"m2")          # b bounced
    replicas.follow("b", "a", 2)
    assert replicas.epochs("a") == replicas.epochs("b") == [(0, 0), (1, 1), (2, 2)]
    replicas.assert_identical()


def test_should_not_allow_divergent_logs(replicas: Replicas) -> None:
    """KIP-101's case: the follower's HW covered an offset the new leader lost (unflushed
    when it crashed); HW-based truncation would keep the old record there."""
    replicas.lead("a", 0, b"m0")
    replicas.follow("b", "a", 0)
    append(replicas.logs["a"], 0, b"m1")          # b fetched it, then lost it in a crash
    replicas.logs["a"].update_high_watermark(2)
    replicas.lead("b", 1, b"m2")                  # b leads, writes m2 at offset 1
    replicas.follow("a", "b", 1, check_hw=False)
    replicas.assert_identical()
    assert [v for _, _, v in batches(replicas.logs["a"])][1] == batches(replicas.logs["b"])[1][2]
    assert replicas.epochs("a") == [(0, 0), (1, 1)]


def test_offsets_should_not_go_backwards(replicas: Replicas) -> None:
    """Leaders change while followers are behind (one small batch per fetch, two rounds):
    every follower round keeps its HW monotonic and never exposes a record the leader does
    not have; the leader's unreplicated tail is truncated when it follows again."""
    names = ("a", "b")
    for epoch in range(6):
        leader, follower = names[epoch % 2], names[1 - epoch % 2]
        replicas.lead(leader, epoch, *(b"%d-%d" % (epoch, i) for i in range(3)))
        replicas.follow(follower, leader, epoch, max_bytes=1, rounds=2, converge=False)
        assert replicas.logs[follower].log_end_offset < replicas.logs[leader].log_end_offset
    replicas.follow("a", "b", 5)
    replicas.assert_identical()
    assert [e for e, _ in replicas.epochs("a")] == [0, 1, 2, 3, 4, 5]


def test_should_survive_fast_leader_change(replicas: Replicas) -> None:
    """KIP-279: the follower's epochs interleave with the leader's, so it must truncate
    in two steps (to the end of its epoch 1, then of epoch 0) before fetching."""
    replicas.lead("a", 0, b"a0", b"a1")
    replicas.follow("b", "a", 0)
    replicas.lead("b", 1, b"b2")                  # a did not see epoch 1
    replicas.lead("a", 2, b"a2", b"a3")           # nor b epoch 2
    replicas.lead("b", 3, b"b3", b"b4")
    replicas.lead("a", 4, b"a4", b"a5")
    assert replicas.epochs("a") == [(0, 0), (2, 2), (4, 4)]
    assert replicas.epochs("b") == [(0, 0), (1, 2), (3, 3)]
    endpoint = replicas.follow("b", "a", 4)
    replicas.assert_identical()
    assert replicas.epochs("b") == [(0, 0), (2, 2), (4, 4)]
    if replicas.truncate_on_fetch:
        assert [p.partitions[TP].last_fetched_epoch for p in endpoint.fetches[:3]] == [3, 1, 0]
        assert endpoint.epoch_requests == []
    else:
        assert [r[TP] for r in endpoint.epoch_requests] == [(4, 3), (4, 1)]
        assert all(p.partitions[TP].last_fetched_epoch == UNDEFINED_EPOCH for p in endpoint.fetches)


def test_a_leader_that_appended_nothing_in_its_epoch_drops_that_epoch_when_it_follows(replicas: Replicas) -> None:
    """Fault seeds 259 and 271: b led epoch 1 without appending, so its cache ends with (1, 2)
    at its log end, an epoch the next leader never had. Following a in epoch 2, b is told to
    truncate to 2, its log end: nothing goes but that entry, else its next fetch names epoch 1
    again, gets the same diverging epoch, and so on for ever."""
    replicas.lead("a", 0, b"m0", b"m1")
    replicas.follow("b", "a", 0)
    replicas.lead("b", 1)                         # cut off before any write
    assert replicas.epochs("b") == [(0, 0), (1, 2)]
    replicas.lead("a", 2, b"m2")
    endpoint = replicas.follow("b", "a", 2)
    replicas.assert_identical()
    assert replicas.epochs("b") == replicas.epochs("a") == [(0, 0), (2, 2)]
    if replicas.truncate_on_fetch:
        assert [p.partitions[TP].last_fetched_epoch for p in endpoint.fetches[:2]] == [1, 0]


def test_truncating_at_or_past_the_log_end_drops_only_epochs_starting_there(tmp_path: Path) -> None:
    """As Kafka's UnifiedLog.truncateTo: no record goes, the entries starting at the log end do."""
    log = open_log(tmp_path, "l")
    append(log, 0, b"m0")
    become_leader(log, 3)
    assert log.leader_epoch_cache.entries() == [(0, 0), (3, 1)]
    assert not log.truncate_to(5) and log.leader_epoch_cache.entries() == [(0, 0)]
    become_leader(log, 4)
    append(log, 4, b"m1")
    assert not log.truncate_to(2) and log.leader_epoch_cache.entries() == [(0, 0), (4, 1)]
    assert log.log_end_offset == 2


def test_log_without_epochs_truncates_to_its_high_watermark(tmp_path: Path) -> None:
    """Logs written without leader epochs (batches of epoch -1) have nothing to ask the
    leader about: the follower truncates to its HW, then fetches."""
    reps = Replicas(tmp_path, truncate_on_fetch=True)
    a, b = reps.logs["a"], reps.logs["b"]
    append(a, -1, b"p0")
    append(a, -1, b"p1")
    reps.follow("b", "a", 0)
    assert b.high_watermark == 2 and b.leader_epoch_cache.latest_epoch == UNDEFINED_EPOCH
    append(b, -1, b"stray")          # written by b alone, never replicated
    append(a, -1, b"p2")
    endpoint = reps.follow("b", "a", 0)
    reps.assert_identical()
    assert endpoint.epoch_requests == [] and endpoint.fetches[0].partitions[TP].fetch_offset == 2
