"""The consumer-group service the actions share: the admin client, the parsed options and
the output, the queries every action makes (groups, committed offsets, log offsets,
partitions), --list, and the formatting facts of Kafka's ConsumerGroupCommand (Java's %-Ns
columns, HashMap row order, Java exception names).

Who may call it: the modules of scripts.consumer_group and scripts.kafka_consumer_groups.
"""
from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Callable, Sequence, TextIO

from kafpy.scripts._cli import OptionSet
from kafpy.scripts._clients import (error_name, error_text, java_exception_name, java_hashmap_order,
                              java_string_hash, topic_partition_hash)
from kafpy.scripts.consumer_group.options import STATES

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient, OffsetSpec

MISSING = "-"


def fmt(pattern: list[int], values: Sequence[object]) -> str:
    """Java's %-Ns columns joined by single spaces; width 0 means no padding."""
    cells = []
    for width, v in zip(pattern, values):
        s = str(v)
        cells.append(s.ljust(width) if width else s)
    return " ".join(cells)


def parse_topic_args(args: list[str], describe_partitions: Callable[[list[str]], list[tuple[str, int]]]
                     ) -> list[tuple[str, int]]:
    """'t' -> all partitions of t; 't:0,2' -> partitions 0 and 2."""
    out: list[tuple[str, int]] = []
    whole = []
    for arg in args:
        if ":" in arg:
            parts = arg.split(":")
            if len(parts) != 2:
                raise ValueError(f"Invalid topic arg '{arg}', expected topic name and partitions")
            for p in parts[1].split(","):
                try:
                    out.append((parts[0], int(p)))
                except ValueError:
                    raise ValueError(f"Invalid partition '{p}' specified in topic arg '{arg}''")
        else:
            whole.append(arg)
    if whole:
        out.extend(describe_partitions(whole))
    return out


class GroupService:
    """Runs the actions against a kafka-python KafkaAdminClient (or a stand-in with the
    same methods)."""

    def __init__(self, admin: KafkaAdminClient, o: OptionSet, out: TextIO | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.admin = admin
        self.o = o
        self.out = out or sys.stdout
        self.clock = clock

    def write(self, s: str) -> None:
        self.out.write(s)

    def print_error(self, msg: str) -> None:
        self.write(f"\nError: {msg}\n")

    # -- queries
    def list_group_ids(self) -> list[str]:
        return [g["group_id"] for g in self._list_groups()]

    def _list_groups(self) -> list[dict]:
        groups = self.admin.list_groups()
        return [g for g in groups if g.get("protocol_type") in ("consumer", "", None)]

    def group_ids(self) -> list[str]:
        return self.list_group_ids() if self.o.has("all-groups") else self.o.values_of("group")

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        res = self.admin.list_group_offsets({group: None}).get(group, {})
        return {(tp.topic, tp.partition): oam.offset for tp, oam in res.items()}

    def log_offsets(self, tps: list[tuple[str, int]], spec: OffsetSpec) -> dict[tuple[str, int], int]:
        from kafka import TopicPartition

        if not tps:
            return {}
        res = self.admin.list_partition_offsets({TopicPartition(t, p): spec for t, p in tps})
        return {(tp.topic, tp.partition): v.offset for tp, v in res.items()}

    def describe_partitions(self, topics: list[str]) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for t in self.admin.describe_topics(topics):
            if t.get("error_code"):
                raise RuntimeError(f"org.apache.kafka.common.errors.{error_name(t['error_code'])}: "
                                   f"{error_text(t['error_code'])}")
            out.extend((t["name"], p["partition_index"]) for p in t.get("partitions", []))
        return out

    # -- list
    def list(self) -> None:
        with_state = self.o.has("state")
        with_type = self.o.has("type")
        if not with_state and not with_type:
            for group_id in self.list_group_ids():
                self.write(group_id + "\n")
            return
        states = None
        if self.o.value_of("state"):
            wanted = [s.strip() for s in self.o.value_of("state").split(",")]
            lookup = {s.lower(): s for s in STATES}
            bad = [s for s in wanted if s.lower() not in lookup]
            if bad:
                raise ValueError(f"Invalid state list '{self.o.value_of('state')}'. Valid states "
                                 f"are: {', '.join(STATES)}")
            states = {lookup[s.lower()] for s in wanted}
        groups = self._list_groups()
        if states is not None:
            groups = [g for g in groups if g.get("group_state") in states]
        width = max([max(15, len(g["group_id"])) for g in groups] or [15]) + 10
        cols = [width]
        header = ["GROUP"]
        if with_type:
            cols.append(20)
            header.append("TYPE")
        if with_state:
            cols.append(20)
            header.append("STATE")
        self.write(fmt(cols, header) + "\n")
        for g in groups:
            row = [g["group_id"]]
            if with_type:
                row.append((g.get("group_type") or "classic").capitalize())
            if with_state:
                row.append(g.get("group_state") or "Unknown")
            self.write(fmt(cols, row) + "\n")


class UsageError(Exception):
    """An IllegalArgumentException in ConsumerGroupCommand: message plus usage, exit 1."""


def tp_order(tps: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Order of a Java HashMap keyed by TopicPartition: how Kafka's tool prints the rows of
    --reset-offsets and its timestamp warnings (--describe rows are sorted since 4.x)."""
    return java_hashmap_order(list(tps), lambda k: topic_partition_hash(*k))


def str_order(keys: list[str]) -> list[str]:
    return java_hashmap_order(list(keys), java_string_hash)


def latest() -> OffsetSpec:
    """OffsetSpec for the log end offset (kafka-python's spelling varies by release)."""
    from kafka.admin import OffsetSpec
    return OffsetSpec.LATEST if hasattr(OffsetSpec, "LATEST") else OffsetSpec.latest()


def earliest() -> OffsetSpec:
    """OffsetSpec for the log start offset."""
    from kafka.admin import OffsetSpec
    return OffsetSpec.EARLIEST if hasattr(OffsetSpec, "EARLIEST") else OffsetSpec.earliest()


def java_exception(err: str | type[BaseException]) -> str:
    """The Java exception Kafka's admin client raises for a kafka-python error (class or name)."""
    name = err if isinstance(err, str) else getattr(err, "__name__", str(err))
    return java_exception_name(name)
