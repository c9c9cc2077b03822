"""kafka-streams-groups --reset-offsets and --delete-offsets, as Apache Kafka 4.4's
StreamsGroupCommand does them: the scope (--all-input-topics: the committed offsets of the
topology's source topics; --input-topic t[:p,...]: partitions that must all have a committed
offset), the scenarios of Kafka's GroupOffsetsResetter, --dry-run or --execute
(an admin's OffsetCommit, which only an empty group takes; with --delete-all-internal-topics
or --delete-internal-topic the internal topics go too), the plan printed as a table or a CSV
export; and OffsetDelete of a group's input topics with Kafka's status table.

Who may call it: scripts.kafka_streams_groups. Prints to `out` as Kafka's tool prints to
stdout; range warnings go to stderr.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import OptionParser, OptionSet
from kafpy.scripts._clients import BrokerError
from kafpy.scripts.consumer_group.reset_offsets import parse_datetime, parse_duration_ms
from kafpy.scripts.consumer_group.service import fmt, str_order, tp_order
from kafpy.scripts.streams_groups_client import StreamsGroupsClient

EARLIEST, LATEST = -2, -1
SCENARIOS = ["to-offset", "to-earliest", "to-latest", "shift-by", "to-datetime", "by-duration",
             "from-file", "to-current"]
_SCENARIO_ORDER = ["by-duration", "from-file", "shift-by", "to-current", "to-datetime",
                   "to-earliest", "to-latest", "to-offset"]
TopicPartition = tuple[str, int]
#: the Java client's text of UNKNOWN_TOPIC_OR_PARTITION (Metadata carries no message)
_UNKNOWN_TOPIC = "This server does not host this topic-partition."


class ResetError(Exception):
    """A reset that cannot go on (Kafka's tool ends with `Error: ...`)."""


def _error(out: TextIO, message: str) -> None:
    out.write(f"\nError: {message}\n")


def source_topics(description: messages.StreamsGroupDescribeResponse.DescribedGroup) -> set[str]:
    """The topology's source topics (what Kafka's tool calls input topics)."""
    topology = getattr(description, "topology", None)
    if topology is None:
        return set()
    return {t for s in topology.subtopologies or [] for t in s.source_topics}


def internal_topics(description: messages.StreamsGroupDescribeResponse.DescribedGroup) -> list[str]:
    """The group's repartition and changelog topics."""
    topology = getattr(description, "topology", None)
    out: set[str] = set()
    for s in (topology.subtopologies or []) if topology is not None else []:
        out.update(t.name for t in s.repartition_source_topics)
        out.update(t.name for t in s.state_changelog_topics)
    return sorted(out)


def input_topic_offsets(client: StreamsGroupsClient, group: str) -> dict[TopicPartition, int]:
    """The group's committed offsets of its input topics (fails for an unknown group)."""
    d, _ = client.describe(group)
    if d.error_code != ErrorCode.NONE:
        raise BrokerError(d.error_code, d.error_message)
    sources = source_topics(d)
    return {tp: off for tp, off in client.committed(group).items() if tp[0] in sources}


def _parse_input_topics(client: StreamsGroupsClient, args: list[str]) -> list[TopicPartition]:
    out: list[TopicPartition] = []
    whole = []
    for arg in args:
        if ":" in arg:
            name, _, listed = arg.partition(":")
            out += [(name, int(p)) for p in listed.split(",")]
        else:
            whole.append(arg)
    if whole:
        found, errors = client.partitions(whole)
        if errors:
            # Kafka's tool fails with the admin client's exception, unwrapped
            code = sorted(errors.items())[0][1]
            raise ResetError(_UNKNOWN_TOPIC if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                             else str(BrokerError(code)))
        out += found
    return out


class StreamsOffsetsResetter:
    """One --reset-offsets run; `run()` returns the plan of every group it touched."""

    def __init__(self, client: StreamsGroupsClient, parser: OptionParser, o: OptionSet,
                 out: TextIO, err: TextIO | None = None, clock: Callable[[], float] = time.time) -> None:
        self.client, self.parser, self.o, self.out = client, parser, o, out
        self.err = err or sys.stderr
        self.clock = clock
        self.dry_run = not o.has("execute")

    def run(self) -> dict[str, dict[TopicPartition, int]]:
        groups = ([g for g, _ in self.client.list_groups()] if self.o.has("all-groups")
                  else self.o.values_of("group"))
        result: dict[str, dict[TopicPartition, int]] = {}
        for group in groups:
            d, _ = self.client.describe(group)
            if d.error_code == ErrorCode.GROUP_ID_NOT_FOUND:
                result[group] = self._reset_inactive(group)
            elif d.error_code != ErrorCode.NONE:
                raise BrokerError(d.error_code, d.error_message)
            elif d.group_state in ("Empty", "Dead"):
                result[group] = self._reset_inactive(group)
                if not self.dry_run:
                    self._delete_internal_topics(group, d)
            else:
                _error(self.out, f"Assignments can only be reset if the group '{group}' is "
                                 f"inactive, but the current state is {d.group_state}.")
                result[group] = {}
        return result

    def _reset_inactive(self, group: str) -> dict[TopicPartition, int]:
        prepared = self._prepare(group, self._partitions_to_reset(group))
        if not self.dry_run and prepared:
            for tp, code in self.client.alter_offsets(group, prepared).items():
                if code != ErrorCode.NONE:
                    raise BrokerError(code)
        return prepared

    def _partitions_to_reset(self, group: str) -> list[TopicPartition]:
        if self.o.has("all-input-topics"):
            return sorted(input_topic_offsets(self.client, group))
        if self.o.has("input-topic"):
            wanted = _parse_input_topics(self.client, self.o.values_of("input-topic"))
            committed = self.client.committed(group)
            if not all(tp in committed for tp in wanted):
                _error(self.out, f"One or more topics are not part of the group '{group}'.")
                return []
            return wanted
        if not self.o.has("from-file"):
            self.parser.usage_and_exit(
                "One of the reset scopes should be defined: --all-input-topics, --input-topic.")
        return []

    # -- the scenarios (Kafka's GroupOffsetsResetter) -----------------------------------
    def _prepare(self, group: str, tps: list[TopicPartition]) -> dict[TopicPartition, int]:
        o = self.o
        if o.has("to-offset"):
            return self._within_log({tp: int(o.value_of("to-offset")) for tp in tps})
        if o.has("to-earliest"):
            return self.client.log_offsets(tps, EARLIEST)
        if o.has("to-latest"):
            return self.client.log_offsets(tps, LATEST)
        if o.has("shift-by"):
            current = self.client.committed(group)
            requested = {}
            for t, p in tps:
                if (t, p) not in current:
                    raise ResetError(f"Cannot shift offset for partition {t}-{p} since there "
                                     "is no current committed offset")
                requested[(t, p)] = current[(t, p)] + int(o.value_of("shift-by"))
            return self._within_log(requested)
        if o.has("to-datetime"):
            return self._by_timestamp(tps, parse_datetime(o.value_of("to-datetime")))
        if o.has("by-duration"):
            now = int(self.clock() * 1000)
            return self._by_timestamp(tps, now - parse_duration_ms(o.value_of("by-duration")))
        if o.has("from-file"):
            return self._within_log(self._plan_from_file(group))
        if o.has("to-current"):
            current = self.client.committed(group)
            out = {tp: current[tp] for tp in tps if tp in current}
            out.update(self.client.log_offsets([tp for tp in tps if tp not in current], LATEST))
            return out
        self.parser.usage_and_exit(
            "Option '[reset-offsets]' requires one of the following scenarios: ["
            + ", ".join(f"[{s}]" for s in _SCENARIO_ORDER) + "]")
        return {}

    def _within_log(self, requested: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
        tps = list(requested)
        starts = self.client.log_offsets(tps, EARLIEST)
        ends = self.client.log_offsets(tps, LATEST)
        out = {}
        for tp, off in requested.items():
            end, start, name = ends.get(tp), starts.get(tp), f"{tp[0]}-{tp[1]}"
            if end is not None and off > end:
                self.err.write(f"WARN New offset ({off}) is higher than latest offset for topic "
                               f"partition {name}. Value will be set to {end}\n")
                out[tp] = end
            elif start is not None and off < start:
                self.err.write(f"WARN New offset ({off}) is lower than earliest offset for topic "
                               f"partition {name}. Value will be set to {start}\n")
                out[tp] = start
            else:
                out[tp] = off
        return out

    def _by_timestamp(self, tps: list[TopicPartition], ts: int) -> dict[TopicPartition, int]:
        found = self.client.log_offsets(tps, ts)
        out = {tp: off for tp, off in found.items() if off >= 0}
        missing = [tp for tp in tps if tp not in out]
        for t, p in tp_order(missing):
            self.out.write(f"\nWarn: Partition {p} from topic {t} is empty. Falling back to "
                           "latest known offset.\n")
        out.update(self.client.log_offsets(missing, LATEST))
        return out

    def _plan_from_file(self, group: str) -> dict[TopicPartition, int]:
        with open(self.o.value_of("from-file"), encoding="utf-8") as fh:
            lines = [ln.strip() for ln in fh.read().split("\n") if ln.strip()]
        single = len(self.o.values_of("group")) == 1
        plan: dict[TopicPartition, int] = {}
        for ln in lines:
            cells = ln.split(",")
            if single and len(cells) == 3:
                plan[(cells[0], int(cells[1]))] = int(cells[2])
            elif len(cells) == 4 and cells[0] == group:
                plan[(cells[1], int(cells[2]))] = int(cells[3])
            elif len(cells) != 4:
                raise ResetError(f"Invalid CSV line: {ln}")
        return plan

    def _delete_internal_topics(self, group: str, description: messages.StreamsGroupDescribeResponse.DescribedGroup) -> None:
        if self.o.has("delete-all-internal-topics"):
            topics = internal_topics(description)
        elif self.o.has("delete-internal-topic"):
            topics = list(self.o.values_of("delete-internal-topic"))
        else:
            return
        if not topics:
            return
        failed = {t: e for t, e in self.client.delete_topics(topics).items() if e != ErrorCode.NONE}
        if not failed:
            return
        if all(e == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION for e in failed.values()):
            _error(self.out, f"Deleting internal topics for group '{group}' failed because the "
                             "topics do not exist.")
        else:
            e = BrokerError(next(iter(failed.values())))
            _error(self.out, f"Deleting internal topics for group '{group}' failed due to "
                             f"{e.java_name()}: {e}")


def print_reset(o: OptionSet, result: dict[str, dict[TopicPartition, int]], out: TextIO) -> None:
    """The plan: Kafka's table (HashMap order, as its tool prints it) or the CSV export."""
    if o.has("export"):
        single = len(o.values_of("group")) == 1
        lines = []
        for group in str_order(list(result)):
            for t, p in tp_order(list(result[group])):
                off = result[group][(t, p)]
                lines.append(f"{t},{p},{off}" if single else f"{group},{t},{p},{off}")
        out.write("".join(ln + "\n" for ln in lines) + "\n")
        return
    pattern = [30, 30, 10, 15]
    if result:
        out.write("\n" + fmt(pattern, ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]))
    for group in str_order(list(result)):
        for t, p in tp_order(list(result[group])):
            out.write("\n" + fmt(pattern, [group, t, p, result[group][(t, p)]]))
    out.write("\n")


_PARTITION_LEVEL = (ErrorCode.NONE, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC,
                    ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
_GROUP_LEVEL = (ErrorCode.INVALID_GROUP_ID, ErrorCode.GROUP_ID_NOT_FOUND,
                ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.NON_EMPTY_GROUP)


def delete_offsets(client: StreamsGroupsClient, parser: OptionParser, o: OptionSet,
                   out: TextIO) -> int:
    """OffsetDelete of the group's input topics, reported as Kafka's tool reports it."""
    group = o.value_of("group")
    failed: dict[TopicPartition, str] = {}
    if o.has("all-input-topics"):
        tps = sorted(input_topic_offsets(client, group))
    elif o.has("input-topic"):
        tps = []
        whole = []
        for arg in o.values_of("input-topic"):
            if ":" in arg:
                name, _, listed = arg.partition(":")
                tps += [(name, int(p)) for p in listed.split(",")]
            else:
                whole.append(arg)
        if whole:
            found, errors = client.partitions(whole)
            tps += found
            for t, code in errors.items():
                e = BrokerError(code)
                failed[(t, -1)] = f"{e.java_name()}: {e}"
    else:
        parser.usage_and_exit("Option [delete-offsets] requires either[all-input-topics] or "
                              "[input-topic] to be specified.")
        return 1
    error, by_partition = client.delete_offsets(group, tps)
    statuses: dict[TopicPartition, str | None] = dict(failed)
    for tp in tps:
        code = by_partition.get(tp, error)
        statuses[tp] = None if code == ErrorCode.NONE else _exception_text(code)
    if error == ErrorCode.NONE and not any(statuses.values()):
        out.write(f"Request succeeded for deleting offsets from group {group}.\n")
    elif error in _GROUP_LEVEL:
        _error(out, str(BrokerError(error)))
    elif error in _PARTITION_LEVEL:
        _error(out, "Encountered some partition-level error, see the follow-up details.")
    else:
        _error(out, f"Encountered some unknown error: {ErrorCode(error).name}")
    width = max([15] + [len(t) for t, _ in statuses])
    pattern = [width, 10, 15]
    out.write("\n" + fmt(pattern, ["TOPIC", "PARTITION", "STATUS"]))
    for (t, p), status in sorted(statuses.items(), key=lambda kv: kv[0][0]):
        out.write("\n" + fmt(pattern, [t, p if p >= 0 else "-",
                                       "Successful" if status is None else f"Error: {status}"]))
    out.write("\n")
    return 0


def _exception_text(code: int) -> str:
    e = BrokerError(code)
    return f"{e.java_name()}: {e}"
