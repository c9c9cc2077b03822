"""kafka-streams-groups: list, describe (offsets, members, state) and delete Streams groups
(KIP-1071), reset and delete their offsets (scripts.streams_group_offsets), with the
options and column layout of Apache Kafka 4.4's StreamsGroupCommand.
With `--delete-all-internal-topics`, deleting a group deletes its internal topics
(repartition and changelog topics) too, as Kafka's tool does. Built on raw requests (scripts.streams_groups_client).

Who may call it: scripts/kafka-streams-groups.sh. Prints to stdout, usage errors to stderr.
"""
from __future__ import annotations

import sys
from typing import Sequence, TextIO

from kafpy.broker.properties import load_properties
from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import OptionParser, OptionSet, UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import BrokerError, error_text
from kafpy.scripts.streams_group_offsets import (ResetError, StreamsOffsetsResetter,
                                                 delete_offsets, print_reset)
from kafpy.scripts.streams_groups_client import StreamsGroupsClient

ACTIONS = ("list", "describe", "delete", "reset-offsets", "delete-offsets")


def build_parser() -> OptionParser:
    p = OptionParser()
    a = p.accepts
    a("bootstrap-server", "REQUIRED: The server(s) to connect to.", arg="required",
      described_as="server to connect to")
    a("command-config", "Property file containing configs to be passed to Admin Client.",
      arg="required", described_as="command config property file")
    a("group", "The streams group we wish to act on.", arg="required", described_as="streams group")
    a("list", "List all streams groups.")
    a("describe", "Describe streams group and list offset lag related to given group.")
    a("delete", "Pass in groups to delete topic partition offsets and ownership information "
      "over the entire streams group.")
    a("delete-all-internal-topics", "Delete all internal topics linked to the streams group. "
      "Supported operations: delete.")
    a("members", "Describe members of the group. This option may be used with the "
      "'--describe' option only.")
    a("offsets", "Describe the group and list all topic partitions in the group along with "
      "their offset information. This is the default sub-action.")
    a("state", "When specified with '--describe', includes the state of the group. When "
      "specified with '--list', it displays the state of all groups.", arg="optional",
      described_as="state")
    a("verbose", "Use with --describe --state  to show group epoch and target assignment epoch.")
    a("all-groups", "Apply to all streams groups.")
    a("input-topic", "The input topic whose committed offset should be deleted or reset. In "
      "--reset-offsets case, partitions can be specified using this format: `topic:0,1,2`, "
      "where 0,1,2 are the partitions to be included. Multiple input topics can be specified. "
      "Supported operations: delete-offsets, reset-offsets.", arg="required", described_as="topic")
    a("all-input-topics", "Consider all input topics used in the topology of the group. "
      "Supported operations: delete-offsets, reset-offsets.")
    a("reset-offsets", "Reset offsets of streams group. The instances should be inactive.")
    a("delete-offsets", "Delete offsets of streams group. Supports one streams group at a "
      "time, and multiple topics.")
    a("dry-run", "Only show results without executing changes on streams group. Supported "
      "operation: reset-offsets.")
    a("execute", "Execute the offset reset operation. Supported operation: reset-offsets.")
    a("export", "Generate offset reset information in CSV format for export to a file. "
      "Supported operation: reset-offsets.")
    a("to-offset", "Reset offsets to a specific offset.", arg="required", described_as="offset",
      type=int)
    a("from-file", "Reset offsets to values defined in CSV file.", arg="required",
      described_as="path to CSV file")
    a("to-datetime", "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'",
      arg="required", described_as="datetime")
    a("by-duration", "Reset offsets by duration from current timestamp. Format: 'PnDTnHnMnS'",
      arg="required", described_as="duration")
    a("to-earliest", "Reset offsets to earliest offset.")
    a("to-latest", "Reset offsets to latest offset.")
    a("to-current", "Reset offsets to current offset.")
    a("shift-by", "Reset offsets shifting current offset by 'n', where 'n' can be positive or "
      "negative.", arg="required", described_as="number-of-offsets", type=int)
    a("delete-internal-topic", "Delete specified internal topic of the streams group. "
      "Supported operation: reset-offsets.This option is applicable only when --execute is "
      "used.", arg="required", described_as="topic")
    return p


def _check(p: OptionParser, o: OptionSet) -> None:
    actions = [a for a in ACTIONS if o.has(a)]
    if len(actions) != 1:
        p.usage_and_exit("Command must include exactly one action: --list, --describe, --delete, "
                         "--reset-offsets, or --delete-offsets.")
    if not o.has("bootstrap-server"):
        p.usage_and_exit("Missing required argument \"[bootstrap-server]\"")
    if (o.has("describe") or o.has("delete")) and not o.has("group"):
        p.usage_and_exit("Option [describe] takes the option: [group]" if o.has("describe")
                         else "Option [delete] takes the option: [group]")
    if o.has("reset-offsets"):
        if not o.has("group") and not o.has("all-groups"):
            p.usage_and_exit("Option [reset-offsets] takes one of these options: "
                             "[all-groups], [group]")
        if o.has("dry-run") and o.has("execute"):
            p.usage_and_exit("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not o.has("dry-run") and not o.has("execute"):
            p.usage_and_exit("Option [reset-offsets] takes the option: [execute] or [dry-run]")
    if o.has("delete-offsets") and not o.has("group"):
        p.usage_and_exit("Option [delete-offsets] takes the option: [group]")


def _row(widths: list[int], values: Sequence[object]) -> str:
    cells = [f"{str(v):<{w}}" for w, v in zip(widths, values[:-1])]
    return " ".join(cells + [str(values[-1])])


def _tasks(kind: str, tasks: list) -> str:
    return f"{kind}: " + "".join(
        f"{t.subtopology_id}:[{','.join(str(p) for p in sorted(t.partitions))}]; "
        for t in sorted(tasks, key=lambda t: t.subtopology_id))


def _assignments(a: messages.StreamsGroupDescribeResponse.Assignment) -> str:
    parts = []
    if a.active_tasks:
        parts.append(_tasks("ACTIVE", a.active_tasks))
    if a.standby_tasks:
        parts.append(_tasks("STANDBY", a.standby_tasks))
    if a.warmup_tasks:
        parts.append(_tasks("WARMUP", a.warmup_tasks))
    return "".join(parts)


def describe(client: StreamsGroupsClient, o: OptionSet, out: TextIO) -> int:
    group_id = o.value_of("group")
    g, coordinator = client.describe(group_id)
    if g.error_code != ErrorCode.NONE:
        raise BrokerError(g.error_code, g.error_message)
    if g.group_state in ("Empty", "Dead") and not o.has("state"):
        out.write(f"\nStreams group '{group_id}' has no active members.\n")
    gw = max(15, len(group_id))
    if o.has("state"):
        out.write(_row([gw, 25, 15, 25], ["GROUP", "COORDINATOR (ID)", "ASSIGNOR", "STATE",
                                                 "#MEMBERS"]) + "\n")
        out.write(_row([gw, 25, 15, 25], [group_id, coordinator, g.assignor_name or "sticky",
                                          g.group_state, len(g.members)]) + "\n")
    elif o.has("members"):
        rows = [[group_id, m.member_id, m.process_id, m.client_id, _assignments(m.assignment)]
                for m in g.members]
        header = ["GROUP", "MEMBER", "PROCESS", "CLIENT-ID", "ASSIGNMENTS"]
        widths = [max([15] + [len(r[i]) for r in rows]) for i in range(4)]
        out.write(_row(widths, header) + "\n")
        for r in rows:
            out.write(_row(widths, r) + "\n")
    else:
        committed = client.committed(group_id)
        ends = client.end_offsets(sorted(committed))
        tw = max([15] + [len(t) for t, _ in committed])
        out.write(_row([gw, tw, 10], ["GROUP", "TOPIC", "PARTITION", "OFFSET-LAG"]) + "\n")
        for (t, p), off in sorted(committed.items()):
            lag = ends[(t, p)] - off if (t, p) in ends else "-"
            out.write(_row([gw, tw, 10], [group_id, t, p, lag]) + "\n")
    return 0


def _delete_failed(out: TextIO, group_id: str, reason: str) -> int:
    # Kafka's tool reports a group it could not delete and still exits 0
    out.write(f"\nError: Deletion of some streams groups failed:\n* Group '{group_id}' could "
              f"not be deleted due to: {reason}\n")
    return 0


def delete(client: StreamsGroupsClient, o: OptionSet, out: TextIO) -> int:
    group_id = o.value_of("group")
    g, _ = client.describe(group_id)
    if g.error_code == ErrorCode.NONE and g.group_state not in ("Empty", "Dead"):
        # checked before asking, as Kafka's tool does
        return _delete_failed(out, group_id, f"{BrokerError(ErrorCode.NON_EMPTY_GROUP).java_name()}: "
                                             f"Streams group '{group_id}' is not EMPTY.")
    internal = []
    if o.has("delete-all-internal-topics") and g.error_code == ErrorCode.NONE and g.topology is not None:
        for s in g.topology.subtopologies or []:
            internal += [t.name for t in s.repartition_source_topics]
            internal += [t.name for t in s.state_changelog_topics]
    error = client.delete_group(group_id)
    if error != ErrorCode.NONE:
        e = BrokerError(error)
        return _delete_failed(out, group_id, f"{e.java_name()}: {e}")
    out.write(f"Deletion of requested streams groups ('{group_id}') was successful.\n")
    if internal:
        failed = {t: e for t, e in client.delete_topics(sorted(set(internal))).items()
                  if e != ErrorCode.NONE}
        if failed:
            out.write("Deletion of some associated internal topics failed:\n" + "".join(
                f"* Internal topic '{t}' could not be deleted due to: {error_text(e)}\n"
                for t, e in sorted(failed.items())))
            return 1
        out.write(f"Deletion of associated internal topics of the streams groups "
                  f"('{group_id}') was successful.\n")
    return 0


def run(args: list[str], out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    o = p.parse_or_usage(args)
    _check(p, o)
    props = load_properties(o.value_of("command-config")) if o.has("command-config") else {}
    try:
        with StreamsGroupsClient(o.value_of("bootstrap-server"), props) as client:
            if o.has("list"):
                groups = client.list_groups()
                if not o.has("state"):
                    out.writelines(f"{gid}\n" for gid, _ in groups)
                    return 0
                width = max([15] + [len(gid) for gid, _ in groups])
                out.write(_row([width], ["GROUP", "STATE"]) + "\n")
                out.writelines(_row([width], [gid, state]) + "\n" for gid, state in groups)
                return 0
            if o.has("describe"):
                return describe(client, o, out)
            if o.has("reset-offsets"):
                print_reset(o, StreamsOffsetsResetter(client, p, o, out).run(), out)
                return 0
            if o.has("delete-offsets"):
                return delete_offsets(client, p, o, out)
            return delete(client, o, out)
    except (UsageExit, BrokenPipeError):
        raise
    except ResetError as e:
        out.write(f"\nError: Executing streams group command failed due to {e}\n")
        return 1
    except BrokerError as e:
        out.write(f"\nError: Executing streams group command failed due to {e.java_name()}: {e}\n")
        out.flush()
        debug_traceback()
        return 1
    except Exception as e:  # noqa: BLE001 - the tool's top level: printed as Kafka's tool prints it
        out.write(f"\nError: Executing streams group command failed due to {e}\n")
        out.flush()
        debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
