"""A transactional consume-transform-produce stress run under transaction version 2, on
Apache Kafka 4.4 and kafpy: many short transactions per consumer (1-5 records), one in
five aborted and redone, a throw-away transaction begun and aborted right after one
commit in three (its EndTxn arrives while the commit's markers are out: Kafka answers
CONCURRENT_TRANSACTIONS and the client retries), and one transaction per consumer
abandoned mid-way (the process halts with its records sent; a new incarnation fences it).
Clients: the Java 4.4 producer/consumer (TxnStress.java, EndTxn v5), franz-go v1.22.3
(franz/main.go, a GroupTransactSession: transaction version 2 too, EndTxn v5 and Produce
v12+, as test_transaction_v2.py reads through a recording proxy with the same worker) and
confluent-kafka (librdkafka, transaction version 1; it flushes before an abort, as a
librdkafka race fails its producer on Apache Kafka too: see txn_client.py). Every run must
end with each input record's result exactly once under read_committed, and no junk; RUNS
runs in a row, each bounded in time (two in the suite, to keep it short;
KAFPY_TXN_STRESS_RUNS=10 for the ten-run acceptance).
"""
from __future__ import annotations

import os
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.coordinator.helpers import create_topic, produce
from tests.support import process

from .helpers import read_confluent, start_stress_worker

RUNS = int(os.environ.get("KAFPY_TXN_STRESS_RUNS", "2"))
PARTITIONS = 2
RECORDS = 120           # per partition
RUN_TIMEOUT_S = 180.0   # one worker incarnation


def _wait(proc: subprocess.Popen, out: Path, expected: int) -> None:
    try:
        code = proc.wait(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill(proc)
        raise AssertionError(f"worker still running after {RUN_TIMEOUT_S} s:\n{process.tail(out)}")
    assert code == expected, f"worker exited {code}, expected {expected}:\n{process.tail(out)}"


def _one_run(bootstrap: str, client: str, run: int, seed: int, tmp: Path) -> None:
    name = f"stress-{client}-{run}"
    source, sink, group = f"{name}-in", f"{name}-out", f"{name}-group"
    create_topic(bootstrap, source, PARTITIONS)
    create_topic(bootstrap, sink, PARTITIONS)
    values = [f"{name}-v{i}" for i in range(RECORDS * PARTITIONS)]
    produce(bootstrap, source, [v.encode() for v in values], partitions=PARTITIONS)
    rnd = random.Random(seed)
    logs = [tmp / f"{name}-p{p}.log" for p in range(PARTITIONS)]

    def start(p: int, abandon_at: int) -> subprocess.Popen:
        return start_stress_worker(client, logs[p], bootstrap, source, str(p), sink, group,
                                   f"{name}-txn-{p}", str(rnd.randrange(1 << 30)), str(abandon_at))
    # each consumer abandons one transaction mid-way, then a new incarnation finishes
    first = [start(p, rnd.randint(3, 12)) for p in range(PARTITIONS)]
    for p, proc in enumerate(first):
        _wait(proc, logs[p], 3)
    second = [start(p, 0) for p in range(PARTITIONS)]
    for p, proc in enumerate(second):
        _wait(proc, logs[p], 0)
    got = Counter(read_confluent(bootstrap, sink))
    want = Counter((i % PARTITIONS, f"out-{v}") for i, v in enumerate(values))
    assert got == want, f"{name} seed {seed}: missing {want - got}, extra {got - want}"


@pytest.mark.parametrize("client", ["java4", "confluent", "franz"])
def test_short_transactions_with_aborts_and_abandoned_ones(txn_broker, tmp_path, client):
    seed = random.randrange(1 << 30)
    for run in range(RUNS):
        _one_run(txn_broker.bootstrap, client, run, seed + run, tmp_path)
