"""Raft's safety promises checked on the ``__cluster_metadata-0`` logs of every node of a
KRaft quorum, after a run with faults (the fault suite's metadata checker).

Read from the nodes' segment files (read-only; a partial batch at a running node's tail is
left out), each batch is reduced to a ``LogEntry``: offsets, epoch, CRC, and the leader a
LeaderChange control record names. ``check_logs`` then reports, in words:

- two leaders in one epoch (LeaderChange records of the same epoch naming different nodes);
- a break of Raft's log matching: two nodes hold a batch at the same offset and epoch but
  different bytes, or agree on a batch and differ before it;
- a committed record lost: below the highest high watermark seen during the run, a batch not
  on a majority of the nodes; with ``converged`` (every node caught up after the faults),
  a node whose log below that watermark differs from the others'."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kafpy.protocol.batch_header import iter_batches
from kafpy.protocol.messages import LeaderChangeMessage
from kafpy.protocol.record_decoder import decode_records
from kafpy.raft.control_records import decode_control_record


@dataclass(frozen=True)
class LogEntry:
    """One batch of a node's metadata log."""

    base_offset: int
    last_offset: int
    epoch: int
    crc: int
    leader_id: int | None = None  # the leader a LeaderChange record in it names

    @property
    def key(self) -> tuple[int, int, int, int]:
        return (self.base_offset, self.last_offset, self.epoch, self.crc)


def read_log_entries(partition_dir: Path) -> list[LogEntry]:
    """The batches of every segment of ``partition_dir`` in offset order (a tail batch still
    being written is left out)."""
    entries: list[LogEntry] = []
    for segment in sorted(partition_dir.glob("*.log")):
        data = segment.read_bytes()
        for pos, header in iter_batches(data):
            leader = None
            if header.is_control:
                for record in decode_records(data, pos, header):
                    control = decode_control_record(record)
                    if isinstance(control.message, LeaderChangeMessage):
                        leader = control.message.leader_id
            entries.append(LogEntry(header.base_offset, header.last_offset, header.partition_leader_epoch,
                                    header.crc, leader))
    return entries


def _by_offset(entries: list[LogEntry]) -> dict[int, LogEntry]:
    return {e.base_offset: e for e in entries}


def check_logs(logs: Mapping[int, list[LogEntry]], high_watermark: int, *, converged: bool = False) -> list[str]:
    """The violations found in the nodes' logs (node id -> entries); ``high_watermark`` is the
    highest one a leader reported during the run. An empty list means none."""
    problems: list[str] = []
    leaders: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for node, entries in logs.items():
        for e in entries:
            if e.leader_id is not None:
                leaders[e.epoch].add((e.leader_id, node))
    for epoch, named in sorted(leaders.items()):
        ids = {leader for leader, _ in named}
        if len(ids) > 1:
            problems.append(f"epoch {epoch} has two leaders: {sorted(named)} (leader, seen on node)")

    indexed = {node: _by_offset(entries) for node, entries in logs.items()}
    nodes = sorted(logs)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            problems += _log_matching(a, logs[a], b, indexed[b])

    committed: dict[int, Counter[tuple[int, int, int, int]]] = defaultdict(Counter)
    for node in nodes:
        for e in logs[node]:
            if e.last_offset < high_watermark:
                committed[e.base_offset][e.key] += 1
    majority = len(nodes) // 2 + 1
    for offset in sorted(committed):
        key, count = committed[offset].most_common(1)[0]
        if count < majority:
            problems.append(f"committed batch at offset {offset} is on {count} of {len(nodes)} nodes only")
        if converged:
            for node in nodes:
                held = indexed[node].get(offset)
                starts = logs[node][0].base_offset if logs[node] else 0
                if offset >= starts and (held is None or held.key != key):
                    problems.append(f"node {node} differs from the majority at committed offset {offset}: "
                                    f"{held} instead of {key}")
    return problems


def _log_matching(a: int, a_entries: list[LogEntry], b: int, b_index: dict[int, LogEntry]) -> list[str]:
    """Raft's log matching between two nodes: the last batch they share (same offset and
    epoch) is the same bytes, and so is every batch before it that both hold."""
    last_shared = None
    for e in a_entries:
        other = b_index.get(e.base_offset)
        if other is not None and other.epoch == e.epoch:
            if other.key != e.key:
                return [f"nodes {a} and {b} hold different batches at offset {e.base_offset} in epoch {e.epoch}"]
            last_shared = e.base_offset
    if last_shared is None:
        return []
    for e in a_entries:
        if e.base_offset >= last_shared:
            break
        other = b_index.get(e.base_offset)
        if other is not None and other.key != e.key:
            return [f"nodes {a} and {b} agree at offset {last_shared} but differ before it, at {e.base_offset}"]
    return []
