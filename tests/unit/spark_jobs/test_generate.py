"""Generators: deterministic, realistic records and rate pacing (no broker)."""
from __future__ import annotations

import json
import sys
import types

import pytest

from kafpy.spark_jobs import generate
from kafpy.spark_jobs.sensor_alerts import Thresholds


def test_sensor_readings_deterministic_and_shaped():
    a = list(generate.sensor_readings(500, seed=5, rigs=7, event_interval=2.0))
    assert a == list(generate.sensor_readings(500, seed=5, rigs=7, event_interval=2.0))
    assert a != list(generate.sensor_readings(500, seed=6, rigs=7, event_interval=2.0))
    assert [r["event_ID"] for r in a] == list(range(1, 501))
    assert {r["hcid"] for r in a} == set(range(1, 8))
    assert a[0]["timestamp"] == "2015-01-01 00:00:00"
    assert a[3]["timestamp"] == "2015-01-01 00:00:06"
    r = a[0]
    assert set(r) == {"event_ID", "hcid", "timestamp", "production", "sensor_readings",
                      "injection_vol"}
    assert set(r["sensor_readings"]) == {"pressure", "temperature", "oil_percentage"}
    over = [x for x in a if Thresholds().exceeded(x["sensor_readings"])]
    assert 0 < len(over) < 80  # about 5 % spikes, normal readings stay under the limits


def test_no_anomalies_means_no_alerts():
    rs = generate.sensor_readings(300, anomaly_rate=0.0)
    assert not [r for r in rs if Thresholds().exceeded(r["sensor_readings"])]


def test_page_views_late_fraction():
    on_time = list(generate.page_views(200, seed=2, users=5, event_interval=3.0))
    times = [generate.parse_time(v["timestamp"]) for v in on_time]
    assert times == sorted(times)
    assert {v["user_id"] for v in on_time} <= {f"u{i:03d}" for i in range(1, 6)}
    late = list(generate.page_views(200, seed=2, late_fraction=0.2, late_by=600,
                                    event_interval=3.0))
    lagging = [i for i, v in enumerate(late)
               if generate.parse_time(v["timestamp"]).timestamp()
               < generate.parse_time(generate.DEFAULT_START).timestamp() + 3 * i - 599]
    assert 10 < len(lagging) < 80


class FakeProducer:
    instances: list["FakeProducer"] = []

    def __init__(self, **config):
        self.config, self.sent, self.flushed, self.closed = config, [], False, False
        FakeProducer.instances.append(self)

    def send(self, topic, key=None, value=None):
        self.sent.append((topic, key, value))

    def flush(self):
        self.flushed = True

    def close(self):
        self.closed = True


@pytest.fixture
def fake_kafka(monkeypatch):
    FakeProducer.instances.clear()
    monkeypatch.setitem(sys.modules, "kafka", types.SimpleNamespace(KafkaProducer=FakeProducer))
    return FakeProducer


def test_produce_paces_to_rate(fake_kafka):
    now = [100.0]
    sleeps: list[float] = []

    def sleep(s):
        sleeps.append(s)
        now[0] += s

    recs = list(generate.sensor_readings(50))
    n = generate.produce("h:1", "t", recs, key=lambda r: str(r["hcid"]), rate=10,
                         compression="zstd", clock=lambda: now[0], sleep=sleep)
    p = fake_kafka.instances[0]
    assert n == 50 and p.flushed and p.closed
    assert p.config["compression_type"] == "zstd" and p.config["acks"] == "all"
    assert now[0] == pytest.approx(100.0 + 49 / 10)
    assert [json.loads(v) for _, _, v in p.sent] == recs
    assert p.sent[0][1] == b"1"


def test_cli_runs_generator(fake_kafka, capsys):
    assert generate.main(["pageviews", "--bootstrap-servers", "h:1", "--count", "7",
                          "--topic", "clicks", "--users", "3"]) == 0
    p = fake_kafka.instances[0]
    assert [t for t, _, _ in p.sent] == ["clicks"] * 7
    assert all(json.loads(v)["user_id"] == k.decode() for _, k, v in p.sent)
    assert "sent 7 records to clicks" in capsys.readouterr().out
