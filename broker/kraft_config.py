"""KRaft mode's configuration keys and the checks Kafka 4.4 makes of them at start.

A broker whose ``process.roles`` is set runs in KRaft mode (as in Kafka 3.x, where the same
file with ``zookeeper.connect`` and no roles ran in ZooKeeper mode). The keys, their types and
defaults are Kafka 4.4's (QuorumConfig, KRaftConfigs, MetadataLogConfig); the checks and
their messages are those of Kafka's ``KafkaConfig.validateValues``, so a misconfigured node
refuses to start with the words an Apache Kafka user already knows.

Who calls it: ``broker/config.py`` adds ``KRAFT_CONFIG_DEFS`` to the broker's keys and runs
``validate_kraft`` once the listeners are parsed. Kept apart from it so the config module stays
one job (and within its size), and so nothing here needs the broker's classes: plain values in,
``ValueError`` out.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

LONG_MAX = 9223372036854775807

# (name, type, default, lowest allowed value or None): Kafka 4.4's definitions
KRAFT_CONFIG_DEFS: tuple[tuple[str, str, int | str | bool | list[str], int | None], ...] = (
    ("controller.quorum.bootstrap.servers", "list", [], None),
    ("controller.quorum.election.timeout.ms", "int", 1000, None),
    ("controller.quorum.fetch.timeout.ms", "int", 2000, None),
    ("controller.quorum.election.backoff.max.ms", "int", 1000, None),
    ("controller.quorum.append.linger.ms", "int", 25, None),
    ("controller.quorum.request.timeout.ms", "int", 2000, None),
    ("controller.quorum.retry.backoff.ms", "int", 20, None),
    ("controller.quorum.auto.join.enable", "boolean", False, None),
    ("controller.quorum.fetch.max.bytes", "int", 1048576, 1),
    ("controller.quorum.fetch.snapshot.max.bytes", "int", 1048576, 1),
    ("initial.broker.registration.timeout.ms", "int", 60000, None),
    ("broker.heartbeat.interval.ms", "int", 2000, None),
    ("broker.session.timeout.ms", "int", 9000, None),
    ("sasl.mechanism.controller.protocol", "string", "GSSAPI", None),
    ("server.max.startup.time.ms", "long", LONG_MAX, None),
    ("controller.performance.sample.period.ms", "long", 60000, None),
    ("controller.performance.always.log.threshold.ms", "long", 2000, None),
    ("metadata.log.max.snapshot.interval.ms", "long", 3600000, 0),
    ("metadata.log.max.record.bytes.between.snapshots", "long", 20971520, 1),
    ("metadata.log.segment.bytes", "int", 1073741824, 12),
    ("metadata.log.segment.ms", "long", 604800000, None),
    ("metadata.max.retention.bytes", "long", 104857600, None),
    ("metadata.max.retention.ms", "long", 604800000, None),
    ("metadata.max.idle.interval.ms", "int", 500, 0),
    ("eligible.leader.replicas.enable", "boolean", False, None),
    # KIP-866 (Kafka 3.9): a controller copies ZooKeeper's metadata and drives the ZooKeeper
    # brokers; a ZooKeeper broker registers with the KRaft controllers
    ("zookeeper.metadata.migration.enable", "boolean", False, None),
)

ROLES = ("broker", "controller")
_VOTER = re.compile(r"^(-?\d+)@(\[[^\]]*\]|[^:@]*):(-?\d+)$")


def process_roles(roles: Sequence[str]) -> frozenset[str]:
    """The roles of ``process.roles`` (a set: a role named twice counts once, as in Kafka);
    an unknown one is refused with the words of Kafka's list validator."""
    for role in roles:
        if role not in ROLES:
            raise ValueError(f"Invalid value {role} for configuration process.roles: "
                             "String must be one of: broker, controller")
    return frozenset(roles)


def parse_voter_ids(voters: Sequence[str]) -> set[int]:
    """The node ids of ``controller.quorum.voters`` (``{id}@{host}:{port}`` entries), refused
    with Kafka's messages when an entry does not parse."""
    ids: set[int] = set()
    form = "Each entry should be in the form `{id}@{host}:{port}`."
    for raw in voters:
        entry = raw.strip()
        node, at, address = entry.partition("@")
        try:
            node_id = int(node)
        except ValueError:
            node_id = -1
        if not at or node_id < 0:
            raise ValueError(f"Invalid configuration value for controller.quorum.voters. {form}")
        m = _VOTER.match(entry)
        if m is None:
            part = "host name" if ":" not in address else "host port"
            raise ValueError(f"Failed to parse {part} from entry {entry} for the configuration "
                             f"controller.quorum.voters. {form}")
        ids.add(node_id)
    return ids


def parse_voters(voters: Sequence[str]) -> dict[int, tuple[str, int]]:
    """``controller.quorum.voters`` as {node id: (host, port)} (Kafka's
    ``QuorumConfig.parseVoterConnections``), checked as ``parse_voter_ids`` checks it."""
    parse_voter_ids(voters)
    out: dict[int, tuple[str, int]] = {}
    for raw in voters:
        m = _VOTER.match(raw.strip())
        assert m is not None  # parse_voter_ids refused the entries that do not match
        host = m.group(2)[1:-1] if m.group(2).startswith("[") else m.group(2)
        out[int(m.group(1))] = (host, int(m.group(3)))
    return out


def _scala_set(ids: set[int]) -> str:
    """How Kafka's messages print a set of ids (a Scala Set)."""
    return "Set(" + ", ".join(str(i) for i in sorted(ids)) + ")"


def _require(ok: bool, message: str) -> None:
    """Kafka makes most of these checks with Scala's ``require``, whose message it prints."""
    if not ok:
        raise ValueError(f"requirement failed: {message}")


def validate_kraft(*, roles: frozenset[str], node_id: int, voters: Sequence[str],
                   bootstrap_servers: Sequence[str], controller_listener_names: Sequence[str],
                   listener_names: Sequence[str], inter_broker_listener_set: str | None,
                   auto_join: bool) -> list[str]:
    """Kafka's start-up checks of a KRaft node (``ValueError`` with Kafka's message on the
    first that fails, in Kafka's order); returns the warnings Kafka logs instead."""
    warnings: list[str] = []
    if node_id < 0:
        raise ValueError('Missing required configuration "node.id" which has no default value.')
    voter_ids = parse_voter_ids(voters)

    def quorum_configured() -> None:
        if not voter_ids and not bootstrap_servers:
            raise ValueError("If using process.roles, either controller.quorum.bootstrap.servers must "
                             "contain the set of bootstrap controllers or controller.quorum.voters must "
                             "contain a parseable set of controllers.")

    def node_is_a_voter() -> None:
        _require(not voter_ids or node_id in voter_ids,
                 f"If process.roles contains the 'controller' role, the node id {node_id} "
                 f"must be included in the set of voters controller.quorum.voters="
                 f"{_scala_set(voter_ids)}")

    def controller_listener_in_listeners() -> None:
        _require(any(name in listener_names for name in controller_listener_names),
                 "controller.listener.names must contain at least one value appearing in "
                 "the 'listeners' configuration when running the KRaft controller role")
        _require(all(name in listener_names for name in controller_listener_names),
                 "controller.listener.names must only contain values appearing in the "
                 "'listeners' configuration when running the KRaft controller role")

    if roles == {"broker"}:
        quorum_configured()
        _require(node_id not in voter_ids,
                 f"If process.roles contains just the 'broker' role, the node id {node_id} "
                 f"must not be included in the set of voters controller.quorum.voters="
                 f"{_scala_set(voter_ids)}")
        _require(bool(controller_listener_names),
                 "controller.listener.names must contain at least one value when running "
                 "KRaft with just the broker role")
        _require(not any(name in listener_names for name in controller_listener_names),
                 "controller.listener.names must not contain a value appearing in the "
                 "'listeners' configuration when running KRaft with just the broker role")
        _require(not auto_join,
                 "controller.quorum.auto.join.enable is only supported when process.roles "
                 "contains the 'controller' role.")
        if len(controller_listener_names) > 1:
            warnings.append("controller.listener.names has multiple entries; only the first will be "
                            f"used since process.roles=broker: {list(controller_listener_names)}")
    elif roles == {"controller"}:
        quorum_configured()
        _require(all(name in controller_listener_names for name in listener_names),
                 "The listeners config must only contain KRaft controller listeners from "
                 "controller.listener.names when process.roles=controller")
        _require(inter_broker_listener_set is None
                 or inter_broker_listener_set not in controller_listener_names,
                 "controller.listener.names must not contain an explicitly set "
                 "inter.broker.listener.name configuration value when process.roles=controller'")
        node_is_a_voter()
        controller_listener_in_listeners()
    else:  # combined: broker and controller in one process
        quorum_configured()
        node_is_a_voter()
        controller_listener_in_listeners()
        _require(not all(name in controller_listener_names for name in listener_names),
                 "There must be at least one broker advertised listener. Perhaps all "
                 "listeners appear in controller.listener.names?")
    return warnings
