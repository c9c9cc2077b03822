"""Checks a fault run's History against Kafka's promises. Pure: events in, a Verdict out.

- every record acknowledged to an acks=all producer is in the final log at the offset it was
  acknowledged with (topic min.insync.replicas=2, no unclean election: nothing is lost while
  one in-sync replica lives);
- no offset ever held two records: acks=all acknowledgements, consumed records (a consumer
  only sees what is below the high watermark) and the final log agree, and nothing consumed
  lies beyond the final log's end;
- each partition's final log has increasing offsets, and an idempotent producer's records
  appear in the order it sent them, each at most once;
- the group's committed offsets, as OffsetFetch answered them, never go backwards;
- the cluster converged (leaders, full ISRs) within the stated time and no broker exited by
  itself; every log passed recovery validation.
acks=1 acknowledgements may be lost by design (the leader answers before replicating); they
are counted, not judged."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from .workload import ACKS_ALL, IDEMPOTENT


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    acked: int = 0  # acknowledgements of every producer
    acked_all: int = 0  # of them to acks=all producers
    lost: int = 0  # acks=all records missing from the final log (or moved)
    lost_acks1: int = 0  # acks=1 records missing (allowed)
    duplicates: int = 0  # extra copies written by idempotent producers
    duplicates_plain: int = 0  # extra copies by non-idempotent producers (allowed on retries)
    consumed: int = 0
    converge_s: float | None = None

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
        elif kind == "converged":
            v.converge_s = e["seconds"]
        elif kind in ("crash", "converge_failed", "invalid_log", "unclean_exit", "fuzz_failed",
                      "not_serving"):
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
    copies = Counter()
    for value, places in where.items():
        name, _ = _seq(value)
        if len(places) > 1:
            if name in IDEMPOTENT:
                v.duplicates += len(places) - 1
                copies[name] += 1
                if copies[name] <= 3:
                    v.violations.append(f"idempotent {name} wrote {value!r} {len(places)} times: {places}")
            else:
                v.duplicates_plain += len(places) - 1
    for p, recs in final.items():
        last: dict[str, tuple[int, int]] = {}
        for off, value in recs:
            name, n = _seq(value)
            if name in IDEMPOTENT and name in last and n <= last[name][0]:
                v.violations.append(f"partition {p}: {value!r} at {off} after {name}:{last[name][0]} "
                                    f"at {last[name][1]} (order)")
            last[name] = (n, off)
    for p, seen in committed.items():
        high = (0.0, -1)
        for t, off in seen:
            if off < high[1]:
                v.violations.append(f"committed offset of partition {p} went from {high[1]} (t={high[0]}) "
                                    f"back to {off} (t={t})")
            if off > high[1]:
                high = (t, off)
    return v


def _brief(e: dict) -> str:
    return ", ".join(f"{k}={str(val)[:300]}" for k, val in e.items() if k not in ("kind",))
