"""kafka-features: show and change a cluster's finalized feature levels, with the
subcommands, flags, output and exit codes of Apache Kafka 4.4's ``FeatureCommand``:
``describe [--node-id]`` (ApiVersions v3's supported and finalized features),
``upgrade`` / ``downgrade [--unsafe]`` with ``--feature f=v ...``, ``--metadata`` or
``--release-version``, ``disable --feature f``, all with ``--dry-run`` (UpdateFeatures with
validateOnly), ``version-mapping [--release-version]`` and ``feature-dependencies --feature
f=v`` (both offline, from ``kafpy.metadata.metadata_version``).

Its command line is Kafka's argparse4j one; errors of the command print their message and
exit 1. The requests go over the wire through scripts._quorum_client.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TextIO

from kafpy.broker.properties import load_properties
from kafpy.metadata.metadata_version import (
    LATEST_PRODUCTION,
    METADATA_VERSION_FEATURE,
    METADATA_VERSIONS,
    PRODUCTION_FEATURES,
    UnknownMetadataVersion,
    from_version_string,
    known_feature_level,
)
from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import tool_main
from kafpy.scripts._feature_levels import FeatureLookupError, dependency_lines, version_mapping_lines
from kafpy.scripts._clients import error_text
from kafpy.scripts._quorum_client import FAILURES, QuorumAdminClient, TerseFailure, report_failure

PROG = "kafka-features"
COMMANDS = ("describe", "upgrade", "downgrade", "disable", "version-mapping", "feature-dependencies")
_NEGATIVE = re.compile(r"-\d+|-\d*\.\d+")  # argparse4j takes these as values, not options
UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3  # FeatureUpdate.UpgradeType on the wire

_Spec = dict[str, tuple[str, bool, bool]]  # flag -> (destination, takes a value, repeatable)
_MAIN_OPTS: _Spec = {"--bootstrap-server": ("bootstrap_server", True, False),
                     "--bootstrap-controller": ("bootstrap_controller", True, False),
                     "--command-config": ("command_config", True, False)}
_UPDATE_OPTS: _Spec = {"--metadata": ("metadata", True, False), "--release-version": ("release_version", True, False),
                       "--feature": ("feature", True, True), "--dry-run": ("dry_run", False, False)}
_COMMANDS: dict[str, tuple[_Spec, tuple[str, ...]]] = {
    "describe": ({"--node-id": ("node_id", True, False)}, ()),
    "upgrade": (_UPDATE_OPTS, ()),
    "downgrade": ({**_UPDATE_OPTS, "--unsafe": ("unsafe", False, False)}, ()),
    "disable": ({"--feature": ("feature", True, True), "--unsafe": ("unsafe", False, False),
                 "--dry-run": ("dry_run", False, False)}, ()),
    "version-mapping": ({"--release-version": ("release_version", True, False)}, ()),
    "feature-dependencies": ({"--feature": ("feature", True, True)}, ("feature",)),
}


class CommandLineError(Exception):
    """A command line argparse4j refuses; FeatureCommand prints it as ``Command line error``."""


class HelpShown(Exception):
    """``-h``: the help went to stdout, exit 0."""



def _take(args: list[str], i: int, spec: _Spec, values: dict[str, object]) -> int:
    arg = args[i]
    name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
    if name not in spec and name.startswith("--"):
        matches = sorted(f for f in spec if f.startswith(name))
        if len(matches) > 1:
            raise CommandLineError(f"ambiguous option: {name} could match {', '.join(matches)}")
        name = matches[0] if matches else name
    if name not in spec:
        raise CommandLineError(f"unrecognized arguments: '{arg}'")
    dest, takes_value, repeatable = spec[name]
    i += 1
    value: object = True
    if takes_value:
        if eq:
            value = inline
        elif i < len(args) and not (args[i].startswith("-") and len(args[i]) > 1 and not _NEGATIVE.fullmatch(args[i])):
            value = args[i]
            i += 1
        else:
            raise CommandLineError(f"argument {name}: expected one argument")
    if repeatable:
        existing = values.setdefault(dest, [])
        assert isinstance(existing, list)
        existing.append(value)
    else:
        values[dest] = value
    return i


def parse_args(argv: list[str]) -> tuple[str, dict[str, object]]:
    """The subcommand and the options, as argparse4j parses FeatureCommand's line."""
    values: dict[str, object] = {}
    i = 0
    command: str | None = None
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            raise HelpShown()
        if not argv[i].startswith("-"):
            command = argv[i]
            i += 1
            break
        i = _take(argv, i, _MAIN_OPTS, values)
    if command is None:
        raise CommandLineError("too few arguments")
    if command not in _COMMANDS:
        choices = ", ".join(f"'{c}'" for c in COMMANDS)
        raise CommandLineError(f"invalid choice: '{command}' (choose from {choices})")
    spec, required = _COMMANDS[command]
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            raise HelpShown()
        if not argv[i].startswith("-"):
            raise CommandLineError(f"unrecognized arguments: '{argv[i]}'")
        i = _take(argv, i, spec, values)
    for dest in required:
        if dest not in values:
            raise CommandLineError(f"argument --{dest.replace('_', '-')} is required")
    return command, values


# ------------------------------------------------------------------------------ describe


def level_to_string(feature: str, level: int) -> str:
    """FeatureCommand.levelToString: metadata.version levels by their release name."""
    if feature == METADATA_VERSION_FEATURE:
        mv = known_feature_level(level)
        return mv.name if mv is not None else f"UNKNOWN {level}"
    return str(level)


def format_describe(resp: messages.ApiVersionsResponse) -> str:
    """One line per supported feature, sorted by name, as FeatureCommand's describe."""
    finalized = {f.name: f.max_version_level for f in resp.finalized_features}
    epoch = str(resp.finalized_features_epoch) if resp.finalized_features_epoch >= 0 else "-"
    lines = []
    for feature in sorted(resp.supported_features, key=lambda f: f.name):
        name = feature.name
        lines.append(f"Feature: {name:<40}  SupportedMinVersion: {level_to_string(name, feature.min_version):<15}  "
                     f"SupportedMaxVersion: {level_to_string(name, feature.max_version):<15}  "
                     f"FinalizedVersionLevel: {level_to_string(name, finalized.get(name, 0)):<15}  "
                     f"Epoch: {epoch}\n")
    return "".join(lines)


# ------------------------------------------------------------------------------ updates


def parse_name_and_level(text: str) -> tuple[str, int]:
    eq = text.find("=")
    if eq < 0:
        raise TerseFailure(f"Can't parse feature=level string {text}: equals sign not found.")
    name, value = text[:eq].strip(), text[eq + 1:].strip()
    try:
        level = int(value)
        if not -32768 <= level <= 32767:
            raise ValueError(value)
    except ValueError:
        raise TerseFailure(f"Can't parse feature=level string {text}: unable to parse {value} as a short.") from None
    return name, level


def _versions_text() -> str:
    return ", ".join(mv.name for mv in METADATA_VERSIONS if mv.production)


def _strings(values: dict[str, object], key: str) -> list[str] | None:
    got = values.get(key)
    return [str(v) for v in got] if isinstance(got, list) else None


def plan_updates(values: dict[str, object], upgrade_type: int, out: TextIO) -> dict[str, int]:
    """The feature levels an upgrade or downgrade asks for (FeatureCommand's
    handleUpgradeOrDowngrade)."""
    metadata = values.get("metadata")
    features = _strings(values, "feature")
    release = values.get("release_version")
    if release is not None and (metadata is not None or features is not None):
        raise TerseFailure("Can not specify `release-version` with other feature flags.")
    updates: dict[str, int] = {}
    if release is not None:
        try:
            mv = from_version_string(str(release))
        except UnknownMetadataVersion:
            raise TerseFailure(f"Unknown metadata.version {release}. Supported metadata.version are "
                               f"{_versions_text()}") from None
        updates[METADATA_VERSION_FEATURE] = mv.level
        for feature in PRODUCTION_FEATURES:
            level = feature.default_level(mv)
            if upgrade_type != UPGRADE or level > 0:  # no request to upgrade a feature to 0
                updates[feature.name] = level
        return updates
    if metadata is not None:
        out.write(" `metadata` flag is deprecated and may be removed in a future release.\n")
        try:
            updates[METADATA_VERSION_FEATURE] = from_version_string(str(metadata)).level
        except UnknownMetadataVersion:
            raise TerseFailure(f"Unknown metadata.version {metadata}. Supported metadata.version are "
                               f"{_versions_text()}") from None
    for text in features or []:
        name, level = parse_name_and_level(text)
        if name in updates:
            raise TerseFailure(f"Feature {name} was specified more than once.")
        updates[name] = level
    return updates


def update_features(admin: QuorumAdminClient, updates: dict[str, int], upgrade_type: int,
                    dry_run: bool) -> dict[str, str | None]:
    """UpdateFeatures; the error text of each feature (None when it succeeded)."""
    keys = [messages.UpdateFeaturesRequest.FeatureUpdateKey(
        feature=name, max_version_level=level, upgrade_type=upgrade_type,
        allow_downgrade=upgrade_type != UPGRADE) for name, level in updates.items()]
    resp = admin.call(messages.UpdateFeaturesResponse, ApiKey.UPDATE_FEATURES, 2,
                      messages.UpdateFeaturesRequest(timeout_ms=30000, feature_updates=keys, validate_only=dry_run))
    if resp.error_code != ErrorCode.NONE:
        text = error_text(resp.error_code, resp.error_message)
        return {name: text for name in updates}
    errors: dict[str, str | None] = {name: None for name in updates}
    for result in resp.results:
        if result.error_code != ErrorCode.NONE:
            errors[result.feature] = error_text(result.error_code, result.error_message)
    return errors


def report_updates(op: str, updates: dict[str, int], errors: dict[str, str | None], dry_run: bool) -> tuple[str, int]:
    """The lines FeatureCommand prints for each feature (by name) and the number that failed."""
    lines = []
    failures = 0
    for name in sorted(errors):
        level = updates[name]
        error = errors[name]
        if error is not None:
            suffix = f"disable {name}" if op == "disable" else f"{op} {name} to {level}"
            lines.append(f"{'Can not ' if dry_run else 'Could not '}{suffix}. {error}\n")
            failures += 1
        else:
            what = "disabled." if op == "disable" else f"{op}d to {level}."
            lines.append(f"{name}{' can be ' if dry_run else ' was '}{what}\n")
    return "".join(lines), failures


def _update(op: str, admin: QuorumAdminClient, updates: dict[str, int], upgrade_type: int, dry_run: bool,
            out: TextIO) -> None:
    if not updates:
        raise TerseFailure(f"You must specify at least one feature to {op}")
    errors = update_features(admin, updates, upgrade_type, dry_run)
    text, failures = report_updates(op, updates, errors, dry_run)
    out.write(text)
    if failures:
        raise TerseFailure(f"{failures} out of {len(updates)} operation(s) failed.")


# ------------------------------------------------------------------------------ offline


def version_mapping(values: dict[str, object]) -> str:
    try:
        lines = version_mapping_lines(str(values.get("release_version") or LATEST_PRODUCTION.name))
    except FeatureLookupError as exc:
        raise TerseFailure(str(exc)) from None
    return "".join(f"{line}\n" for line in lines)


def feature_dependencies(values: dict[str, object]) -> str:
    lines: list[str] = []
    for text in _strings(values, "feature") or []:
        name, level = parse_name_and_level(text)
        try:
            lines += dependency_lines(name, level, "No feature:{name} with feature level {level}")
        except FeatureLookupError as exc:
            raise TerseFailure(str(exc)) from None
    return "".join(f"{line}\n" for line in lines)


# ------------------------------------------------------------------------------ main


def _node_id(text: object) -> int:
    try:
        node_id = int(str(text))
    except ValueError:
        raise CommandLineError(f"argument --node-id: could not convert '{text}' to Integer "
                               f'(For input string: "{text}")') from None
    if node_id < 0:
        raise TerseFailure(f"Invalid node id {node_id}: must be non-negative.")
    return node_id


def execute(command: str, values: dict[str, object], out: TextIO) -> None:
    """One subcommand; the offline ones run before the bootstrap options are checked, as in
    FeatureCommand."""
    if command == "version-mapping":
        out.write(version_mapping(values))
        return
    if command == "feature-dependencies":
        out.write(feature_dependencies(values))
        return
    path = values.get("command_config")
    if path is not None and not Path(str(path)).exists():
        raise TerseFailure(str(path))  # Utils.loadProps' NoSuchFileException
    props = load_properties(str(path)) if path is not None else {}
    if "bootstrap_server" in values and "bootstrap_controller" in values:
        raise CommandLineError("You cannot specify both --bootstrap-controller and --bootstrap-server.")
    if "bootstrap_server" not in values and "bootstrap_controller" not in values:
        raise CommandLineError("You must specify either --bootstrap-controller or --bootstrap-server.")
    bootstrap = str(values.get("bootstrap_controller") or values.get("bootstrap_server"))
    node_id = _node_id(values["node_id"]) if command == "describe" and values.get("node_id") is not None else None
    with QuorumAdminClient(bootstrap, controllers="bootstrap_controller" in values, props=props) as admin:
        dry_run = bool(values.get("dry_run"))
        downgrade_type = UNSAFE_DOWNGRADE if values.get("unsafe") else SAFE_DOWNGRADE
        if command == "describe":
            if node_id is not None:
                admin.to_node(node_id)
            out.write(format_describe(admin.api_versions()))
        elif command == "upgrade":
            _update("upgrade", admin, plan_updates(values, UPGRADE, out), UPGRADE, dry_run, out)
        elif command == "downgrade":
            _update("downgrade", admin, plan_updates(values, downgrade_type, out), downgrade_type, dry_run, out)
        else:
            updates: dict[str, int] = {}
            for name in _strings(values, "feature") or []:
                if name in updates:
                    raise TerseFailure(f"Feature {name} was specified more than once.")
                updates[name] = 0
            _update("disable", admin, updates, downgrade_type, dry_run, out)


def run(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        command, values = parse_args(argv)
        execute(command, values, out)
        return 0
    except HelpShown:
        from kafpy.scripts._features_help import help_text

        out.write(help_text(argv))
        return 0
    except CommandLineError as e:
        err.write(f"Command line error: {e}. Type --help for help.")
        return 1
    except FAILURES as e:
        return report_failure(e, err)


def main(argv: list[str] | None = None) -> int:
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
