"""A job started the way users start it: `python -m kafpy.spark_jobs.<job>` in its own process,
which finds the connector jars and builds its own SparkSession."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import produce_json

REPO = Path(__file__).resolve().parents[3]

# a JVM on a loaded 2-core machine: Spark jobs here take minutes, not seconds
pytestmark = pytest.mark.timeout(600)


def test_batch_export_from_the_command_line(spark, kafka, tmp_path):
    topic = "cli-export"
    produce_json(kafka.bootstrap, topic, ({"n": i} for i in range(12)), key=lambda r: "k")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "kafpy.spark_jobs.batch_export", "--bootstrap-servers",
         kafka.bootstrap, "--topic", topic, "--partition", "0:2:7", "--output-dir", str(out),
         "--log-level", "ERROR"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"exported 5 records of {topic} to {out}" in result.stdout
    rows = spark.read.parquet(str(out)).collect()
    assert sorted((r.offset, r.value) for r in rows) == [
        (i, '{"n":%d}' % i) for i in range(2, 7)]
