"""Transaction version 2 (KIP-890 part 2), side by side on Apache Kafka 4.4 and kafpy.

Each broker advertises a RecordingProxy (tests/support/recording_proxy.py) as its
listener, so every request of the Java 4.4 transactional producer passes through it and
the test reads from the requests what the client negotiated: EndTxn v5 (the epoch bumped
at every end), Produce v12+ and TxnOffsetCommit v5 with no AddPartitionsToTxn nor
AddOffsetsToTxn from the client (the brokers add the partitions). read_committed readers
see exactly the committed records, the group's offsets are those of the committed
transactions, and a late batch of an epoch an EndTxn already bumped past is refused
with INVALID_PRODUCER_EPOCH. Pinned to transaction.version 1 with `kafka-features.sh
downgrade`, the same client goes back to version 1 (EndTxn v4, AddPartitionsToTxn from
the client) and the same records are read. franz-go v1.22.3 (the Go worker of the
transactional stress test, franz/main.go) negotiates transaction version 2 too: EndTxn v5,
Produce v12+, TxnOffsetCommit v5, no AddPartitionsToTxn nor AddOffsetsToTxn of its own.
"""
from __future__ import annotations

import socket
import struct
import subprocess
import time
from collections import Counter
from typing import Iterator

import pytest
from confluent_kafka import Consumer, TopicPartition

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.batch_builder import build_batch
from kafpy.protocol.codec import decode_request, decode_response, encode_request
from kafpy.protocol.errors import ErrorCode
from tests.integration.coordinator.helpers import create_topic, produce
from tests.support import process
from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK, free_port
from tests.support.recording_proxy import RecordingProxy

from .conftest import BROKER_SETTINGS
from .helpers import read_confluent, run_java_program, start_stress_worker

PARTITIONS = 2
TRANSACTIONS = 4  # 0 and 2 committed, 1 aborted, 3 (the last) committed


@pytest.fixture(scope="module", params=["apache", "kafpy"])
def proxied(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[object, RecordingProxy]]:
    """(broker, proxy): the broker advertises the proxy, which records what clients send."""
    base = tmp_path_factory.mktemp(f"tv2-{request.param}")
    proxy_port = free_port()
    if request.param == "apache":
        broker: ReferenceKafka | KafpyBroker = ReferenceKafka("4", work_dir=base, overrides=BROKER_SETTINGS,
                                advertised_port=proxy_port)
    else:
        broker = KafpyBroker(port=free_port(), work_dir=base, overrides={
            **BROKER_SETTINGS, "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{proxy_port}"})
    proxy = RecordingProxy(broker.port, base / "frames", port=proxy_port, client="setup",
                           cap_versions=None)
    try:
        broker.start()
        proxy.start()
        yield broker, proxy
    finally:
        proxy.stop()
        broker.stop()


def _requests(proxy: RecordingProxy, label: str) -> dict[str, set[int]]:
    """api name -> versions the client labelled `label` sent."""
    sent: dict[str, set[int]] = {}
    for (api, version, client), _n in list(proxy.counts.items()):
        if client == label:
            sent.setdefault(api, set()).add(version)
    return sent


def test_java_44_producer_uses_transaction_version_2(proxied):
    broker, proxy = proxied
    prefix, group = "tv2", "tv2-group"
    topic = f"{prefix}-topic"
    create_topic(proxy.bootstrap, topic, PARTITIONS)
    proxy.client = "java"
    out = run_java_program("4", "TxnProducer", [
        proxy.bootstrap, "commit-abort", topic, str(PARTITIONS), str(TRANSACTIONS), prefix, group])
    proxy.client = "reader"
    assert out == [f"{'aborted' if t % 2 and t != TRANSACTIONS - 1 else 'committed'} {t}"
                   for t in range(TRANSACTIONS)]

    sent = _requests(proxy, "java")
    assert sent["end_txn"] == {5}, sent
    assert min(sent["produce"]) >= 12 and min(sent["txn_offset_commit"]) >= 5, sent
    assert "add_offsets_to_txn" not in sent, sent
    # AddPartitionsToTxn v0-3 is the client's form; v4+ is the broker adding for it (a
    # broker behind its own advertised proxy is counted here too)
    assert not [v for v in sent.get("add_partitions_to_txn", ()) if v <= 3], sent

    committed = Counter((p, f"{prefix}-t{t}-p{p}") for t in (0, 2, 3) for p in range(PARTITIONS))
    assert Counter(read_confluent(proxy.bootstrap, topic)) == committed
    assert len(read_confluent(proxy.bootstrap, topic, "read_uncommitted")) == \
        TRANSACTIONS * PARTITIONS
    assert _committed_offset(proxy.bootstrap, group, topic) == TRANSACTIONS

    # A zombie batch: the producer id and epoch of the first EndTxn, long bumped past
    first_end = decode_request((proxy.out_dir / "end_txn_v5_java.bin").read_bytes())[1]
    produce = _produce_v12(broker.port, first_end.transactional_id, topic,
                           first_end.producer_id, first_end.producer_epoch)
    assert produce == ErrorCode.INVALID_PRODUCER_EPOCH
    assert Counter(read_confluent(proxy.bootstrap, topic)) == committed


def test_transaction_version_pinned_to_1_with_kafka_features(proxied):
    broker, proxy = proxied
    prefix, group = "tv1", "tv1-group"
    topic = f"{prefix}-topic"
    create_topic(proxy.bootstrap, topic, PARTITIONS)
    _set_transaction_version(proxy.bootstrap, "downgrade", 1, broker.port)
    try:
        proxy.client = "java-tv1"
        out = run_java_program("4", "TxnProducer", [
            proxy.bootstrap, "commit-abort", topic, str(PARTITIONS), str(TRANSACTIONS), prefix, group])
        proxy.client = "reader"
    finally:
        _set_transaction_version(proxy.bootstrap, "upgrade", 2, broker.port)
    assert out[-1] == f"committed {TRANSACTIONS - 1}"
    sent = _requests(proxy, "java-tv1")
    assert sent["end_txn"] == {4} and max(sent["produce"]) <= 11, sent
    assert max(sent["txn_offset_commit"]) <= 4 and sent["add_offsets_to_txn"], sent
    assert [v for v in sent["add_partitions_to_txn"] if v <= 3], sent
    committed = Counter((p, f"{prefix}-t{t}-p{p}") for t in (0, 2, 3) for p in range(PARTITIONS))
    assert Counter(read_confluent(proxy.bootstrap, topic)) == committed
    assert _committed_offset(proxy.bootstrap, group, topic) == TRANSACTIONS


def test_franz_go_worker_uses_transaction_version_2(proxied, tmp_path):
    """The stress test's franz-go worker, through the proxy: one incarnation abandons its
    fourth transaction, the next one fences it and copies the rest; every request it sent
    is of transaction version 2 and each record's result is there once."""
    _broker, proxy = proxied
    name = "tv2-franz"
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(proxy.bootstrap, source, 1)
    create_topic(proxy.bootstrap, sink, 1)
    values = [f"{name}-v{i}" for i in range(40)]
    produce(proxy.bootstrap, source, [v.encode() for v in values], partitions=1)
    log = tmp_path / "franz.log"
    proxy.client = "franz"
    for abandon_at, expected in ((4, 3), (0, 0)):
        worker = start_stress_worker("franz", log, proxy.bootstrap, source, "0", sink,
                                     f"{name}-group", f"{name}-txn", "20261128", str(abandon_at))
        try:
            code = worker.wait(timeout=180)
        except subprocess.TimeoutExpired:
            process.kill(worker)
            raise AssertionError(f"franz-go worker still running:\n{process.tail(log)}")
        assert code == expected, f"exited {code}, expected {expected}:\n{process.tail(log)}"
    proxy.client = "reader"

    sent = _requests(proxy, "franz")
    assert sent["end_txn"] == {5}, sent
    assert min(sent["produce"]) >= 12 and min(sent["txn_offset_commit"]) >= 5, sent
    assert "add_offsets_to_txn" not in sent, sent
    assert not [v for v in sent.get("add_partitions_to_txn", ()) if v <= 3], sent
    assert Counter(read_confluent(proxy.bootstrap, sink)) == Counter((0, f"out-{v}") for v in values)


def _set_transaction_version(bootstrap: str, action: str, level: int, port: int) -> None:
    """`kafka-features.sh <action> --feature transaction.version=<level>`, then wait until
    the broker's ApiVersions finalizes it (Apache applies it from its metadata log)."""
    run_tool("4", "kafka-features", ["--bootstrap-server", bootstrap, action,
                                     "--feature", f"transaction.version={level}"], timeout=120)
    deadline = time.monotonic() + 30
    while _finalized(port).get("transaction.version", 0) != level:
        assert time.monotonic() < deadline, f"transaction.version never reached {level}"
        time.sleep(0.1)


def _finalized(port: int) -> dict[str, int]:
    A = M.ApiVersionsRequest
    header = M.RequestHeader(request_api_key=ApiKey.API_VERSIONS, request_api_version=3,
                             correlation_id=1, client_id="tv-probe")
    body = A(client_software_name="tv-probe", client_software_version="1")
    deadline = time.monotonic() + 30
    with socket.create_connection((LOOPBACK, port), timeout=30) as s:
        s.sendall(encode_request(header, body))
        size = struct.unpack(">i", _recv(s, 4, deadline))[0]
        _corr, resp = decode_response(ApiKey.API_VERSIONS, 3, _recv(s, size, deadline))
    assert isinstance(resp, M.ApiVersionsResponse)
    return {f.name: f.max_version_level for f in resp.finalized_features}


def _committed_offset(bootstrap: str, group: str, topic: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                  "enable.auto.commit": False})
    try:
        return c.committed([TopicPartition(topic, 0)], timeout=30)[0].offset
    finally:
        c.close()


def _produce_v12(port: int, transactional_id: str, topic: str, producer_id: int,
                 epoch: int) -> ErrorCode:
    """One transactional batch as a Produce v12 from (producer id, epoch); its error."""
    batch = build_batch([(b"zombie", b"zombie")], producer_id=producer_id,
                        producer_epoch=epoch, base_sequence=0, is_transactional=True)
    P = M.ProduceRequest
    body = P(transactional_id=transactional_id, acks=-1, timeout_ms=10_000, topic_data=[
        P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=0, records=batch)])])
    header = M.RequestHeader(request_api_key=ApiKey.PRODUCE, request_api_version=12,
                             correlation_id=7, client_id="zombie")
    deadline = time.monotonic() + 30
    with socket.create_connection((LOOPBACK, port), timeout=30) as s:
        s.sendall(encode_request(header, body))
        size = struct.unpack(">i", _recv(s, 4, deadline))[0]
        _corr, resp = decode_response(ApiKey.PRODUCE, 12, _recv(s, size, deadline))
    assert isinstance(resp, M.ProduceResponse)
    return ErrorCode(resp.responses[0].partition_responses[0].error_code)


def _recv(s: socket.socket, n: int, deadline: float) -> bytes:
    buf = b""
    while len(buf) < n:
        assert time.monotonic() < deadline, "no Produce response"
        chunk = s.recv(n - len(buf))
        assert chunk, "connection closed"
        buf += chunk
    return buf
