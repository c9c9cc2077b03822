"""Consume-transform-produce with the consumed offsets committed in the producer's
transaction (sendOffsetsToTransaction), killed with SIGKILL at random points and restarted:
the output topic, read with read_committed, holds each input record's result exactly once.
Java: Kafka's TransactionalMessageCopier (with its random aborts) of Kafka 3.9 (transaction
version 1) and 4.x (version 2: an epoch bump per transaction, offsets partitions added by
TxnOffsetCommit v5); Python: confluent-kafka (version 1)."""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from tests.integration.coordinator.helpers import create_topic, produce
from tests.support import process

from .helpers import finish, read_confluent, start_java_copier, start_python_client

KILLS = 2


def _kill_at_random_points(start, log: Path, rng: random.Random) -> int:
    """Start the copier KILLS times, each killed with SIGKILL after a random number (1-4) of
    progress lines; then once more, left to finish. Returns how many runs were killed while
    still copying (a run may finish before its kill point)."""
    killed = 0
    with open(log, "a") as err:
        for _ in range(KILLS):
            proc = start(err)
            reader = process.LineReader(proc.stdout)
            try:
                reader.lines(rng.randint(1, 4), timeout=120)
                killed += process.kill(proc) != 0
            except EOFError:
                process.kill(proc)  # finished before the kill point
        finish(start(err), log, timeout=180)
    return killed


@pytest.mark.parametrize("client", ["3.9", "4"], ids=lambda v: f"java{v}")
def test_java_copier_killed_and_restarted(txn_broker, tmp_path, client):
    name = f"ctp-java{client.replace('.', '')}"
    source, sink = f"{name}-in", f"{name}-out"
    create_topic(txn_broker.bootstrap, source, 1)
    create_topic(txn_broker.bootstrap, sink, 1)
    values = [f"j{i}" for i in range(1500)]
    produce(txn_broker.bootstrap, source, [v.encode() for v in values])
    seed = random.randrange(1 << 30)
    assert _kill_at_random_points(
        lambda err: start_java_copier(err, client, txn_broker.bootstrap, source, sink, name),
        tmp_path / "copier.err", random.Random(seed)) >= 1
    got = Counter(v for _, v in read_confluent(txn_broker.bootstrap, sink))
    assert got == Counter(values), f"seed {seed}: missing {Counter(values) - got}, " \
                                   f"extra {got - Counter(values)}"


def test_confluent_copier_killed_and_restarted(txn_broker, tmp_path):
    source, sink = "ctp-py-in", "ctp-py-out"
    create_topic(txn_broker.bootstrap, source, 3)
    create_topic(txn_broker.bootstrap, sink, 3)
    values = [f"p{i}" for i in range(600)]
    produce(txn_broker.bootstrap, source, [v.encode() for v in values], partitions=3)
    seed = random.randrange(1 << 30)
    assert _kill_at_random_points(
        lambda err: start_python_client(err, "copy", txn_broker.bootstrap, source, sink, "ctp-py"),
        tmp_path / "copier.err", random.Random(seed)) >= 1
    got = Counter(read_confluent(txn_broker.bootstrap, sink))
    want = Counter((i % 3, f"out-p{i}") for i in range(len(values)))
    assert got == want, f"seed {seed}: missing {want - got}, extra {got - want}"
