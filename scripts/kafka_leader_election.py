"""kafka-leader-election: run a preferred or unclean leader election (ElectLeaders, API 43)
with the flags, messages and exit codes of Apache Kafka's LeaderElectionCommand (3.9).
"""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, TextIO

from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import OptionException, OptionParser, OptionSet, UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import AdminFactory, BrokerError, admin_client, java_hashmap_order, topic_partition_hash

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

ELECTION_TYPES = {"PREFERRED": 0, "UNCLEAN": 1}
TopicPartition = tuple[str, int]


class AdminCommandFailedException(Exception):
    """Kafka's AdminCommandFailedException: the message goes to stderr, exit 1."""


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "A hostname and port for the broker to connect to, in the form "
              "host:port. Multiple comma separated URLs can be given. REQUIRED.", arg="required",
              described_as="host:port")
    p.accepts("admin.config", "Configuration properties files to pass to the admin client",
              arg="required", described_as="config file")
    p.accepts("path-to-json-file", "The JSON file with the list  of partition for which leader "
              "elections should be performed. This is an example format. \n{\"partitions\":\n"
              "\t[{\"topic\": \"foo\", \"partition\": 1},\n\t {\"topic\": \"foobar\", "
              "\"partition\": 2}]\n}\nNot allowed if --all-topic-partitions or --topic flags are "
              "specified.", arg="required", described_as="Path to JSON file")
    p.accepts("topic", "Name of topic for which to perform an election. Not allowed if "
              "--path-to-json-file or --all-topic-partitions is specified.", arg="required",
              described_as="topic name")
    p.accepts("partition", "Partition id for which to perform an election. REQUIRED if --topic "
              "is specified.", arg="required", described_as="partition id", type=int)
    p.accepts("all-topic-partitions", "Perform election on all of the eligible topic "
              "partitions based on the type of election (see the --election-type flag). Not "
              "allowed if --topic or --path-to-json-file is specified.")
    p.accepts("election-type", "Type of election to attempt. Possible values are \"preferred\" "
              "for preferred leader election or \"unclean\" for unclean leader election. If "
              "preferred election is selection, the election is only performed if the current "
              "leader is not the preferred leader for the topic partition. If unclean election "
              "is selected, the election is only performed if there are no leader for the topic "
              "partition. REQUIRED.", arg="required", described_as="election type",
              type=str.upper)
    return p


def check_args(o: OptionSet) -> str:
    """LeaderElectionCommand's option rules; returns the election type's name."""
    missing = [n for n in ("bootstrap-server", "election-type") if not o.has(n)]
    if missing:
        raise AdminCommandFailedException("Missing required option(s): " + ", ".join(missing))
    exclusive = ("topic", "all-topic-partitions", "path-to-json-file")
    if sum(1 for n in exclusive if o.has(n)) != 1:
        raise AdminCommandFailedException("One and only one of the following options is "
                                          "required: " + ", ".join(exclusive))
    if o.has("topic") and not o.has("partition"):
        raise AdminCommandFailedException("Missing required option(s): partition")
    if not o.has("topic") and o.has("partition"):
        raise AdminCommandFailedException("Option partition is only allowed if topic is used")
    election = o.value_of("election-type")
    if election not in ELECTION_TYPES:
        raise AdminCommandFailedException(f"No enum constant org.apache.kafka.common.ElectionType.{election}")
    return election


def parse_election_json(text: str) -> list[TopicPartition]:
    """The --path-to-json-file content: {"partitions": [{"topic": t, "partition": p}, ...]}."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise AdminCommandFailedException(f"Replica election data is not valid JSON: {e}") from None
    if not isinstance(data, dict) or "partitions" not in data:
        raise AdminCommandFailedException("Replica election data is missing \"partitions\" field")
    out = [(str(e["topic"]), int(e["partition"])) for e in data["partitions"]]
    dups = sorted({tp for tp in out if out.count(tp) > 1})
    if dups:
        raise AdminCommandFailedException("Replica election data contains duplicate partitions: "
                                          + ",".join(f"{t}-{p}" for t, p in dups))
    return out


def tp_text(tps: list[TopicPartition]) -> str:
    """Partitions as Kafka prints a set of TopicPartition (HashMap order, "topic-partition")."""
    ordered = java_hashmap_order(list(tps), lambda tp: topic_partition_hash(*tp))
    return ", ".join(f"{t}-{p}" for t, p in ordered)


def report(election: str, results: dict[TopicPartition, tuple[int, str | None]], out: TextIO) -> int:
    """Print the outcome as LeaderElectionCommand.electLeaders does; the number failed."""
    succeeded = [tp for tp, (code, _) in results.items() if code == 0]
    noop = [tp for tp, (code, _) in results.items() if code == ErrorCode.ELECTION_NOT_NEEDED]
    failed = {tp: r for tp, r in results.items() if r[0] not in (ErrorCode.NONE, ErrorCode.ELECTION_NOT_NEEDED)}
    if succeeded:
        out.write(f"Successfully completed leader election ({election}) for partitions {tp_text(succeeded)}\n")
    if noop:
        out.write(f"Valid replica already elected for partitions {tp_text(noop)}\n")
    for tp in java_hashmap_order(list(failed), lambda tp: topic_partition_hash(*tp)):
        err = BrokerError(*failed[tp])
        out.write(f"Error completing leader election ({election}) for partition: {tp[0]}-{tp[1]}: "
                  f"{err.java_name()}: {err}\n")
    return len(failed)


def elect(admin: KafkaAdminClient, election: str, partitions: list[TopicPartition] | None) -> dict[TopicPartition, tuple[int, str | None]]:
    by_topic: dict[str, list[int]] | None = None
    if partitions is not None:
        by_topic = {}
        for t, p in partitions:
            by_topic.setdefault(t, []).append(p)
    response = admin.elect_leaders(ELECTION_TYPES[election], by_topic, raise_errors=False)
    if getattr(response, "error_code", 0):
        raise BrokerError(response.error_code, getattr(response, "error_message", None))
    results = {(r.topic, p.partition_id): (p.error_code, p.error_message)
               for r in response.replica_election_results for p in r.partition_result}
    if partitions is None:
        # Kafka's broker leaves out the partitions that needed no election when the request
        # names none; kafka-python's admin client cannot send that null list (it names every
        # partition it knows), so they are left out here, as LeaderElectionCommand prints them.
        results = {tp: r for tp, r in results.items() if r[0] != ErrorCode.ELECTION_NOT_NEEDED}
    return results


def run(args: list[str], admin_factory: AdminFactory | None = None,
        out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    try:
        o = p.parse(args)
        p.maybe_help_or_version(o, args, "This tool attempts to elect a new leader for a set of "
                                "topic partitions. The type of elections supported are preferred "
                                "replicas and unclean replicas.")
        election = check_args(o)
        if o.has("topic"):
            partitions: list[TopicPartition] | None = [(o.value_of("topic"), o.value_of("partition"))]
        elif o.has("path-to-json-file"):
            with open(o.value_of("path-to-json-file"), encoding="utf-8") as f:
                partitions = parse_election_json(f.read())
        else:
            partitions = None
        with admin_client(o.value_of("bootstrap-server"), o.value_of("admin.config"), admin_factory) as admin:
            failed = report(election, elect(admin, election, partitions), out)
        if failed:
            raise AdminCommandFailedException(f"{failed} replica(s) could not be elected")
        return 0
    except UsageExit:
        raise
    except BrokenPipeError:
        raise
    except Exception as e:  # noqa: BLE001 - Kafka: the message, then the stack trace, on stderr; exit 1
        out.flush()
        if isinstance(e, OSError) and e.filename:
            sys.stderr.write(f"{e.filename} (No such file or directory)\n")
        else:
            sys.stderr.write(f"{e}\n")
        if not isinstance(e, (AdminCommandFailedException, OptionException)):
            debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
