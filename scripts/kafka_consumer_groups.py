"""kafka-consumer-groups: list, describe (offsets, members, state), delete groups, reset
and delete committed offsets, with the flags, checks and column layout of Apache Kafka's
ConsumerGroupCommand (the 4.x output, which fixed 3.9's lost newlines and HashMap row
order). Built on kafka-python's admin client (FindCoordinator,
DescribeGroups, ListGroups, OffsetFetch, ListOffsets, OffsetCommit, DeleteGroups,
OffsetDelete).
"""
from __future__ import annotations

import datetime as dt
import re
import sys
import time
import traceback
from collections import defaultdict
from typing import Any

from broker.properties import load_properties
from scripts._cli import tool_main, debug_enabled, OptionException, OptionParser, OptionSet, UsageExit
from scripts._clients import (error_name, java_exception_name, java_hashmap_order,
                              java_string_hash, make_admin, topic_partition_hash)

MISSING = "-"
STATES = ["PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
          "Assigning", "Reconciling"]
SCENARIOS = ["to-offset", "shift-by", "to-datetime", "by-duration", "to-earliest",
             "to-latest", "to-current", "from-file"]


def build_parser() -> OptionParser:
    p = OptionParser(option_width=40)
    p.accepts("bootstrap-server", "REQUIRED: The server(s) to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("group", "The consumer group we wish to act on.", arg="required",
              described_as="consumer group")
    p.accepts("topic", "The topic whose consumer group information should be deleted or "
              "topic whose should be included in the reset offset process. In `reset-offsets` "
              "case, partitions can be specified using this format: "
              "`topic1:0,1,2`, where 0,1,2 are the partition to be included in the process. "
              "Reset-offsets also supports multiple topic inputs.", arg="required",
              described_as="topic")
    p.accepts("all-topics", "Consider all topics assigned to a group in the `reset-offsets` "
              "process.")
    p.accepts("list", "List all consumer groups.")
    p.accepts("describe", "Describe consumer group and list offset lag (number of messages not "
              "yet processed) related to given group.")
    p.accepts("all-groups", "Apply to all consumer groups.")
    p.accepts("delete", "Pass in groups to delete topic partition offsets and ownership "
              "information over the entire consumer group. For instance --group g1 --group g2")
    p.accepts("timeout", "The timeout that can be set for some use cases. For example, it can "
              "be used when describing the group to specify the maximum amount of time in "
              "milliseconds to wait before the group stabilizes (when the group is just "
              "created, or is going through some changes).", arg="required",
              described_as="timeout (ms)", type=int, type_name="Long", default=5000)
    p.accepts("command-config", "Property file containing configs to be passed to Admin Client "
              "and Consumer.", arg="required", described_as="command config property file")
    p.accepts("reset-offsets", "Reset offsets of consumer group. Supports one consumer group at "
              "the time, and instances should be inactive\nHas 2 execution options: --dry-run "
              "(the default) to plan which offsets to reset, and --execute to update the "
              "offsets. Additionally, the --export option is used to export the results to a "
              "CSV format.\nYou must choose one of the following reset specifications: "
              "--to-datetime, --by-duration, --to-earliest, --to-latest, --shift-by, "
              "--from-file, --to-current, --to-offset.\nTo define the scope use --all-topics "
              "or --topic. One scope must be specified unless you use '--from-file'.")
    p.accepts("dry-run", "Only show results without executing changes on Consumer Groups. "
              "Supported operations: reset-offsets.")
    p.accepts("execute", "Execute operation. Supported operations: reset-offsets.")
    p.accepts("export", "Export operation execution to a CSV file. Supported operations: "
              "reset-offsets.")
    p.accepts("to-offset", "Reset offsets to a specific offset.", arg="required",
              described_as="offset", type=int, type_name="Long")
    p.accepts("from-file", "Reset offsets to values defined in CSV file.", arg="required",
              described_as="path to CSV file")
    p.accepts("to-datetime", "Reset offsets to offset from datetime. Format: "
              "'YYYY-MM-DDTHH:mm:SS.sss'", arg="required", described_as="datetime")
    p.accepts("by-duration", "Reset offsets to offset by duration from current timestamp. "
              "Format: 'PnDTnHnMnS'", arg="required", described_as="duration")
    p.accepts("to-earliest", "Reset offsets to earliest offset.")
    p.accepts("to-latest", "Reset offsets to latest offset.")
    p.accepts("to-current", "Reset offsets to current offset.")
    p.accepts("shift-by", "Reset offsets shifting current offset by 'n', where 'n' can be "
              "positive or negative.", arg="required", described_as="number-of-offsets",
              type=int, type_name="Long")
    p.accepts("members", "Describe members of the group. This option may be used with "
              "'--describe' and '--bootstrap-server' options only.\nExample: "
              "--bootstrap-server localhost:9092 --describe --group group1 --members")
    p.accepts("verbose", "Provide additional information, if any, when describing the group. "
              "This option may be used with '--offsets'/'--members'/'--state' and "
              "'--bootstrap-server' options only.\nExample: --bootstrap-server localhost:9092 "
              "--describe --group group1 --members --verbose")
    p.accepts("offsets", "Describe the group and list all topic partitions in the group along "
              "with their offset lag. This is the default sub-action of and may be used with "
              "'--describe' and '--bootstrap-server' options only.\nExample: "
              "--bootstrap-server localhost:9092 --describe --group group1 --offsets")
    p.accepts("state", "When specified with '--describe', includes the state of the group.\n"
              "Example: --bootstrap-server localhost:9092 --describe --group group1 --state\n"
              "When specified with '--list', it displays the state of all groups. It can also "
              "be used to list groups with specific states.\nExample: --bootstrap-server "
              "localhost:9092 --list --state stable,empty\nThis option may be used with "
              "'--describe', '--list' and '--bootstrap-server' options only.", arg="optional")
    p.accepts("type", "When specified with '--list', it displays the types of all the groups. "
              "It can also be used to list groups with specific types.\nExample: "
              "--bootstrap-server localhost:9092 --list --type classic,consumer\nThis option "
              "may be used with the '--list' option only.", arg="optional")
    p.accepts("delete-offsets", "Delete offsets of consumer group. Supports one consumer group "
              "at the time, and multiple topics.")
    return p


def _names(*names: str) -> str:
    return ", ".join(f"[{n}]" for n in names)


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> None:
    p.maybe_help_or_version(o, args, "This tool helps to list all consumer groups, describe a "
                            "consumer group, delete consumer group info, or reset consumer "
                            "group offsets.")
    actions = [a for a in ("list", "describe", "delete", "reset-offsets", "delete-offsets") if o.has(a)]
    if len(actions) != 1:
        p.usage_and_exit("Command must include exactly one action: --list, --describe, "
                         "--delete, --reset-offsets, --delete-offsets")
    p.check_required(o, "bootstrap-server")
    if o.has("describe"):
        if not o.has("group") and not o.has("all-groups"):
            p.usage_and_exit(f"Option [describe] takes one of these options: {_names('all-groups', 'group')}")
        if sum(1 for x in ("members", "offsets", "state") if o.has(x)) > 1:
            p.usage_and_exit("Option [describe] takes at most one of these options: "
                             + _names("members", "offsets", "state"))
        if o.has("state") and o.value_of("state") is not None:
            p.usage_and_exit("Option [describe] does not take a value for [state]")
    if o.has("delete"):
        if not o.has("group") and not o.has("all-groups"):
            p.usage_and_exit(f"Option [delete] takes one of these options: {_names('all-groups', 'group')}")
        if o.has("topic"):
            p.usage_and_exit("The consumer does not support topic-specific offset deletion "
                             "from a consumer group.")
    if o.has("delete-offsets") and (not o.has("group") or not o.has("topic")):
        p.usage_and_exit(f"Option [delete-offsets] takes the following options: {_names('topic', 'group')}")
    if o.has("reset-offsets"):
        if o.has("dry-run") and o.has("execute"):
            p.usage_and_exit("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not o.has("dry-run") and not o.has("execute"):
            sys.stderr.write("WARN: No action will be performed as the --execute option is "
                             "missing.In a future major release, the default behavior of this "
                             "command will be to prompt the user before executing the reset "
                             "rather than doing a dry run. You should add the --dry-run option "
                             "explicitly if you are scripting this command and want to keep the "
                             "current default behavior without prompting.\n")
        if not o.has("group") and not o.has("all-groups"):
            p.usage_and_exit(f"Option [reset-offsets] takes one of these options: {_names('all-groups', 'group')}")
        for sc in SCENARIOS:
            p.check_invalid(o, sc, [x for x in SCENARIOS if x != sc])
    p.check_invalid(o, "group", ["all-groups"])
    p.check_invalid(o, "group", ["list"])
    p.check_invalid(o, "topic", ["list", "describe"])


# -- helpers ----------------------------------------------------------------------------------

def assignment_partitions(member: dict) -> list[tuple[str, int]]:
    """(topic, partition) pairs of a DescribeGroups member's decoded assignment."""
    ma = member.get("member_assignment")
    if not ma:
        return []
    if hasattr(ma, "partitions"):
        return [(tp.topic, tp.partition) for tp in ma.partitions()]
    out = []
    for entry in ma.get("assigned_partitions", []) if isinstance(ma, dict) else []:
        if isinstance(entry, dict):
            out.extend((entry["topic"], p) for p in entry.get("partitions", []))
        else:
            topic, parts = entry
            out.extend((topic, p) for p in parts)
    return out


def fmt(pattern: list[int], values: list[Any]) -> str:
    """Java's %-Ns columns joined by single spaces; width 0 means no padding."""
    cells = []
    for width, v in zip(pattern, values):
        s = str(v)
        cells.append(s.ljust(width) if width else s)
    return " ".join(cells)


def parse_datetime(text: str) -> int:
    """Kafka's Utils.getDateTime: 'YYYY-MM-DDTHH:mm:SS[.sss][zone]', local time when no
    zone is given. Returns epoch milliseconds."""
    s = text.strip()
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})?", s)
    if not m:
        raise ValueError(f"Unparseable date: \"{text}\"")
    base = dt.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
    millis = int((m.group(2) or ".0")[1:].ljust(3, "0"))
    zone = m.group(3)
    if zone:
        if zone == "Z":
            tz = dt.timezone.utc
        else:
            z = zone.replace(":", "")
            sign = 1 if z[0] == "+" else -1
            tz = dt.timezone(sign * dt.timedelta(hours=int(z[1:3]), minutes=int(z[3:5])))
        base = base.replace(tzinfo=tz)
    else:
        base = base.astimezone()
    return int(base.timestamp()) * 1000 + millis


def parse_duration_ms(text: str) -> int:
    """ISO-8601 duration as java.time.Duration.parse accepts it: PnDTnHnMn.nS."""
    m = re.fullmatch(r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?"
                     r"(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?", text.strip(), re.IGNORECASE)
    if not m or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise ValueError(f"Text cannot be parsed to a Duration: {text}")
    days, hours, mins, secs = (int(g) if g else 0 for g in m.group(2, 3, 4, 5))
    frac = int((m.group(6) or "0").ljust(3, "0")[:3])
    total = ((days * 24 + hours) * 60 + mins) * 60_000 + secs * 1000 + (frac if secs >= 0 else -frac)
    return -total if m.group(1) == "-" else total


def parse_topic_args(args: list[str], describe_partitions) -> list[tuple[str, int]]:
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

    def __init__(self, admin: Any, o: OptionSet, out=None, clock=time.time) -> None:
        self.admin = admin
        self.o = o
        self.out = out or sys.stdout
        self.clock = clock

    def _w(self, s: str) -> None:
        self.out.write(s)

    def print_error(self, msg: str) -> None:
        self._w(f"\nError: {msg}\n")

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

    def log_offsets(self, tps: list[tuple[str, int]], spec: Any) -> dict[tuple[str, int], int]:
        from kafka import TopicPartition

        if not tps:
            return {}
        res = self.admin.list_partition_offsets({TopicPartition(t, p): spec for t, p in tps})
        return {(tp.topic, tp.partition): v.offset for tp, v in res.items()}

    def describe_partitions(self, topics: list[str]) -> list[tuple[str, int]]:
        out = []
        for t in self.admin.describe_topics(topics):
            if t.get("error_code"):
                from scripts._clients import error_text
                raise RuntimeError(f"org.apache.kafka.common.errors.{error_name(t['error_code'])}: "
                                   f"{error_text(t['error_code'])}")
            out.extend((t["name"], p["partition_index"]) for p in t.get("partitions", []))
        return out

    # -- list
    def list(self) -> None:
        with_state = self.o.has("state")
        with_type = self.o.has("type")
        if not with_state and not with_type:
            for g in self.list_group_ids():
                self._w(g + "\n")
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
        self._w(fmt(cols, header) + "\n")
        for g in groups:
            row = [g["group_id"]]
            if with_type:
                row.append((g.get("group_type") or "classic").capitalize())
            if with_state:
                row.append(g.get("group_state") or "Unknown")
            self._w(fmt(cols, row) + "\n")

    # -- describe
    def _should_print(self, group: str, state: str | None, rows: int | None) -> bool:
        if rows is None:
            self.print_error(f"The consumer group '{group}' does not exist.")
            return False
        if state == "Dead":
            self.print_error(f"Consumer group '{group}' does not exist.")
        elif state == "Empty":
            sys.stderr.write(f"\nConsumer group '{group}' has no active members.\n")
        elif state in ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"):
            sys.stderr.write(f"\nWarning: Consumer group '{group}' is rebalancing.\n")
        return state != "Dead" and rows > 0

    def describe(self) -> None:
        groups = self.group_ids()
        descriptions = self.admin.describe_groups(groups) if groups else {}
        if self.o.has("members"):
            self._describe_members(descriptions)
        elif self.o.has("state"):
            self._describe_state(descriptions)
        else:
            self._describe_offsets(descriptions)

    def _describe_offsets(self, descriptions: dict[str, dict]) -> None:
        for group in sorted(descriptions):
            desc = descriptions[group]
            state = desc.get("group_state")
            committed = self.committed(group) if state != "Dead" else {}
            rows: list[list[Any]] = []
            assigned: set[tuple[str, int]] = set()
            members = [m for m in desc.get("members", []) if assignment_partitions(m)]
            members.sort(key=lambda m: -len(assignment_partitions(m)))
            pending: list[tuple[tuple[str, int], str, str, str]] = []
            for m in members:
                tps = sorted(set(assignment_partitions(m)), key=lambda tp: tp[1])
                assigned.update(tps)
                pending.extend((tp, m["member_id"], m.get("client_host") or MISSING,
                                m.get("client_id") or MISSING) for tp in sorted(tps))
            unassigned = sorted(set(committed) - assigned)
            for tp in unassigned:
                pending.append((tp, MISSING, MISSING, MISSING))
            ends = self.log_offsets([tp for tp, *_ in pending], _latest())
            for tp, cid, host, client in pending:
                cur = committed.get(tp)
                end = ends.get(tp)
                lag = end - cur if cur is not None and cur != -1 and end is not None else None
                rows.append([group, tp[0], tp[1], _opt(cur), _opt(end), _opt(lag), cid, host, client])
            if not self._should_print(group, state, len(rows)):
                continue
            widths = [max([15] + [len(str(r[i])) for r in rows]) for i in (0, 1, 6, 7)]
            pattern = [widths[0], widths[1], 10, 15, 15, 15, widths[2], widths[3], 0]
            self._w("\n" + fmt(pattern, ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                         "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]))
            for r in rows:
                self._w("\n" + fmt(pattern, r))
            self._w("\n")

    def _describe_members(self, descriptions: dict[str, dict]) -> None:
        verbose = self.o.has("verbose")
        for group in sorted(descriptions):
            desc = descriptions[group]
            members = desc.get("members", [])
            state = desc.get("group_state")
            widths = {"g": 15, "c": 15, "i": 17, "h": 15, "cl": 15}
            with_instance = False
            if self._should_print(group, state, len(members)):
                for m in members:
                    widths["g"] = max(widths["g"], len(group))
                    widths["c"] = max(widths["c"], len(m["member_id"]))
                    widths["i"] = max(widths["i"], len(m.get("group_instance_id") or ""))
                    widths["h"] = max(widths["h"], len(m.get("client_host") or ""))
                    widths["cl"] = max(widths["cl"], len(m.get("client_id") or ""))
                    with_instance = with_instance or bool(m.get("group_instance_id"))
            if with_instance:
                pattern = [widths["g"], widths["c"], widths["i"], widths["h"], widths["cl"], 15]
                header = ["GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
            else:
                pattern = [widths["g"], widths["c"], widths["h"], widths["cl"], 15]
                header = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
            self._w("\n" + fmt(pattern, header) + " " + ("ASSIGNMENT" if verbose else "") + "\n")
            for m in members:
                tps = assignment_partitions(m)
                row = [group, m["member_id"]]
                if with_instance:
                    row.append(m.get("group_instance_id") or "")
                row += [m.get("client_host") or "", m.get("client_id") or "", len(tps)]
                line = fmt(pattern, row) + " "
                if verbose:
                    if not tps:
                        line += MISSING
                    else:
                        by_topic: dict[str, list[int]] = defaultdict(list)
                        for t, p in tps:
                            by_topic[t].append(p)
                        line += ", ".join(sorted(
                            "(" + ",".join(sorted(str(p) for p in ps)) + ")"
                            for ps in by_topic.values()))
                self._w(line + "\n")

    def _describe_state(self, descriptions: dict[str, dict]) -> None:
        brokers = {b.get("broker_id", b.get("node_id")): b
                   for b in self.admin.describe_cluster().get("brokers", [])}
        for group in sorted(descriptions):
            desc = descriptions[group]
            state = desc.get("group_state")
            if not self._should_print(group, state, 1):
                continue
            node = self.admin._manager.run(self.admin._find_coordinator_id, group)
            b = brokers.get(node, {})
            coordinator = f"{b.get('host')}:{b.get('port')}  ({node})"
            width = max(25, len(coordinator))
            pattern = [width, 25, 20, 15, 0]
            self._w("\n" + fmt(pattern, ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY",
                                         "STATE", "#MEMBERS"]))
            self._w("\n" + fmt(pattern, [group, coordinator, desc.get("protocol_data") or "",
                                         state, len(desc.get("members", []))]))
            self._w("\n")

    # -- delete
    def delete(self) -> None:
        groups = self.group_ids()
        results = self.admin.delete_groups(groups) if groups else {}
        ok = str_order([g for g, r in results.items() if r == "OK"])
        failed = {g: r for g, r in results.items() if r != "OK"}
        if not failed:
            self._w(f"Deletion of requested consumer groups ('{', '.join(ok)}') was successful.\n")
        else:
            self.print_error("Deletion of some consumer groups failed:")
            for g, err in failed.items():
                self._w(f"* Group '{g}' could not be deleted due to: java.util.concurrent."
                        f"ExecutionException: org.apache.kafka.common.errors."
                        f"{_java_exception(err)}: {_error_description(err)}\n")
            if ok:
                self._w("\nThese consumer groups were deleted successfully: '"
                        + "'".join(ok) + "', '\n")

    # -- reset offsets
    def reset_offsets(self) -> dict[str, dict[tuple[str, int], int]]:
        groups = self.group_ids()
        descriptions = self.admin.describe_groups(groups) if groups else {}
        result: dict[str, dict[tuple[str, int], int]] = {}
        for group in groups:
            state = descriptions.get(group, {}).get("group_state")
            if state in ("Empty", "Dead"):
                tps = self._partitions_to_reset(group)
                prepared = self._prepare(group, tps)
                if self.o.has("execute") and not self.o.has("dry-run"):
                    self._commit(group, prepared)
                result[group] = prepared
            else:
                self.print_error(f"Assignments can only be reset if the group '{group}' is "
                                 f"inactive, but the current state is {state}.")
                result[group] = {}
        return result

    def _partitions_to_reset(self, group: str) -> list[tuple[str, int]]:
        if self.o.has("all-topics"):
            return sorted(self.committed(group))
        if self.o.has("topic"):
            return parse_topic_args(self.o.values_of("topic"), self.describe_partitions)
        if not self.o.has("from-file"):
            raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
        return []

    def _check_range(self, requested: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
        tps = list(requested)
        starts = self.log_offsets(tps, _earliest())
        ends = self.log_offsets(tps, _latest())
        out = {}
        for tp, off in requested.items():
            end, start = ends.get(tp), starts.get(tp)
            name = f"{tp[0]}-{tp[1]}"
            if end is not None and off > end:
                sys.stderr.write(f"WARN New offset ({off}) is higher than latest offset for topic "
                                 f"partition {name}. Value will be set to {end}\n")
                out[tp] = end
            elif start is not None and off < start:
                sys.stderr.write(f"WARN New offset ({off}) is lower than earliest offset for topic "
                                 f"partition {name}. Value will be set to {start}\n")
                out[tp] = start
            else:
                out[tp] = off
        return out

    def _by_timestamp(self, tps: list[tuple[str, int]], ts: int) -> dict[tuple[str, int], int]:
        found = self.log_offsets(tps, ts)
        out = {tp: off for tp, off in found.items() if off is not None and off >= 0}
        missing = [tp for tp in tps if tp not in out]
        for tp in tp_order(missing):
            self._w(f"\nWarn: Partition {tp[1]} from topic {tp[0]} is empty. Falling back to "
                    "latest known offset.\n")
        out.update(self.log_offsets(missing, _latest()))
        return out

    def _prepare(self, group: str, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        o = self.o
        if o.has("to-offset"):
            return self._check_range({tp: o.value_of("to-offset") for tp in tps})
        if o.has("to-earliest"):
            return self.log_offsets(tps, _earliest())
        if o.has("to-latest"):
            return self.log_offsets(tps, _latest())
        if o.has("shift-by"):
            current = self.committed(group)
            requested = {}
            for tp in tps:
                if tp not in current:
                    raise UsageError(f"Cannot shift offset for partition {tp[0]}-{tp[1]} since "
                                     "there is no current committed offset")
                requested[tp] = current[tp] + o.value_of("shift-by")
            return self._check_range(requested)
        if o.has("to-datetime"):
            return self._by_timestamp(tps, parse_datetime(o.value_of("to-datetime")))
        if o.has("by-duration"):
            ts = int(self.clock() * 1000) - parse_duration_ms(o.value_of("by-duration"))
            return self._by_timestamp(tps, ts)
        if o.has("from-file"):
            plan = self._plan_from_file()
            if group not in plan:
                self.print_error(f"No reset plan for group {group} found")
                return {}
            return self._check_range(plan[group])
        if o.has("to-current"):
            current = self.committed(group)
            out = {tp: current[tp] for tp in tps if tp in current}
            out.update(self.log_offsets([tp for tp in tps if tp not in current], _latest()))
            return out
        raise UsageError("Option '[reset-offsets]' requires one of the following scenarios: "
                         "[" + ", ".join(SCENARIOS) + "]")

    def _plan_from_file(self) -> dict[str, dict[tuple[str, int], int]]:
        with open(self.o.value_of("from-file"), encoding="utf-8") as fh:
            lines = [ln.strip() for ln in fh.read().split("\n") if ln.strip()]
        single = len(self.o.values_of("group")) == 1
        plan: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)
        for ln in lines:
            cells = ln.split(",")
            if single and len(cells) == 3:
                plan[self.o.value_of("group")][(cells[0], int(cells[1]))] = int(cells[2])
            elif len(cells) == 4:
                plan[cells[0]][(cells[1], int(cells[2]))] = int(cells[3])
            else:
                raise ValueError(f"Invalid CSV line: {ln}")
        return plan

    def _commit(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        from kafka import TopicPartition
        from kafka.structs import OffsetAndMetadata

        if not offsets:
            return
        res = self.admin.alter_group_offsets(
            group, {TopicPartition(t, p): OffsetAndMetadata(off, "", None)
                    for (t, p), off in offsets.items()})
        for tp, err in (res or {}).items():
            if getattr(err, "errno", 0):
                raise RuntimeError(f"org.apache.kafka.common.errors.{_java_exception(err.__name__)}: "
                                   f"{getattr(err, 'description', err.__name__)}")

    def print_reset(self, result: dict[str, dict[tuple[str, int], int]]) -> None:
        if self.o.has("export"):
            single = len(self.o.values_of("group")) == 1
            lines = []
            for group in str_order(list(result)):
                offsets = result[group]
                for t, p in tp_order(list(offsets)):
                    off = offsets[(t, p)]
                    lines.append(f"{t},{p},{off}" if single else f"{group},{t},{p},{off}")
            self._w("".join(ln + "\n" for ln in lines) + "\n")
            return
        pattern = [30, 30, 10, 15]
        if result:
            self._w("\n" + fmt(pattern, ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]))
        for group in str_order(list(result)):
            offsets = result[group]
            for t, p in tp_order(list(offsets)):
                self._w("\n" + fmt(pattern, [group, t, p, offsets[(t, p)]]))
        self._w("\n")

    # -- delete offsets
    def delete_offsets(self) -> None:
        from kafka import TopicPartition

        group = self.o.value_of("group")
        topics = self.o.values_of("topic")
        results: dict[tuple[str, int], str | None] = {}
        tps: list[tuple[str, int]] = []
        for arg in topics:
            if ":" in arg:
                tps.extend(parse_topic_args([arg], self.describe_partitions))
            else:
                try:
                    tps.extend(self.describe_partitions([arg]))
                except RuntimeError as e:
                    results[(arg, -1)] = str(e)
        top_error = "NONE"
        try:
            res = self.admin.delete_group_offsets(group, [TopicPartition(t, p) for t, p in tps])
            for tp, err in (res or {}).items():
                errno = getattr(err, "errno", 0)
                results[(tp.topic, tp.partition)] = (None if not errno else
                                                     f"org.apache.kafka.common.errors.{_java_exception(err.__name__)}: "
                                                     f"{getattr(err, 'description', '')}")
        except Exception as e:  # a group-level error code
            top_error = _error_constant(type(e).__name__)
            for tp in tps:
                results.setdefault(tp, f"{type(e).__name__}: {e}")
        messages = {
            "NONE": None,
            "INVALID_GROUP_ID": f"'{group}' is not valid.",
            "GROUP_ID_NOT_FOUND": f"'{group}' does not exist.",
            "GROUP_AUTHORIZATION_FAILED": f"Access to '{group}' is not authorized.",
            "NON_EMPTY_GROUP": f"Deleting offsets of a consumer group '{group}' is forbidden if "
                               "the group is not empty.",
        }
        if top_error == "NONE" and not any(results.values()):
            self._w(f"Request succeeded for deleting offsets from group {group}.\n")
        elif top_error in messages and messages[top_error]:
            self.print_error(messages[top_error])
        elif top_error in ("NONE", "GROUP_SUBSCRIBED_TO_TOPIC", "TOPIC_AUTHORIZATION_FAILED",
                           "UNKNOWN_TOPIC_OR_PARTITION"):
            self.print_error("Encounter some partition level error, see the follow-up details:")
        else:
            self.print_error(f"Encounter some unknown error: {top_error}")
        pattern = [max([15] + [len(t) for t, _ in results]), 10, 15]
        self._w("\n" + fmt(pattern, ["TOPIC", "PARTITION", "STATUS"]))
        for (t, p), err in sorted(results.items(), key=lambda kv: kv[0][0] + str(kv[0][1])):
            self._w("\n" + fmt(pattern, [t, p if p >= 0 else "Not Provided",
                                         "Successful" if err is None else f"Error: :{err}"]))
        self._w("\n")


class UsageError(Exception):
    """An IllegalArgumentException in ConsumerGroupCommand: message plus usage, exit 1."""


def tp_order(tps: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Order of a Java HashMap keyed by TopicPartition: how Kafka's tool prints the rows of
    --reset-offsets and its timestamp warnings (--describe rows are sorted since 4.x)."""
    return java_hashmap_order(list(tps), lambda k: topic_partition_hash(*k))


def str_order(keys: list[str]) -> list[str]:
    return java_hashmap_order(list(keys), java_string_hash)


def _opt(v: Any) -> Any:
    return MISSING if v is None else v


def _latest():
    from kafka.admin import OffsetSpec
    return OffsetSpec.LATEST if hasattr(OffsetSpec, "LATEST") else OffsetSpec.latest()


def _earliest():
    from kafka.admin import OffsetSpec
    return OffsetSpec.EARLIEST if hasattr(OffsetSpec, "EARLIEST") else OffsetSpec.earliest()


def _error_constant(class_name: str) -> str:
    """kafka-python error class name -> Kafka's Errors constant (GroupIdNotFoundError ->
    GROUP_ID_NOT_FOUND)."""
    base = class_name[:-5] if class_name.endswith("Error") else class_name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).upper()


def _java_exception(err: Any) -> str:
    name = err if isinstance(err, str) else getattr(err, "__name__", str(err))
    return java_exception_name(name)


def _error_description(err: Any) -> str:
    import kafka.errors as Errors

    cls = getattr(Errors, err, None) if isinstance(err, str) else err
    return getattr(cls, "description", "") or str(err)


def run(args: list[str], admin_factory=None, out=None) -> int:
    out = out or sys.stdout
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as e:
        p.usage_and_exit(str(e))
    check_args(p, o, args)
    admin = None
    try:
        command_config = load_properties(o.value_of("command-config")) if o.has("command-config") else {}
        admin = (admin_factory or make_admin)(o.value_of("bootstrap-server"), command_config)
        service = GroupService(admin, o, out)
        if o.has("list"):
            service.list()
        elif o.has("describe"):
            service.describe()
        elif o.has("delete"):
            service.delete()
        elif o.has("reset-offsets"):
            service.print_reset(service.reset_offsets())
        else:
            service.delete_offsets()
        return 0
    except (UsageError, ValueError) as e:
        out.flush()
        p.usage_and_exit(str(e))
    except UsageExit:
        raise
    except BrokenPipeError:
        raise
    except Exception as e:
        out.write(f"\nError: Executing consumer group command failed due to {e}\n")
        out.flush()
        if debug_enabled():
            sys.stderr.write(traceback.format_exc())
        return 1
    finally:
        if admin is not None:
            try:
                admin.close()
            except Exception:
                pass


def main(argv: list[str] | None = None) -> int:
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
