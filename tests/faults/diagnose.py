"""What a run that did not converge leaves in its verdict: which broker reports which
partitions short of a full ISR, and what each broker's log last said about the first of them.

A CI failure keeps only the verdict (the brokers' logs go with the machine), so this is what
tells a stale metadata cache on one broker (only its own view is short) from an ISR the
leader never widened (every view is short; the leader's log says why), or a follower that
stopped fetching (its log says when and why)."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ENTRY = re.compile(r"^b(\d+): (\S+)-(\d+) leader (-?\d+) isr \[([\d, ]*)\]$")
LINES_PER_BROKER = 5
LINE_CHARS = 220


def per_broker(unhealthy: list[str], first: int = 3) -> str:
    """``unhealthy`` (Cluster.unhealthy's lines) grouped by the broker that answered: how many
    lines each, and its first ``first``."""
    by: dict[str, list[str]] = defaultdict(list)
    for line in unhealthy:
        who, _, what = line.partition(": ")
        by[who].append(what)
    return "; ".join(f"{who}: {len(lines)} ({', '.join(lines[:first])})" for who, lines in sorted(by.items()))


def first_partition(unhealthy: list[str]) -> tuple[str, int, int, list[int]] | None:
    """(topic, partition, leader, isr) of the first line naming a partition short of its ISR."""
    for line in unhealthy:
        m = ENTRY.match(line)
        if m:
            isr = [int(x) for x in m.group(5).split(",") if x.strip()]
            return m.group(2), int(m.group(3)), int(m.group(4)), isr
    return None


def log_lines(path: Path, topic: str, partition: int, limit: int = LINES_PER_BROKER) -> list[str]:
    """The last ``limit`` lines of the broker log at ``path`` that name ``topic-partition``
    on its own (not as a prefix of a longer number), each cut to LINE_CHARS."""
    pattern = re.compile(rf"{re.escape(topic)}-{partition}(?!\d)")
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        return [f"(no log: {e})"]
    found = [line for line in text.splitlines() if pattern.search(line)]
    return [line[:LINE_CHARS] for line in found[-limit:]]


def hints(unhealthy: list[str], logs: dict[int, Path]) -> str:
    """For the first partition in ``unhealthy``, each broker's last log lines about it."""
    first = first_partition(unhealthy)
    if first is None:
        return ""
    topic, partition, leader, isr = first
    parts = [f"{topic}-{partition} (leader {leader}, isr {isr})"]
    for broker_id, path in sorted(logs.items()):
        lines = log_lines(path, topic, partition)
        parts.append(f"b{broker_id} log: " + (" | ".join(lines) if lines else "(nothing)"))
    return " || ".join(parts)
