"""A simulated network and clock for RaftCore nodes: messages are delivered after a seeded
random delay, may be dropped, are cut by partitions; nodes crash and restart from what they
would have on disk (the quorum-state file's bytes and their log). Used by the election,
replication and simulation tests."""
from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Callable

from kafpy.protocol.messages import (
    AddRaftVoterRequest, ApiVersionsRequest, ApiVersionsResponse, RemoveRaftVoterRequest,
)
from kafpy.raft import raft_messages as msg
from kafpy.raft import voter_changes
from kafpy.raft.leader_state import LeaderState
from kafpy.raft.memory_log import Entry, MemoryReplicatedLog
from kafpy.raft.quorum_config import QuorumConfig
from kafpy.raft.quorum_state_store import MemoryQuorumStateStore
from kafpy.raft.raft_core import RaftCore
from kafpy.raft.voter_set import Endpoint

CLUSTER_ID = "sim-cluster-AAAAAAAAAA"
# what a controller answers ApiVersions with, as far as the raft layer asks (kraft.version)
API_VERSIONS = ApiVersionsResponse(error_code=0, supported_features=[
    ApiVersionsResponse.SupportedFeatureKey(name="kraft.version", min_version=0, max_version=1)])


@dataclass(order=True)
class Message:
    deliver_at: int
    seq: int
    source: int = field(compare=False)
    destination: int = field(compare=False)
    correlation_id: int = field(compare=False)
    api_key: int = field(compare=False)
    request: msg.RaftRequestData | None = field(compare=False, default=None)
    response: msg.RaftResponseData | None = field(compare=False, default=None)
    incarnation: int = field(compare=False, default=0)  # of the node that sent the request


class CheckedLog(MemoryReplicatedLog):
    """Remembers the lowest offset it was truncated to since the last look."""

    def __init__(self) -> None:
        super().__init__()
        self.lowest_truncation: int | None = None

    def truncate_to(self, offset: int) -> None:
        if offset < self.end_offset():
            low = self.lowest_truncation
            self.lowest_truncation = offset if low is None else min(low, offset)
        super().truncate_to(offset)


class SimNode:
    """One node: its disk (store bytes, log) outlives its RaftCore across restarts."""

    def __init__(self, node_id: int, voters: frozenset[int], config: QuorumConfig, seed: int) -> None:
        self.node_id = node_id
        self.voters = voters
        self.config = config
        self.store = MemoryQuorumStateStore()
        self.log = CheckedLog()
        self.seed = seed
        self.restarts = 0
        self.core: RaftCore | None = None
        self.directory_id: bytes | None = None  # a dynamic quorum's voters have one
        self.local_endpoints: tuple[Endpoint, ...] = ()  # its listeners, as a voter set holds them

    def start(self, now_ms: int) -> None:
        self.core = RaftCore(self.node_id, self.voters, self.log, self.store, now_ms=now_ms,
                             cluster_id=CLUSTER_ID, config=self.config,
                             rng=random.Random(self.seed * 1000 + self.restarts),
                             directory_id=self.directory_id, local_endpoints=self.local_endpoints)
        self.restarts += 1

    def crash(self) -> None:
        self.core = None
        # The file's bytes are all that survive: reload them as a fresh store would.
        self.store = MemoryQuorumStateStore(self.store.data)

    @property
    def up(self) -> bool:
        return self.core is not None


class Simulation:
    """Voters 1..n plus observers; ``step`` advances the clock by ``tick_ms``."""

    def __init__(self, voters: int, observers: int = 0, seed: int = 0, *, drop_rate: float = 0.0,
                 max_delay_ms: int = 5, tick_ms: int = 5, config: QuorumConfig = QuorumConfig()) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.now = 0
        self.tick_ms = tick_ms
        self.drop_rate = drop_rate
        self.max_delay_ms = max_delay_ms
        voter_ids = frozenset(range(1, voters + 1))
        ids = list(range(1, voters + observers + 1))
        self.nodes = {i: SimNode(i, voter_ids, config, seed * 100 + i) for i in ids}
        self.queue: list[Message] = []
        self._seq = 0
        self.cut: set[frozenset[int]] = set()
        self.delivered: list[Message] | None = None  # a list: every message delivered is added
        self.api_versions: dict[int, ApiVersionsResponse] = {}  # a node's own answer, else API_VERSIONS
        self._voter_changes: list[tuple[voter_changes.VoterChangeResponse | voter_changes.PendingVoterChange,
                                        Message]] = []
        for node in self.nodes.values():
            node.start(self.now)

    # -- faults ----------------------------------------------------------------------------

    def partition(self, *groups: set[int]) -> None:
        """Cut every link between the groups (nodes not named stay connected to all)."""
        self.cut = {frozenset((a, b)) for g in groups for h in groups if g is not h
                    for a in g for b in h}

    def heal(self) -> None:
        self.cut = set()

    def connected(self, a: int, b: int) -> bool:
        return frozenset((a, b)) not in self.cut

    # -- the loop --------------------------------------------------------------------------

    def _enqueue(self, m: Message) -> None:
        if self.rng.random() < self.drop_rate:
            return
        heapq.heappush(self.queue, m)

    def _delay(self) -> int:
        return self.rng.randint(1, self.max_delay_ms)

    def step(self) -> None:
        self.now += self.tick_ms
        while self.queue and self.queue[0].deliver_at <= self.now:
            m = heapq.heappop(self.queue)
            node = self.nodes[m.destination]
            if node.core is None or not self.connected(m.source, m.destination):
                continue
            if self.delivered is not None:
                self.delivered.append(m)
            if isinstance(m.request, AddRaftVoterRequest):
                self._voter_changes.append((voter_changes.handle_add_voter(node.core, m.request, m.deliver_at), m))
            elif isinstance(m.request, RemoveRaftVoterRequest):
                self._voter_changes.append((voter_changes.handle_remove_voter(node.core, m.request, m.deliver_at), m))
            elif m.request is not None:
                response = self.api_versions.get(m.destination, API_VERSIONS) \
                    if isinstance(m.request, ApiVersionsRequest) \
                    else node.core.handle_request(m.source, m.api_key, m.request, m.deliver_at)
                self._seq += 1
                self._enqueue(Message(m.deliver_at + self._delay(), self._seq, m.destination, m.source,
                                      m.correlation_id, m.api_key, response=response,
                                      incarnation=m.incarnation))
            elif m.response is not None and m.incarnation == node.restarts:
                node.core.handle_response(m.source, m.correlation_id, m.response, m.deliver_at)
        self._answer_voter_changes()
        for node in self.nodes.values():
            if node.core is None:
                continue
            for out in node.core.poll(self.now):
                self._seq += 1
                self._enqueue(Message(self.now + self._delay(), self._seq, node.node_id, out.destination,
                                      out.correlation_id, out.api_key, request=out.data,
                                      incarnation=node.restarts))

    def _answer_voter_changes(self) -> None:
        """AddRaftVoter / RemoveRaftVoter are answered when the leader's change is done (the
        raft client's part in a real node)."""
        waiting = []
        for result, m in self._voter_changes:
            response = result.response if isinstance(result, voter_changes.PendingVoterChange) else result
            if response is None:
                waiting.append((result, m))
                continue
            self._seq += 1
            self._enqueue(Message(self.now + self._delay(), self._seq, m.destination, m.source, m.correlation_id,
                                  m.api_key, response=response, incarnation=m.incarnation))
        self._voter_changes = waiting

    def run(self, ms: int) -> None:
        for _ in range(ms // self.tick_ms):
            self.step()

    def run_until(self, predicate: Callable[[], bool], timeout_ms: int) -> bool:
        for _ in range(timeout_ms // self.tick_ms):
            if predicate():
                return True
            self.step()
        return bool(predicate())

    # -- views -----------------------------------------------------------------------------

    def leaders(self) -> list[SimNode]:
        return [n for n in self.nodes.values() if n.core is not None and n.core.is_leader()]

    def leader(self) -> SimNode | None:
        """The leader of the highest epoch, if any."""
        best = sorted(self.leaders(), key=lambda n: n.core.epoch if n.core else -1)
        return best[-1] if best else None

    def has_stable_leader(self) -> bool:
        """A leader that every live, connected voter follows in its epoch."""
        leader = self.leader()
        if leader is None or leader.core is None:
            return False
        for n in self.nodes.values():
            if n is leader or n.core is None or not self.connected(n.node_id, leader.node_id):
                continue
            if n.core.quorum.leader_id() != leader.node_id or n.core.epoch != leader.core.epoch:
                return False
        return True

    def entries(self, node_id: int) -> list[Entry]:
        return self.nodes[node_id].log.entries


def leader_state(node: SimNode) -> LeaderState:
    assert node.core is not None and isinstance(node.core.quorum.state, LeaderState)
    return node.core.quorum.state
