"""kafka-acls: add, remove and list ACLs with the flags, checks and output of Apache Kafka's
AclCommand (the 4.x tool: an ACL that exists already is reported and not sent again, and
--add/--remove do not list afterwards). Resources and entries are printed sorted (Kafka
prints them in hash order, which changes from run to run). Built on raw DescribeAcls,
CreateAcls and DeleteAcls requests (scripts.kafka_acls_client).

Who may call it: scripts/kafka-acls.sh. Prints to stdout, usage errors to stderr.
"""
from __future__ import annotations

import sys
from typing import Iterable, TextIO

from kafpy.broker.properties import load_properties
from kafpy.broker.security.acl import (CLUSTER_NAME, SUPPORTED_OPERATIONS, WILDCARD, AccessControlEntry, AclBinding,
                                 AclBindingFilter, AclOperation, AclPermissionType, PatternType, ResourcePattern,
                                 ResourceType)
from kafpy.scripts._cli import OptionException, OptionParser, OptionSet, UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import BrokerError
from kafpy.scripts.kafka_acls_client import AclAdminClient

Op = AclOperation
Filter = tuple[ResourceType, str, PatternType]  # a resource pattern filter: type, name, pattern type
OPERATIONS = [Op.READ, Op.WRITE, Op.CREATE, Op.DELETE, Op.ALTER, Op.DESCRIBE, Op.CLUSTER_ACTION,
              Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE, Op.CREATE_TOKENS, Op.DESCRIBE_TOKENS,
              Op.ALL]
CLUSTER: Filter = (ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL)


def build_parser() -> OptionParser:
    p = OptionParser()
    a = p.accepts
    a("bootstrap-server", "A list of host/port pairs to use for establishing the connection to the Kafka cluster. "
      "This list should be in the form host1:port1,host2:port2,... This config is required for acl management "
      "using admin client API.", arg="required", described_as="server to connect to")
    a("bootstrap-controller", "A list of host/port pairs to use for establishing the connection to the Kafka "
      "cluster. This list should be in the form host1:port1,host2:port2,... This config is required for acl "
      "management using admin client API.", arg="required", described_as="controller to connect to")
    a("command-config", "A property file containing configs to be passed to Admin Client.", arg="optional",
      described_as="command-config")
    a("topic", "topic to which ACLs should be added or removed. A value of '*' indicates ACL should apply to all "
      "topics.", arg="required", described_as="topic")
    a("cluster", "Add/Remove cluster ACLs.")
    a("group", "Consumer Group to which the ACLs should be added or removed. A value of '*' indicates the ACLs "
      "should apply to all groups.", arg="required", described_as="group")
    a("transactional-id", "The transactionalId to which ACLs should be added or removed. A value of '*' indicates "
      "the ACLs should apply to all transactionalIds.", arg="required", described_as="transactional-id")
    a("idempotent", "Enable idempotence for the producer. This should be used in combination with the --producer "
      "option. Note that idempotence is enabled automatically if the producer is authorized to a particular "
      "transactional-id.")
    a("delegation-token", "Delegation token to which ACLs should be added or removed. A value of '*' indicates ACL "
      "should apply to all tokens.", arg="required", described_as="delegation-token")
    a("resource-pattern-type", "The type of the resource pattern or pattern filter. When adding acls, this should "
      "be a specific pattern type, e.g. 'literal' or 'prefixed'. When listing or removing acls, a specific pattern "
      "type can be used to list or remove acls from specific resource patterns, or use the filter values of 'any' "
      "or 'match', where 'any' will match any pattern type, but will match the resource name exactly, where as "
      "'match' will perform pattern matching to list or remove all acls that affect the supplied resource(s). "
      "WARNING: 'match', when used in combination with the '--remove' switch, should be used with care.",
      arg="required", described_as="ANY|MATCH|LITERAL|PREFIXED", default="LITERAL")
    a("add", "Indicates you are trying to add ACLs.")
    a("remove", "Indicates you are trying to remove ACLs.")
    a("list", "List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to "
      "specify a resource.")
    a("operation", "Operation that is being allowed or denied. Valid operation names are: \n"
      + "".join(f"\t{o.zk_name}\n" for o in OPERATIONS), arg="required", default="All")
    a("allow-principal", "principal is in principalType:name format. Note that principalType must be supported by "
      "the Authorizer being used. For example, User:'*' is the wild card indicating all users.", arg="required",
      described_as="allow-principal")
    a("deny-principal", "principal is in principalType:name format. By default anyone not added through "
      "--allow-principal is denied access. You only need to use this option as negation to already allowed set. "
      "Note that principalType must be supported by the Authorizer being used. For example if you wanted to allow "
      "access to all users in the system but not test-user you can define an ACL that allows access to User:'*' "
      "and specify --deny-principal=User:test@EXAMPLE.COM. AND PLEASE REMEMBER DENY RULES TAKES PRECEDENCE OVER "
      "ALLOW RULES.", arg="required", described_as="deny-principal")
    a("principal", "List ACLs for the specified principal. principal is in principalType:name format. Note that "
      "principalType must be supported by the Authorizer being used. Multiple --principal option can be passed.",
      arg="optional", described_as="principal")
    a("allow-host", "Host from which principals listed in --allow-principal will have access. If you have "
      "specified --allow-principal then the default for this option will be set to '*' which allows access from "
      "all hosts.", arg="required", described_as="allow-host")
    a("deny-host", "Host from which principals listed in --deny-principal will be denied access. If you have "
      "specified --deny-principal then the default for this option will be set to '*' which denies access from "
      "all hosts.", arg="required", described_as="deny-host")
    a("producer", "Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows "
      "WRITE,DESCRIBE and CREATE on topic.")
    a("consumer", "Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows "
      "READ,DESCRIBE on topic and READ on group.")
    a("force", "Assume Yes to all queries and do not prompt.")
    a("user-principal", "Specifies a user principal as a resource in relation with the operation. For instance one "
      "could grant CreateTokens or DescribeTokens permission on a given user principal.", arg="required",
      described_as="user-principal")
    return p


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> None:
    """AclCommandOptions.checkArgs, in its order and with its messages."""
    p.maybe_help_or_version(o, args, "This tool helps to manage acls on kafka.")
    if o.has("bootstrap-server") and o.has("bootstrap-controller"):
        p.usage_and_exit("Only one of --bootstrap-server or --bootstrap-controller must be specified")
    if not o.has("bootstrap-server") and not o.has("bootstrap-controller"):
        p.usage_and_exit("One of --bootstrap-server or --bootstrap-controller must be specified")
    if sum(o.has(x) for x in ("add", "remove", "list")) != 1:
        p.usage_and_exit("Command must include exactly one action: --list, --add, --remove. ")
    p.check_invalid(o, "list", ["producer", "consumer", "allow-host", "allow-principal", "deny-host",
                                "deny-principal"])
    for role in ("producer", "consumer"):
        p.check_invalid(o, role, ["operation", "deny-principal", "deny-host"])
    if o.has("principal") and not o.has("list"):
        p.usage_and_exit("The --principal option is only available if --list is set")
    if o.has("producer") and not o.has("topic"):
        p.usage_and_exit("With --producer you must specify a --topic")
    if o.has("idempotent") and not o.has("producer"):
        p.usage_and_exit("The --idempotent option is only available if --producer is set")
    if o.has("consumer") and (not o.has("topic") or not o.has("group") or (
            not o.has("producer") and (o.has("cluster") or o.has("transactional-id")))):
        p.usage_and_exit("With --consumer you must specify a --topic and a --group and no --cluster or "
                         "--transactional-id option should be specified.")


# -- what the command line asks for --------------------------------------------------------
def pattern_type(o: OptionSet) -> PatternType:
    value = str(o.value_of("resource-pattern-type"))
    try:
        pt = PatternType[value.upper()]
    except KeyError:
        pt = PatternType.UNKNOWN
    if pt == PatternType.UNKNOWN:
        raise OptionException(f"Unknown resource-pattern-type: {value}", conversion=True)
    return pt


def resource_filters(p: OptionParser, o: OptionSet, die_if_none: bool = True) -> list[Filter]:
    pt = pattern_type(o)
    out: list[Filter] = [(ResourceType.TOPIC, t.strip(), pt) for t in o.values_of("topic")]
    if pt == PatternType.LITERAL and (o.has("cluster") or o.has("idempotent")):
        out.append(CLUSTER)
    out += [(ResourceType.GROUP, g.strip(), pt) for g in o.values_of("group")]
    out += [(ResourceType.TRANSACTIONAL_ID, t, pt) for t in o.values_of("transactional-id")]
    out += [(ResourceType.DELEGATION_TOKEN, t.strip(), pt) for t in o.values_of("delegation-token")]
    out += [(ResourceType.USER, u.strip(), pt) for u in o.values_of("user-principal")]
    if not out and die_if_none:
        p.usage_and_exit("You must provide at least one resource: --topic <topic> or --cluster or --group <group> "
                         "or --delegation-token <Delegation Token ID>")
    return list(dict.fromkeys(out))


def principals(o: OptionSet, option: str) -> list[str]:
    out = []
    for s in o.values_of(option):
        s = (s or "").strip()
        kind, sep, name = s.partition(":")
        if not sep or not kind:
            raise ValueError(f"expected a string in format principalType:principalName but got {s}")
        out.append(s)
    return list(dict.fromkeys(out))


def hosts(o: OptionSet, option: str, principal_option: str) -> list[str]:
    if o.has(option):
        return list(dict.fromkeys(h.strip() for h in o.values_of(option)))
    return [WILDCARD] if o.has(principal_option) else []


def entries(o: OptionSet, operations: list[AclOperation]) -> set[AccessControlEntry]:
    out: set[AccessControlEntry] = set()
    for permission, who, where in ((AclPermissionType.ALLOW, "allow-principal", "allow-host"),
                                   (AclPermissionType.DENY, "deny-principal", "deny-host")):
        hs = hosts(o, where, who)
        for principal in principals(o, who) if hs else []:
            out.update(AccessControlEntry(principal, h, op, permission) for op in operations for h in hs)
    return out


def filter_to_entries(p: OptionParser, o: OptionSet) -> dict[Filter, set[AccessControlEntry]]:
    """getResourceFilterToAcls: the entries per resource (roles expanded)."""
    out: dict[Filter, set[AccessControlEntry]] = {}
    if not o.has("producer") and not o.has("consumer"):
        ops = [AclOperation.from_zk_name(s.strip()) for s in o.values_of("operation")]
        acls = entries(o, ops)
        out.update({f: set(acls) for f in resource_filters(p, o)})
    if o.has("producer"):
        fs = resource_filters(p, o)
        out.update({f: entries(o, [Op.WRITE, Op.DESCRIBE, Op.CREATE]) for f in fs if f[0] == ResourceType.TOPIC})
        out.update({f: entries(o, [Op.WRITE, Op.DESCRIBE]) for f in fs if f[0] == ResourceType.TRANSACTIONAL_ID})
        if o.has("idempotent"):
            out[CLUSTER] = entries(o, [Op.IDEMPOTENT_WRITE])
    if o.has("consumer"):
        for f in resource_filters(p, o):
            if f[0] in (ResourceType.TOPIC, ResourceType.GROUP):
                ops = [Op.READ, Op.DESCRIBE] if f[0] == ResourceType.TOPIC else [Op.READ]
                out.setdefault(f, set()).update(entries(o, ops))
    for (rtype, _, _), acls in out.items():
        valid = SUPPORTED_OPERATIONS.get(rtype, frozenset()) | {Op.ALL}
        if any(a.operation not in valid for a in acls):
            names = ", ".join(x.name for x in sorted(valid))
            p.usage_and_exit(f"ResourceType {rtype.name} only supports operations [{names}]")
    return out


# -- how Kafka prints them -----------------------------------------------------------------
def pattern_text(rtype: ResourceType, name: str | None, pt: PatternType) -> str:
    return f"ResourcePattern(resourceType={rtype.name}, name={'<any>' if name is None else name}, " \
           f"patternType={pt.name})"


def entry_text(e: AccessControlEntry) -> str:
    return f"(principal={e.principal}, host={e.host}, operation={e.operation.name}, " \
           f"permissionType={e.permission_type.name})"


def _sorted_entries(acls: Iterable[AccessControlEntry]) -> list[AccessControlEntry]:
    return sorted(acls, key=entry_text)


def _filter(f: Filter, e: AccessControlEntry | None = None) -> AclBindingFilter:
    if e is None:
        return AclBindingFilter(f[0], f[1], f[2])
    return AclBindingFilter(f[0], f[1], f[2], e.principal, e.host, e.operation, e.permission_type)


# -- the actions -----------------------------------------------------------------------------
def add(p: OptionParser, o: OptionSet, client: AclAdminClient, out: TextIO) -> None:
    pt = pattern_type(o)
    if pt not in (PatternType.LITERAL, PatternType.PREFIXED):
        p.usage_and_exit(f"A '--resource-pattern-type' value of '{pt.name}' is not valid when adding acls.")
    to_add = filter_to_entries(p, o)
    if any(not acls for acls in to_add.values()):
        p.usage_and_exit("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    for f, acls in sorted(to_add.items()):
        pattern = ResourcePattern(*f)
        existing = {b.entry for b in client.describe(_filter(f)) if b.pattern == pattern}
        new = []
        for e in _sorted_entries(acls):
            if e in existing:
                out.write(f"Acl (pattern={pattern_text(*f)}, entry={entry_text(e)}) already exists.\n")
            else:
                new.append(e)
        if new:
            out.write(f"Adding ACLs for resource `{pattern_text(*f)}`: \n "
                      + "\n".join("\t" + entry_text(e) for e in new) + "\n\n")
            out.flush()
            client.create([AclBinding(pattern, e) for e in new])


def remove(p: OptionParser, o: OptionSet, client: AclAdminClient, out: TextIO, stdin: TextIO) -> None:
    for f, acls in sorted(filter_to_entries(p, o).items()):
        if not acls:
            question = f"Are you sure you want to delete all ACLs for resource filter `{pattern_text(*f)}`? (y/n)"
        else:
            question = ("Are you sure you want to remove ACLs: \n "
                        + "\n".join("\t" + entry_text(e) for e in _sorted_entries(acls))
                        + f"\n from resource filter `{pattern_text(*f)}`? (y/n)")
        if not o.has("force"):
            out.write(question + "\n")
            out.flush()
            if stdin.readline().strip().lower() != "y":
                continue
        client.delete([_filter(f, e) for e in _sorted_entries(acls)] if acls else [_filter(f)])


def list_acls(p: OptionParser, o: OptionSet, client: AclAdminClient, out: TextIO) -> None:
    filters = resource_filters(p, o, die_if_none=False)
    found: list[AclBinding] = []
    for flt in [_filter(f) for f in filters] or [AclBindingFilter()]:
        found.extend(client.describe(flt))
    by_pattern: dict[ResourcePattern, set[AccessControlEntry]] = {}
    for b in found:
        by_pattern.setdefault(b.pattern, set()).add(b.entry)
    wanted = principals(o, "principal") if o.has("principal") else []

    def show(groups: dict[ResourcePattern, set[AccessControlEntry]]) -> None:
        for pattern in sorted(groups, key=lambda x: (x.resource_type, x.name, x.pattern_type)):
            out.write(f"Current ACLs for resource `{pattern_text(*_key(pattern))}`:\n"
                      + "\n".join("\t" + entry_text(e) for e in _sorted_entries(groups[pattern])) + "\n\n")
    if not wanted:
        show(by_pattern)
    for principal in wanted:
        out.write(f"ACLs for principal `{principal}`\n")
        show({k: {e for e in v if e.principal == principal} for k, v in by_pattern.items()
              if any(e.principal == principal for e in v)})


def _key(pattern: ResourcePattern) -> Filter:
    return pattern.resource_type, pattern.name, pattern.pattern_type


def run(args: list[str], out: TextIO | None = None, stdin: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    o = p.parse_or_usage(args)
    check_args(p, o, args)
    try:
        pattern_type(o)
    except OptionException as e:
        p.usage_and_exit(str(e))
    config = o.value_of("command-config")
    props = load_properties(config) if config else {}
    try:
        with AclAdminClient(o.value_of("bootstrap-server") or o.value_of("bootstrap-controller"), props) as client:
            if o.has("add"):
                add(p, o, client, out)
            elif o.has("remove"):
                remove(p, o, client, out, stdin or sys.stdin)
            else:
                list_acls(p, o, client, out)
        return 0
    except (UsageExit, BrokenPipeError):
        raise
    except BrokerError as e:
        out.write(f"Error while executing ACL command: {e.java_name()}: {e}\n")
    except Exception as e:  # noqa: BLE001 - reported as Kafka's tool reports any failure
        out.write(f"Error while executing ACL command: {e}\n")
    out.flush()
    debug_traceback()
    return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
