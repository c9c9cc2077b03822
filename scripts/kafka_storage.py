"""kafka-storage: format a node's directories for KRaft mode, show what they hold, print a
random UUID, with the subcommands, flags, output and exit codes of Apache Kafka 4.4's
``StorageTool``: ``format``, ``info``, ``random-uuid``, ``version-mapping``,
``feature-dependencies``.

Its command line is Kafka's argparse4j one (``kafka-storage format -h``): the help screens
are Kafka's text, errors print the subcommand's usage then ``kafka-storage: error: ...``
justified to 75 columns as argparse4j does, and exit 1. The work is ``kafpy.metadata``'s
(``Formatter``, ``meta_properties``); this module reads the server.properties (process.roles,
node.id, log.dirs, metadata.log.dir, controller.quorum.voters, controller.listener.names,
listeners / advertised.listeners for the standalone voter's endpoint) and prints.
"""
from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import TextIO

from kafpy.broker.properties import load_properties
from kafpy.broker.security.scram import HASHES, MAX_ITERATIONS, MECHANISM_NUMBERS, MIN_ITERATIONS
from kafpy.broker.security.scram import credential_from_salted_password, salted_password
from kafpy.metadata.formatter import Formatter, FormatterError, parse_dynamic_voters
from kafpy.metadata.meta_properties import (
    META_PROPERTIES_NAME,
    MetaProperties,
    MetaPropertiesError,
    random_uuid,
    read_meta_properties,
)
from kafpy.metadata.metadata_version import (
    LATEST_PRODUCTION,
    METADATA_VERSIONS,
    MINIMUM_VERSION,
    UnknownMetadataVersion,
    from_version_string,
)
from kafpy.metadata.record_serde import ApiMessageAndVersion
from kafpy.protocol.messages import UserScramCredentialRecord
from kafpy.scripts._cli import debug_traceback, tool_main
from kafpy.scripts._feature_levels import FeatureLookupError, dependency_lines, version_mapping_lines

PROG = "kafka-storage"
COMMANDS = ("info", "format", "version-mapping", "feature-dependencies", "random-uuid")
_WIDTH = 75

MAIN_USAGE = """usage: kafka-storage [-h]
                     {info,format,version-mapping,feature-dependencies,random-uuid}
                     ...
"""
MAIN_HELP = MAIN_USAGE + """
The Kafka storage tool.

positional arguments:
  {info,format,version-mapping,feature-dependencies,random-uuid}
    info                 Get information about  the  Kafka  log directories
                         on this node.
    format               Format the Kafka log directories on this node.
    version-mapping      Look up the  corresponding  features  for  a given
                         metadata version. Using  the  command  with  no --
                         release-version  argument will  return the mapping
                         for the latest stable metadata version
    feature-dependencies
                         Look up dependencies for  a given feature version.
                         If the feature is  not  known  or  the version not
                         yet  defined,  an   error   is   thrown.  Multiple
                         features can be specified.
    random-uuid          Print a random UUID.

optional arguments:
  -h, --help             show this help message and exit
"""
FORMAT_USAGE = """usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID
                     [--add-scram ADD_SCRAM] [--ignore-formatted]
                     [--release-version RELEASE_VERSION]
                     [--feature FEATURE] [--standalone |
                     --no-initial-controllers |
                     --initial-controllers INITIAL_CONTROLLERS]
"""
FORMAT_HELP = FORMAT_USAGE + f"""
optional arguments:
  -h, --help             show this help message and exit
  --config CONFIG, -c CONFIG
                         The Kafka configuration file to use.
  --cluster-id CLUSTER_ID, -t CLUSTER_ID
                         The cluster ID to use.
  --add-scram ADD_SCRAM, -S ADD_SCRAM
                         A    SCRAM_CREDENTIAL     to     add     to    the
                         __cluster_metadata log e.g.
                         'SCRAM-SHA-256=[name=alice,password=alice-
                         secret]'
                         'SCRAM-SHA-512=[name=alice,iterations=8192,salt="
                         N3E=",saltedpassword="YCE="]'
  --ignore-formatted, -g
                         When this option  is  passed,  the  format command
                         will  skip  over   already  formatted  directories
                         rather than failing.
  --release-version RELEASE_VERSION, -r RELEASE_VERSION
                         The  release  version  to   use  for  the  initial
                         feature settings.  The  minimum  is  {MINIMUM_VERSION};  the
                         default is  {LATEST_PRODUCTION}.  Note:  formatted directories
                         are not forward-compatible  —  the  broker version
                         must be  greater  than  or  equal  to  the  kafka-
                         storage  tool   that   formatted   the  directory,
                         regardless of this setting.
  --feature FEATURE, -f FEATURE
                         The setting to  use  for  a  specific  feature, in
                         feature=level   format.   For   example:   `kraft.
                         version=1`.
  --standalone, -s       Used to initialize a  controller  as a single-node
                         dynamic  quorum.  When  setting   this  flag,  the
                         controller.quorum.voters config must  not  be set,
                         and  controller.quorum.bootstrap.servers   is  set
                         instead.
  --no-initial-controllers, -N
                         Used to initialize a  server  without specifying a
                         dynamic  quorum.  When  setting   this  flag,  the
                         controller.quorum.voters  config  should   not  be
                         set,  and  controller.quorum.bootstrap.servers  is
                         set instead.
  --initial-controllers INITIAL_CONTROLLERS, -I INITIAL_CONTROLLERS
                         Used to initialize  a  server  with  the specified
                         dynamic quorum. The argument  is a comma-separated
                         list  of   id@hostname:port:directory.   The  same
                         values must  be  used  to  format  all  nodes. For
                         example:
                         0@example.com:8082:JEXY6aqzQY-32P5TStzaFg,
                         1@example.com:8083:MvDxzVmcRsaTz33bUuRU6A,
                         2@example.com:8084:07R5amHmR32VDA6jHkGbTA
                         . When setting  this  flag, the controller.quorum.
                         voters config must  not  be  set,  and controller.
                         quorum.bootstrap.servers is set instead.
"""
INFO_USAGE = "usage: kafka-storage info [-h] --config CONFIG\n"
INFO_HELP = INFO_USAGE + """
optional arguments:
  -h, --help             show this help message and exit
  --config CONFIG, -c CONFIG
                         The Kafka configuration file to use.
"""
VERSION_MAPPING_USAGE = """usage: kafka-storage version-mapping [-h]
                     [--release-version RELEASE_VERSION]
"""
VERSION_MAPPING_HELP = VERSION_MAPPING_USAGE + f"""
optional arguments:
  -h, --help             show this help message and exit
  --release-version RELEASE_VERSION, -r RELEASE_VERSION
                         The release version to  use  for the corresponding
                         feature  mapping.  The  minimum  is  {MINIMUM_VERSION};  the
                         default is {LATEST_PRODUCTION}
"""
FEATURE_DEPENDENCIES_USAGE = "usage: kafka-storage feature-dependencies [-h] --feature FEATURE\n"
FEATURE_DEPENDENCIES_HELP = FEATURE_DEPENDENCIES_USAGE + """
optional arguments:
  -h, --help             show this help message and exit
  --feature FEATURE, -f FEATURE
                         The  features  and  their   versions  to  look  up
                         dependencies for, in  feature=version  format. For
                         example: `metadata.version=5`.
"""
RANDOM_UUID_USAGE = "usage: kafka-storage random-uuid [-h]\n"
RANDOM_UUID_HELP = RANDOM_UUID_USAGE + """
optional arguments:
  -h, --help             show this help message and exit
"""

# subcommand -> (usage, help, {flag: (destination, takes a value, repeatable)}, required destinations)
_Spec = dict[str, tuple[str, bool, bool]]
_FORMAT_OPTS: _Spec = {
    "--config": ("config", True, False), "-c": ("config", True, False),
    "--cluster-id": ("cluster_id", True, False), "-t": ("cluster_id", True, False),
    "--add-scram": ("add_scram", True, True), "-S": ("add_scram", True, True),
    "--ignore-formatted": ("ignore_formatted", False, False), "-g": ("ignore_formatted", False, False),
    "--release-version": ("release_version", True, False), "-r": ("release_version", True, False),
    "--feature": ("feature", True, True), "-f": ("feature", True, True),
    "--standalone": ("standalone", False, False), "-s": ("standalone", False, False),
    "--no-initial-controllers": ("no_initial_controllers", False, False),
    "-N": ("no_initial_controllers", False, False),
    "--initial-controllers": ("initial_controllers", True, False), "-I": ("initial_controllers", True, False),
}
_NAMES = {"config": "--config/-c", "cluster_id": "--cluster-id/-t", "standalone": "--standalone/-s",
          "no_initial_controllers": "--no-initial-controllers/-N",
          "initial_controllers": "--initial-controllers/-I", "feature": "--feature/-f",
          "release_version": "--release-version/-r"}
_COMMANDS: dict[str, tuple[str, str, _Spec, tuple[str, ...]]] = {
    "format": (FORMAT_USAGE, FORMAT_HELP, _FORMAT_OPTS, ("config", "cluster_id")),
    "info": (INFO_USAGE, INFO_HELP, {"--config": ("config", True, False), "-c": ("config", True, False)},
             ("config",)),
    "version-mapping": (VERSION_MAPPING_USAGE, VERSION_MAPPING_HELP,
                        {"--release-version": ("release_version", True, False),
                         "-r": ("release_version", True, False)}, ()),
    "feature-dependencies": (FEATURE_DEPENDENCIES_USAGE, FEATURE_DEPENDENCIES_HELP,
                             {"--feature": ("feature", True, True), "-f": ("feature", True, True)}, ("feature",)),
    "random-uuid": (RANDOM_UUID_USAGE, RANDOM_UUID_HELP, {}, ()),
}
_EXCLUSIVE = ("standalone", "no_initial_controllers", "initial_controllers")


class UsageError(Exception):
    """A command line argparse4j refuses: the usage of ``usage`` and the message go to stderr."""

    def __init__(self, usage: str, message: str) -> None:
        super().__init__(message)
        self.usage = usage


class HelpShown(Exception):
    """``-h``: the help went to stdout, exit 0."""


class TerseFailure(Exception):
    """An error Kafka's StorageTool prints as its message alone."""


def _segments(word: str) -> list[str]:
    """A word cut where Java's line BreakIterator may break it: after a hyphen followed by a
    letter (``--config`` -> ``--``, ``config``; ``alice-secret`` -> ``alice-``, ``secret``)."""
    parts: list[str] = []
    start = 0
    for i in range(2, len(word)):
        if word[i - 1] == "-" and word[i].isalpha():
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


def justify(text: str, width: int = _WIDTH) -> str:
    """argparse4j's wrapping of an error line: filled to ``width`` (words may break after a
    hyphen), the spaces of every line but the last widened (the extra ones to the middle
    gaps) so that it ends at ``width``."""
    lines: list[list[tuple[str, bool]]] = [[]]  # (segment, a space before it)
    for word in text.split():
        for n, segment in enumerate(_segments(word)):
            spaced = n == 0
            current = lines[-1]
            length = sum(len(seg) + (1 if sp else 0) for seg, sp in current) - (1 if current else 0)
            if current and length + (1 if spaced else 0) + len(segment) > width:
                lines.append([(segment, spaced)])
            else:
                current.append((segment, spaced))
    out: list[str] = []
    for i, line in enumerate(lines):
        gaps = sum(1 for seg_i, (_seg, sp) in enumerate(line) if sp and seg_i > 0)
        natural = "".join((" " if sp and j > 0 else "") + seg for j, (seg, sp) in enumerate(line))
        if i == len(lines) - 1 or gaps == 0:
            out.append(natural)
            continue
        base, rem = divmod(width - len(natural), gaps)
        start = (gaps - rem + 1) // 2
        parts: list[str] = []
        g = 0
        for j, (seg, sp) in enumerate(line):
            if sp and j > 0:
                parts.append(" " * (1 + base + (1 if start <= g < start + rem else 0)))
                g += 1
            parts.append(seg)
        out.append("".join(parts))
    return "\n".join(out)


def parse_args(argv: list[str], out: TextIO) -> tuple[str, dict[str, object]]:
    """The subcommand and its options, as argparse4j parses StorageTool's command line."""
    if argv[:1] in (["-h"], ["--help"]):
        out.write(MAIN_HELP)
        raise HelpShown()
    if not argv:
        raise UsageError(MAIN_USAGE, "too few arguments")
    command, rest = argv[0], argv[1:]
    if command not in _COMMANDS:
        if command.startswith("-"):
            raise UsageError(MAIN_USAGE, f"unrecognized arguments: '{command}'")
        choices = ", ".join(f"'{c}'" for c in COMMANDS)
        raise UsageError(MAIN_USAGE, f"invalid choice: '{command}' (choose from {choices})")
    usage, help_text, spec, required = _COMMANDS[command]
    values: dict[str, object] = {}
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg in ("-h", "--help"):
            out.write(help_text)
            raise HelpShown()
        name, _eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name not in spec and name.startswith("--") and len(name) > 2:
            # argparse4j takes a unique prefix of a long option
            matches = sorted({f for f in spec if f.startswith("--") and f.startswith(name)})
            if len(matches) > 1:
                raise UsageError(usage, f"ambiguous option: {name} could match {', '.join(matches)}")
            if matches:
                name = matches[0]
        if name not in spec:
            raise UsageError(usage, f"unrecognized arguments: '{arg}'")
        dest, takes_value, repeatable = spec[name]
        value: object = True
        if takes_value:
            if _eq:
                value = inline
            elif i < len(rest) and not (rest[i].startswith("-") and len(rest[i]) > 1):
                value = rest[i]
                i += 1
            else:
                raise UsageError(usage, f"argument {_NAMES.get(dest, name)}: expected one argument")
        if dest in _EXCLUSIVE:
            for other in _EXCLUSIVE:
                if other != dest and other in values:
                    raise UsageError(usage, f"argument {_NAMES[dest]}: not allowed with argument {_NAMES[other]}")
        if repeatable:
            existing = values.setdefault(dest, [])
            assert isinstance(existing, list)
            existing.append(value)
        else:
            values[dest] = value
    for dest in required:
        if dest not in values:
            raise UsageError(usage, f"argument {_NAMES[dest]} is required")
    return command, values


# ------------------------------------------------------------------------------ config


def _list(props: dict[str, str], key: str) -> list[str]:
    return [v.strip() for v in props.get(key, "").split(",") if v.strip()]


class StorageConfig:
    """The few server.properties settings the tool needs, with the broker's defaults."""

    def __init__(self, props: dict[str, str]) -> None:
        self.props = props
        self.process_roles = _list(props, "process.roles")
        self.node_id = int(props.get("node.id", props.get("broker.id", "-1")) or -1)
        dirs = _list(props, "log.dirs") or [props.get("log.dir", "/tmp/kafka-logs")]
        self.log_dirs = [str(Path(d).expanduser()) for d in dirs]
        self.metadata_log_dir = props.get("metadata.log.dir") or self.log_dirs[0]
        self.quorum_voters = _list(props, "controller.quorum.voters")
        self.controller_listener_names = _list(props, "controller.listener.names")
        self.unstable_feature_versions = props.get("unstable.feature.versions.enable", "false").lower() == "true"

    @property
    def is_controller(self) -> bool:
        return "controller" in self.process_roles

    def directories(self) -> list[str]:
        return sorted({*self.log_dirs, self.metadata_log_dir})

    def controller_endpoint(self) -> tuple[str, int] | None:
        """The first controller listener's host and port (advertised first, as Kafka's
        ``effectiveAdvertisedControllerListeners``), the host ``None`` when the listener has none."""
        if not self.controller_listener_names:
            return None
        name = self.controller_listener_names[0]
        for key in ("advertised.listeners", "listeners"):
            for listener in _list(self.props, key):
                lname, _sep, address = listener.partition("://")
                if lname.strip().upper() == name.upper():
                    host, _c, port = address.rpartition(":")
                    return host.strip("[]"), int(port)
        return None


# -------------------------------------------------------------------------------- SCRAM


def _scram_component(text: str) -> tuple[str, str]:
    eq = text.find("=")
    if eq < 0:
        raise TerseFailure(f"No equals sign found in SCRAM component: {text}")
    value = text[eq + 1:].strip()
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return text[:eq].strip(), value


def scram_record(argument: str) -> ApiMessageAndVersion:
    """One ``--add-scram`` argument as Kafka's ``ScramParser`` makes its record."""
    import base64

    text = argument.strip()
    eq = text.find("=")
    if eq < 0:
        raise TerseFailure(f"Failed to find equals sign in SCRAM argument '{text}'")
    mechanism, config = text[:eq], text[eq + 1:]
    if mechanism not in HASHES:
        raise TerseFailure(f"The add-scram mechanism {mechanism} is not supported.")
    if not config.startswith("["):
        raise TerseFailure("Expected configuration string to start with [")
    if not config.endswith("]"):
        raise TerseFailure("Expected configuration string to end with ]")
    parts = dict(sorted(_scram_component(c) for c in config[1:-1].split(",")))
    name = parts.pop("name", None)
    if name is None:
        raise TerseFailure("You must supply 'name' to add-scram")
    salt_text = parts.pop("salt", None)
    iterations_text = parts.pop("iterations", None)
    password = parts.pop("password", None)
    salted_text = parts.pop("saltedpassword", None)
    try:
        salt = base64.b64decode(salt_text, validate=True) if salt_text is not None else None
    except ValueError:
        raise TerseFailure(f"Failed to decode given salt: {salt_text}") from None
    try:
        iterations = int(iterations_text) if iterations_text is not None else MIN_ITERATIONS
    except ValueError:
        raise TerseFailure(f"Failed to parse iterations count: {iterations_text}") from None
    if password is None:
        if salted_text is None:
            raise TerseFailure("You must supply one of 'password' or 'saltedpassword' to add-scram")
        if salt is None:
            raise TerseFailure("You must supply 'salt' with 'saltedpassword' to add-scram")
    if parts:
        raise TerseFailure("Unknown SCRAM configurations: " + ", ".join(parts))
    if salt is None:  # ScramFormatter.secureRandomBytes: a 130-bit number in base 36
        n = secrets.randbits(130)
        digits = ""
        while n:
            n, d = divmod(n, 36)
            digits = "0123456789abcdefghijklmnopqrstuvwxyz"[d] + digits
        salt = (digits or "0").encode()
    if iterations < MIN_ITERATIONS:
        raise TerseFailure(f"The 'iterations' value must be >= {MIN_ITERATIONS} for add-scram using "
                           f"{mechanism.replace('-', '_')}")
    if iterations > MAX_ITERATIONS:
        raise TerseFailure(f"The 'iterations' value must be <= {MAX_ITERATIONS} for add-scram using "
                           f"{mechanism.replace('-', '_')}")
    if password is not None:
        salted = salted_password(mechanism, password, salt, iterations)
    else:
        try:
            salted = base64.b64decode(salted_text or "", validate=True)
        except ValueError:
            raise TerseFailure(f"Failed to decode given saltedPassword: {salted_text}") from None
    cred = credential_from_salted_password(mechanism, salted, salt, iterations)
    return ApiMessageAndVersion(UserScramCredentialRecord(
        name=name, mechanism=MECHANISM_NUMBERS[mechanism], salt=salt, stored_key=cred.stored_key,
        server_key=cred.server_key, iterations=iterations), 0)


# ----------------------------------------------------------------------------- commands


def _strings(opts: dict[str, object], key: str) -> list[str]:
    """The values of a repeatable option (none when absent)."""
    values = opts.get(key)
    return [str(v) for v in values] if isinstance(values, list) else []


def _java_failure(java_class: str, message: str) -> TerseFailure:
    return TerseFailure(f'Exception in thread "main" {java_class}: {message}')


def parse_name_and_level(text: str) -> tuple[str, int]:
    """``--feature name=level`` as StorageTool's ``parseNameAndLevel``."""
    eq = text.find("=")
    if eq < 0:
        raise _java_failure("java.lang.RuntimeException",
                            f"Can't parse feature=level string {text}: equals sign not found.")
    name, value = text[:eq].strip(), text[eq + 1:].strip()
    try:
        level = int(value)
        if not -32768 <= level <= 32767:
            raise ValueError(value)
    except ValueError:
        raise _java_failure("java.lang.RuntimeException",
                            f"Can't parse feature=level string {text}: unable to parse {value} as a short.") from None
    return name, level


def _release_version(text: str, unstable: bool) -> object:
    try:
        mv = from_version_string(text)
    except UnknownMetadataVersion:
        mv = None
    if mv is None or (not mv.production and not unstable):
        allowed = [m.name for m in METADATA_VERSIONS if m.production or unstable]
        raise TerseFailure(f"Unknown metadata.version '{text}'. Supported metadata.version are: {', '.join(allowed)}")
    return mv


def run_format(opts: dict[str, object], config: StorageConfig, out: TextIO) -> int:
    from kafpy.metadata.metadata_version import MetadataVersion

    if not config.process_roles:
        raise TerseFailure("The kafka configuration file appears to be for a legacy cluster. Formatting is only "
                           "supported for clusters in KRaft mode.")
    formatter = Formatter(
        node_id=config.node_id,
        cluster_id=str(opts["cluster_id"]),
        directories=config.directories(),
        metadata_log_directory=config.metadata_log_dir,
        controller_listener_name=config.controller_listener_names[0] if config.controller_listener_names else None,
        ignore_formatted=bool(opts.get("ignore_formatted")),
        unstable_feature_versions_enabled=config.unstable_feature_versions,
        write_bootstrap_snapshot=config.is_controller,
        out=lambda line: print(line, file=out),
    )
    if "release_version" in opts:
        mv = _release_version(str(opts["release_version"]), config.unstable_feature_versions)
        assert isinstance(mv, MetadataVersion)
        formatter.release_version = mv
    for text in _strings(opts, "feature"):
        name, level = parse_name_and_level(text)
        formatter.feature_levels[name] = level
    standalone = bool(opts.get("standalone"))
    initial = opts.get("initial_controllers")
    formatter.has_dynamic_quorum = not config.quorum_voters
    if config.quorum_voters and (initial is not None or standalone):
        raise TerseFailure(
            "You cannot specify controller.quorum.voters and format the node with --initial-controllers or "
            "--standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and specify "
            "controller.quorum.bootstrap.servers instead.")
    if initial is not None:
        formatter.initial_controllers = parse_dynamic_voters(str(initial))
    if standalone:
        if not config.is_controller:
            raise TerseFailure("You can only use --standalone on a controller.")
        endpoint = config.controller_endpoint()
        if endpoint is None:
            raise _java_failure("java.lang.RuntimeException", "No controller listeners found.")
        host, port = endpoint
        formatter.initial_controllers = parse_dynamic_voters(f"{config.node_id}@{host or 'localhost'}:{port}:"
                                                             f"{random_uuid()}")
    if (not opts.get("no_initial_controllers") and config.is_controller and not config.quorum_voters
            and formatter.initial_controllers is None):
        raise TerseFailure(
            "Because controller.quorum.voters is not set on this controller, you must specify one of the "
            "following: --standalone, --initial-controllers, or --no-initial-controllers.")
    scram = _strings(opts, "add_scram")
    if scram:
        formatter.scram_records = lambda: [scram_record(a) for a in scram]
    formatter.run()
    return 0


def run_info(config: StorageConfig, out: TextIO) -> int:
    """StorageTool's ``infoCommand``: the directories, the metadata found, the problems."""
    directories = config.directories()
    problems: list[str] = []
    found: list[str] = []
    first: MetaProperties | None = None
    for log_dir in sorted(directories):
        path = Path(log_dir)
        if not path.is_dir():
            problems.append(f"{path} does not exist" if not path.exists() else f"{path} is not a directory")
            continue
        found.append(log_dir)
        meta_path = path / META_PROPERTIES_NAME
        if not meta_path.exists():
            problems.append(f"{path} is not formatted.")
            continue
        try:
            meta = read_meta_properties(path)
        except (OSError, MetaPropertiesError) as exc:
            problems.append(f"Error loading {meta_path}: {exc}")
            continue
        if meta is None:
            continue
        if first is None:
            first = meta
        else:
            if first.cluster_id != meta.cluster_id:
                problems.append("Mismatched cluster IDs between storage directories.")
            elif first.node_id != meta.node_id:
                problems.append("Mismatched node IDs between storage directories.")
    if first is not None:
        kraft = bool(config.process_roles)
        if kraft and first.version == 0:
            problems.append("The kafka configuration file appears to be for a cluster in KRaft mode, but the "
                            "directories are formatted for legacy mode.")
        elif not kraft and first.version == 1:
            problems.append("The kafka configuration file appears to be for a legacy cluster, but the directories "
                            "are formatted for a cluster in KRaft mode.")
    if not directories:
        print("No directories specified.", file=out)
        return 0
    if found:
        print("Found log directory:" if len(found) == 1 else "Found log directories:", file=out)
        for d in found:
            print(f"  {d}", file=out)
        print("", file=out)
    if first is not None:
        print(f"Found metadata: {first.java_map_string()}", file=out)
        print("", file=out)
    if problems:
        print("Found problem:" if len(problems) == 1 else "Found problems:", file=out)
        for problem in problems:
            print(f"  {problem}", file=out)
        print("", file=out)
        return 1
    return 0


def run_version_mapping(opts: dict[str, object], out: TextIO) -> int:
    try:
        lines = version_mapping_lines(str(opts.get("release_version", LATEST_PRODUCTION.name)))
    except FeatureLookupError as exc:
        raise TerseFailure(str(exc)) from None
    for line in lines:
        print(line, file=out)
    return 0


def run_feature_dependencies(opts: dict[str, object], out: TextIO) -> int:
    for text in _strings(opts, "feature"):
        name, eq, value = text.partition("=")
        if not eq:
            raise TerseFailure(f"Invalid feature format: {text}. Expected format: 'feature=version' "
                               "(e.g. 'group.version=1')")
        name, value = name.strip(), value.strip()
        try:
            level = int(value)
        except ValueError:
            raise TerseFailure(f"Invalid version format: {value} for feature {name}") from None
        try:
            lines = dependency_lines(name, level, "Feature level {level} is not supported for feature {name}")
        except FeatureLookupError as exc:
            raise TerseFailure(str(exc)) from None
        for line in lines:
            print(line, file=out)
    return 0


def _load_config(path: str) -> StorageConfig:
    try:
        return StorageConfig(load_properties(path))
    except FileNotFoundError:
        raise _java_failure("java.nio.file.NoSuchFileException", path) from None


def run(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        command, opts = parse_args(argv, out)
        if command == "random-uuid":
            print(random_uuid(), file=out)
            return 0
        if command == "version-mapping":
            return run_version_mapping(opts, out)
        if command == "feature-dependencies":
            return run_feature_dependencies(opts, out)
        config = _load_config(str(opts["config"]))
        if command == "info":
            return run_info(config, out)
        return run_format(opts, config, out)
    except HelpShown:
        return 0
    except UsageError as exc:
        err.write(exc.usage)
        err.write(justify(f"{PROG}: error: {exc}") + "\n")
        return 1
    except TerseFailure as exc:
        debug_traceback()
        print(str(exc), file=err)
        return 1
    except FormatterError as exc:
        debug_traceback()
        message = f'Exception in thread "main" {exc.java_class}: {exc}' if exc.java_class else str(exc)
        print(message, file=err)
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
