"""docker-compose.yml and the Dockerfile agree with the shipped lab configs (no Docker engine
here, so the compose file is checked as data): ZooKeeper from the official image publishes its
port and every broker's listener port, each broker runs config/server-N.properties as shipped
in ZooKeeper's network namespace, and its log dir lands on a volume of its own."""
from __future__ import annotations

import re
from pathlib import PurePosixPath, Path

import pytest
import yaml

from kafpy.broker.properties import load_properties
from tests.support.floors import FLOORS

REPO = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
BROKERS = {name: svc for name, svc in COMPOSE["services"].items() if name.startswith("kafka-")}


def dockerfile() -> dict[str, str]:
    """Instruction -> argument text of the Dockerfile's last occurrence of each."""
    out = {}
    for line in (REPO / "Dockerfile").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            out[word.upper()] = rest
    return out


def published(service: dict) -> set[int]:
    """Container ports a service publishes on the same host port."""
    ports = set()
    for spec in service.get("ports", []):
        host, container = str(spec).split(":")[-2:]
        assert host == container, spec
        ports.add(int(container))
    return ports


def port_of(listener: str) -> int:
    match = re.fullmatch(r"\w+://[^:]*:(\d+)", listener)
    assert match is not None, listener
    return int(match.group(1))


def test_zookeeper_is_the_official_image_on_its_port():
    zk = COMPOSE["services"]["zookeeper"]
    assert zk["image"].split(":")[0] == "zookeeper"
    zk_props = load_properties(REPO / "config" / "zookeeper.properties")
    assert int(zk_props["clientPort"]) in published(zk)


def test_image_builds_from_python_slim_and_starts_the_broker_script():
    df = dockerfile()
    assert re.fullmatch(r"python:[\d.]+-slim", df["FROM"])
    assert re.search(r"\bpip install( --?[\w-]+)* \.(\s|$)", df["RUN"]), df["RUN"]
    assert (REPO / "scripts" / "kafka-server-start.sh").is_file()
    # every package pyproject.toml installs, and the configs, are copied into the image
    copied = [src for line in re.findall(r"^COPY (.+) \S+$", (REPO / "Dockerfile").read_text(), re.M)
              for src in line.split()]
    needed = {*FLOORS, "kafpy", "pyproject.toml", "config"}
    assert needed <= set(copied), copied
    assert df["ENTRYPOINT"] == '["scripts/kafka-server-start.sh"]'
    assert (REPO / "config" / "server.properties").is_file() and "config/server.properties" in df["CMD"]


def test_three_brokers_as_the_lab_configures_them():
    assert sorted(BROKERS) == ["kafka-0", "kafka-1", "kafka-2"]
    ids = set()
    for name, svc in BROKERS.items():
        n = int(name.split("-")[1])
        config, *overrides = svc["command"]
        assert config == f"config/server-{n}.properties"
        # the only override: the HTTP listener (/metrics, status page), published like the listener
        assert overrides == ["--override", f"kafpy.http.listeners=http://:808{n}"]
        assert 8080 + n in published(COMPOSE["services"]["zookeeper"])
        props = load_properties(REPO / config)
        ids.add(int(props["broker.id"]))
        assert int(props["broker.id"]) == n
        assert svc["build"] == "." and svc["image"] == "kafpy:latest"
        # one network namespace: the shipped localhost addresses reach ZooKeeper and the peers
        assert svc["network_mode"] == "service:zookeeper" and "zookeeper" in svc["depends_on"]
        assert "ports" not in svc
        assert props["zookeeper.connect"] == f"localhost:{load_properties(REPO / 'config' / 'zookeeper.properties')['clientPort']}"
        port = port_of(props["listeners"])
        assert port_of(props["advertised.listeners"]) == port
        assert props["advertised.listeners"].split("://")[1].split(":")[0] == "localhost"
        assert port in published(COMPOSE["services"]["zookeeper"])
        # log.dirs (relative to the image's working directory) is the broker's own volume
        log_dir = PurePosixPath(dockerfile()["WORKDIR"]) / props["log.dirs"]
        mounts = {PurePosixPath(v.split(":")[1]): v.split(":")[0] for v in svc["volumes"]}
        assert mounts == {PurePosixPath(str(log_dir).replace("/./", "/")): name}
        assert name in COMPOSE["volumes"]
    assert ids == {0, 1, 2}


@pytest.mark.parametrize("name", ["kafka-0", "kafka-1", "kafka-2"])
def test_brokers_stop_cleanly(name):
    # SIGTERM starts a controlled shutdown; give it longer than Docker's 10 s default
    grace = BROKERS[name]["stop_grace_period"]
    assert int(grace.rstrip("s")) >= 30


KRAFT = {name: svc for name, svc in COMPOSE["services"].items() if name.startswith("kraft-")}


def test_the_kraft_profile_runs_three_combined_nodes_of_one_quorum():
    """Each node formats its directory (with the one cluster id) then starts
    config/kraft/server-N.properties; the three share kraft-0's network namespace, which
    publishes their client ports; each directory is a volume of its own."""
    assert sorted(KRAFT) == ["kraft-0", "kraft-1", "kraft-2"]
    voters = set()
    cluster_ids = set()
    for name, svc in KRAFT.items():
        n = int(name.split("-")[1])
        assert svc["profiles"] == ["kraft"] and svc["image"] == "kafpy:latest"
        script = svc["entrypoint"][2]
        assert svc["entrypoint"][:2] == ["bash", "-c"]
        assert re.fullmatch(r'scripts/kafka-storage\.sh format --ignore-formatted -t "\$\$KAFPY_CLUSTER_ID" '
                            r'-c "\$\$0" && exec scripts/kafka-server-start\.sh "\$\$0"', script), script
        assert (REPO / "scripts" / "kafka-storage.sh").is_file()
        assert svc["command"] == [f"config/kraft/server-{n}.properties"]
        cluster_ids.add(svc["environment"]["KAFPY_CLUSTER_ID"])
        props = load_properties(REPO / "config" / "kraft" / f"server-{n}.properties")
        assert props["process.roles"] == "broker,controller" and props["node.id"] == str(n)
        assert "zookeeper.connect" not in props and "broker.id" not in props
        voters.add(props["controller.quorum.voters"])
        port = port_of(props["advertised.listeners"])
        assert port in published(COMPOSE["services"]["kraft-0"])
        assert props["listeners"].startswith(f"PLAINTEXT://:{port},CONTROLLER://localhost:")
        controller_port = port_of(props["listeners"].split(",")[1])
        assert f"{n}@localhost:{controller_port}" in props["controller.quorum.voters"]
        if n:
            assert svc["network_mode"] == "service:kraft-0" and "kraft-0" in svc["depends_on"]
        log_dir = PurePosixPath(dockerfile()["WORKDIR"]) / props["log.dirs"]
        mounts = {PurePosixPath(v.split(":")[1]): v.split(":")[0] for v in svc["volumes"]}
        assert mounts == {PurePosixPath(str(log_dir).replace("/./", "/")): name}
        assert name in COMPOSE["volumes"]
        assert int(svc["stop_grace_period"].rstrip("s")) >= 30
    assert len(voters) == 1 and len(cluster_ids) == 1
    (cluster_id,) = cluster_ids
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", cluster_id)
    # no clash with the ZooKeeper lab's ports: both can run side by side
    assert not published(COMPOSE["services"]["kraft-0"]) & published(COMPOSE["services"]["zookeeper"])
