"""A deterministic simulation of the consensus core: 3 and 5 voters plus an observer on a
simulated network and clock, seeded randomness, dropped and delayed messages, partitions and
node restarts (each node restarts from its quorum-state bytes and its log). Every step checks:

* at most one leader per epoch;
* a committed entry (below a high watermark) is never lost or changed on a node that holds it,
  and every leader elected after it was committed has it;
* every node's log up to its high watermark is the committed prefix (so the logs of any two
  nodes agree up to the smaller high watermark);
* after the faults stop, a leader is elected and commits a new entry within a bound.

A failing run names its seed (``pytest -k 'seed-N'`` replays it)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from kafpy.raft.epoch_state import ResignedState
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.quorum_config import QuorumConfig
from tests.unit.raft.sim import SimNode, Simulation

# Timeouts a few times shorter than Kafka's defaults, so that a run sees many elections.
FAST = QuorumConfig(election_timeout_ms=300, election_backoff_max_ms=300, fetch_timeout_ms=600,
                    request_timeout_ms=600)
FAULT_PHASE_MS = 20_000
RECOVERY_BOUND_MS = 20_000


@dataclass
class Checker:
    """What the invariants remember between steps."""

    seed: int
    leader_of_epoch: dict[int, int] = field(default_factory=dict)
    committed: list[tuple[int, bytes]] = field(default_factory=list)
    commit_epoch: list[int] = field(default_factory=list)  # the epoch whose HW covered it first
    verified: dict[int, int] = field(default_factory=dict)  # committed prefix each node holds
    leading: set[tuple[int, int]] = field(default_factory=set)  # (node, epoch) seen as leader

    def fail(self, sim: Simulation, what: str) -> None:
        states = {n.node_id: (None if n.core is None else (n.core.quorum.state.name, n.core.epoch,
                  n.log.end_offset(), n.core.high_watermark())) for n in sim.nodes.values()}
        pytest.fail(f"seed={self.seed} t={sim.now}ms: {what}; nodes={states}")

    def check(self, sim: Simulation) -> None:
        for node in sim.nodes.values():
            self._check_truncation(sim, node)
        for node in sim.nodes.values():
            if node.core is None:
                continue
            state = node.core.quorum.state
            if isinstance(state, (LeaderState, ResignedState)):
                other = self.leader_of_epoch.setdefault(state.epoch, node.node_id)
                if other != node.node_id:
                    self.fail(sim, f"two leaders in epoch {state.epoch}: {other} and {node.node_id}")
            self._record_committed(sim, node)
        for node in sim.nodes.values():
            self._extend_verified(sim, node)
        for node in sim.nodes.values():
            if node.core is not None and isinstance(node.core.quorum.state, LeaderState):
                key = (node.node_id, node.core.epoch)
                if key not in self.leading:
                    self.leading.add(key)
                    self._check_leader_completeness(sim, node)

    def _check_truncation(self, sim: Simulation, node: SimNode) -> None:
        low = node.log.lowest_truncation
        node.log.lowest_truncation = None
        held = self.verified.get(node.node_id, 0)
        if low is not None and low < held:
            self.fail(sim, f"node {node.node_id} truncated to {low}, losing committed entries below {held}")

    def _record_committed(self, sim: Simulation, node: SimNode) -> None:
        assert node.core is not None
        hw = node.core.high_watermark()
        if hw is None:
            return
        entries = node.log.entries
        if hw > len(entries):
            self.fail(sim, f"node {node.node_id} has HW {hw} past its log end {len(entries)}")
        for k in range(len(self.committed), hw):
            self.committed.append((entries[k].epoch, entries[k].payload))
            self.commit_epoch.append(node.core.epoch)

    def _extend_verified(self, sim: Simulation, node: SimNode) -> None:
        entries = node.log.entries
        k = self.verified.get(node.node_id, 0)
        limit = min(len(entries), len(self.committed))
        while k < limit and (entries[k].epoch, entries[k].payload) == self.committed[k]:
            k += 1
        self.verified[node.node_id] = k
        hw = None if node.core is None else node.core.high_watermark()
        if hw is not None and k < hw:
            self.fail(sim, f"node {node.node_id}'s log differs from the committed entries at {k}, "
                           f"below its HW {hw}")

    def _check_leader_completeness(self, sim: Simulation, node: SimNode) -> None:
        assert node.core is not None
        epoch = node.core.epoch
        need = sum(1 for e in self.commit_epoch if e < epoch)
        if self.verified.get(node.node_id, 0) < need:
            self.fail(sim, f"leader {node.node_id} of epoch {epoch} lacks committed entries "
                           f"(holds {self.verified.get(node.node_id, 0)} of {need})")


def run(voters: int, seed: int) -> Checker:
    sim = Simulation(voters, observers=1, seed=seed, drop_rate=0.05, max_delay_ms=25, tick_ms=5, config=FAST)
    rng = sim.rng
    checker = Checker(seed)
    counter = 0
    next_fault = 1_000
    all_ids = list(sim.nodes)
    while sim.now < FAULT_PHASE_MS:
        sim.step()
        for leader in sim.leaders():
            if leader.core is not None and rng.random() < 0.1:
                counter += 1
                leader.core.append([b"n%d-%d" % (leader.node_id, counter)], sim.now)
        if sim.now >= next_fault:
            next_fault = sim.now + rng.randint(300, 2_500)
            fault = rng.random()
            down = [n for n in sim.nodes.values() if not n.up]
            current = sim.leader()
            if fault < 0.25:
                side = set(rng.sample(all_ids, rng.randint(1, len(all_ids) - 1)))
                sim.partition(side, set(all_ids) - side)
            elif fault < 0.4 and current is not None:  # cut the leader off alone
                sim.partition({current.node_id}, set(all_ids) - {current.node_id})
            elif fault < 0.55:
                sim.heal()
            elif fault < 0.8 and len(down) < (voters - 1) // 2 + 1:
                victim = current if current is not None and rng.random() < 0.5 else sim.nodes[rng.choice(all_ids)]
                if victim.up:
                    victim.crash()
            else:
                for n in down:
                    n.start(sim.now)
        checker.check(sim)
    # Faults stop: everyone back, links healed. A leader must come, and commit.
    sim.heal()
    for n in sim.nodes.values():
        if not n.up:
            n.start(sim.now)
    deadline = sim.now + RECOVERY_BOUND_MS
    while not sim.has_stable_leader():
        if sim.now >= deadline:
            checker.fail(sim, f"no leader {RECOVERY_BOUND_MS} ms after the partitions healed")
        sim.step()
        checker.check(sim)
    # A new entry gets committed on every node (re-appended if leadership moves meanwhile).
    attempt = 0
    next_append = sim.now
    while True:
        finals = [k for k, (_, payload) in enumerate(checker.committed) if payload.startswith(b"final")]
        if finals and all(n.core is not None and (n.core.high_watermark() or 0) > finals[0]
                          for n in sim.nodes.values()):
            break
        if sim.now >= deadline:
            checker.fail(sim, "no new entry was committed everywhere in time")
        current = sim.leader()
        if current is not None and current.core is not None and sim.now >= next_append:
            attempt += 1
            current.core.append([b"final-%d" % attempt], sim.now)
            next_append = sim.now + 500
        sim.step()
        checker.check(sim)
    return checker


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(6)])
def test_three_voters_and_an_observer(seed: int) -> None:
    checker = run(3, seed)
    assert len(checker.leader_of_epoch) >= 1 and len(checker.committed) > 10


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(100, 104)])
def test_five_voters_and_an_observer(seed: int) -> None:
    checker = run(5, seed)
    assert len(checker.leader_of_epoch) >= 1 and len(checker.committed) > 10
