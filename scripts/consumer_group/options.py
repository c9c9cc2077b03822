"""kafka-consumer-groups' command line: the options of Kafka's ConsumerGroupCommandOptions,
with its help texts and its checks of which options go together.

Who may call it: scripts.kafka_consumer_groups. No I/O besides the usage text on stderr.
"""
from __future__ import annotations

import sys

from kafpy.scripts._cli import OptionParser, OptionSet

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
