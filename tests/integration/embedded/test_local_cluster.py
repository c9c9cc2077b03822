"""``kafpy-cluster`` as a user runs it: three KRaft nodes in the foreground, each its own
process; a topic replicated on all three; Ctrl-C stops them and keeps the folder; the same
command on the same folder starts the same cluster (its id, ports and data)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kafka.admin import KafkaAdminClient, NewTopic

from kafpy.broker.properties import load_properties
from kafpy.local_cluster import STATE_FILE

REPO = Path(__file__).resolve().parents[3]


def start(folder: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "kafpy.local_cluster", "--nodes", "3", "--port", "0",
                             "--dir", str(folder)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=REPO, start_new_session=True)
    assert proc.stdout is not None
    bootstrap = ""
    deadline = time.monotonic() + 120
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("bootstrap.servers="):
            bootstrap = line.strip().split("=", 1)[1]
        if "running; Ctrl-C stops every node" in line:
            return proc, bootstrap
        assert time.monotonic() < deadline, "".join(lines)
    raise AssertionError("kafpy-cluster ended:\n" + "".join(lines))


def stop(proc: subprocess.Popen[str]) -> int:
    os.killpg(proc.pid, signal.SIGINT)
    return proc.wait(60)


def test_kafpy_cluster_runs_stops_and_comes_back(tmp_path: Path) -> None:
    folder = tmp_path / "cluster"
    proc, bootstrap = start(folder)
    try:
        assert len(bootstrap.split(",")) == 3
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
        try:
            assert len(admin.describe_cluster()["brokers"]) == 3  # every node lists all once "running"
            admin.create_topics([NewTopic("kept", 3, 3)], timeout_ms=30000)
        finally:
            admin.close()
    finally:
        code = stop(proc)
    assert code == 0
    state = load_properties(str(folder / STATE_FILE))
    for i in range(3):
        assert (folder / f"broker{i}" / "server.properties").is_file()
        assert (folder / f"broker{i}" / "data" / "meta.properties").is_file()
    proc, again = start(folder)
    try:
        assert again == bootstrap  # the same ports
        assert load_properties(str(folder / STATE_FILE)) == state
        admin = KafkaAdminClient(bootstrap_servers=again, request_timeout_ms=30000)
        try:
            deadline = time.monotonic() + 60
            while "kept" not in admin.list_topics():
                assert time.monotonic() < deadline, "the topic did not come back"
                time.sleep(0.5)
        finally:
            admin.close()
    finally:
        assert stop(proc) == 0
