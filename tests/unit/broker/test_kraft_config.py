"""KRaft mode's start-up checks say what Kafka 4.4 says. The expected messages are the ones
Apache Kafka 4.4.0's ``kafka-server-start.sh`` printed for the same files (the side-by-side
test in tests/integration/broker/test_kraft_config_side_by_side.py runs a few of them against
Apache itself)."""
from __future__ import annotations

import pytest

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.kraft_config import parse_voter_ids, parse_voters, validate_kraft

BASE = {"listeners": "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"}
VOTER = {"controller.quorum.voters": "1@127.0.0.1:19093"}

CASES = {
    "no-node-id": ({"process.roles": "broker,controller", **VOTER},
                   'Missing required configuration "node.id" which has no default value.'),
    "unknown-role": ({"process.roles": "broker,zk", "node.id": "1", **VOTER},
                     "Invalid value zk for configuration process.roles: String must be one of: broker, controller"),
    "role-twice-is-broker-only": ({"process.roles": "broker,broker", "node.id": "1", **VOTER},
                                  "requirement failed: If process.roles contains just the 'broker' role, the node "
                                  "id 1 must not be included in the set of voters controller.quorum.voters=Set(1)"),
    "no-quorum": ({"process.roles": "broker,controller", "node.id": "1"},
                  "If using process.roles, either controller.quorum.bootstrap.servers must contain the set of "
                  "bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers."),
    "controller-not-a-voter": ({"process.roles": "broker,controller", "node.id": "2", **VOTER},
                               "requirement failed: If process.roles contains the 'controller' role, the node id 2 "
                               "must be included in the set of voters controller.quorum.voters=Set(1)"),
    "voter-without-port": ({"process.roles": "broker,controller", "node.id": "1",
                            "controller.quorum.voters": "1@127.0.0.1"},
                           "Failed to parse host name from entry 1@127.0.0.1 for the configuration "
                           "controller.quorum.voters. Each entry should be in the form `{id}@{host}:{port}`."),
    "broker-controller-listener": ({"process.roles": "broker", "node.id": "2", **VOTER},
                                   "requirement failed: controller.listener.names must not contain a value appearing "
                                   "in the 'listeners' configuration when running KRaft with just the broker role"),
    "controller-with-a-broker-listener": ({"process.roles": "controller", "node.id": "1", **VOTER},
                                          "requirement failed: The listeners config must only contain KRaft controller "
                                          "listeners from controller.listener.names when process.roles=controller"),
    "only-controller-listeners": ({"process.roles": "broker,controller", "node.id": "1", **VOTER,
                                   "listeners": "CONTROLLER://127.0.0.1:19093"},
                                  "requirement failed: There must be at least one broker advertised listener. "
                                  "Perhaps all listeners appear in controller.listener.names?"),
    "controller-listener-missing": ({"process.roles": "broker,controller", "node.id": "1", **VOTER,
                                     "listeners": "PLAINTEXT://127.0.0.1:19092"},
                                    "requirement failed: controller.listener.names must contain at least one value "
                                    "appearing in the 'listeners' configuration when running the KRaft controller role"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_kraft_config_is_refused_with_kafkas_words(name: str) -> None:
    overrides, message = CASES[name]
    with pytest.raises(ConfigError) as e:
        KafkaConfig({**BASE, **overrides})
    assert str(e.value) == message


def test_combined_broker_and_dedicated_controller_configs_pass() -> None:
    combined = KafkaConfig({**BASE, "process.roles": "broker,controller", "node.id": "1", **VOTER})
    assert combined.process_roles == {"broker", "controller"}
    assert combined["controller.quorum.fetch.timeout.ms"] == 2000
    assert combined["broker.session.timeout.ms"] == 9000
    assert combined["metadata.log.max.snapshot.interval.ms"] == 3_600_000

    def check(roles: set[str], listeners: list[str], node_id: int = 1, voters: tuple[str, ...] = ("1@127.0.0.1:19093",),
              bootstrap: tuple[str, ...] = ()) -> list[str]:
        return validate_kraft(roles=frozenset(roles), node_id=node_id, voters=voters, bootstrap_servers=bootstrap,
                              controller_listener_names=["CONTROLLER"], listener_names=listeners,
                              inter_broker_listener_set=None, auto_join=False)
    assert check({"controller"}, ["CONTROLLER"]) == []
    assert check({"broker"}, ["PLAINTEXT"], node_id=2) == []
    # dynamic quorum: bootstrap servers instead of static voters
    assert check({"broker", "controller"}, ["PLAINTEXT", "CONTROLLER"], voters=(), bootstrap=("127.0.0.1:19093",)) == []


def test_combined_nodes_of_a_quorum_are_kraft_nodes() -> None:
    """A combined broker,controller node runs as a KRaft node in a quorum of several, static or
    dynamic, as with itself as its only voter (broker/kraft_server.py), never as a lone broker."""
    for overrides in ({}, {"controller.quorum.voters": "1@127.0.0.1:19093,2@127.0.0.1:19094"},
                      {"controller.quorum.voters": "", "controller.quorum.bootstrap.servers": "127.0.0.1:19093"}):
        config = KafkaConfig({**BASE, "process.roles": "broker,controller", "node.id": "1", **VOTER, **overrides})
        assert config.process_roles == {"broker", "controller"}


def test_broker_only_nodes_follow_a_quorum() -> None:
    config = KafkaConfig({**BASE, "process.roles": "broker", "node.id": "2", **VOTER,
                          "listeners": "PLAINTEXT://127.0.0.1:19092"})
    assert config.process_roles == {"broker"}
    assert config.broker_id == 2


def test_controller_only_nodes_form_a_quorum() -> None:
    config = KafkaConfig({**BASE, "process.roles": "controller", "node.id": "2",
                          "listeners": "CONTROLLER://127.0.0.1:19094",
                          "controller.quorum.voters": "1@127.0.0.1:19093,2@127.0.0.1:19094,3@127.0.0.1:19095"})
    assert config.process_roles == {"controller"}
    assert parse_voters(config["controller.quorum.voters"]) == {
        1: ("127.0.0.1", 19093), 2: ("127.0.0.1", 19094), 3: ("127.0.0.1", 19095)}


def test_no_roles_is_zookeeper_mode_as_before() -> None:
    assert KafkaConfig({"listeners": "PLAINTEXT://127.0.0.1:19092"}).process_roles == frozenset()


def test_voter_ids() -> None:
    assert parse_voter_ids(["1@a:1", " 2@[::1]:9093", "3@host.example:9093"]) == {1, 2, 3}
    for bad, why in (("x@a:1", "Invalid configuration value"), ("1-a:1", "Invalid configuration value"),
                     ("1@a:b", "Failed to parse host port")):
        with pytest.raises(ValueError, match=why):
            parse_voter_ids([bad])
