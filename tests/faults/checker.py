"""Checks a fault run's History against Kafka's promises. Pure: events in, a Verdict out.

- every record acknowledged to an acks=all producer is in the final log at the offset it was
  acknowledged with (topic min.insync.replicas=2, no unclean election: nothing is lost while
  one in-sync replica lives);
- no offset ever held two records: acks=all acknowledgements, consumed records (a consumer
  only sees what is below the high watermark) and the final log agree, and nothing consumed
  lies beyond the final log's end;
- each partition's final log has increasing offsets, and an idempotent producer's records
  appear in the order it sent them, each at most once, per producer id and epoch (Kafka's
  promise: a producer that bumps its epoch (KIP-360) may re-send records that were in fact
  written, from sequence 0; such copies are counted, not judged). The epochs come from the
  ``batches`` events (the stopped replicas' batch headers); a history without them (older
  runs) is judged strictly: any second copy is a violation. Within one producer id and epoch
  a partition's sequences must continue without gaps or repeats, and a new epoch of a
  producer id starts at sequence 0 (else the broker should have answered
  OUT_OF_ORDER_SEQUENCE);
- the group's committed offsets, as OffsetFetch answered them, never go backwards;
- the cluster converged (leaders, full ISRs) within the stated time and no broker exited by
  itself; every log passed recovery validation.
acks=1 acknowledgements may be lost by design (the leader answers before replicating); they
are counted, not judged."""
from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from .validate import SEQUENCE_MASK
from .workload import ACKS_ALL, IDEMPOTENT


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    acked: int = 0  # acknowledgements of every producer
    acked_all: int = 0  # of them to acks=all producers
    lost: int = 0  # acks=all records missing from the final log (or moved)
    lost_acks1: int = 0  # acks=1 records missing (allowed)
    duplicates: int = 0  # extra copies by idempotent producers under one producer id and epoch
    duplicates_across_epochs: int = 0  # extra copies under another producer id or epoch (allowed)
    duplicates_plain: int = 0  # extra copies by non-idempotent producers (allowed on retries)
    consumed: int = 0
    converge_s: float | None = None
    notes: list[str] = field(default_factory=list)  # what was allowed but worth reading

    @property
    def ok(self) -> bool:
        return not self.violations


def _seq(value: str) -> tuple[str, int]:
    name, _, n = value.rpartition(":")
    return name, int(n)


def check(events: Iterable[dict]) -> Verdict:
    v = Verdict()
    acks: list[dict] = []
    consumed: list[dict] = []
    committed: dict[int, list[tuple[float, int]]] = defaultdict(list)
    final: dict[int, list[tuple[int, str]]] = {}
    batches: dict[int, dict] = {}
    ends: dict[int, int] = {}
    for e in events:
        kind = e["kind"]
        if kind == "ack":
            acks.append(e)
        elif kind == "consume":
            consumed.append(e)
        elif kind == "committed":
            committed[e["partition"]].append((e["t"], e["offset"]))
        elif kind == "final":
            final[e["partition"]] = [tuple(r) for r in e["records"]]
            ends[e["partition"]] = e["end"]
        elif kind == "batches":
            batches[e["partition"]] = e
        elif kind == "converged":
            v.converge_s = e["seconds"]
        elif kind in ("crash", "converge_failed", "invalid_log", "unclean_exit", "fuzz_failed",
                      "not_serving", "metadata_log"):
            v.violations.append(f"{kind}: {_brief(e)}")
    if not final:
        v.violations.append("no final read: the run ended before reading the log back")
        return v
    at: dict[tuple[int, int], str] = {}
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for p, recs in final.items():
        last = -1
        for off, value in recs:
            if off <= last:
                v.violations.append(f"partition {p}: offset {off} after {last} in the final log")
            last = off
            at[(p, off)] = value
            where[value].append((p, off))
        if len(recs) and recs[-1][0] + 1 != ends[p]:
            v.violations.append(f"partition {p}: read up to {recs[-1][0]}, high watermark {ends[p]}")
    v.acked = len(acks)
    for a in acks:
        key, value = (a["partition"], a["offset"]), a["value"]
        if a["producer"] not in ACKS_ALL:
            v.lost_acks1 += value not in where
            continue
        v.acked_all += 1
        if at.get(key) != value:
            v.lost += 1
            found = where.get(value)
            v.violations.append(
                f"acked {value!r} at {key} (t={a['t']}) " +
                (f"is at {found} instead" if found else f"is gone; the offset holds {at.get(key)!r}"))
    v.consumed = len(consumed)
    for c in consumed:
        key = (c["partition"], c["offset"])
        if key in at and at[key] != c["value"]:
            v.violations.append(f"{c['consumer']} consumed {c['value']!r} at {key} (t={c['t']}), "
                                f"the final log holds {at[key]!r} there")
        elif key not in at and c["offset"] < ends.get(c["partition"], 0):
            v.violations.append(f"{c['consumer']} consumed {c['value']!r} at {key}, missing from the final log")
        elif c["offset"] >= ends.get(c["partition"], 0):
            v.violations.append(f"{c['consumer']} consumed {c['value']!r} at {key}, beyond the final "
                                f"high watermark {ends.get(c['partition'])}")
    epochs = ProducerEpochs(batches)
    for p, e in sorted(batches.items()):
        v.violations += sequence_problems(p, e["ranges"])[:5]
    copies: Counter[tuple[str, bool]] = Counter()  # told so far, per producer and judgement
    for value, places in where.items():
        if len(places) < 2:
            continue
        name, _ = _seq(value)
        if name not in IDEMPOTENT:
            v.duplicates_plain += len(places) - 1
            continue
        writers = [epochs.writer(p, off) for p, off in places]
        same = len(places) - 1 if None in writers else len(places) - len(set(writers))
        v.duplicates += same
        v.duplicates_across_epochs += len(places) - 1 - same
        copies[(name, same > 0)] += 1
        if copies[(name, same > 0)] > 3:
            continue
        told = f"idempotent {name} wrote {value!r} {len(places)} times: {_places(places, writers)}"
        if same:
            v.violations.append(told)
        else:
            v.notes.append(told + " (across producer epochs: allowed)")
    for p, recs in final.items():
        last_of: dict[tuple[str, tuple[int, int] | None], tuple[int, int]] = {}
        unattributed = 0
        for off, value in recs:
            name, n = _seq(value)
            if name not in IDEMPOTENT:
                continue
            writer = epochs.writer(p, off)
            if writer is None and epochs.covers(p, off) and (unattributed := unattributed + 1) <= 3:
                v.violations.append(f"partition {p}: idempotent {value!r} at {off} is in no idempotent "
                                    f"batch of broker {batches[p]['broker']}'s log")
            key = (name, writer)
            if key in last_of and n <= last_of[key][0]:
                v.violations.append(f"partition {p}: {value!r} at {off} after {name}:{last_of[key][0]} "
                                    f"at {last_of[key][1]}{_writer(writer)} (order)")
            last_of[key] = (n, off)
    for p, seen in committed.items():
        high = (0.0, -1)
        for t, off in seen:
            if off < high[1]:
                v.violations.append(f"committed offset of partition {p} went from {high[1]} (t={high[0]}) "
                                    f"back to {off} (t={t})")
            if off > high[1]:
                high = (t, off)
    return v


class ProducerEpochs:
    """Which producer id and epoch wrote each offset, from the ``batches`` events (ranges
    ``[producer_id, producer_epoch, base_sequence, base_offset, last_offset]`` in offset order)."""

    def __init__(self, batches: dict[int, dict]) -> None:
        self._ranges = {p: e["ranges"] for p, e in batches.items()}
        self._starts = {p: [r[3] for r in ranges] for p, ranges in self._ranges.items()}
        self._ends = {p: e["log_end"] for p, e in batches.items()}

    def covers(self, partition: int, offset: int) -> bool:
        """Whether the replica read for ``partition`` holds ``offset``."""
        return offset < self._ends.get(partition, 0)

    def writer(self, partition: int, offset: int) -> tuple[int, int] | None:
        """(producer id, epoch) of the batch holding ``offset``; None when unknown (no event,
        past the replica's log, or not an idempotent batch)."""
        starts = self._starts.get(partition)
        i = bisect_right(starts, offset) - 1 if starts else -1
        if i < 0:
            return None
        pid, epoch, _, _, last = self._ranges[partition][i]
        return (pid, epoch) if offset <= last else None


def sequence_problems(partition: int, ranges: list[list[int]]) -> list[str]:
    """What the broker should have refused, by one partition's producer ranges: within one
    producer id and epoch each batch continues the sequence (OUT_OF_ORDER_SEQUENCE, or a
    duplicate when it repeats one); a producer id's epochs never go back (INVALID_PRODUCER_EPOCH)
    and a new epoch starts at sequence 0 (OUT_OF_ORDER_SEQUENCE)."""
    problems = []
    last_seq: dict[tuple[int, int], int] = {}
    latest: dict[int, int] = {}  # producer id -> its newest epoch in this log
    for pid, epoch, seq, first, last in ranges:
        at = f"partition {partition}: producer id {pid} epoch {epoch} sequence {seq} at offset {first}"
        if pid in latest and epoch < latest[pid]:
            problems.append(f"{at} after epoch {latest[pid]} (INVALID_PRODUCER_EPOCH expected)")
        elif (pid, epoch) in last_seq:
            prev = last_seq[(pid, epoch)]
            if seq != (prev + 1) & SEQUENCE_MASK:
                what = "repeats" if (prev - seq) & SEQUENCE_MASK < 1 << 30 else "skips"
                problems.append(f"{at} {what} after sequence {prev} "
                                f"({'DUPLICATE_SEQUENCE_NUMBER' if what == 'repeats' else 'OUT_OF_ORDER_SEQUENCE'} "
                                f"expected)")
        elif pid in latest and seq != 0:
            problems.append(f"{at}: a new epoch not from sequence 0 (OUT_OF_ORDER_SEQUENCE expected)")
        last_seq[(pid, epoch)] = (seq + last - first) & SEQUENCE_MASK
        latest[pid] = max(epoch, latest.get(pid, epoch))
    return problems


def _writer(writer: tuple[int, int] | None) -> str:
    return f" (producer id {writer[0]} epoch {writer[1]})" if writer else ""


def _places(places: list[tuple[int, int]], writers: list[tuple[int, int] | None]) -> str:
    return ", ".join(f"{place}{_writer(w)}" for place, w in zip(places, writers))


# fields written to be read whole in a CI failure (diagnose.py): cut later than the rest
LONG_FIELDS = {"per_broker": 1200, "hints": 4000}


def _brief(e: dict) -> str:
    return ", ".join(f"{k}={str(val)[:LONG_FIELDS.get(k, 300)]}" for k, val in e.items() if k not in ("kind",))
