"""kafka-configs: describe and alter topic, broker and broker-logger configs, with the
flags, checks and output of Apache Kafka's ConfigCommand (3.9):

    Dynamic configs for topic my-topic are:
      retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}

Quota entities (users, clients, ips) and client-metrics are recognised but not
implemented; the tool says so and exits 1.
"""
from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, Callable, TextIO

from kafpy.broker.properties import load_properties
from kafpy.scripts._cli import debug_traceback, tool_main, OptionException, OptionParser, OptionSet
from kafpy.scripts._clients import AdminFactory, BrokerError, admin_client, zookeeper_bootstrap

if TYPE_CHECKING:
    from kafka.admin import KafkaAdminClient
    from kafka.protocol.api_message import ApiMessage

BROKER_SUPPORTED = ["topics", "clients", "users", "brokers", "ips", "broker-loggers",
                    "client-metrics"]
IMPLEMENTED = {"topics", "brokers", "broker-loggers"}
ENTITY_FLAGS = [("topic", "topics"), ("client", "clients"), ("user", "users"),
                ("broker", "brokers"), ("broker-logger", "broker-loggers"), ("ip", "ips"),
                ("client-metrics", "client-metrics")]
DEFAULT_FLAGS = [("client-defaults", "clients"), ("user-defaults", "users"),
                 ("broker-defaults", "brokers"), ("ip-defaults", "ips")]

# ConfigResource types and the config source that counts as "dynamic" for each.
_RESOURCE = {"topics": ("TOPIC", "DYNAMIC_TOPIC_CONFIG"),
             "brokers": ("BROKER", "DYNAMIC_BROKER_CONFIG"),
             "broker-loggers": ("BROKER_LOGGER", None)}


class CommandError(Exception):
    """Reported as the bare message on stderr, exit 1 (IllegalArgumentException and
    InvalidConfigurationException in ConfigCommand)."""


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("zookeeper", "DEPRECATED. The connection string for the zookeeper connection in "
              "the form host:port. Multiple URLS can be given to allow fail-over. Required when "
              "configuring SCRAM credentials for users or dynamic broker configs when the "
              "relevant broker(s) are down. Not allowed otherwise.", arg="required",
              described_as="urls")
    p.accepts("bootstrap-server", "The Kafka servers to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("bootstrap-controller", "The Kafka controllers to connect to.", arg="required",
              described_as="controller to connect to")
    p.accepts("command-config", "Property file containing configs to be passed to Admin "
              "Client. This is used only with --bootstrap-server option for describing and "
              "altering broker configs.", arg="required", described_as="command config property file")
    p.accepts("alter", "Alter the configuration for the entity.")
    p.accepts("describe", "List configs for the given entity.")
    p.accepts("all", "List all configs for the given topic, broker, or broker-logger entity "
              "(includes static configuration when the entity type is brokers)")
    p.accepts("entity-type", "Type of entity (topics/clients/users/brokers/broker-loggers/ips/"
              "client-metrics)", arg="required")
    p.accepts("entity-name", "Name of entity (topic name/client id/user principal name/broker "
              "id/ip/client metrics)", arg="required")
    p.accepts("entity-default", "Default entity name for clients/users/brokers/ips (applies to "
              "corresponding entity type in command line)")
    p.accepts("add-config", "Key Value pairs of configs to add. Square brackets can be used to "
              "group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'.", arg="required")
    p.accepts("add-config-file", "Path to a properties file with configs to add. See "
              "add-config for a list of valid configurations.", arg="required")
    p.accepts("delete-config", "config keys to remove 'k1,k2'", arg="required", separator=",")
    p.accepts("force", "Suppress console prompts")
    p.accepts("topic", "The topic's name.", arg="required")
    p.accepts("client", "The client's ID.", arg="required")
    p.accepts("client-defaults", "The config defaults for all clients.")
    p.accepts("user", "The user's principal name.", arg="required")
    p.accepts("user-defaults", "The config defaults for all users.")
    p.accepts("broker", "The broker's ID.", arg="required")
    p.accepts("broker-defaults", "The config defaults for all brokers.")
    p.accepts("broker-logger", "The broker's ID for its logger config.", arg="required")
    p.accepts("ip-defaults", "The config defaults for all IPs.")
    p.accepts("ip", "The IP address.", arg="required")
    p.accepts("client-metrics", "The client metrics config resource name.", arg="required")
    p.accepts("zk-tls-config-file", "Identifies the file where ZooKeeper client TLS "
              "connectivity properties are defined.", arg="required",
              described_as="ZooKeeper TLS configuration")
    return p


def entity_types(o: OptionSet) -> list[str]:
    return o.values_of("entity-type") + [t for flag, t in ENTITY_FLAGS + DEFAULT_FLAGS if o.has(flag)]


def entity_names(o: OptionSet, args: list[str]) -> list[str]:
    """--entity-name values and "" for --entity-default, in command-line order, then the
    specific entity flags."""
    names: list[str] = []
    it = iter(o.values_of("entity-name"))
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--entity-default":
            names.append("")
        elif a.startswith("--entity-name"):
            names.append(next(it))
        i += 1
    names += [o.value_of(flag) for flag, _ in ENTITY_FLAGS if o.has(flag)]
    names += ["" for flag, _ in DEFAULT_FLAGS if o.has(flag)]
    return names


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> tuple[list[str], list[str]]:
    if sum(1 for a in ("alter", "describe") if o.has(a)) != 1:
        p.usage_and_exit("Command must include exactly one action: --describe, --alter")
    p.check_invalid(o, "alter", ["describe"])
    p.check_invalid(o, "describe", ["alter", "add-config", "delete-config"])
    types = entity_types(o)
    names = entity_names(o, args)
    dups = sorted({t for t in types if types.count(t) > 1})
    if dups:
        raise CommandError(f"Duplicate entity type(s) specified: {','.join(dups)}")
    for t in types:
        if t not in BROKER_SUPPORTED:
            raise CommandError(f"Invalid entity type {t}, the entity type must be one of "
                               f"{', '.join(BROKER_SUPPORTED)} with a --bootstrap-server or "
                               "--bootstrap-controller argument")
    if not types:
        raise CommandError("At least one entity type must be specified")
    if len(types) > 1 and set(types) != {"users", "clients"}:
        raise CommandError("Only 'users' and 'clients' entity types may be specified together")
    if (o.has("entity-name") or o.has("entity-type") or o.has("entity-default")) and \
            any(o.has(f) for f, _ in ENTITY_FLAGS + DEFAULT_FLAGS):
        raise CommandError("--entity-{type,name,default} should not be used in conjunction "
                           "with specific entity flags")
    has_name = any(n for n in names)
    has_default = any(n == "" for n in names)
    connects = sum(1 for c in ("bootstrap-server", "bootstrap-controller", "zookeeper") if o.has(c))
    if connects == 0:
        raise CommandError("One of the required --bootstrap-server, --boostrap-controller, or "
                           "--zookeeper arguments must be specified")
    if connects > 1:
        raise CommandError("Only one of --bootstrap-server, --boostrap-controller, and "
                           "--zookeeper can be specified")
    if has_name and ("brokers" in types or "broker-loggers" in types):
        for n in names:
            if n and not n.lstrip("-").isdigit():
                raise CommandError(f"The entity name for {types[0]} must be a valid integer "
                                   f"broker id, but it is: {n}")
    if o.has("describe"):
        if not ({"users", "clients", "brokers", "ips"} & set(types)) and o.has("entity-default"):
            raise CommandError(f"--entity-default must not be specified with --describe of "
                               f"{','.join(types)}")
        if "broker-loggers" in types and not has_name:
            raise CommandError(f"An entity name must be specified with --describe of {','.join(types)}")
    if o.has("alter"):
        if {"users", "clients", "brokers", "ips"} & set(types):
            if not has_name and not has_default:
                raise CommandError("An entity-name or default entity must be specified with "
                                   "--alter of users, clients, brokers or ips")
        elif not has_name:
            raise CommandError(f"an entity name must be specified with --alter of {','.join(types)}")
        if o.has("add-config") and o.has("add-config-file"):
            raise CommandError("Only one of --add-config or --add-config-file must be specified")
        if not (o.has("add-config") or o.has("add-config-file") or o.has("delete-config")):
            raise CommandError("At least one of --add-config, --add-config-file, or "
                               "--delete-config must be specified with --alter")
        if len(types) != len(names):
            raise CommandError("An entity name must be specified for every entity type")
    return types, names


_NOT_IN_BRACKETS = r"(?=[^\]]*(?:\[|$))"


def parse_add_config(text: str) -> dict[str, str]:
    """'k1=v1,k2=[a,b]' -> {'k1': 'v1', 'k2': 'a,b'} (commas inside [] kept)."""
    props: dict[str, str] = {}
    for item in re.split("," + _NOT_IN_BRACKETS, text):
        pair = re.split(r"\s*=\s*" + _NOT_IN_BRACKETS, item)
        if len(pair) != 2:
            raise CommandError("requirement failed: Invalid entity config: all configs to be "
                               "added must be in the format \"key=val\".")
        props[pair[0].strip()] = re.sub(r"\[?\]?", "", pair[1]).strip()
    for key in props:
        if not re.fullmatch(r"[a-zA-Z0-9._-]*", key):
            raise CommandError(f"Invalid character found for config key: {key}")
    return props


def format_entry(name: str, entry: dict[str, Any]) -> str:
    value = entry.get("value")
    synonyms = ", ".join(
        f"{s.get('source')}:{s.get('name')}={'null' if s.get('value') is None else s.get('value')}"
        for s in entry.get("synonyms") or [])
    sensitive = "true" if entry.get("is_sensitive") else "false"
    return (f"  {name}={'null' if value is None else value} sensitive={sensitive} "
            f"synonyms={{{synonyms}}}")


class ConfigService:
    def __init__(self, admin: KafkaAdminClient, out: TextIO | None = None,
                 describe_fn: Callable[[KafkaAdminClient, str, str, bool], dict[str, dict]] | None = None,
                 alter_fn: Callable[[KafkaAdminClient, str, str, dict[str, str], list[str], dict[str, object]], None]
                 | None = None) -> None:
        self.admin = admin
        self.out = out or sys.stdout
        self.describe_fn = describe_fn or describe_configs_raw
        self.alter_fn = alter_fn or alter_configs_raw

    def _print(self, s: str) -> None:
        self.out.write(s + "\n")

    def resource_config(self, entity_type: str, name: str, synonyms: bool, all_: bool) -> list[tuple[str, dict]]:
        rtype, dynamic_source = _RESOURCE[entity_type]
        if entity_type == "brokers" and name == "":
            dynamic_source = "DYNAMIC_DEFAULT_BROKER_CONFIG"
        if entity_type == "topics" and name:
            validate_topic(name)
        entries = self.describe_fn(self.admin, rtype, name, synonyms)
        rows = []
        for key in sorted(entries):
            entry = entries[key]
            if not all_ and dynamic_source is not None and entry.get("config_source") != dynamic_source:
                continue
            rows.append((key, entry))
        return rows

    def describe(self, entity_type: str, name: str | None, all_: bool) -> None:
        if name is not None:
            entities = [name]
        elif entity_type == "topics":
            entities = sorted(self.admin.list_topics())
        elif entity_type in ("brokers", "broker-loggers"):
            brokers = self.admin.describe_cluster().get("brokers", [])
            entities = [str(b.get("broker_id", b.get("node_id"))) for b in brokers] + [""]
        else:
            raise CommandError(f"Invalid entity type: {entity_type}")
        for entity in entities:
            if entity == "":
                self._print(f"Default configs for {entity_type} in the cluster are:")
            else:
                kind = "All" if all_ else "Dynamic"
                self._print(f"{kind} configs for {entity_type[:-1]} {entity} are:")
            for key, entry in self.resource_config(entity_type, entity, True, all_):
                self._print(format_entry(key, entry))

    def alter(self, entity_type: str, name: str, to_add: dict[str, str], to_delete: list[str]) -> None:
        current = dict(self.resource_config(entity_type, name, False, False)) \
            if entity_type != "broker-loggers" else {}
        if entity_type == "broker-loggers":
            valid = {k for k, _ in self.resource_config(entity_type, name, True, True)}
            bad = [k for k in to_delete if k not in valid] + [k for k in to_add if k not in valid]
            if bad:
                raise CommandError(f"Invalid broker logger(s): {','.join(bad)}")
        else:
            invalid = [k for k in to_delete if k not in current]
            if invalid:
                raise CommandError(f"Invalid config(s): {','.join(invalid)}")
        rtype, _ = _RESOURCE[entity_type]
        existing = {k: e.get("value") for k, e in current.items()}
        self.alter_fn(self.admin, rtype, name, to_add, to_delete, existing)
        if name:
            self._print(f"Completed updating config for {entity_type[:-1]} {name}.")
        else:
            self._print(f"Completed updating default config for {entity_type} in the cluster.")


def _send(admin: KafkaAdminClient, request: ApiMessage, node_id: int | None) -> ApiMessage:
    async def go() -> ApiMessage:
        return await admin._manager.send(request, node_id=node_id)
    return admin._manager.run(go)


def _node_for(rtype: str, name: str) -> int | None:
    return int(name) if rtype in ("BROKER", "BROKER_LOGGER") and name else None


def describe_configs_raw(admin: KafkaAdminClient, rtype: str, name: str, synonyms: bool) -> dict[str, dict]:
    """DescribeConfigs for one resource, sent to that broker for broker resources and to
    any broker otherwise (also for the cluster-wide default broker resource, name "",
    which kafka-python's describe_configs cannot address)."""
    from kafka.admin import ConfigResource, ConfigResourceType

    resource = ConfigResource(ConfigResourceType[rtype], name)
    request = admin._describe_configs_request([resource], synonyms)
    response = _send(admin, request, _node_for(rtype, name))
    for result in response.results:
        if result.error_code:
            raise BrokerError(result.error_code, result.error_message)
    processed = admin._describe_configs_process_responses([response], "all")
    return dict(processed.get(rtype.lower(), {}).get(name, {}))


def alter_configs_raw(admin: KafkaAdminClient, rtype: str, name: str, to_add: dict[str, str],
                      to_delete: list[str], existing: dict[str, object]) -> None:
    """IncrementalAlterConfigs (SET/DELETE) when the broker has it; otherwise the legacy
    AlterConfigs with the whole resulting set, as Kafka's tool does for old brokers."""
    from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType

    incremental = admin._check_incremental_alter_configs_support()
    if incremental:
        configs: dict[str, object] = {k: (AlterConfigOp.SET, v) for k, v in to_add.items()}
        configs.update({k: (AlterConfigOp.DELETE, None) for k in to_delete})
    else:
        configs = {k: v for k, v in existing.items() if k not in to_delete}
        configs.update(to_add)
    resource = ConfigResource(ConfigResourceType[rtype], name, configs)
    request = admin._alter_configs_request([resource], False, incremental)
    response = _send(admin, request, _node_for(rtype, name))
    for r in response.responses:
        if r.error_code:
            raise BrokerError(r.error_code, r.error_message)


def validate_topic(name: str) -> None:
    if name in (".", ".."):
        raise CommandError("Topic name cannot be \".\" or \"..\"")
    if len(name) > 249:
        raise CommandError(f"Topic name is illegal, it can't be longer than 249 characters, "
                           f"topic name: {name}")
    if not re.fullmatch(r"[a-zA-Z0-9._-]+", name):
        raise CommandError(f"Topic name \"{name}\" is illegal, it contains a character other "
                           "than ASCII alphanumerics, '.', '_' and '-'")


def run(args: list[str], admin_factory: AdminFactory | None = None,
        out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    try:
        o = p.parse(args)
    except OptionException as e:
        sys.stderr.write(f"{e}\n")
        return 1
    p.maybe_help_or_version(o, args, "This tool helps to manipulate and describe entity config "
                            "for a topic, client, user, broker, ip or client-metrics")
    try:
        types, names = check_args(p, o, args)
        if types[0] not in IMPLEMENTED:
            raise CommandError(f"Entity type {types[0]} is not supported by this tool yet "
                               f"(supported: {', '.join(sorted(IMPLEMENTED))})")
        to_add: dict[str, str] = {}
        if o.has("add-config-file"):
            to_add.update(load_properties(o.value_of("add-config-file")))
        if o.has("add-config"):
            to_add.update(parse_add_config(o.value_of("add-config")))
        to_delete = [k.strip() for k in o.values_of("delete-config")]
        if o.has("zookeeper"):
            out.write("Warning: --zookeeper is deprecated and will be removed in a future "
                      "version of Kafka.\nUse --bootstrap-server instead to specify a broker "
                      "to connect to.\n")
            bootstrap = zookeeper_bootstrap(o.value_of("zookeeper"))
        else:
            bootstrap = o.value_of("bootstrap-server") or o.value_of("bootstrap-controller")
        with admin_client(bootstrap, o.value_of("command-config"), admin_factory) as admin:
            service = ConfigService(admin, out)
            if o.has("alter"):
                service.alter(types[0], names[0], to_add, to_delete)
            else:
                service.describe(types[0], names[0] if names else None, o.has("all"))
        return 0
    except CommandError as e:
        out.flush()
        sys.stderr.write(f"{e}\n")
        return 1
    except BrokerError as e:
        out.flush()
        sys.stderr.write(f"Error while executing config command with args '{' '.join(args)}'\n")
        sys.stderr.write(f"java.util.concurrent.ExecutionException: {e.java_name()}: {e}\n")
        return 1
    except BrokenPipeError:
        raise
    except Exception as e:  # noqa: BLE001 - the tool's top level: printed as Kafka's tool prints it
        out.flush()
        sys.stderr.write(f"Error while executing config command with args '{' '.join(args)}'\n")
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
