"""kafka-reassign-partitions: generate, execute, verify, cancel and list partition
reassignments (AlterPartitionReassignments 45 / ListPartitionReassignments 46) with the flags,
JSON and messages of Apache Kafka's ReassignPartitionsCommand (3.9).

Not supported: moving replicas between log directories (log_dirs other than "any") and the
replication throttles (--throttle is accepted; kafpy does not throttle replication).
"""
from __future__ import annotations

import builtins
import json
import sys
from typing import TYPE_CHECKING, Any, Iterable, Mapping, TextIO

from kafpy.replication.assignment import AssignmentError, BrokerMetadata, assign_replicas_to_brokers
from kafpy.scripts._cli import OptionException, OptionParser, OptionSet, UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import AdminFactory, admin_client, error_text

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

TopicPartition = tuple[str, int]
ACTIONS = ("generate", "execute", "verify", "cancel", "list")


class TerseException(Exception):
    """Kafka's TerseException: the message alone on stdout, exit 1."""


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: the server(s) to use for bootstrapping.",
              arg="required", described_as="Server(s) to use for bootstrapping")
    p.accepts("command-config", "Property file containing configs to be passed to Admin Client.",
              arg="required", described_as="Admin client property file")
    p.accepts("verify", "Verify if the reassignment completed as specified by the "
              "--reassignment-json-file option. If there is a throttle engaged for the replicas "
              "specified, and the rebalance has completed, the throttle will be removed")
    p.accepts("generate", "Generate a candidate partition reassignment configuration. Note that "
              "this only generates a candidate assignment, it does not execute it.")
    p.accepts("execute", "Kick off the reassignment as specified by the --reassignment-json-file "
              "option.")
    p.accepts("cancel", "Cancel an active reassignment.")
    p.accepts("list", "List all active partition reassignments.")
    p.accepts("reassignment-json-file", "The JSON file with the partition reassignment "
              "configuration", arg="required", described_as="manual assignment json file path")
    p.accepts("topics-to-move-json-file", "Generate a reassignment configuration to move the "
              "partitions of the specified topics to the list of brokers specified by the "
              "--broker-list option. The format to use is - \n{\"topics\":\n\t[{\"topic\": "
              "\"foo\"},{\"topic\": \"foo1\"}],\n\"version\":1\n}", arg="required",
              described_as="topics to reassign json file path")
    p.accepts("broker-list", "The list of brokers to which the partitions need to be reassigned "
              "in the form \"0,1,2\". This is required if --topics-to-move-json-file is used to "
              "generate reassignment configuration", arg="required", described_as="brokerlist")
    p.accepts("disable-rack-aware", "Disable rack aware replica assignment")
    p.accepts("throttle", "The movement of partitions between brokers will be throttled to this "
              "value (bytes/sec).", arg="required", described_as="throttle", type=int, default=-1)
    p.accepts("replica-alter-log-dirs-throttle", "The movement of replicas between log "
              "directories on the same broker will be throttled to this value (bytes/sec).",
              arg="required", described_as="replicaAlterLogDirsThrottle", type=int, default=-1)
    p.accepts("timeout", "The maximum time in ms to wait for log directory replica assignment "
              "to begin.", arg="required", described_as="timeout", type=int, default=10000)
    p.accepts("additional", "Execute this reassignment in addition to any other ongoing ones. "
              "This option can also be used to change the throttle of an ongoing reassignment.")
    p.accepts("preserve-throttles", "Do not modify broker or topic throttles.")
    return p


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> str:
    """ReassignPartitionsCommand.validateAndParseArgs: one action and its options."""
    p.maybe_help_or_version(o, args, "This tool helps to move topic partitions between replicas.")
    actions = [a for a in ACTIONS if o.has(a)]
    if len(actions) != 1:
        p.usage_and_exit("Command must include exactly one action: --generate, --execute, "
                         "--verify, --cancel, or --list")
    action = actions[0]
    p.check_required(o, "bootstrap-server")
    if action == "generate":
        p.check_required(o, "topics-to-move-json-file", "broker-list")
    elif action in ("execute", "verify", "cancel"):
        p.check_required(o, "reassignment-json-file")
    return action


# -- JSON (unit-tested) -------------------------------------------------------------------

def format_assignment_json(assignment: dict[TopicPartition, list[int]]) -> str:
    """Kafka's formatAsReassignmentJson: compact, partitions in topic/partition order."""
    parts = [{"topic": t, "partition": p, "replicas": list(r), "log_dirs": ["any"] * len(r)}
             for (t, p), r in sorted(assignment.items())]
    return json.dumps({"version": 1, "partitions": parts}, separators=(",", ":"))


def parse_reassignment_json(text: str) -> dict[TopicPartition, list[int]]:
    data = _json(text)
    parts = data.get("partitions")
    if not parts:
        raise TerseException("Partition reassignment list cannot be empty")
    out: dict[TopicPartition, list[int]] = {}
    for e in parts:
        tp = (str(e["topic"]), int(e["partition"]))
        replicas = [int(r) for r in e["replicas"]]
        if tp in out:
            raise TerseException(f"Found duplicate partition in reassignment list: {tp[0]}-{tp[1]}")
        if len(set(replicas)) != len(replicas):
            raise TerseException(f"Found duplicate replicas in reassignment list for partition "
                                 f"{tp[0]}-{tp[1]}: {','.join(map(str, replicas))}")
        dirs = e.get("log_dirs")
        if dirs is not None and any(d != "any" for d in dirs):
            raise TerseException("Moving replicas between log directories is not supported")
        out[tp] = replicas
    return out


def parse_topics_json(text: str) -> list[str]:
    topics = [str(e["topic"]) for e in (_json(text).get("topics") or [])]
    dups = sorted({t for t in topics if topics.count(t) > 1})
    if dups:
        raise TerseException("List of topics to reassign contains duplicate entries: " + ",".join(dups))
    return topics


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise TerseException(f"Unable to parse JSON: {e}") from None
    if not isinstance(data, dict):
        raise TerseException("The JSON document must be an object")
    return data


def parse_broker_list(text: str) -> list[int]:
    brokers = [int(b) for b in text.split(",") if b.strip()]
    dups = sorted({b for b in brokers if brokers.count(b) > 1})
    if dups:
        raise TerseException("Broker list contains duplicate entries: " + ",".join(map(str, dups)))
    return brokers


def tp_list(tps: Iterable[tuple[str, int]]) -> str:
    return ",".join(f"{t}-{p}" for t, p in sorted(tps))


def verify_lines(targets: dict[TopicPartition, list[int]], ongoing: set[TopicPartition],
                 current: dict[TopicPartition, list[int]]) -> tuple[list[str], bool]:
    """The verify report, and whether every reassignment is done."""
    lines, done = ["Status of partition reassignment:"], True
    for tp, target in sorted(targets.items()):
        name = f"{tp[0]}-{tp[1]}"
        if tp in ongoing:
            lines.append(f"Reassignment of partition {name} is still in progress.")
            done = False
        elif current.get(tp) == target:
            lines.append(f"Reassignment of partition {name} is completed.")
        else:
            lines.append(f"There is no active reassignment of partition {name}, but replica set is "
                         f"{','.join(map(str, current.get(tp, [])))} rather than "
                         f"{','.join(map(str, target))}.")
            done = False
    return lines, done


# -- the command --------------------------------------------------------------------------

class ReassignService:
    """One action against a kafka-python KafkaAdminClient (or a stand-in)."""

    def __init__(self, admin: KafkaAdminClient, out: TextIO) -> None:
        self.admin = admin
        self.out = out

    def _print(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def current_assignment(self, topics: list[str]) -> dict[TopicPartition, list[int]]:
        out: dict[TopicPartition, list[int]] = {}
        for t in self.admin.describe_topics(sorted(set(topics))):
            if t.get("error_code"):
                raise TerseException(f"Topic {t['name']} not found.")
            for p in t.get("partitions", []):
                out[(t["name"], p["partition_index"])] = list(p.get("replica_nodes", []))
        return out

    def ongoing(self) -> dict[TopicPartition, dict[str, list[int]]]:
        return {(tp.topic, tp.partition): r for tp, r in self.admin.list_partition_reassignments().items()}

    def generate(self, o: OptionSet) -> None:
        with open(o.value_of("topics-to-move-json-file"), encoding="utf-8") as f:
            topics = parse_topics_json(f.read())
        brokers = parse_broker_list(o.value_of("broker-list"))
        cluster = {b.get("node_id", b.get("broker_id")): b.get("rack")
                   for b in self.admin.describe_cluster().get("brokers", [])}
        missing = [b for b in brokers if b not in cluster]
        if missing:
            raise TerseException("The given broker list contains nonexistent brokers: "
                                 + ",".join(map(str, missing)))
        metas = [BrokerMetadata(b, None if o.has("disable-rack-aware") else cluster[b]) for b in brokers]
        current = self.current_assignment(topics)
        proposed: dict[TopicPartition, list[int]] = {}
        for topic in sorted(set(topics)):
            parts = sorted(p for t, p in current if t == topic)
            try:
                new = assign_replicas_to_brokers(metas, len(parts), len(current[(topic, parts[0])]))
            except AssignmentError as e:
                raise TerseException(str(e)) from None
            proposed.update({(topic, p): r for p, r in new.items()})
        self._print("Current partition replica assignment")
        self._print(format_assignment_json(current))
        self._print()
        self._print("Proposed partition reassignment configuration")
        self._print(format_assignment_json(proposed))

    def execute(self, o: OptionSet) -> None:
        targets = self._targets(o)
        ongoing = self.ongoing()
        if ongoing and not o.has("additional"):
            raise TerseException("Cannot execute because there is an existing partition "
                                 "assignment.  Use --additional to override this and create a new "
                                 "partition assignment in addition to the existing one. The "
                                 "--additional flag can also be used to change the throttle by "
                                 "resubmitting the current reassignment.")
        current = self.current_assignment([t for t, _ in targets])
        unknown = [tp for tp in targets if tp not in current]
        if unknown:
            raise TerseException("Unable to find partition: " + tp_list(unknown))
        self._print("Current partition replica assignment")
        self._print()
        self._print(format_assignment_json({tp: current[tp] for tp in targets}))
        self._print()
        self._print("Save this to use as the --reassignment-json-file option during rollback")
        self._alter(targets)
        self._print(f"Successfully started partition reassignment{'s' if len(targets) > 1 else ''} "
                    f"for {tp_list(targets)}")

    def verify(self, o: OptionSet) -> None:
        targets = self._targets(o)
        ongoing = set(self.ongoing())
        current = self.current_assignment([t for t, _ in targets])
        lines, _ = verify_lines(targets, ongoing, current)
        for line in lines:
            self._print(line)

    def cancel(self, o: OptionSet) -> None:
        targets = self._targets(o)
        active = sorted(tp for tp in self.ongoing() if tp in targets)
        if not active:
            self._print("None of the specified partition reassignments are active.")
            return
        self._alter({tp: None for tp in active})
        self._print(f"Successfully cancelled partition reassignment{'s' if len(active) > 1 else ''} "
                    f"for: {tp_list(active)}")

    def list(self, o: OptionSet) -> None:
        ongoing = self.ongoing()
        if not ongoing:
            self._print("No partition reassignments found.")
            return
        self._print("Current partition reassignments:")
        for (t, p), r in sorted(ongoing.items()):
            self._print(f"{t}-{p}: replicas: {','.join(map(str, r['replicas']))}. adding: "
                        f"{','.join(map(str, r['adding_replicas']))}. removing: "
                        f"{','.join(map(str, r['removing_replicas']))}.")

    def _targets(self, o: OptionSet) -> dict[TopicPartition, builtins.list[int]]:
        with open(o.value_of("reassignment-json-file"), encoding="utf-8") as f:
            return parse_reassignment_json(f.read())

    def _alter(self, reassignments: Mapping[TopicPartition, builtins.list[int] | None]) -> None:
        from kafka import TopicPartition as KafkaTp

        result = self.admin.alter_partition_reassignments(
            {KafkaTp(t, p): r for (t, p), r in reassignments.items()})
        errors = {(tp.topic, tp.partition): err for tp, err in result.items() if err is not None}
        if errors:
            raise TerseException("Error reassigning partition(s):\n" + "\n".join(
                f"{t}-{p}: {error_text(err.errno)}" for (t, p), err in sorted(errors.items())))


def run(args: list[str], admin_factory: AdminFactory | None = None,
        out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as e:
        sys.stderr.write(f"{e}\n")
        return 1
    action = check_args(p, o, args)
    try:
        with admin_client(o.value_of("bootstrap-server"), o.value_of("command-config"), admin_factory) as admin:
            getattr(ReassignService(admin, out), action)(o)
        return 0
    except UsageExit:
        raise
    except BrokenPipeError:
        raise
    except TerseException as e:
        out.write(f"{e}\n")
        return 1
    except Exception as e:  # noqa: BLE001 - Kafka: "Error: <message>" and the stack trace
        if isinstance(e, OSError) and e.filename:
            out.write(f"Error: {e.filename} (No such file or directory)\n")
        else:
            out.write(f"Error: {e}\n")
        debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
