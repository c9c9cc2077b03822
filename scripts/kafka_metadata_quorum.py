"""kafka-metadata-quorum: describe the KRaft metadata quorum, add a controller to it or
remove one, with the subcommands, flags, output and exit codes of Apache Kafka 4.4's
``MetadataQuorumCommand``: ``describe --status``, ``describe --replication
[--human-readable]``, ``add-controller [--dry-run]`` (the controller's own properties from
``--command-config``: node.id, process.roles, metadata.log.dir or log.dirs and the
directory id of its meta.properties, controller.listener.names and listeners /
advertised.listeners), ``remove-controller --controller-id --controller-directory-id
[--dry-run]``.

Its command line is Kafka's argparse4j one: a refused command line prints the usage and
``kafka-metadata-quorum: error: ...`` and exits 1; errors of the command print their message
and exit 1. The requests go over the wire through scripts._quorum_client.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from kafpy.broker.properties import load_properties
from kafpy.metadata.meta_properties import read_meta_properties, uuid_from_string, uuid_to_string
from kafpy.protocol import messages
from kafpy.protocol.message_base import ZERO_UUID
from kafpy.scripts._cli import tool_main
from kafpy.scripts._quorum_client import FAILURES, QuorumAdminClient, TerseFailure, report_failure
from kafpy.scripts.kafka_storage import justify

PROG = "kafka-metadata-quorum"
COMMANDS = ("describe", "add-controller", "remove-controller")

_NEGATIVE = re.compile(r"-\d+|-\d*\.\d+")  # argparse4j takes these as values, not options

MAIN_USAGE = """usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]
                             (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             {describe,add-controller,remove-controller}
                             ...
"""
MAIN_HELP = MAIN_USAGE + """
This tool describes kraft metadata quorum status.

positional arguments:
  {describe,add-controller,remove-controller}
    describe             Describe the metadata quorum info
    add-controller       Add a controller to the KRaft controller cluster
    remove-controller    Remove a  controller  from  the  KRaft  controller
                         cluster

optional arguments:
  -h, --help             show this help message and exit
  --bootstrap-server BOOTSTRAP_SERVER
                         A comma-separated list of  host:port  pairs to use
                         for  establishing  the  connection  to  the  Kafka
                         cluster.
  --bootstrap-controller BOOTSTRAP_CONTROLLER
                         A comma-separated list of  host:port  pairs to use
                         for  establishing  the  connection  to  the  Kafka
                         controllers.
  --command-config COMMAND_CONFIG
                         Property file containing configs  to  be passed to
                         Admin Client.  For  add-controller,  the  file  is
                         used to specify the controller properties as well.
"""
DESCRIBE_USAGE = """usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             describe [-h] [--status] [--replication]
                             [--human-readable]
"""
DESCRIBE_HELP = DESCRIBE_USAGE + """
optional arguments:
  -h, --help             show this help message and exit

Status:
  --status               A short  summary  of  the  quorum  status  and the
                         other  provides  detailed  information  about  the
                         status of replication.

Replication:
  --replication          Detailed   information   about   the   status   of
                         replication
  --human-readable       Human-readable output
"""
ADD_USAGE = """usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             add-controller [-h] [--dry-run]
"""
ADD_HELP = ADD_USAGE + """
optional arguments:
  -h, --help             show this help message and exit
  --dry-run              True if we should  print  what  would be done, but
                         not do it.
"""
REMOVE_USAGE = """usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             remove-controller [-h]
                             --controller-id CONTROLLER_ID
                             --controller-directory-id CONTROLLER_DIRECTORY_ID
                             [--dry-run] [--unregister]
"""
REMOVE_HELP = REMOVE_USAGE + """
optional arguments:
  -h, --help             show this help message and exit
  --controller-id CONTROLLER_ID, -i CONTROLLER_ID
                         The id of the controller to remove.
  --controller-directory-id CONTROLLER_DIRECTORY_ID, -d CONTROLLER_DIRECTORY_ID
                         The directory ID of the controller to remove.
  --dry-run              True if we should  print  what  would be done, but
                         not do it.
  --unregister           If  set,  also  unregister  the  controller  after
                         successfully removing it from the voter set.
"""

# flag -> (destination, takes a value)
_Spec = dict[str, tuple[str, bool]]
_MAIN_OPTS: _Spec = {"--bootstrap-server": ("bootstrap_server", True),
                     "--bootstrap-controller": ("bootstrap_controller", True),
                     "--command-config": ("command_config", True)}
_COMMANDS: dict[str, tuple[str, str, _Spec, tuple[str, ...]]] = {
    "describe": (DESCRIBE_USAGE, DESCRIBE_HELP, {"--status": ("status", False), "--replication": ("replication", False),
                                                 "--human-readable": ("human_readable", False)}, ()),
    "add-controller": (ADD_USAGE, ADD_HELP, {"--dry-run": ("dry_run", False)}, ()),
    "remove-controller": (REMOVE_USAGE, REMOVE_HELP,
                          {"--controller-id": ("controller_id", True), "-i": ("controller_id", True),
                           "--controller-directory-id": ("controller_directory_id", True),
                           "-d": ("controller_directory_id", True),
                           "--unregister": ("unregister", False), "--dry-run": ("dry_run", False)},
                          ("controller_id", "controller_directory_id")),
}
_NAMES = {"controller_id": "--controller-id/-i", "controller_directory_id": "--controller-directory-id/-d",
          "bootstrap_server": "--bootstrap-server", "bootstrap_controller": "--bootstrap-controller",
          "command_config": "--command-config"}


class UsageError(Exception):
    """A command line argparse4j refuses: the usage of ``usage`` and the message go to stderr."""

    def __init__(self, usage: str, message: str) -> None:
        super().__init__(message)
        self.usage = usage


class HelpShown(Exception):
    """``-h``: the help went to stdout, exit 0."""



def _resolve(name: str, spec: _Spec, usage: str) -> str:
    """argparse4j takes a unique prefix of a long option."""
    if name in spec or not name.startswith("--"):
        return name
    matches = sorted(f for f in spec if f.startswith(name))
    if len(matches) > 1:
        raise UsageError(usage, f"ambiguous option: {name} could match {', '.join(matches)}")
    return matches[0] if matches else name


def _take(args: list[str], i: int, spec: _Spec, usage: str, values: dict[str, object]) -> int:
    """Parse the option at ``args[i]`` into ``values``; the index after it."""
    arg = args[i]
    name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
    name = _resolve(name, spec, usage)
    if name not in spec:
        raise UsageError(usage, f"unrecognized arguments: '{arg}'")
    dest, takes_value = spec[name]
    i += 1
    if not takes_value:
        values[dest] = True
        return i
    if eq:
        values[dest] = inline
        return i
    if i < len(args) and not (args[i].startswith("-") and len(args[i]) > 1 and not _NEGATIVE.fullmatch(args[i])):
        values[dest] = args[i]
        return i + 1
    raise UsageError(usage, f"argument {_NAMES.get(dest, name)}: expected one argument")


def parse_args(argv: list[str], out: TextIO) -> tuple[str, dict[str, object]]:
    """The subcommand and the options, as argparse4j parses MetadataQuorumCommand's line."""
    values: dict[str, object] = {}
    i = 0
    command: str | None = None
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            out.write(MAIN_HELP)
            raise HelpShown()
        if not arg.startswith("-"):
            command = arg
            i += 1
            break
        before = set(values)
        i = _take(argv, i, _MAIN_OPTS, MAIN_USAGE, values)
        given = set(values) - before
        for dest in given & {"bootstrap_server", "bootstrap_controller"}:
            other = "bootstrap_controller" if dest == "bootstrap_server" else "bootstrap_server"
            if other in values:
                raise UsageError(MAIN_USAGE, f"argument {_NAMES[dest]}: not allowed with argument {_NAMES[other]}")
    if command is None:
        raise UsageError(MAIN_USAGE, "too few arguments")
    if command not in _COMMANDS:
        choices = ", ".join(f"'{c}'" for c in COMMANDS)
        raise UsageError(MAIN_USAGE, f"invalid choice: '{command}' (choose from {choices})")
    usage, help_text, spec, required = _COMMANDS[command]
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            out.write(help_text)
            raise HelpShown()
        if not argv[i].startswith("-"):
            raise UsageError(usage, f"unrecognized arguments: '{argv[i]}'")
        i = _take(argv, i, spec, usage, values)
    for dest in required:
        if dest not in values:
            raise UsageError(usage, f"argument {_NAMES[dest]} is required")
    if "controller_id" in values:
        try:
            values["controller_id"] = int(str(values["controller_id"]))
        except ValueError:
            raise UsageError(usage, f"argument {_NAMES['controller_id']}: could not convert "
                                    f"'{values['controller_id']}' to Integer (For input string: "
                                    f"\"{values['controller_id']}\")") from None
    if "bootstrap_server" not in values and "bootstrap_controller" not in values:
        raise UsageError(MAIN_USAGE, "one of the arguments --bootstrap-server --bootstrap-controller is required")
    return command, values


# ------------------------------------------------------------------------------ output


def pretty_print_table(headers: list[str], rows: list[list[str]]) -> str:
    """Kafka's ToolsUtils.prettyPrintTable: every cell padded to its column's width and
    followed by a tab."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    return "".join("".join(cell.ljust(w) + "\t" for cell, w in zip(row, widths)) + "\n"
                   for row in [headers, *rows])


def _endpoint_text(name: str, host: str, port: int) -> str:
    """RaftVoterEndpoint.toString: an IPv6 host in square brackets."""
    return f"{name}://[{host}]:{port}" if ":" in host else f"{name}://{host}:{port}"


def _node_text(replica: messages.DescribeQuorumResponse.ReplicaState,
               nodes: dict[int, messages.DescribeQuorumResponse.Node]) -> str:
    directory = replica.replica_directory_id
    text = f'{{"id": {replica.replica_id}'
    if directory != ZERO_UUID:  # Kafka 4.4 leaves a static voter's zero directory id out
        text += f', "directoryId": "{uuid_to_string(directory)}"'
    node = nodes.get(replica.replica_id)
    if node is not None and node.listeners:
        text += ', "endpoints": [' + ", ".join(
            f'"{_endpoint_text(lst.name, lst.host, lst.port)}"' for lst in node.listeners) + "]"
    return text + "}"


def _leader(quorum: messages.DescribeQuorumResponse.PartitionData) -> messages.DescribeQuorumResponse.ReplicaState:
    for voter in quorum.current_voters:
        if voter.replica_id == quorum.leader_id:
            return voter
    raise TerseFailure("No value present")  # Java's Optional.get() on a missing leader


def format_status(cluster_id: str, quorum: messages.DescribeQuorumResponse.PartitionData,
                  nodes: list[messages.DescribeQuorumResponse.Node]) -> str:
    """``describe --status``."""
    leader = _leader(quorum)
    most_behind = min(quorum.current_voters, key=lambda v: v.log_end_offset)
    max_lag = leader.log_end_offset - most_behind.log_end_offset
    if most_behind is leader:
        lag_time = 0
    elif leader.last_caught_up_timestamp != -1 and most_behind.last_caught_up_timestamp != -1:
        lag_time = leader.last_caught_up_timestamp - most_behind.last_caught_up_timestamp
    else:
        lag_time = -1
    by_id = {n.node_id: n for n in nodes}
    voters = "[" + ", ".join(_node_text(v, by_id) for v in quorum.current_voters) + "]"
    observers = "[" + ", ".join(_node_text(o, by_id) for o in quorum.observers) + "]"
    return (f"ClusterId:              {cluster_id}\n"
            f"LeaderId:               {quorum.leader_id}\n"
            f"LeaderEpoch:            {quorum.leader_epoch}\n"
            f"HighWatermark:          {quorum.high_watermark}\n"
            f"MaxFollowerLag:         {max_lag}\n"
            f"MaxFollowerLagTimeMs:   {lag_time}\n"
            f"CurrentVoters:          {voters}\n"
            f"CurrentObservers:       {observers}\n")


def relative_time_ms(timestamp_ms: int, desc: str, now_ms: int) -> int:
    """MetadataQuorumCommand.relativeTimeMs: how long ago, refusing a time in the future."""
    if not (0 < timestamp_ms <= now_ms):
        raise TerseFailure("Error while computing relative time, possible drift in system clock.\n"
                           f"Current timestamp is {now_ms}, {desc} timestamp is {timestamp_ms}")
    return now_ms - timestamp_ms


def format_replication(quorum: messages.DescribeQuorumResponse.PartitionData, human_readable: bool,
                       now_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> str:
    """``describe --replication``: the leader, the other voters, the observers."""
    leader = _leader(quorum)

    def stamp(value: int, desc: str) -> str:
        if value == -1:
            return "-1"
        return f"{relative_time_ms(value, desc, now_ms())} ms ago" if human_readable else str(value)

    groups = [([leader], "Leader"),
              ([v for v in quorum.current_voters if v.replica_id != quorum.leader_id], "Follower"),
              (list(quorum.observers), "Observer")]
    rows = [[str(r.replica_id), uuid_to_string(r.replica_directory_id), str(r.log_end_offset),
             str(leader.log_end_offset - r.log_end_offset), stamp(r.last_fetch_timestamp, "last fetch"),
             stamp(r.last_caught_up_timestamp, "last caught up"), status]
            for replicas, status in groups for r in replicas]
    return pretty_print_table(["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp",
                               "LastCaughtUpTimestamp", "Status"], rows)


# ------------------------------------------------------------------------------ add-controller


def controller_id(props: dict[str, str]) -> int:
    if "node.id" not in props:
        raise TerseFailure("node.id not found in configuration file. Is this a valid controller configuration file?")
    try:
        node_id = int(props["node.id"].strip())
    except ValueError:
        raise TerseFailure(f'For input string: "{props["node.id"]}"') from None
    if node_id < 0:
        raise TerseFailure("node.id was negative in configuration file. Is this a valid controller "
                           "configuration file?")
    if "controller" not in props.get("process.roles", ""):
        raise TerseFailure("process.roles did not contain 'controller' in configuration file. Is this a valid "
                           "controller configuration file?")
    return node_id


def metadata_directory(props: dict[str, str]) -> str:
    if "metadata.log.dir" in props:
        return props["metadata.log.dir"]
    if "log.dirs" in props:
        return props["log.dirs"].strip().split(",")[0]
    raise TerseFailure("Neither metadata.log.dir nor log.dirs were found. Is this a valid controller "
                       "configuration file?")


def metadata_directory_id(directory: str) -> bytes:
    try:
        meta = read_meta_properties(directory)
    except (OSError, ValueError):
        meta = None
    if meta is None:
        raise TerseFailure(f"Unable to read meta.properties from {directory}")
    if not meta.directory_id:
        raise TerseFailure(f"No directory id found in {directory}")
    return uuid_from_string(meta.directory_id)


def _listeners(text: str) -> dict[str, tuple[str, int]]:
    """``NAME://host:port,...`` by listener name (an empty host is None in Kafka: localhost)."""
    out: dict[str, tuple[str, int]] = {}
    for item in (s.strip() for s in text.split(",")):
        name, sep, hostport = item.partition("://")
        if not sep:
            continue
        host, _, port = hostport.rpartition(":")
        out[name.strip().upper()] = (host.strip("[]") or "localhost", int(port))
    return out


def controller_endpoints(props: dict[str, str]) -> list[tuple[str, str, int]]:
    """The controller listeners, advertised.listeners winning over listeners, in the order
    of controller.listener.names."""
    listeners = _listeners(props.get("listeners", ""))
    listeners.update(_listeners(props.get("advertised.listeners", "")))
    if "controller.listener.names" not in props:
        raise TerseFailure("controller.listener.names was not found. Is this a valid controller configuration file?")
    results: list[tuple[str, str, int]] = []
    for name in props["controller.listener.names"].split(","):
        name = name.strip().upper()
        if name not in listeners:
            raise TerseFailure(f"Cannot find information about controller listener name: {name}")
        entry = (name, *listeners[name])
        if entry not in results:
            results.append(entry)
    return results


def add_controller(admin: QuorumAdminClient | None, props: dict[str, str], dry_run: bool) -> str:
    node_id = controller_id(props)
    directory_id = metadata_directory_id(metadata_directory(props))
    endpoints = controller_endpoints(props)
    if not dry_run:
        assert admin is not None
        admin.add_raft_voter(node_id, directory_id, endpoints)
    head = "DRY RUN of adding" if dry_run else "Added"
    return (f"{head} controller {node_id} with directory id {uuid_to_string(directory_id)} and endpoints: "
            + ", ".join(_endpoint_text(*e) for e in endpoints) + "\n")


def remove_controller(admin: QuorumAdminClient, node_id: int, directory: str, dry_run: bool) -> str:
    if node_id < 0:
        raise TerseFailure(f"Invalid negative --controller-id: {node_id}")
    try:
        directory_id = uuid_from_string(directory)
    except ValueError as e:
        raise TerseFailure(f"Failed to parse --controller-directory-id: {e}") from None
    if not dry_run:
        admin.remove_raft_voter(node_id, directory_id)
    head = "DRY RUN of removing " if dry_run else "Removed "
    return f"{head}KRaft controller {node_id} with directory id {uuid_to_string(directory_id)}\n"


# ------------------------------------------------------------------------------ main


def _command_config(values: dict[str, object]) -> dict[str, str]:
    path = values.get("command_config")
    if path is None:
        return {}
    if not Path(str(path)).exists():
        raise TerseFailure(f"Properties file {path} does not exist.")
    return load_properties(str(path))


def execute(command: str, values: dict[str, object], out: TextIO) -> None:
    props = _command_config(values)
    controllers = "bootstrap_controller" in values
    bootstrap = str(values.get("bootstrap_controller") or values.get("bootstrap_server"))
    if command == "describe":
        status, replication = bool(values.get("status")), bool(values.get("replication"))
        if status and replication:
            raise TerseFailure("Only one of --status or --replication should be specified with describe sub-command")
        if status and values.get("human_readable"):
            raise TerseFailure("The option --human-readable is only supported along with --replication")
        if not (status or replication):
            raise TerseFailure("One of --status or --replication must be specified with describe sub-command")
        with QuorumAdminClient(bootstrap, controllers=controllers, props=props) as admin:
            if status:
                cluster_id = admin.describe_cluster().cluster_id
                quorum, nodes = admin.describe_quorum()
                out.write(format_status(cluster_id, quorum, nodes))
            else:
                quorum, _ = admin.describe_quorum()
                out.write(format_replication(quorum, bool(values.get("human_readable"))))
        return
    if command == "add-controller":
        if values.get("command_config") is None:
            raise TerseFailure("You must supply the configuration file of the controller you are adding when "
                               "using add-controller.")
        dry_run = bool(values.get("dry_run"))
        if dry_run:
            out.write(add_controller(None, props, True))
            return
        with QuorumAdminClient(bootstrap, controllers=controllers, props=props) as admin:
            out.write(add_controller(admin, props, False))
        return
    node_id = values["controller_id"]
    assert isinstance(node_id, int)
    dry_run = bool(values.get("dry_run"))
    directory = str(values["controller_directory_id"])
    with QuorumAdminClient(bootstrap, controllers=controllers, props=props) as admin:
        out.write(remove_controller(admin, node_id, directory, dry_run))
        if values.get("unregister"):
            if not dry_run:
                admin.unregister_controller(node_id)
            out.write(f"{'DRY RUN of unregistering ' if dry_run else 'Unregistered '}KRaft controller {node_id}\n")


def run(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        command, values = parse_args(argv, out)
        execute(command, values, out)
        return 0
    except HelpShown:
        return 0
    except UsageError as e:
        err.write(e.usage)
        err.write(justify(f"{PROG}: error: {e}") + "\n")
        return 1
    except FAILURES as e:
        return report_failure(e, err)


def main(argv: list[str] | None = None) -> int:
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
