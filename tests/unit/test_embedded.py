"""kafpy.embedded's and the pytest plugin's pure parts: settings, properties, topic names."""
from __future__ import annotations

import re

import pytest

from kafpy.embedded import CLUSTER_DEFAULTS, TEST_DEFAULTS, EmbeddedBroker, EmbeddedCluster, write_properties
from kafpy.pytest_plugin import unique_topic_name

LEGAL_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")


def test_settings_layer_defaults_then_caller_then_what_the_broker_object_owns(tmp_path):
    b = EmbeddedBroker({"num.partitions": 4, "listeners": "ignored"}, port=12345,
                       work_dir=tmp_path, broker_id=2, zookeeper_connect="127.0.0.1:2181")
    s = b.settings()
    assert s["num.partitions"] == "4"
    assert s["offsets.topic.num.partitions"] == TEST_DEFAULTS["offsets.topic.num.partitions"]
    assert s["listeners"] == s["advertised.listeners"] == "PLAINTEXT://127.0.0.1:12345"
    assert s["log.dirs"] == str(tmp_path / "data")
    assert s["broker.id"] == "2" and s["zookeeper.connect"] == "127.0.0.1:2181"
    assert b.bootstrap_servers == "127.0.0.1:12345"
    assert b.command()[1:] == ["-m", "kafpy.broker", str(tmp_path / "server.properties")]
    assert not b.running and b.stop() is None and b.kill() is None


def test_cluster_brokers_get_ids_ports_and_replicated_internal_topics(tmp_path):
    c = EmbeddedCluster(3, {"log.segment.bytes": 1 << 20}, work_dir=tmp_path)
    assert [b.broker_id for b in c.brokers] == [0, 1, 2]
    assert len({b.port for b in c.brokers}) == 3
    assert c.bootstrap_servers == ",".join(b.bootstrap_servers for b in c.brokers)
    s = c.brokers[1].settings()
    for key, value in CLUSTER_DEFAULTS.items():
        assert s[key] == value
    assert s["log.segment.bytes"] == str(1 << 20)
    small = EmbeddedCluster(2, work_dir=tmp_path / "small").brokers[0].settings()
    assert small["offsets.topic.replication.factor"] == "2"
    assert small["transaction.state.log.min.isr"] == "1"
    assert small["default.replication.factor"] == "2"
    assert small["replica.fetch.backoff.ms"] == CLUSTER_DEFAULTS["replica.fetch.backoff.ms"]


def test_properties_file_escapes_what_java_properties_would_misread(tmp_path):
    path = tmp_path / "server.properties"
    write_properties(path, {"a.b": 1, "ssl.path": "C:\\x", "multi": "one\ntwo"})
    lines = path.read_text().splitlines()
    assert lines[1:] == ["a.b=1", "ssl.path=C:\\\\x", "multi=one\\ntwo"]


@pytest.mark.parametrize("nodeid", [
    "tests/test_orders.py::test_roundtrip",
    "test_x.py::TestA::test_b[param with spaces/and:colons]",
    "t.py::" + "x" * 400,
])
def test_topic_names_are_legal_and_unique(nodeid):
    names = {unique_topic_name(nodeid) for _ in range(50)}
    assert len(names) == 50
    assert all(LEGAL_TOPIC.match(n) for n in names), names


def _fixture_names(path) -> set[str]:
    import ast
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
                "fixture" in ast.unparse(d) for d in node.decorator_list):
            names.add(node.name)
    return names


def test_plugin_fixtures_do_not_clash_with_the_suites_and_the_suite_blocks_the_plugin():
    """Installed editable, the plugin must not shadow tests/conftest.py's fixtures; the suite
    keeps it out (-p no:kafpy) so that another checkout's installed copy is never loaded."""
    from pathlib import Path

    import kafpy.pytest_plugin as plugin

    repo = Path(__file__).resolve().parents[2]
    ours = _fixture_names(Path(plugin.__file__))
    assert ours == {"kafpy_broker", "kafpy_cluster", "kafpy_topic", "kafpy_topic_factory",
                    "kafka_bootstrap_servers"}
    suite = set()
    for conftest in repo.joinpath("tests").rglob("conftest.py"):
        suite |= _fixture_names(conftest)
    assert suite and not ours & suite
    assert 'addopts = "-p no:kafpy"' in (repo / "pyproject.toml").read_text()
    assert 'kafpy = "kafpy.pytest_plugin"' in (repo / "pyproject.toml").read_text()


def test_a_kraft_cluster_is_combined_nodes_of_one_quorum(tmp_path):
    c = EmbeddedCluster(3, work_dir=tmp_path)
    assert c.mode == "kraft" and c.zookeeper is None and c.quorum is not None
    controllers = c.quorum.controller_ports
    assert sorted(controllers) == [0, 1, 2]
    assert not {b.port for b in c.brokers} & set(controllers.values())
    voters = ",".join(f"{n}@127.0.0.1:{controllers[n]}" for n in range(3))
    for b in c.brokers:
        s = b.settings()
        assert "broker.id" not in s and "zookeeper.connect" not in s
        assert s["process.roles"] == "broker,controller" and s["node.id"] == str(b.broker_id)
        assert s["controller.quorum.voters"] == voters
        assert s["listeners"] == (f"PLAINTEXT://127.0.0.1:{b.port},"
                                  f"CONTROLLER://127.0.0.1:{controllers[b.broker_id]}")
        assert s["advertised.listeners"] == f"PLAINTEXT://127.0.0.1:{b.port}"
        assert s["controller.listener.names"] == "CONTROLLER"
        assert s["metadata.log.dir"] == s["log.dirs"]
    assert len(c.quorum.cluster_id) == 22 and "=" not in c.quorum.cluster_id


def test_zookeeper_mode_on_request_and_no_other_mode(tmp_path):
    c = EmbeddedCluster(3, work_dir=tmp_path, mode="zookeeper")
    assert c.quorum is None and c.zookeeper is not None
    s = c.brokers[2].settings()
    assert s["broker.id"] == "2" and "process.roles" not in s
    with pytest.raises(ValueError, match="mode must be"):
        EmbeddedCluster(3, work_dir=tmp_path / "x", mode="raft")
