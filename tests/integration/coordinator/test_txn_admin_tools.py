"""Apache Kafka's `kafka-transactions` against kafpy: describe-producers lists a partition's
producers, find-hanging tells a transaction no coordinator will end (a batch appended
without verification, as before KIP-890) from one its coordinator knows, and abort ends the
hanging one with the WriteTxnMarkers the admin client sends to the partition leader itself."""
from __future__ import annotations

import pytest

from kafpy.protocol.records import build_batch
from tests.integration.broker.raw import RawConnection, create_topic
from tests.integration.cluster.harness import wait_until
from tests.integration.cluster.txn_raw import RawTxnProducer, find_txn_coordinator, latest_offset, produce_batch
from tests.support.kafka_dist import DEFAULT_KAFKA_4, run_tool
from tests.support.kafpy_broker import KafpyBroker

TOPIC = "txn-hanging"
GHOST_PID = 777_777


def table(stdout: str) -> list[dict[str, str]]:
    """The rows of the tools' tab-separated table, by header."""
    lines = [line.split("\t") for line in stdout.strip().splitlines()]
    header = [h.strip() for h in lines[0]]
    return [dict(zip(header, (c.strip() for c in row))) for row in lines[1:]]


def tool(bootstrap: str, *args: str) -> str:
    return run_tool(DEFAULT_KAFKA_4, "kafka-transactions", ["--bootstrap-server", bootstrap, *args]).stdout


@pytest.fixture
def unverified_broker(tmp_path):
    b = KafpyBroker(work_dir=tmp_path, log_dir=tmp_path / "logs", start_timeout=150, overrides={
        "transaction.state.log.num.partitions": 1, "transaction.partition.verification.enable": "false"})
    b.start()
    try:
        yield b
    finally:
        b.stop()


def test_describe_producers_find_hanging_and_abort(unverified_broker):
    b = unverified_broker
    create_topic(b.port, TOPIC)
    with RawConnection(b.host, b.port) as c:
        # a transaction its coordinator knows, and one appended for a producer it never saw
        wait_until(lambda: find_txn_coordinator(c, "tx-live")[0] == 0, 30, "the coordinator")
        live = RawTxnProducer(c, "tx-live")
        wait_until(lambda: live.init() == 0, 30, "InitProducerId")
        error, ghost_start = produce_batch(c, TOPIC, 0, build_batch(
            [(None, b"ghost")], producer_id=GHOST_PID, producer_epoch=0, base_sequence=0, is_transactional=True),
            "tx-ghost")
        assert error == 0
        assert live.add_partitions(TOPIC, [0]) == {0: 0}
        assert live.produce(c, TOPIC, 0, [b"live"]) == 0

        producers = {int(r["ProducerId"]): r for r in table(tool(b.bootstrap, "describe-producers", "--topic", TOPIC,
                                                                 "--partition", "0"))}
        assert producers[GHOST_PID]["CurrentTransactionStartOffset"] == str(ghost_start)
        assert producers[live.producer_id]["CurrentTransactionStartOffset"] == str(ghost_start + 1)

        hanging = table(tool(b.bootstrap, "find-hanging", "--topic", TOPIC, "--max-transaction-timeout", "0"))
        assert [(int(r["ProducerId"]), int(r["StartOffset"])) for r in hanging] == [(GHOST_PID, ghost_start)]

        tool(b.bootstrap, "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", str(ghost_start))
        assert table(tool(b.bootstrap, "find-hanging", "--topic", TOPIC, "--max-transaction-timeout", "0")) == []
        assert latest_offset(c, TOPIC, 0, True) == ghost_start + 1  # the live transaction still holds the LSO
        assert live.end(commit=True) == 0
        wait_until(lambda: latest_offset(c, TOPIC, 0, True) == latest_offset(c, TOPIC, 0, False), 30,
                   "the last stable offset at the end once the live transaction commits")
