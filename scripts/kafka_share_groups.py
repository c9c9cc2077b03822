"""kafka-share-groups: list, describe (offsets, members, state), reset and delete the
offsets of, and delete share groups (KIP-932), with the flags, messages and column layout
of Apache Kafka 4.4's ShareGroupCommand. Sent raw (scripts.share_group_client): kafka-python
has no share group API.
"""
from __future__ import annotations

import builtins
import sys
from typing import TextIO

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import OptionParser, OptionSet, UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import BrokerError, java_hashmap_order, topic_partition_hash
from kafpy.scripts.consumer_group.reset_offsets import parse_datetime
from kafpy.scripts.share_group_client import ShareGroupAdmin

_RESETS = ["to-offset", "to-earliest", "to-latest", "to-datetime", "to-current"]


def build_parser() -> OptionParser:
    p = OptionParser(option_width=40)
    p.accepts("bootstrap-server", "REQUIRED: The server(s) to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("group", "The share group we wish to act on.", arg="required", described_as="share group")
    p.accepts("topic", "The topic whose share group information should be deleted or topic "
              "which should be included in the reset offset process.", arg="required",
              described_as="topic")
    p.accepts("all-topics", "Consider all topics assigned to a share group in the "
              "`reset-offsets` process.")
    p.accepts("list", "List all share groups.")
    p.accepts("describe", "Describe share group, members and offset information.")
    p.accepts("delete", "Delete share group.")
    p.accepts("delete-offsets", "Delete offsets of share group. Supports one share group at the "
              "time, and multiple topics.")
    p.accepts("reset-offsets", "Reset offsets of share group. Supports one share group at the "
              "time, and instances must be inactive.")
    p.accepts("dry-run", "Only show results without executing changes on share groups.")
    p.accepts("execute", "Execute operation. Supported operations: reset-offsets.")
    p.accepts("to-offset", "Reset offsets to a specific offset.", arg="required",
              described_as="offset", type=int, type_name="Long")
    p.accepts("to-datetime", "Reset offsets to offset from datetime. Format: "
              "'YYYY-MM-DDTHH:mm:SS.sss'", arg="required", described_as="datetime")
    p.accepts("to-current", "Reset offsets to current offset.")
    p.accepts("all-groups", "Apply to all share groups.")
    p.accepts("to-earliest", "Reset offsets to earliest offset.")
    p.accepts("to-latest", "Reset offsets to latest offset.")
    p.accepts("members", "Describe members of the group.")
    p.accepts("offsets", "Describe the group and list all topic partitions in the group along "
              "with their offset information.")
    p.accepts("state", "When specified with '--describe', includes the state of the group.",
              arg="optional", described_as="String")
    p.accepts("verbose", "Use with --describe --state or --members to print more detail.")
    p.accepts("timeout", "The timeout that can be set for some use cases.", arg="required",
              described_as="timeout (ms)", type=int, type_name="Long", default=5000)
    p.accepts("command-config", "Property file containing configs to be passed to the admin "
              "client.", arg="required", described_as="command config property file")
    return p


def _left(width: int, value: object) -> str:
    return f"{value!s:<{width}}"


class ShareGroupCommand:
    def __init__(self, admin: ShareGroupAdmin, o: OptionSet, out: TextIO, err: TextIO) -> None:
        self.admin, self.o, self.out, self.err = admin, o, out, err

    # ------------------------------------------------------------------ list
    def list(self) -> None:
        if self.o.has("state"):
            wanted = self.o.value_of("state")
            groups = self.admin.list_groups([wanted] if wanted else None)
            width = max([15] + [len(g.group_id) for g in groups])
            self.out.write(_left(width, "GROUP") + " STATE\n")
            for g in groups:
                self.out.write(_left(width, g.group_id) + f" {g.group_state}\n")
            return
        for g in self.admin.list_groups():
            self.out.write(g.group_id + "\n")

    # ------------------------------------------------------------------ describe
    def _description(self, group: str) -> tuple[messages.ShareGroupDescribeResponse.DescribedGroup, str, int]:
        d, address, node_id = self.admin.describe(group)
        if d.error_code != ErrorCode.NONE:
            raise BrokerError(d.error_code, d.error_message)
        return d, address, node_id

    def _no_members(self, group: str, d: messages.ShareGroupDescribeResponse.DescribedGroup) -> bool:
        """Kafka's maybePrintEmptyGroupState: True when there is nothing to list."""
        if d.group_state == "Dead":
            self.err.write(f"Error: Share group '{group}' does not exist.\n")
            return True
        if d.group_state == "Empty" or not d.members:
            self.err.write(f"\nShare group '{group}' has no active members.\n")
            return True
        return False

    def groups(self) -> builtins.list[str]:
        """--group values, or every share group with --all-groups (sorted, as Kafka's)."""
        if self.o.has("all-groups"):
            return sorted(g.group_id for g in self.admin.list_groups())
        return self.o.values_of("group")

    def describe(self) -> None:
        for group in self.groups():
            self.describe_group(group)

    def describe_group(self, group: str) -> None:
        d, address, node_id = self._description(group)
        verbose = self.o.has("verbose")
        if self.o.has("members"):
            if self._no_members(group, d):
                return
            members = sorted(d.members, key=lambda m: m.member_id)
            gw = max(15, len(group))
            cw = max([15] + [len(m.member_id) for m in members])
            hw = max([15] + [len(m.client_host) for m in members])
            kw = max([15] + [len(m.client_id) for m in members])
            head = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
            tail = ["MEMBER-EPOCH", "ASSIGNMENT"] if verbose else ["ASSIGNMENT"]

            def line(cols: list) -> str:
                s = " ".join([_left(gw, cols[0]), _left(cw, cols[1]), _left(hw, cols[2]),
                              _left(kw, cols[3]), _left(12, cols[4])])
                return "\n" + s + (f" {_left(13, cols[5])} {cols[6]}" if verbose else f" {cols[5]}")
            self.out.write(line(head + tail))
            for m in members:
                parts = [(tp.topic_name, sorted(tp.partitions)) for tp in m.assignment.topic_partitions]
                n = sum(len(ps) for _, ps in parts)
                text = ";".join(f"{t}:{','.join(map(str, ps))}" for t, ps in sorted(parts))
                cols = [group, m.member_id, m.client_host, m.client_id, n]
                cols += [m.member_epoch, text] if verbose else [text]
                self.out.write(line(cols))
            self.out.write("\n")
            return
        if self.o.has("state"):
            host, _, port = address.rpartition(":")
            coordinator = f"{host}:{port}  ({node_id})"
            gw, cw = max(15, len(group)), max(25, len(coordinator))
            if verbose:
                self.out.write("\n" + " ".join([_left(gw, "GROUP"), _left(cw, "COORDINATOR (ID)"),
                                                _left(15, "STATE"), _left(12, "GROUP-EPOCH"),
                                                _left(17, "ASSIGNMENT-EPOCH"), "#MEMBERS"]))
                self.out.write("\n" + " ".join([_left(gw, group), _left(cw, coordinator),
                                                _left(15, d.group_state), _left(12, d.group_epoch),
                                                _left(17, d.assignment_epoch), str(len(d.members))]))
            else:
                self.out.write("\n" + " ".join([_left(gw, "GROUP"), _left(cw, "COORDINATOR (ID)"),
                                                _left(15, "STATE"), "#MEMBERS"]))
                self.out.write("\n" + " ".join([_left(gw, group), _left(cw, coordinator),
                                                _left(15, d.group_state), str(len(d.members))]))
            self.out.write("\n")
            self._no_members(group, d)
            return
        offsets = self.admin.describe_offsets(group)
        if offsets.error_code != ErrorCode.NONE:
            raise BrokerError(offsets.error_code, offsets.error_message)
        rows = sorted(((t.topic_name, p.partition_index, p.leader_epoch, p.start_offset, p.lag)
                       for t in offsets.topics for p in t.partitions), key=lambda r: (r[0], r[1]))
        if not rows:
            self.out.write(f"\nShare group '{group}' has no offset information.\n")
            return
        gw = max(15, len(group))
        tw = max([15] + [len(r[0]) for r in rows])

        def dash(v: int) -> str:
            return "-" if v is None or v < 0 else str(v)
        if verbose:
            self.out.write("\n" + " ".join([_left(gw, "GROUP"), _left(tw, "TOPIC"), _left(10, "PARTITION"),
                                            _left(13, "LEADER-EPOCH"), _left(13, "START-OFFSET"), "LAG"]))
        else:
            self.out.write("\n" + " ".join([_left(gw, "GROUP"), _left(tw, "TOPIC"), _left(10, "PARTITION"),
                                            _left(13, "START-OFFSET"), "LAG"]))
        for t, p, epoch, start, lag in rows:
            cells = [_left(gw, group), _left(tw, t), _left(10, p)]
            if verbose:
                cells.append(_left(13, dash(epoch)))
            cells += [_left(13, dash(start)), dash(lag)]
            self.out.write("\n" + " ".join(cells))
        self.out.write("\n")

    # ------------------------------------------------------------------ changes
    def _require_inactive(self, group: str) -> bool:
        d, _, _ = self.admin.describe(group)
        if d.error_code == ErrorCode.NONE and d.group_state not in ("Empty", "Dead"):
            self.err.write(f"Share group '{group}' is not empty.\n")
            return False
        return True

    def reset_offsets(self) -> int:
        group = self.o.value_of("group")
        if not self._require_inactive(group):
            return 1
        topics = self.admin.topics()
        partitions: list[tuple[str, int]] = []
        if self.o.has("all-topics"):
            offsets = self.admin.describe_offsets(group)
            partitions = [(t.topic_name, p.partition_index) for t in offsets.topics for p in t.partitions]
        for spec in self.o.values_of("topic"):
            name, _, listed = spec.partition(":")
            if listed:
                partitions += [(name, int(p)) for p in listed.split(",")]
            elif name in topics:
                partitions += [(name, p.partition_index) for p in topics[name].partitions]
        target: dict[tuple[str, int], int] = {}
        current: dict[tuple[str, int], int] = {}
        if self.o.has("to-current"):
            offsets = self.admin.describe_offsets(group)
            current = {(t.topic_name, p.partition_index): p.start_offset
                       for t in offsets.topics for p in t.partitions}
        for t, p in partitions:
            if self.o.has("to-offset") or self.o.has("to-current"):
                wanted = (self.o.value_of("to-offset") if self.o.has("to-offset")
                          else current.get((t, p), -1))
                target[(t, p)] = self._within_log(t, p, wanted)
            elif self.o.has("to-datetime"):
                found = self.admin.list_offset(t, p, parse_datetime(self.o.value_of("to-datetime")))
                target[(t, p)] = found if found >= 0 else self.admin.list_offset(t, p, -1)
            else:
                target[(t, p)] = self.admin.list_offset(t, p, -2 if self.o.has("to-earliest") else -1)
        if self.o.has("execute") and target:
            resp = self.admin.alter_offsets(group, target)
            if resp.error_code != ErrorCode.NONE:
                raise BrokerError(resp.error_code, resp.error_message)
        order = java_hashmap_order(list(target), lambda tp: topic_partition_hash(*tp))
        gw = max(15, len(group))
        tw = max([15] + [len(t) for t, _ in order])
        if order:
            self.out.write("\n" + " ".join([_left(gw, "GROUP"), _left(tw, "TOPIC"),
                                            _left(10, "PARTITION"), "NEW-OFFSET"]))
        for t, p in order:
            self.out.write("\n" + " ".join([_left(gw, group), _left(tw, t), _left(10, p), str(target[(t, p)])]))
        self.out.write("\n")
        return 0

    def _within_log(self, topic: str, partition: int, offset: int) -> int:
        """`offset` moved into the log's range, warning as Kafka's offsets resetter does."""
        end = self.admin.list_offset(topic, partition, -1)
        start = self.admin.list_offset(topic, partition, -2)
        if offset > end:
            self.err.write(f"WARN New offset ({offset}) is higher than latest offset for topic "
                           f"partition {topic}-{partition}. Value will be set to {end}\n")
            return end
        if offset < start:
            self.err.write(f"WARN New offset ({offset}) is lower than earliest offset for topic "
                           f"partition {topic}-{partition}. Value will be set to {start}\n")
            return start
        return offset

    def delete_offsets(self) -> None:
        group = self.o.value_of("group")
        topics = self.o.values_of("topic")
        resp = self.admin.delete_offsets(group, topics)
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
        tw = max([15] + [len(t) for t in topics])
        self.out.write("\n" + _left(tw, "TOPIC") + " STATUS")
        for r in resp.responses:
            status = "Successful" if r.error_code == ErrorCode.NONE else \
                f"Error: {r.error_message or BrokerError(r.error_code)}"
            self.out.write("\n" + _left(tw, r.topic_name) + " " + status)
        self.out.write("\n")

    def delete(self) -> None:
        groups = self.groups()
        shared = {g.group_id for g in self.admin.list_groups()}
        failed: dict[str, tuple[str, str]] = {}
        for g in groups:
            if g not in shared:
                failed[g] = (BrokerError(ErrorCode.GROUP_ID_NOT_FOUND).java_name(),
                             f"Group '{g}' is not a share group.")
                continue
            code = self.admin.delete_group(g)
            if code != ErrorCode.NONE:
                e = BrokerError(code)
                failed[g] = (e.java_name(), str(e))
        if not failed:
            names = ", ".join(f"'{g}'" for g in groups)
            self.out.write(f"Deletion of requested share groups ({names}) was successful.\n")
            return
        self.out.write("\nError: Deletion of some share groups failed:\n")
        for g, (name, message) in failed.items():
            self.out.write(f"* Group '{g}' could not be deleted due to: {name}: {message}\n")


def run(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    p = build_parser()
    o = p.parse_or_usage(args)
    p.maybe_help_or_version(o, args, "This tool helps to list, describe, reset and delete share groups.")
    actions = [a for a in ("list", "describe", "delete", "delete-offsets", "reset-offsets") if o.has(a)]
    if len(actions) != 1:
        p.usage_and_exit("Command must include exactly one action: --list, --describe, --delete, "
                         "--reset-offsets, --delete-offsets.")
    p.check_required(o, "bootstrap-server")
    if actions[0] != "list" and not o.has("group") and not (
            o.has("all-groups") and actions[0] in ("describe", "delete")):
        p.usage_and_exit(f"Option [{actions[0]}] takes one of these options: [group]")
    if actions[0] == "reset-offsets" and sum(o.has(r) for r in _RESETS) != 1:
        p.usage_and_exit("One of the reset scopes should be defined: --to-offset, --to-earliest, --to-latest.")
    try:
        with ShareGroupAdmin(o.value_of("bootstrap-server")) as admin:
            cmd = ShareGroupCommand(admin, o, out, err)
            if actions[0] == "list":
                cmd.list()
            elif actions[0] == "describe":
                cmd.describe()
            elif actions[0] == "delete":
                cmd.delete()
            elif actions[0] == "delete-offsets":
                cmd.delete_offsets()
            else:
                return cmd.reset_offsets()
        return 0
    except (UsageExit, BrokenPipeError):
        raise
    except BrokerError as e:
        out.write(f"\nError: Executing share group command failed due to {e.java_name()}: "
                  f"{e}\n")
        out.flush()
        debug_traceback()
        return 0
    except Exception as e:  # noqa: BLE001 - the tool's last word, as Kafka's
        out.write(f"\nError: Executing share group command failed due to {e}\n")
        out.flush()
        debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
