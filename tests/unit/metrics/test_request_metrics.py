"""Per-request counters: requests by version, errors by code, time percentiles, and the
BrokerTopicMetrics counted from Produce and Fetch answers."""
from kafpy.metrics.request_metrics import RESERVOIR, RequestMetrics, TimeReservoir, TopicMetrics, record_count
from kafpy.protocol.messages import FetchResponse, ProduceRequest, ProduceResponse
from kafpy.protocol.records import build_batch


def test_requests_and_errors_are_counted_per_type_version_and_code():
    m = RequestMetrics()
    m.record(0, 9, 0.002, 0)
    m.record(0, 9, 0.004, 0)
    m.record(0, 7, 0.001, 6)
    assert m.requests == {(0, 9): 2, (0, 7): 1}
    assert m.errors == {(0, 0): 2, (0, 6): 1}
    assert m.total_ms[0].count == 3
    assert abs(m.total_ms[0].sum - 7.0) < 1e-9


def test_percentiles_come_from_the_most_recent_observations():
    r = TimeReservoir()
    for v in range(RESERVOIR):
        r.add(1000.0)            # old, all pushed out below
    for v in range(1, RESERVOIR + 1):
        r.add(float(v))
    p = dict(r.percentiles())
    assert set(p) == {"0.50", "0.75", "0.95", "0.98", "0.99", "0.999"}
    assert p["0.50"] == RESERVOIR // 2 + 1
    assert p["0.999"] <= RESERVOIR
    assert r.count == 2 * RESERVOIR


def test_an_empty_reservoir_has_no_percentiles():
    assert TimeReservoir().percentiles() == []


def _batch(n: int) -> bytes:
    return bytes(build_batch([(None, b"v%d" % i) for i in range(n)]))


def test_record_count_reads_batch_headers():
    two = _batch(3) + _batch(4)
    assert record_count(two) == 7
    assert record_count(b"") == 0


def _produce(topic: str, batches: dict[int, bytes]) -> ProduceRequest:
    P = ProduceRequest
    return P(acks=1, timeout_ms=1000, topic_data=[P.TopicProduceData(name=topic, partition_data=[
        P.PartitionProduceData(index=i, records=r) for i, r in batches.items()])])


def _answer(topic: str, errors: dict[int, int]) -> ProduceResponse:
    R = ProduceResponse
    return R(responses=[R.TopicProduceResponse(name=topic, partition_responses=[
        R.PartitionProduceResponse(index=i, error_code=e) for i, e in errors.items()])])


def test_messages_and_bytes_in_count_appended_partitions_only():
    t = TopicMetrics()
    ok, failed, big = _batch(5), _batch(2), _batch(1)
    t.on_produce(_produce("a", {0: ok, 1: failed, 2: big}), _answer("a", {0: 0, 1: 6, 2: 10}))
    a = t.topics["a"]
    assert (a.messages_in, a.bytes_in) == (5, len(ok))
    assert a.failed_produce == 2 and a.total_produce == 3
    assert a.bytes_rejected == len(big)             # MESSAGE_TOO_LARGE
    assert t.total.messages_in == 5 and t.total.total_produce == 3


def test_acks_zero_counts_every_partition_as_appended():
    t = TopicMetrics()
    t.on_produce(_produce("a", {0: _batch(3)}), None)
    assert t.topics["a"].messages_in == 3


def _fetch(topic: str, topic_id: bytes, parts: dict[int, tuple[int, bytes | None]]) -> FetchResponse:
    F = FetchResponse
    return F(responses=[F.FetchableTopicResponse(topic=topic, topic_id=topic_id, partitions=[
        F.PartitionData(partition_index=i, error_code=e, records=r) for i, (e, r) in parts.items()])])


def test_bytes_out_counts_consumers_not_followers_and_resolves_topic_ids():
    t = TopicMetrics()
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
