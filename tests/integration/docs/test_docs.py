"""The API docs build from the docstrings (pdoc), and the examples they show pass.

Both run here so the docs cannot rot: a docstring pdoc cannot resolve fails the build
(warnings are errors), and every example is run as the user would run it (a pytest project
with kafpy's plugin; the Spark one starts a local Spark with the Kafka connector).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = REPO_ROOT / "docs" / "examples"


def test_docs_build_from_docstrings_without_warnings(tmp_path):
    out = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-W", "error::UserWarning", "docs/build.py",
                           "--out", str(out)], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    embedded = (out / "kafpy" / "embedded.html").read_text()
    for name in ("EmbeddedBroker", "EmbeddedCluster", "bootstrap_servers", "create_topic",
                 "cut_listener", "restart", "TEST_DEFAULTS"):
        assert name in embedded, name
    plugin = (out / "kafpy" / "pytest_plugin.html").read_text()
    for name in ("kafpy_topic", "kafpy_broker", "kafpy_cluster", "kafka_bootstrap_servers",
                 "--kafka-bootstrap", "--kafpy-keep-logs", "kafpy_config"):
        assert name in plugin, name
    examples = (out / "examples.html").read_text()
    files = sorted(EXAMPLES.glob("test_*.py"))
    assert {f.stem for f in files} >= {"test_kafka_python", "test_confluent_kafka",
                                       "test_aiokafka", "test_spark", "test_failure_testing"}
    for f in files:
        assert f"id='{f.stem}'" in examples


def test_examples_pass_as_a_users_project(tmp_path):
    project = tmp_path / "examples"
    shutil.copytree(EXAMPLES, project, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "KAFPY_"))}
    env["PYTHONPATH"] = str(REPO_ROOT)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:kafpy", "-p", "kafpy.pytest_plugin",
                           "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'basetemp'}"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    count = sum(f.read_text().count("\ndef test_") for f in EXAMPLES.glob("test_*.py"))
    assert f"{count} passed" in proc.stdout
