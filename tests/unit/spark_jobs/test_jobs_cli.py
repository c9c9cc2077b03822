"""The jobs' command lines and pure helpers (no JVM)."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafpy.spark_jobs import batch_export, pageview_counts, sensor_alerts
from kafpy.spark_jobs.sensor_alerts import Thresholds

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("module,words", [
    ("sensor_alerts", ["--alerts-topic", "--max-pressure", "--watermark", "--checkpoint"]),
    ("pageview_counts", ["--output-dir", "--window", "--watermark", "--checkpoint"]),
    ("batch_export", ["--partition", "--starting-offsets", "--include-headers"]),
    ("generate", ["sensor", "pageviews"]),
])
def test_help(module, words):
    out = subprocess.run([sys.executable, "-m", f"kafpy.spark_jobs.{module}", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for w in words:
        assert w in out.stdout


def test_help_does_not_import_pyspark():
    code = ("import sys\nfrom kafpy.spark_jobs import sensor_alerts, pageview_counts, batch_export\n"
            "for m in (sensor_alerts, pageview_counts, batch_export): m.build_parser()\n"
            "print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_required_arguments():
    with pytest.raises(SystemExit):
        sensor_alerts.build_parser().parse_args(["--bootstrap-servers", "h:1"])
    with pytest.raises(SystemExit):
        pageview_counts.main(["--bootstrap-servers", "h:1", "--checkpoint", "/tmp/x"])


def test_sensor_defaults_and_thresholds():
    args = sensor_alerts.build_parser().parse_args(
        ["--bootstrap-servers", "h:1", "--checkpoint", "/c", "--max-temperature", "-1",
         "--max-injection-vol", "17000", "--fail-on-data-loss", "false"])
    assert (args.input_topic, args.alerts_topic, args.stats_topic) == (
        "sensor", "warnings", "rig-stats")
    assert args.fail_on_data_loss is False
    t = sensor_alerts.thresholds_from(args)
    assert t == Thresholds(pressure=120.0, temperature=None, injection_vol=17000.0)
    assert t.exceeded({"pressure": 121, "temperature": 500, "injection_vol": 17000}) == [
        "pressure"]
    assert t.exceeded({"pressure": 120, "injection_vol": 17001}) == ["injection_vol"]
    assert t.exceeded({"pressure": None}) == []


def test_sensor_rejects_all_checks_disabled():
    with pytest.raises(SystemExit):
        sensor_alerts.main(["--bootstrap-servers", "h:1", "--checkpoint", "/c",
                            "--max-pressure", "-1", "--max-temperature", "-1"])


def test_partition_spec():
    assert batch_export.parse_partition_spec("3:10:20") == (3, 10, 20)
    assert batch_export.parse_partition_spec("0:earliest:latest") == (0, -2, -1)
    for bad in ("1:2", "x:1:2", "1:-5:3"):
        with pytest.raises(argparse.ArgumentTypeError):
            batch_export.parse_partition_spec(bad)


def test_offsets_json():
    start, end = batch_export.offsets_json("t", [(1, 5, 9), (0, -2, -1)])
    assert json.loads(start) == {"t": {"0": -2, "1": 5}}
    assert json.loads(end) == {"t": {"0": -1, "1": 9}}
    for bad in ([(0, 5, 3)], [(0, -1, 3)], [(0, 1, -2)], [(0, 1, 2), (0, 3, 4)]):
        with pytest.raises(ValueError):
            batch_export.offsets_json("t", bad)


def test_export_rejects_bad_range_before_spark():
    with pytest.raises(SystemExit):
        batch_export.main(["--bootstrap-servers", "h:1", "--topic", "t", "--output-dir",
                           "/tmp/none", "--partition", "0:9:3"])
