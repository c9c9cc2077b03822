"""Kafka's windowed rate and throttle time, with the time passed in."""
from __future__ import annotations

from kafpy.broker.quotas.manager import ClientQuotaManager
from kafpy.broker.quotas.entity import QuotaEntity
from kafpy.broker.quotas.rate import Rate, throttle_time_ms


def test_a_first_burst_is_measured_over_samples_minus_one_windows():
    r = Rate(samples=11, window_ms=1000)
    r.record(10_000, 0)
    assert r.window_size_ms(0) == 10_000
    assert r.measure(0) == 1000.0


def test_the_window_grows_with_time_and_old_samples_expire():
    r = Rate(samples=3, window_ms=1000)
    r.record(100, 0)
    r.record(100, 1500)        # second window
    # 1.5 s elapsed is one whole window: the missing second one is added (Kafka's Rate.windowSize)
    assert r.window_size_ms(1500) == 2500
    assert r.total(1500) == 200
    r.record(100, 2600)        # third window
    assert r.window_size_ms(2600) == 2600
    # the first window is now 3 windows old: it is reset, not counted
    assert r.total(3000) == 200


def test_throttle_time_is_kafkas_formula():
    assert throttle_time_ms(1500, 1000, 10_000) == 5000    # (O - T) / T * W
    assert throttle_time_ms(1000, 1000, 10_000) == 0
    assert throttle_time_ms(900, 1000, 10_000) == 0


def test_a_client_over_its_quota_is_throttled_and_another_is_not():
    m = ClientQuotaManager("Produce", "producer_byte_rate")
    m.update_quota(QuotaEntity(None, "slow"), 1000)
    now = 0
    throttles = []
    for _ in range(20):
        throttles.append(m.record("ANONYMOUS", "slow", 1000, now))
        assert m.record("ANONYMOUS", "fast", 1000, now) == 0
        now += 100
    assert throttles[:10] == [0] * 10          # 10 KB fits the 10 s window at 1 KB/s
    assert all(t > 0 for t in throttles[10:])
    # 11 KB over the 10 s minimum window, 1.1 KB/s against 1 KB/s: 1 s
    assert throttles[10] == 1000


def test_unrecord_takes_a_value_back_and_the_fetch_window_limit():
    m = ClientQuotaManager("Fetch", "consumer_byte_rate")
    assert m.max_value_in_window("u", "c") == float("inf")
    m.update_quota(QuotaEntity(None, "c"), 100)
    assert m.max_value_in_window("u", "c") == 1000   # 100 B/s x 10 windows of 1 s
    assert m.record("u", "c", 5000, 0) > 0
    m.unrecord("u", "c", 5000, 0)
    assert m.rate("u", "c", 0) == 0
    assert m.record("u", "c", 500, 0) == 0


def test_removing_the_last_quota_keeps_counting_but_throttles_no_one():
    m = ClientQuotaManager("Produce", "producer_byte_rate")
    m.update_quota(QuotaEntity(None, "c"), 10)
    m.update_quota(QuotaEntity(None, "c"), None)
    assert m.enabled
    assert m.quota("u", "c") is None
    assert m.record("u", "c", 1e9, 0) == 0
