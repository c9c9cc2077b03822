"""kafpy's quorum-state reader and writer against Apache Kafka 4.4's own file: read what a
stopped 4.4 node left, then hand it a file kafpy wrote and see it start from that epoch."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from kafpy.raft.quorum_state_store import (
    ElectionState, FileQuorumStateStore, ReplicaKey, quorum_state_path, uuid_from_string,
)
from tests.support.kafka_dist import ReferenceKafka, run_tool


class StandaloneKafka(ReferenceKafka):
    """A 4.4 node formatted ``--standalone`` (kraft.version 1, dynamic quorum): its
    quorum-state is data_version 1 and carries directory ids."""

    def properties(self) -> dict[str, str]:
        props = super().properties()
        props.pop("controller.quorum.voters")
        props["controller.quorum.bootstrap.servers"] = f"127.0.0.1:{self.controller_port}"
        return props

    def format(self) -> None:
        self._write_config()
        run_tool(self.version, "kafka-storage",
                 ["format", "-t", self.cluster_id, "-c", str(self.config_path), "--standalone"],
                 timeout=120)
        self._formatted = True


def state_file_of(kafka: ReferenceKafka) -> Path:
    return quorum_state_path(kafka.work_dir / "metadata")


def directory_id(kafka: ReferenceKafka) -> bytes:
    for line in (kafka.work_dir / "metadata" / "meta.properties").read_text().splitlines():
        if line.startswith("directory.id="):
            return uuid_from_string(line.split("=", 1)[1])
    raise AssertionError("meta.properties has no directory.id")


@pytest.fixture
def static_kafka() -> Iterator[ReferenceKafka]:
    kafka = ReferenceKafka("4")
    try:
        yield kafka
    finally:
        kafka.stop()
        kafka.cleanup()


@pytest.fixture
def standalone_kafka() -> Iterator[ReferenceKafka]:
    kafka = StandaloneKafka("4")
    try:
        yield kafka
    finally:
        kafka.stop()
        kafka.cleanup()


def test_static_quorum_version_0_file(static_kafka: ReferenceKafka) -> None:
    static_kafka.start()
    static_kafka.stop()
    store = FileQuorumStateStore(state_file_of(static_kafka))
    state = store.read_election_state()
    assert state is not None
    assert state.leader_id == 1 and state.epoch >= 1 and state.voted_key is None
    assert state.voters == frozenset({1})
    assert b'"data_version":0' in store.path.read_bytes()

    # An epoch kafpy wrote, with no leader: Apache starts Unattached there, runs a pre-vote
    # and an election, and leads the next epoch.
    epoch = state.epoch + 3
    store.write_election_state(ElectionState(epoch, None, None, frozenset({1})), 0)
    static_kafka.start()
    static_kafka.stop()
    after = store.read_election_state()
    assert after == ElectionState(epoch + 1, 1, None, frozenset({1}))


def test_standalone_quorum_version_1_file(standalone_kafka: ReferenceKafka) -> None:
    standalone_kafka.start()
    standalone_kafka.stop()
    store = FileQuorumStateStore(state_file_of(standalone_kafka))
    state = store.read_election_state()
    assert state is not None
    assert state.leader_id == 1 and state.epoch >= 1 and state.voted_key is None
    assert b'"data_version":1' in store.path.read_bytes()

    # kafpy's file says "candidate in epoch E, voted for itself (with its directory id)":
    # Apache restarts as that Candidate and wins epoch E itself, no new epoch.
    epoch = state.epoch + 5
    store.write_election_state(ElectionState(epoch, None, ReplicaKey(1, directory_id(standalone_kafka))), 1)
    standalone_kafka.start()
    standalone_kafka.stop()
    assert store.read_election_state() == ElectionState(epoch, 1, None)
