"""A misconfigured KRaft node: Apache Kafka 4.4's ``kafka-server-start.sh`` and ours, started on
the same server.properties, both refuse to start and print the same reason (the unit tests in
tests/unit/broker/test_kraft_config.py hold every case; these are one of each kind of check:
a config validator, a parse error and a Scala ``require``)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.kafka_dist import java_command

BASE = {"listeners": "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"}
CASES = {
    "unknown-role": {"process.roles": "broker,zk", "node.id": "1",
                     "controller.quorum.voters": "1@127.0.0.1:19093"},
    "voter-without-port": {"process.roles": "broker,controller", "node.id": "1",
                           "controller.quorum.voters": "1@127.0.0.1"},
    "controller-not-a-voter": {"process.roles": "broker,controller", "node.id": "2",
                               "controller.quorum.voters": "1@127.0.0.1:19093"},
}


def _reason(output: str, marker: str) -> str:
    """The exception's message: Apache prints it after the exception's class name, kafpy
    after "fatal exception: "."""
    for line in output.splitlines():
        if marker in line:
            return line.split(marker, 1)[1].strip().removesuffix(" (kafka.Kafka)")
    raise AssertionError(f"no {marker!r} in:\n{output[-3000:]}")


def test_both_refuse_a_bad_kraft_config_with_the_same_reason(tmp_path: Path) -> None:
    for name, overrides in CASES.items():
        path = tmp_path / f"{name}.properties"
        props = {**BASE, **overrides, "log.dirs": str(tmp_path / name)}
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        apache = subprocess.run(java_command("4", "kafka-server-start", [str(path)], log_level="ERROR",
                                             jvm_opts=["-XX:TieredStopAtLevel=1"]),
                                capture_output=True, text=True, timeout=120)
        ours = subprocess.run([sys.executable, "-m", "kafpy.broker", str(path)],
                              capture_output=True, text=True, timeout=120)
        assert apache.returncode != 0 and ours.returncode != 0, name
        theirs = _reason(apache.stdout + apache.stderr, "Exception: ")
        assert _reason(ours.stdout + ours.stderr, "fatal exception: ") == theirs, name
