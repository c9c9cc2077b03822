"""Per-request counters (requests by version, errors by code, time percentiles from log-scale
buckets) and the BrokerTopicMetrics counted on the append path and from Fetch answers."""
import asyncio
import math
import random
from types import SimpleNamespace

import pytest

from kafpy.broker.handlers.produce import handle_produce
from kafpy.metrics.observer import RequestObserver
from kafpy.metrics.request_logger import RequestLogger
from kafpy.metrics.request_metrics import (FETCH_CONSUMER, FETCH_FOLLOWER, RESERVOIR, STAGES, BrokerTopicStats,
                                           RequestMetrics, TimeHistogram, bucket_of)
from kafpy.protocol.messages import FetchResponse, ProduceRequest
from kafpy.protocol.records import build_batch
from tests.unit.broker.helpers import LocalBroker, call


def test_requests_and_errors_are_counted_per_type_version_and_code():
    m = RequestMetrics()
    m.record(0, 9, 0.002, 0)
    m.record(0, 9, 0.004, 0)
    m.record(0, 7, 0.001, 6)
    assert m.requests == {(0, 9): 2, (0, 7): 1}
    assert m.errors == {(0, 0): 2, (0, 6): 1}
    assert m.total_ms[0].count == 3
    assert abs(m.total_ms[0].sum - 7.0) < 1e-9


def test_buckets_are_log_scale_and_ordered():
    assert bucket_of(0.0) == 0 and bucket_of(0.0005) == 0
    values = [0.001 * 1.05 ** i for i in range(400)]
    buckets = [bucket_of(v) for v in values]
    assert buckets == sorted(buckets)
    assert bucket_of(10 ** 9) == bucket_of(10 ** 12)     # the last bucket takes everything above


def test_percentiles_are_within_a_bucket_of_the_true_values():
    rng = random.Random(7)
    values = [rng.lognormvariate(0, 1.5) for _ in range(RESERVOIR)]
    h = TimeHistogram()
    for v in values:
        h.add(v)
    exact = sorted(values)
    p = dict(h.percentiles())
    assert set(p) == {"0.50", "0.75", "0.95", "0.98", "0.99", "0.999"}
    for label, q in (("0.50", 0.5), ("0.75", 0.75), ("0.95", 0.95), ("0.99", 0.99)):
        true = exact[math.ceil(q * len(exact)) - 1]
        assert true * 0.99 <= p[label] <= true * 1.10, (label, true, p[label])
    assert h.count == RESERVOIR


def test_percentiles_forget_old_windows():
    h = TimeHistogram()
    for _ in range(RESERVOIR):
        h.add(1000.0)
    h.percentiles()                  # the first window is full: a second one starts
    for _ in range(RESERVOIR):
        h.add(1.0)
    assert dict(h.percentiles())["0.75"] == pytest.approx(1000.0, rel=0.1)   # both windows still in
    for _ in range(RESERVOIR):
        h.add(1.0)
    p = dict(h.percentiles())
    assert p["0.999"] == pytest.approx(1.0, rel=0.1)                         # the slow ones are gone
    assert h.count == 3 * RESERVOIR


def test_an_empty_histogram_has_no_percentiles():
    assert TimeHistogram().percentiles() == []


def _batch(n: int) -> bytes:
    return bytes(build_batch([(None, b"v%d" % i) for i in range(n)]))


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop, **{"message.max.bytes": "200"})
    b.create_topic("a", 3)
    b.replica_manager.topic_stats = BrokerTopicStats()
    yield b
    b.close()
    loop.close()


def _append(broker, origin: str, entries):
    fut = broker.replica_manager.append_records(1000, 1, origin, entries)
    return broker.loop.run_until_complete(fut)


def test_appends_count_messages_bytes_and_failures_per_topic(broker):
    stats = broker.replica_manager.topic_stats
    ok, big = _batch(5), bytes(build_batch([(None, b"x" * 300)]))
    results = _append(broker, "client", [("a", 0, ok), ("a", 1, big), ("nope", 0, _batch(1))])
    assert [int(r[0]) for r in results] == [0, 10, 3]
    a = stats.topics["a"]
    assert (a.messages_in, a.bytes_in) == (5, len(ok))
    assert a.total_produce == 2 and a.failed_produce == 1
    assert a.bytes_rejected == len(big)              # MESSAGE_TOO_LARGE
    assert "nope" not in stats.topics                 # unknown topics count for all topics only
    t = stats.total
    assert (t.messages_in, t.total_produce, t.failed_produce) == (5, 3, 2)


def test_appends_of_interleaved_topics_count_for_each(broker):
    broker.create_topic("b", 1)
    stats = broker.replica_manager.topic_stats
    _append(broker, "client", [("a", 0, _batch(2)), ("b", 0, _batch(3)), ("a", 1, _batch(4))])
    assert (stats.topics["a"].messages_in, stats.topics["a"].total_produce) == (6, 2)
    assert (stats.topics["b"].messages_in, stats.topics["b"].total_produce) == (3, 1)
    assert stats.total.messages_in == 9


def test_the_coordinators_own_appends_are_not_counted(broker):
    _append(broker, "coordinator", [("a", 0, _batch(2))])
    assert broker.replica_manager.topic_stats.total.messages_in == 0


def test_without_stats_appends_count_nothing(broker):
    broker.replica_manager.topic_stats = None
    assert int(_append(broker, "client", [("a", 0, _batch(2))])[0][0]) == 0


def _observer() -> RequestObserver:
    return RequestObserver(lambda api: str(api), lambda tid: None, RequestLogger(lambda: -1))


def _ctx(api_key: int, version: int):
    return SimpleNamespace(header=SimpleNamespace(request_api_key=api_key, request_api_version=version,
                                                  client_id="c", correlation_id=1), principal=None)


def test_produce_errors_count_every_partition_as_kafka_does(broker):
    """Kafka's ErrorsPerSec takes ProduceResponse.errorCounts: one per partition, NONE too."""
    P = ProduceRequest
    request = P(acks=1, timeout_ms=1000, topic_data=[P.TopicProduceData(name="a", partition_data=[
        P.PartitionProduceData(index=i, records=_batch(1)) for i in (0, 1, 7)])])
    response = call(broker, handle_produce, 0, 9, request)
    obs = _observer()
    obs.completed(_ctx(0, 9), 0, request, response, 0.001)
    assert obs.requests.errors == {(0, 0): 2, (0, 3): 1}    # two appended, one UNKNOWN_TOPIC_OR_PARTITION
    assert obs.requests.requests == {(0, 9): 1}
    obs.completed(_ctx(0, 9), 0, request, None, 0.001)      # acks=0: no answer, no error counts
    assert obs.requests.errors == {(0, 0): 2, (0, 3): 1}
    assert obs.requests.requests == {(0, 9): 2}


def test_fetch_errors_count_the_top_level_and_every_partition():
    F = FetchResponse
    response = F(error_code=0, responses=[F.FetchableTopicResponse(topic="a", partitions=[
        F.PartitionData(partition_index=0, error_code=0, records=b"x"),
        F.PartitionData(partition_index=1, error_code=6, records=None)])])
    obs = _observer()
    obs.completed(_ctx(1, 12), 1, SimpleNamespace(replica_id=-1), response, 0.002)
    assert obs.requests.errors == {(1, 0): 2, (1, 6): 1}
    assert obs.topics.topics["a"].bytes_out == 1


def _fetch(topic: str, topic_id: bytes, parts: dict[int, tuple[int, bytes | None]]) -> FetchResponse:
    F = FetchResponse
    return F(responses=[F.FetchableTopicResponse(topic=topic, topic_id=topic_id, partitions=[
        F.PartitionData(partition_index=i, error_code=e, records=r) for i, (e, r) in parts.items()])])


def test_bytes_out_counts_consumers_not_followers_and_resolves_topic_ids():
    t = BrokerTopicStats()
    tid = b"\x01" * 16
    names = {tid: "b"}.get
    t.on_fetch(_fetch("", tid, {0: (0, b"x" * 100), 1: (1, None)}), False, names)
    t.on_fetch(_fetch("", tid, {0: (0, b"x" * 50)}), True, names)
    b = t.topics["b"]
    assert b.bytes_out == 100
    assert b.total_fetch == 3 and b.failed_fetch == 1


def test_throttle_time_averages_per_client_since_the_last_scrape():
    m = RequestMetrics()
    m.throttled("Produce", "alice", "p1", 100)
    m.throttled("Produce", "alice", "p1", 300)
    m.throttled("Fetch", "", None, 50)
    assert m.take_throttle() == {("Produce", "alice", "p1"): 200.0, ("Fetch", "", ""): 50.0}
    assert m.take_throttle() == {("Produce", "alice", "p1"): 0.0, ("Fetch", "", ""): 0.0}
    assert m.take_throttle() == {}


def _stages(m: RequestMetrics, api: int) -> dict[str, TimeHistogram]:
    return dict(m.api(api).stage_times())  # type: ignore[arg-type]


def test_a_request_that_never_waited_is_all_local_time():
    m = RequestMetrics()
    m.record(0, 9, 0.004, 0)
    m.record(0, 9, 0.008, 0)
    st = _stages(m, 0)
    assert list(st) == list(STAGES)
    assert st["LocalTimeMs"].counts == m.total_ms[0].counts and st["LocalTimeMs"].sum == m.total_ms[0].sum
    assert st["LocalTimeMs"] is m.total_ms[0]
    for stage in ("RequestQueueTimeMs", "RemoteTimeMs", "ThrottleTimeMs", "ResponseQueueTimeMs",
                  "ResponseSendTimeMs"):
        assert st[stage] is None   # 0 for every request


def test_a_request_that_waited_splits_into_local_and_remote_time():
    m = RequestMetrics()
    m.record(0, 9, 0.002, 0)                      # 2 ms, never waited
    m.record(0, 9, 0.503, 0, remote_s=0.500)      # 3 ms of work, then 500 ms waiting for followers
    st = _stages(m, 0)
    local, remote = st["LocalTimeMs"], st["RemoteTimeMs"]
    assert local.count == remote.count == 2
    assert abs(local.sum - 5.0) < 1e-6 and abs(remote.sum - 500.0) < 1e-6
    assert local.counts[bucket_of(2.0)] == 1 and local.counts[bucket_of(3.0)] == 1
    assert remote.counts[0] == 1 and remote.counts[bucket_of(500.0)] == 1
    assert st["ThrottleTimeMs"] is None and st["RequestQueueTimeMs"] is None
    assert 500 <= dict(remote.percentiles())["0.99"] <= 545
    assert dict(local.percentiles())["0.99"] < 4


def test_throttled_responses_fill_throttle_time():
    m = RequestMetrics()
    m.record(1, 12, 0.001, 0, throttle_ms=250)
    m.record(1, 12, 0.001, 0)
    throttle = _stages(m, 1)["ThrottleTimeMs"]
    assert throttle.count == 2 and throttle.sum == 250.0 and throttle.counts[bucket_of(250.0)] == 1


def test_stage_counts_only_grow_so_windows_roll_like_the_totals():
    m = RequestMetrics()
    before = None
    for i in range(3 * RESERVOIR):
        m.record(0, 9, 0.001, 0, remote_s=0.0005 if i % 2 else 0.0)
        if i % 500 == 0:
            now = [h.counts[:] for _, h in m.api(0).stage_times() if h is not None]
            if before is not None:
                assert all(a <= b for old, new in zip(before, now) for a, b in zip(old, new))
            before = now


def test_fetch_is_timed_again_as_fetch_consumer_or_fetch_follower():
    F = FetchResponse
    obs = _observer()
    response = F(error_code=0, responses=[])
    obs.completed(_ctx(1, 12), 1, SimpleNamespace(replica_id=-1), response, 0.5, remote_s=0.499)
    obs.completed(_ctx(1, 12), 1, SimpleNamespace(replica_id=2), response, 0.002)
    m = obs.requests
    assert m.requests[(1, 12)] == 2
    assert m.requests[(FETCH_CONSUMER, 12)] == 1 and m.requests[(FETCH_FOLLOWER, 12)] == 1
    assert m.api(FETCH_CONSUMER).parked is not None and m.api(FETCH_FOLLOWER).parked is None
    assert not any(api < 0 for api, _ in m.errors)   # errors under Fetch alone
