"""kafpy's pytest plugin run as a user runs it: a small project of its own, in a child pytest.

The project (tests/data/plugin_project) uses only the plugin's fixtures with kafka-python,
confluent-kafka and aiokafka; the wheel's acceptance test runs the same project from an
installed kafpy. Here the plugin comes from this checkout: ``-p no:kafpy`` blocks an
installed entry point (which may be another checkout's, and would register the same module a
second time), ``-p kafpy.pytest_plugin`` loads this one.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from kafpy import EmbeddedBroker

REPO_ROOT = Path(__file__).resolve().parents[3]
PROJECT = REPO_ROOT / "tests" / "data" / "plugin_project"


def run_project(tmp_path: Path, *args: str, extra_test: str | None = None,
                timeout: float = 240) -> tuple[subprocess.CompletedProcess, list[str]]:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    if extra_test:
        (project / "test_extra.py").write_text(extra_test)
    notes = tmp_path / "notes"
    notes.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "KAFPY_"))}
    env.update(PYTHONPATH=str(REPO_ROOT), KAFPY_PLUGIN_NOTES=str(notes))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:kafpy", "-p", "kafpy.pytest_plugin",
                           "-p", "no:cacheprovider", "-q", "-rA",
                           f"--basetemp={tmp_path / 'basetemp'}", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=timeout)
    return proc, [p.read_text() for p in sorted(notes.iterdir())]


def test_project_passes_with_two_workers_each_with_its_own_broker(tmp_path):
    proc, notes = run_project(tmp_path, "-n", "2")
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-3000:]
    assert "6 passed" in proc.stdout
    assert len(set(notes)) == 2, f"expected one broker per worker, got {sorted(set(notes))}"


def test_failure_report_has_the_broker_log_and_keep_logs_keeps_it(tmp_path):
    failing = ("def test_fails(kafpy_topic):\n"
               "    assert kafpy_topic == 'something else'\n")
    proc, _ = run_project(tmp_path, "--kafpy-keep-logs", "-k", "fails or ini_settings",
                          extra_test=failing)
    assert proc.returncode == 1, proc.stdout[-5000:]
    assert "1 failed, 1 passed" in proc.stdout
    assert "kafpy broker log" in proc.stdout and "Created topic test_extra.py-test_fails" in proc.stdout
    kept = [line.split(" in ", 1)[1] for line in proc.stdout.splitlines()
            if line.startswith("kafpy: kept the broker's log and data in ")]
    assert len(kept) == 1 and (Path(kept[0]) / "broker.log").is_file()


def test_passing_session_leaves_no_broker_files(tmp_path):
    proc, _ = run_project(tmp_path, "--kafpy-keep-logs", "-k", "unique")
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert "kept the broker's log" not in proc.stdout
    assert not list((tmp_path / "basetemp").glob("kafpy-broker*/broker.log"))


def test_kafka_bootstrap_runs_the_tests_against_another_kafka(tmp_path):
    with EmbeddedBroker({"num.partitions": 2}) as other:
        proc, notes = run_project(tmp_path, "--kafka-bootstrap", other.bootstrap_servers,
                                  "-k", "kafka_python or unique or ini_settings")
        assert proc.returncode == 0, proc.stdout[-5000:]
        assert "3 passed" in proc.stdout
        assert set(notes) == {other.bootstrap_servers}
        assert not list((tmp_path / "basetemp").glob("kafpy-broker*"))


def test_bad_config_line_is_a_usage_error(tmp_path):
    proc, _ = run_project(tmp_path, "--kafpy-config", "no-equals-sign", "-k", "unique")
    assert proc.returncode != 0
    assert "is not KEY=VALUE" in proc.stdout + proc.stderr


CLUSTER_TEST = '''
from kafka import KafkaAdminClient, KafkaProducer


def test_cluster_replicates(kafpy_cluster):
    assert len(kafpy_cluster.brokers) == 3
    kafpy_cluster.create_topic("replicated", partitions=2, replication_factor=3)
    admin = KafkaAdminClient(bootstrap_servers=kafpy_cluster.bootstrap_servers)
    [topic] = admin.describe_topics(["replicated"])
    admin.close()
    assert all(sorted(p["replica_nodes"]) == [0, 1, 2] for p in topic["partitions"])
    producer = KafkaProducer(bootstrap_servers=kafpy_cluster.bootstrap_servers, acks="all")
    producer.send("replicated", b"x").get(timeout=60)
    producer.close()
'''


def test_cluster_fixture(tmp_path):
    # the last KRaft nodes to stop have no quorum to end a controlled shutdown with (20 s each)
    proc, _ = run_project(tmp_path, "-k", "cluster_replicates", "--kafpy-config",
                          "controlled.shutdown.enable=false", extra_test=CLUSTER_TEST)
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert "1 passed" in proc.stdout
    assert not list((tmp_path / "basetemp").glob("kafpy-cluster*/broker0"))
