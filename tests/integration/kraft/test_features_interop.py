"""KIP-584 features in KRaft, a kafpy active controller beside an Apache Kafka 4.4 one.

The same cluster twice, once with a kafpy controller and once with an Apache Kafka 4.4
controller (one static voter, formatted ``--release-version 3.9-IV0``), each with an Apache
Kafka 4.4 broker (node 100), an Apache Kafka 3.9.1 broker (node 101: the narrower ranges of a
real older node, metadata.version up to 3.9-IV0 and no share.version nor streams.version) and
a kafpy broker (node 102). Apache's ``kafka-features.sh`` then runs the same commands on both:
``describe``, upgrades and downgrades the 3.9.1 broker cannot serve (refused with
INVALID_UPDATE_VERSION and Kafka's message naming it), a dependency refused, what may change;
the 3.9.1 broker is stopped and unregistered (UnregisterBroker), metadata.version
goes to 4.4-IV2, and a BrokerRegistration with the 3.9.1 broker's ranges is refused
(UNSUPPORTED_VERSION with Kafka's words) while the 3.9.1 broker itself, restarted, is refused
too. Every output is compared: users read them. One gap is asserted as such: kraft.version 1 on a
static quorum (Kafka's raft upgrades the log; kafpy's controller refuses).

The ranges each node registers (``RegisterBrokerRecord`` / ``RegisterControllerRecord`` in the
metadata log, read with Apache's ``kafka-dump-log --cluster-metadata-decoder``) are held to
the Apache 4.4 broker's and controller's."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, TypeVar

import pytest

from kafpy.protocol.messages import (
    ApiVersionsRequest, ApiVersionsResponse, BrokerRegistrationRequest, BrokerRegistrationResponse, UnregisterBrokerRequest, UnregisterBrokerResponse,
)

from kafpy._process import kill, terminate
from tests.integration.raft.quorum_support import REPO_ROOT, call, kafpy_format, write_properties
from tests.support import wire
from tests.support.kafka_dist import java_command, random_cluster_id, run_tool
from tests.support.ports import LOOPBACK, free_ports

pytestmark = pytest.mark.timeout(900)

CONTROLLER_ID = 1
APACHE_44, APACHE_39, KAFPY = 100, 101, 102
_T = TypeVar("_T")


def eventually(probe: Callable[[], _T | None], what: str, timeout: float = 120.0) -> _T:
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            found = probe()
        except (OSError, ValueError, AssertionError) as e:
            last, found = e, None
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"timed out ({timeout}s) waiting for {what} (last error: {last!r})")


class FeatureCluster:
    """One controller (``kind``: kafpy or apache) and the three brokers, in ``work``."""

    def __init__(self, work: Path, kind: str) -> None:
        self.work = work
        self.kind = kind
        self.cluster_id = random_cluster_id()
        ports = free_ports(4)
        self.controller_port = ports[0]
        self.ports = {APACHE_44: ports[1], APACHE_39: ports[2], KAFPY: ports[3]}
        voters = f"{CONTROLLER_ID}@{LOOPBACK}:{self.controller_port}"
        self.controller_dir = work / "controller"
        self.controller_config = write_properties(work / "controller.properties", {
            "process.roles": "controller", "node.id": str(CONTROLLER_ID), "controller.quorum.voters": voters,
            "listeners": f"CONTROLLER://{LOOPBACK}:{self.controller_port}",
            "controller.listener.names": "CONTROLLER", "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
            "log.dirs": str(self.controller_dir), "metadata.log.dir": str(self.controller_dir),
        })
        self.broker_configs = {node: write_properties(work / f"broker-{node}.properties", {
            "process.roles": "broker", "node.id": str(node), "controller.quorum.voters": voters,
            "controller.listener.names": "CONTROLLER",
            "listeners": f"PLAINTEXT://{LOOPBACK}:{port}", "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(work / f"broker-{node}-data"),
            "offsets.topic.replication.factor": "1", "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1", "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1", "broker.heartbeat.interval.ms": "500",
        }) for node, port in self.ports.items()}
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.ports[APACHE_44]}"

    def _popen(self, node: int, cmd: list[str]) -> None:
        with open(self.work / f"node-{node}.out", "ab") as out:
            self.procs[node] = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                cwd=REPO_ROOT, start_new_session=True)

    def format(self) -> None:
        release = ["--release-version", "3.9-IV0"]
        if self.kind == "kafpy":
            kafpy_format(self.controller_config, self.cluster_id, *release)
        else:
            run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c", str(self.controller_config),
                                            *release], timeout=120)
        run_tool("4", "kafka-storage", ["format", "-t", self.cluster_id, "-c",
                                        str(self.broker_configs[APACHE_44])], timeout=120)
        run_tool("3.9", "kafka-storage", ["format", "-t", self.cluster_id, "-c",
                                          str(self.broker_configs[APACHE_39])], timeout=120)
        kafpy_format(self.broker_configs[KAFPY], self.cluster_id)

    def start_controller(self) -> None:
        if self.kind == "kafpy":
            self._popen(CONTROLLER_ID, [sys.executable, "-m", "kafpy.broker", str(self.controller_config)])
        else:
            self._popen(CONTROLLER_ID, java_command("4", "kafka-server-start", [str(self.controller_config)],
                                                    heap="384m", log_level="INFO"))

    def start_broker(self, node: int) -> None:
        if node == KAFPY:
            self._popen(node, [sys.executable, "-m", "kafpy.broker", str(self.broker_configs[node])])
        else:
            version = "4" if node == APACHE_44 else "3.9"
            self._popen(node, java_command(version, "kafka-server-start", [str(self.broker_configs[node])],
                                           heap="384m", log_level="INFO"))

    def stop(self, node: int) -> None:
        terminate(self.procs[node], timeout=60)

    def kill_all(self) -> None:
        """kill -9 of every node left: the test checks no clean shutdown, and three JVMs and a
        controller stopping in turn (controlled shutdowns first) cost seconds each."""
        for proc in self.procs.values():
            kill(proc)

    def output(self, node: int) -> str:
        path = self.work / f"node-{node}.out"
        return path.read_text(errors="replace") if path.exists() else ""

    def brokers_listed(self) -> list[int]:
        return sorted(n for n, _h, _p in wire.metadata_brokers(LOOPBACK, self.ports[APACHE_44], timeout=3.0))

    def features(self, *args: str, bootstrap: str = "--bootstrap-server") -> tuple[int, str]:
        """``kafka-features.sh --bootstrap-server <the 4.4 broker> args`` (or
        ``--bootstrap-controller <the controller>``): exit code, output with the epoch masked
        and the stack traces left out. (describe asks whichever broker it picks: the
        controller's answer is the one to compare.)"""
        where = self.bootstrap if bootstrap == "--bootstrap-server" else f"{LOOPBACK}:{self.controller_port}"
        out = run_tool("4", "kafka-features", [bootstrap, where, *args], timeout=180, check=False)
        text = re.sub(r"Epoch: \d+", "Epoch: <n>", out.stdout + out.stderr)
        return out.returncode, "\n".join(li for li in text.splitlines() if not li.startswith("\tat "))

    def broker_features(self, node: int) -> tuple[dict[str, tuple[int, int]], dict[str, int]]:
        """What broker ``node`` lists in ApiVersions v4: supported ranges, finalized levels."""
        response = call(self.ports[node], ApiVersionsRequest(client_software_name="features-test",
                                                             client_software_version="1"), ApiVersionsResponse, 4)
        return ({f.name: (f.min_version, f.max_version) for f in response.supported_features},
                {f.name: f.max_version_level for f in response.finalized_features})

    def registration_records(self) -> dict[str, dict[int, list[tuple[str, int, int]]]]:
        """The features of each RegisterBrokerRecord / RegisterControllerRecord in the
        controller's metadata log (the last one of each node), from Apache's kafka-dump-log."""
        segments = sorted((self.controller_dir / "__cluster_metadata-0").glob("*.log"))
        out: dict[str, dict[int, list[tuple[str, int, int]]]] = {"broker": {}, "controller": {}}
        # one run for every segment (--files takes a comma-separated list, dumped in that order)
        dump = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files",
                                                ",".join(str(s) for s in segments)], timeout=120).stdout
        for line in dump.splitlines():
            match = re.search(r"payload: (\{.*\})\s*$", line)
            if match is None:
                continue
            payload = json.loads(match.group(1))
            kind = {"REGISTER_BROKER_RECORD": "broker", "REGISTER_CONTROLLER_RECORD": "controller"}.get(
                payload.get("type", ""))
            if kind is None:
                continue
            data = payload["data"]
            node = data["brokerId"] if kind == "broker" else data["controllerId"]
            out[kind][node] = sorted((f["name"], f["minSupportedVersion"], f["maxSupportedVersion"])
                                     for f in data["features"])
        return out


REFUSED_39 = ("Unable to register because the broker does not support finalized version 33 of "
              "metadata.version. The broker wants a version between 7 and 21, inclusive.")


def registration_of_a_39_broker(cluster: FeatureCluster) -> tuple[int, bool]:
    """BrokerRegistration sent to the controller with the ranges Apache Kafka 3.9.1 lists: the
    error code, and whether the controller logged Kafka's reason (the response has no message)."""
    R = BrokerRegistrationRequest
    request = R(broker_id=103, cluster_id=cluster.cluster_id, incarnation_id=uuid.uuid4().bytes,
                listeners=[R.Listener(name="PLAINTEXT", host=LOOPBACK, port=1, security_protocol=0)],
                features=[R.Feature(name="metadata.version", min_supported_version=7, max_supported_version=21),
                          R.Feature(name="kraft.version", min_supported_version=0, max_supported_version=1),
                          R.Feature(name="group.version", min_supported_version=0, max_supported_version=1),
                          R.Feature(name="transaction.version", min_supported_version=0, max_supported_version=2)],
                rack=None, is_migrating_zk_broker=False, log_dirs=[uuid.uuid4().bytes], previous_broker_epoch=-1)
    response = call(cluster.controller_port, request, BrokerRegistrationResponse, 4, timeout=30)
    logged = eventually(lambda: REFUSED_39 in cluster.output(CONTROLLER_ID) or None, "the reason logged", 30)
    return response.error_code, logged


def steps(cluster: FeatureCluster) -> dict[str, object]:
    c = cluster
    c.format()
    c.start_controller()
    for node in (APACHE_44, APACHE_39, KAFPY):
        c.start_broker(node)
    eventually(lambda: c.brokers_listed() == [APACHE_44, APACHE_39, KAFPY] or None, "three brokers unfenced",
               timeout=240)
    out: dict[str, object] = {}
    out["describe"] = c.features("describe", bootstrap="--bootstrap-controller")
    out["upgrade metadata.version"] = c.features("upgrade", "--metadata", "4.4-IV2")
    out["upgrade --dry-run"] = c.features("upgrade", "--release-version", "4.4", "--dry-run")
    out["upgrade share.version"] = c.features("upgrade", "--feature", "share.version=1")
    out["upgrade eligible.leader.replicas.version"] = c.features(
        "upgrade", "--feature", "eligible.leader.replicas.version=1")
    out["upgrade unknown"] = c.features("upgrade", "--feature", "no.such.version=1")
    out["downgrade metadata.version"] = c.features("downgrade", "--metadata", "3.3-IV3")
    out["upgrade group.version"] = c.features("upgrade", "--feature", "group.version=1")
    out["upgrade group.version too far"] = c.features("upgrade", "--feature", "group.version=2")
    out["downgrade group.version"] = c.features("downgrade", "--feature", "group.version=0")
    out["describe after"] = c.features("describe", bootstrap="--bootstrap-controller")

    # without the 3.9.1 broker the cluster can move to 4.4-IV2, and then refuses it
    c.stop(APACHE_39)
    unregistered = call(c.controller_port, UnregisterBrokerRequest(broker_id=APACHE_39), UnregisterBrokerResponse, 0,
                        timeout=30)
    out["unregister"] = (unregistered.error_code, unregistered.error_message)
    # what --release-version 4.4 sets but kraft.version (a static quorum's log is upgraded by
    # Kafka's raft layer; kafpy's controller refuses that, below)
    out["upgrade to 4.4"] = c.features("upgrade", "--feature", "metadata.version=33", "--feature", "group.version=1",
                                       "--feature", "transaction.version=2", "--feature", "share.version=2",
                                       "--feature", "streams.version=1",
                                       "--feature", "eligible.leader.replicas.version=1")
    out["describe at 4.4"] = c.features("describe", bootstrap="--bootstrap-controller")
    # a broker learns the new levels from the metadata log a moment after the controller
    # answered (all in one batch of FeatureLevelRecords): read each once it has them
    def at_4_4(node: int) -> tuple[dict[str, tuple[int, int]], dict[str, int]] | None:
        found = c.broker_features(node)
        return found if found[1].get("metadata.version") == 33 else None
    out["ApiVersions of the 4.4 broker"] = eventually(lambda: at_4_4(APACHE_44), "the 4.4 broker at 4.4", 60)
    out["ApiVersions of the kafpy broker"] = eventually(lambda: at_4_4(KAFPY), "the kafpy broker at 4.4", 60)
    out["register a 3.9 broker"] = registration_of_a_39_broker(c)
    c.start_broker(APACHE_39)
    eventually(lambda: "because the controller returned error UNSUPPORTED_VERSION" in c.output(APACHE_39) or None,
               "the 3.9.1 broker refused", timeout=180)
    c.stop(APACHE_39)
    out["brokers"] = c.brokers_listed()
    records = c.registration_records()
    out["registrations"] = records
    out["upgrade kraft.version"] = c.features("upgrade", "--feature", "kraft.version=1")
    return out


def test_features_on_a_kafpy_controller_as_on_an_apache_one(tmp_path: Path) -> None:
    work = tmp_path
    results: dict[str, dict[str, object]] = {}
    for kind in ("kafpy", "apache"):  # one cluster at a time: the machine is shared
        (work / kind).mkdir()
        cluster = FeatureCluster(work / kind, kind)
        try:
            results[kind] = steps(cluster)
        finally:
            cluster.kill_all()
    ours, theirs = results["kafpy"], results["apache"]
    print(json.dumps(results, indent=1, default=str))
    assert f"Broker {APACHE_39} only supports versions 1-21" in str(ours["upgrade metadata.version"])
    # a kafpy broker lists the same features as an Apache 4.4 broker beside it
    assert ours["ApiVersions of the kafpy broker"] == ours["ApiVersions of the 4.4 broker"]
    assert ours["register a 3.9 broker"] == (35, True)  # UNSUPPORTED_VERSION
    regs = ours["registrations"]
    assert isinstance(regs, dict)
    # the kafpy broker lists what the Apache 4.4 broker lists, the kafpy controller what an
    # Apache 4.4 controller lists
    assert regs["broker"][KAFPY] == regs["broker"][APACHE_44]
    theirs_regs = theirs["registrations"]
    assert isinstance(theirs_regs, dict)
    assert regs["controller"][CONTROLLER_ID] == theirs_regs["controller"][CONTROLLER_ID]
    # not done: kafpy's raft does not upgrade a static quorum's log to kraft.version 1 (Kafka's
    # does), so its controller refuses where Apache's succeeds
    refused = ours.pop("upgrade kraft.version")
    assert isinstance(refused, tuple) and refused[0] != 0, refused
    assert "cannot upgrade the kraft.version of a quorum's log yet" in refused[1], refused
    assert theirs.pop("upgrade kraft.version") == (0, "kraft.version was upgraded to 1.")
    for key in ours:
        assert ours[key] == theirs[key], key
