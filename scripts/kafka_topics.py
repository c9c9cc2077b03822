"""kafka-topics: create, list, describe, alter (partitions) and delete topics, with the
flags, messages and output layout of Apache Kafka's TopicCommand (3.9).

Also accepts the pre-3.0 `--zookeeper host:port` (the course's labs use it): then the
topics are read and written in ZooKeeper, as Kafka 2.x did (scripts/_zk_topics.py).
"""
from __future__ import annotations

import builtins
import re
import sys
from typing import TYPE_CHECKING, TextIO

from kafpy.protocol.topics import INTERNAL_TOPICS, has_collision_chars
from kafpy.scripts._cli import tool_main, debug_traceback, OptionParser, OptionSet, OptionException, UsageExit
from kafpy.scripts._clients import (AdminFactory, admin_client, broker_api_keys, error_text, is_zero_uuid,
                              uuid_to_kafka)
from kafpy.scripts._topic_specs import NewPartitionsSpec, NewTopicSpec, ZooKeeperConnectError

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient

_ALTER_HINT = " (To alter topic configurations, the kafka-configs tool can be used.)"

# Topic-level config names offered in --config's help (Kafka's LogConfig.configNames()).
TOPIC_CONFIG_NAMES = [
    "cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
    "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages",
    "flush.ms", "follower.replication.throttled.replicas", "index.interval.bytes",
    "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
    "max.compaction.lag.ms", "max.message.bytes", "message.downconversion.enable",
    "message.format.version", "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms", "message.timestamp.difference.max.ms",
    "message.timestamp.type", "min.cleanable.dirty.ratio", "min.compaction.lag.ms",
    "min.insync.replicas", "preallocate", "remote.log.copy.disable",
    "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes",
    "retention.ms", "segment.bytes", "segment.index.bytes", "segment.jitter.ms", "segment.ms",
    "unclean.leader.election.enable",
]

ACTIONS = ("create", "list", "alter", "describe", "delete")


class CommandError(Exception):
    """An error Kafka's TopicCommand reports as 'Error while executing topic command : ...'."""


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: The Kafka server to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("zookeeper", "DEPRECATED, The connection string for the zookeeper connection in "
              "the form host:port. Multiple hosts can be given to allow fail-over. (Removed "
              "from Kafka 3.0; kept here for the labs: topics are then read and written in "
              "ZooKeeper.)",
              arg="required", described_as="hosts")
    p.accepts("command-config", "Property file containing configs to be passed to Admin "
              "Client. This is used only with --bootstrap-server option for describing and "
              "altering broker configs.", arg="required",
              described_as="command config property file")
    p.accepts("list", "List all available topics.")
    p.accepts("create", "Create a new topic.")
    p.accepts("delete", "Delete a topic")
    p.accepts("alter", "Alter the number of partitions and replica assignment. Update the "
              "configuration of an existing topic via --alter is no longer supported here "
              "(the kafka-configs CLI supports altering topic configs with a "
              "--bootstrap-server option).")
    p.accepts("describe", "List details for the given topics.")
    p.accepts("topic", "The topic to create, alter, describe or delete. It also accepts a "
              "regular expression, except for --create option. Put topic name in double "
              "quotes and use the '\\' prefix to escape regular expression symbols; e.g. "
              "\"test\\.topic\".", arg="required", described_as="topic")
    p.accepts("topic-id", "The topic-id to describe.This is used only with --bootstrap-server "
              "option for describing topics.", arg="required", described_as="topic-id")
    names = "\n".join("\t" + n for n in TOPIC_CONFIG_NAMES)
    p.accepts("config", "A topic configuration override for the topic being created. "
              "The following is a list of valid configurations: \n" + names +
              "\nSee the Kafka documentation for full details on the topic configs. It is "
              "supported only in combination with --create if --bootstrap-server option is "
              "used (the kafka-configs CLI supports altering topic configs with a "
              "--bootstrap-server option).", arg="required", described_as="name=value")
    p.accepts("delete-config", "A topic configuration override to be removed for an existing "
              "topic (see the list of configurations under the --config option). Not "
              "supported with the --bootstrap-server option.", arg="required",
              described_as="name")
    p.accepts("partitions", "The number of partitions for the topic being created or altered "
              "(WARNING: If partitions are increased for a topic that has a key, the "
              "partition logic or ordering of the messages will be affected). If not "
              "supplied for create, defaults to the cluster default.", arg="required",
              described_as="# of partitions", type=int)
    p.accepts("replication-factor", "The replication factor for each partition in the topic "
              "being created. If not supplied, defaults to the cluster default.",
              arg="required", described_as="replication factor", type=int)
    p.accepts("replica-assignment", "A list of manual partition-to-broker assignments for the "
              "topic being created or altered.", arg="required",
              described_as="broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , "
              "broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ...")
    p.accepts("under-replicated-partitions", "if set when describing topics, only show "
              "under replicated partitions")
    p.accepts("unavailable-partitions", "if set when describing topics, only show partitions "
              "whose leader is not available")
    p.accepts("under-min-isr-partitions", "if set when describing topics, only show "
              "partitions whose isr count is less than the configured minimum.")
    p.accepts("at-min-isr-partitions", "if set when describing topics, only show partitions "
              "whose isr count is equal to the configured minimum.")
    p.accepts("topics-with-overrides", "if set when describing topics, only show topics that "
              "have overridden configs")
    p.accepts("if-exists", "if set when altering or deleting or describing topics, the action "
              "will only execute if the topic exists.")
    p.accepts("if-not-exists", "if set when creating topics, the action will only execute if "
              "the topic does not already exist.")
    p.accepts("exclude-internal", "exclude internal topics when running list or describe "
              "command. The internal topics will be listed by default")
    p.accepts("partition-size-limit-per-response", "the maximum partition size to be included "
              "in one DescribeTopicPartitions response.", arg="required",
              described_as="maximum number of partitions in one response.", type=int)
    return p


REPORT_OPTS = ("under-replicated-partitions", "under-min-isr-partitions",
               "at-min-isr-partitions", "unavailable-partitions")


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> None:
    """TopicCommandOptions.checkArgs: one action, required and incompatible options."""
    if not args:
        p.usage_and_exit("Create, delete, describe, or change a topic.")
    p.maybe_help_or_version(o, args, "This tool helps to create, delete, describe, or "
                            "change a topic.")
    if sum(1 for a in ACTIONS if o.has(a)) != 1:
        p.usage_and_exit("Command must include exactly one action: --list, --describe, "
                         "--create, --alter or --delete")
    if not o.has("bootstrap-server") and not o.has("zookeeper"):
        raise CommandError("Only one of --bootstrap-server or --zookeeper must be specified")
    if o.has("describe") and o.has("if-exists") and not o.has("topic") and not o.has("topic-id"):
        p.usage_and_exit("--topic or --topic-id is required to describe a topic")
    if not o.has("list") and not o.has("describe"):
        p.check_required(o, "topic")
    if o.has("create") and o.has("zookeeper") and not o.has("replica-assignment"):
        p.check_required(o, "partitions")  # Kafka 2.x: no cluster default without a broker
        p.check_required(o, "replication-factor")
    if o.has("alter"):
        if o.has("config") and o.has("bootstrap-server"):
            p.usage_and_exit('Option combination "[bootstrap-server],[config]" can\'t be used '
                             'with option "[alter]"' + _ALTER_HINT)
        p.check_required(o, "partitions")
    top = set(ACTIONS)
    p.check_invalid(o, "config", top - {"alter", "create"})
    p.check_invalid(o, "partitions", top - {"alter", "create"})
    p.check_invalid(o, "replication-factor", top - {"create"})
    p.check_invalid(o, "replica-assignment", top - {"alter", "create"})
    if o.has("create"):
        p.check_invalid(o, "replica-assignment", ["partitions", "replication-factor"])
    for rep in REPORT_OPTS:
        p.check_invalid(o, rep, (top - {"describe"}) | {"topics-with-overrides"})
    p.check_invalid(o, "topics-with-overrides", (top - {"describe"}) | set(REPORT_OPTS))
    p.check_invalid(o, "if-exists", top - {"alter", "delete", "describe"})
    p.check_invalid(o, "if-not-exists", top - {"create"})
    p.check_invalid(o, "exclude-internal", top - {"list", "describe"})


# -- pure helpers (unit-tested) ----------------------------------------------------------

def include_list_regex(expr: str) -> re.Pattern[str]:
    """Kafka's TopicFilter.IncludeList: commas mean alternatives, surrounding quotes and
    spaces are dropped, and the regex must match the whole topic name."""
    cleaned = expr.strip().replace(",", "|").replace(" ", "")
    cleaned = cleaned.strip("\"'")
    return re.compile(cleaned)


def filter_topics(all_topics: list[str], include: str | None, exclude_internal: bool) -> list[str]:
    topics = sorted(all_topics)
    if include is not None:
        pattern = include_list_regex(include)
        return [t for t in topics if pattern.fullmatch(t)
                and not (t in INTERNAL_TOPICS and exclude_internal)]
    return [t for t in topics if not (t in INTERNAL_TOPICS and exclude_internal)]


def parse_replica_assignment(text: str) -> dict[int, list[int]]:
    ret: dict[int, list[int]] = {}
    for i, part in enumerate(text.split(",")):
        brokers = [int(b.strip()) for b in part.split(":")]
        dups = sorted({b for b in brokers if brokers.count(b) > 1})
        if dups:
            raise CommandError("Partition replica lists may not contain duplicate entries: "
                               + ",".join(map(str, dups)))
        ret[i] = brokers
        if len(brokers) != len(ret[0]):
            raise CommandError(f"Partition {i} has different replication factor: {brokers}")
    return ret


def parse_topic_configs(values: list[str]) -> dict[str, str]:
    configs: dict[str, str] = {}
    for v in values:
        pair = re.split(r"\s*=\s*", v)
        if len(pair) != 2:
            raise CommandError("requirement failed: Invalid topic config: all configs to be "
                               "added must be in the format \"key=val\".")
        configs[pair[0].strip()] = pair[1].strip()
    return configs


def topic_line(name: str, topic_id: object, partitions: int, rf: int, configs: dict[str, str],
               marked_for_deletion: bool = False) -> str:
    line = f"Topic: {name}"
    if not is_zero_uuid(topic_id):
        line += f"\tTopicId: {uuid_to_kafka(topic_id)}"
    line += f"\tPartitionCount: {partitions}\tReplicationFactor: {rf}"
    line += "\tConfigs: " + ",".join(f"{k}={v}" for k, v in configs.items())
    if marked_for_deletion:
        line += "\tMarkedForDeletion: true"
    return line


def partition_line(name: str, partition: int, leader: int | None, replicas: list[int],
                   isr: list[int], elr: list[int] | None = None,
                   last_known_elr: list[int] | None = None) -> str:
    lead = str(leader) if leader is not None and leader >= 0 else "none"
    line = (f"\tTopic: {name}\tPartition: {partition}\tLeader: {lead}"
            f"\tReplicas: {','.join(map(str, replicas))}\tIsr: {','.join(map(str, isr))}")
    line += "\tElr: " + (",".join(map(str, elr)) if elr is not None else "N/A")
    line += "\tLastKnownElr: " + (",".join(map(str, last_known_elr))
                                  if last_known_elr is not None else "N/A")
    return line


def non_default_configs(entries: dict[str, dict]) -> dict[str, str]:
    """Config entries whose source is not DEFAULT_CONFIG, as ConfigEntry.isDefault()."""
    out = {}
    for name, entry in entries.items():
        source = str(entry.get("config_source", ""))
        if source in ("DEFAULT_CONFIG", "5"):
            continue
        if source == "" and entry.get("is_default"):
            continue
        value = entry.get("value")
        out[name] = "null" if value is None else value
    return out


# -- the command --------------------------------------------------------------------------

class TopicService:
    """Runs one action against a kafka-python KafkaAdminClient (or a stand-in)."""

    def __init__(self, admin: KafkaAdminClient, out: TextIO | None = None) -> None:
        self.admin = admin
        self.out = out or sys.stdout

    def _print(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def get_topics(self, include: str | None, exclude_internal: bool) -> list[str]:
        return filter_topics(list(self.admin.list_topics()), include, exclude_internal)

    def create(self, o: OptionSet) -> None:
        name = o.value_of("topic")
        partitions = o.value_of("partitions")
        rf = o.value_of("replication-factor")
        configs = parse_topic_configs(o.values_of("config"))
        assignment = (parse_replica_assignment(o.value_of("replica-assignment"))
                      if o.value_of("replica-assignment") else {})
        if has_collision_chars(name):
            self._print("WARNING: Due to limitations in metric names, topics with a period "
                        "('.') or underscore ('_') could collide. To avoid issues it is best "
                        "to use either, but not both.")
        if rf is not None and (rf > 32767 or rf < 1):
            raise CommandError("The replication factor must be between 1 and 32767 inclusive")
        if partitions is not None and partitions < 1:
            raise CommandError("The partitions must be greater than 0")
        spec: NewTopicSpec = {"configs": configs}
        if assignment:
            spec["assignments"] = assignment
        else:
            spec["num_partitions"] = partitions if partitions is not None else -1
            spec["replication_factor"] = rf if rf is not None else -1
        result = self.admin.create_topics({name: spec}, raise_errors=False)
        for t in result.get("topics", []):
            code = t.get("error_code", 0)
            if code == 36 and o.has("if-not-exists"):  # TOPIC_ALREADY_EXISTS
                return
            if code:
                raise CommandError(error_text(code, t.get("error_message")))
        self._print(f"Created topic {name}.")

    def list(self, o: OptionSet) -> None:
        self._print("\n".join(self.get_topics(o.value_of("topic"), o.has("exclude-internal"))))

    def alter(self, o: OptionSet) -> None:
        topics = self.get_topics(o.value_of("topic"), o.has("exclude-internal"))
        ensure_topic_exists(topics, o.value_of("topic"), not o.has("if-exists"))
        if not topics:
            return
        total = o.value_of("partitions")
        assignment = (parse_replica_assignment(o.value_of("replica-assignment"))
                      if o.value_of("replica-assignment") else {})
        described = {t["name"]: t for t in self.admin.describe_topics(topics)}
        specs: dict[str, NewPartitionsSpec | int] = {}
        for name in topics:
            if assignment:
                start = len(described[name]["partitions"])
                new = [assignment[i] for i in sorted(assignment) if i >= start]
                specs[name] = {"count": total, "assignments": new}
            else:
                specs[name] = total
        response = self.admin.create_partitions(specs, raise_errors=False)
        for r in getattr(response, "results", []) or []:
            if r.error_code:
                raise CommandError(error_text(r.error_code, getattr(r, "error_message", None)))

    def describe(self, o: OptionSet) -> None:
        include = o.value_of("topic")
        topics = self.get_topics(include, o.has("exclude-internal"))
        topic_id = o.value_of("topic-id")
        if topic_id and topic_id != "AAAAAAAAAAAAAAAAAAAAAA":
            all_meta = self.admin.describe_topics()
            topics = sorted(t["name"] for t in all_meta if uuid_to_kafka(t.get("topic_id")) == topic_id
                            and not (o.has("exclude-internal") and t["name"] in INTERNAL_TOPICS))
            if not topics and not o.has("if-exists"):
                raise CommandError(f"TopicId '{topic_id}' does not exist as expected")
        else:
            ensure_topic_exists(topics, include, not o.has("if-exists"))
        if not topics:
            return
        by_name = self._describe(topics, o.value_of("partition-size-limit-per-response") or 2000)
        configs = self._topic_configs(topics)
        live = {b.get("broker_id", b.get("node_id")) for b in self._brokers()}
        report_any = any(o.has(r) for r in REPORT_OPTS)
        describe_configs = not report_any
        describe_partitions = not o.has("topics-with-overrides")
        for name in topics:
            meta = by_name.get(name)
            if meta is None:
                continue
            if meta.get("error_code"):
                raise CommandError(error_text(meta["error_code"]))
            parts = sorted(meta.get("partitions", []), key=lambda p: p["partition_index"])
            cfg = configs.get(name, {})
            overrides = non_default_configs(cfg)
            if describe_configs and (not o.has("topics-with-overrides") or overrides):
                rf = len(parts[0].get("replica_nodes", [])) if parts else 0
                self._print(topic_line(name, meta.get("topic_id"), len(parts), rf, overrides))
            if not describe_partitions:
                continue
            min_isr = int((cfg.get("min.insync.replicas") or {}).get("value") or 1)
            for p in parts:
                leader = p.get("leader_id", -1)
                replicas = list(p.get("replica_nodes", []))
                isr = list(p.get("isr_nodes", []))
                if not describe_configs:
                    show = ((o.has("under-replicated-partitions") and len(replicas) - len(isr) > 0)
                            or (o.has("unavailable-partitions") and (leader < 0 or leader not in live))
                            or (o.has("under-min-isr-partitions") and (leader < 0 or len(isr) < min_isr))
                            or (o.has("at-min-isr-partitions") and len(isr) == min_isr))
                    if not show:
                        continue
                self._print(partition_line(name, p["partition_index"], leader, replicas, isr,
                                           p.get("eligible_leader_replicas"),
                                           p.get("last_known_elr")))

    def _describe(self, topics: builtins.list[str], limit: int) -> dict[str, dict]:
        """Topic metadata by name. Like Kafka's admin client, DescribeTopicPartitions (75)
        when the broker offers it (partitions then carry ELR lists), Metadata otherwise."""
        try:
            use_dtp = 75 in broker_api_keys(self.admin)
        except Exception:  # noqa: BLE001 - no ApiVersions answer: Metadata, which every broker serves
            use_dtp = False
        if not use_dtp:
            return {m["name"]: m for m in self.admin.describe_topics(topics)}
        out: dict[str, dict] = {}
        cursor = None
        for _ in range(100000):
            resp = self.admin.describe_topic_partitions(topics, response_partition_limit=limit,
                                                        cursor=cursor)
            for t in resp["topics"]:
                for p in t.get("partitions", []):
                    p["eligible_leader_replicas"] = list(p.get("eligible_leader_replicas") or [])
                    p["last_known_elr"] = list(p.get("last_known_elr") or [])
                if t["name"] in out:
                    out[t["name"]]["partitions"].extend(t.get("partitions", []))
                else:
                    out[t["name"]] = t
            cursor = resp.get("next_cursor")
            if not cursor:
                break
        return out

    def _brokers(self) -> builtins.list[dict]:
        try:
            return list(self.admin.describe_cluster().get("brokers", []))
        except Exception:  # noqa: BLE001 - the broker list is optional in the output
            return []

    def _topic_configs(self, topics: builtins.list[str]) -> dict[str, dict[str, dict]]:
        from kafka.admin import ConfigResource, ConfigResourceType

        resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in topics]
        try:
            result = self.admin.describe_configs(resources, config_filter="all")
        except TypeError:
            result = self.admin.describe_configs(resources)
        return dict(result.get("topic", {}))

    def delete(self, o: OptionSet) -> None:
        topics = self.get_topics(o.value_of("topic"), o.has("exclude-internal"))
        ensure_topic_exists(topics, o.value_of("topic"), not o.has("if-exists"))
        if not topics:
            return
        result = self.admin.delete_topics(topics, raise_errors=False)
        for t in result.get("topics", []):
            code = t.get("error_code", 0)
            if code:
                raise CommandError(error_text(code, t.get("error_message")))


def ensure_topic_exists(found: list[str], requested: str | None, require: bool) -> None:
    if requested and require and not found:
        raise CommandError(f"Topic '{requested}' does not exist as expected")


def run(args: list[str], admin_factory: AdminFactory | None = None,
        out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as e:  # TopicCommand lets these escape: message, exit 1
        if e.conversion:
            out.write(f"Error while executing topic command : {e}\n")
        else:
            sys.stderr.write(f"{e}\n")
        return 1
    try:
        check_args(p, o, args)
    except CommandError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    try:
        bootstrap = o.value_of("bootstrap-server")
        if bootstrap is None and admin_factory is None:
            from kafpy.scripts._zk_topics import ZkTopicAdmin   # --zookeeper only: kazoo and more
            admin_factory = lambda _bootstrap, _config: ZkTopicAdmin(o.value_of("zookeeper"))
        with admin_client(bootstrap or "", o.value_of("command-config"), admin_factory) as admin:
            service = TopicService(admin, out)
            for action in ACTIONS:
                if o.has(action):
                    getattr(service, action)(o)
                    break
        return 0
    except UsageExit:
        raise
    except BrokenPipeError:
        raise
    except Exception as e:  # noqa: BLE001 - Kafka prints the message on stdout and the trace to the log
        msg = str(e) or type(e).__name__
        out.write(f"Error while executing topic command : {msg}\n")
        out.flush()
        if not isinstance(e, (CommandError, ZooKeeperConnectError)):
            sys.stderr.write(f"[ERROR] {type(e).__name__}: {msg}\n")
            debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
