"""The quorum-state file in Kafka 4.4's JSON, both data versions, written atomically."""
from __future__ import annotations

from pathlib import Path

import pytest

from kafpy.raft.quorum_state_store import (
    ElectionState, FileQuorumStateStore, QuorumStateError, ReplicaKey, quorum_state_path,
    uuid_from_string, uuid_to_string,
)

# What Apache Kafka 4.4 wrote as the leader of a single-node quorum (see
# tests/integration/raft/test_quorum_state_fidelity.py, which reads them off a live node).
APACHE_V1_LEADER = b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}'
APACHE_V0_LEADER = b'{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}'


def test_reads_apache_version_1() -> None:
    state = ElectionState.from_json(APACHE_V1_LEADER)
    assert state == ElectionState(epoch=1, leader_id=1, voted_key=None)
    assert state.is_leader(1) and not state.is_leader(2)


def test_reads_apache_version_0() -> None:
    state = ElectionState.from_json(APACHE_V0_LEADER)
    assert state == ElectionState(epoch=1, leader_id=1, voted_key=None, voters=frozenset({1}))


def test_writes_the_bytes_apache_writes() -> None:
    assert ElectionState(1, 1, None).to_json(1) == APACHE_V1_LEADER
    assert ElectionState(1, 1, None, frozenset({1})).to_json(0) == APACHE_V0_LEADER


def test_voted_key_with_and_without_directory() -> None:
    directory = bytes(range(16))
    state = ElectionState(7, None, ReplicaKey(3, directory))
    text = state.to_json(1)
    assert b'"leaderId":-1' in text and b'"votedId":3' in text
    assert uuid_to_string(directory).encode() in text
    assert ElectionState.from_json(text) == state
    # A zero directory id reads back as "no directory" (kraft.version 0 voters).
    plain = ElectionState(7, None, ReplicaKey(3, None))
    assert ElectionState.from_json(plain.to_json(1)) == plain
    assert ElectionState.from_json(plain.to_json(0)).voted_key == ReplicaKey(3, None)


def test_uuid_strings_are_kafkas() -> None:
    assert uuid_to_string(bytes(15) + b"\x01") == "AAAAAAAAAAAAAAAAAAAAAQ"  # METADATA_TOPIC_ID
    assert uuid_from_string("AAAAAAAAAAAAAAAAAAAAAQ") == bytes(15) + b"\x01"


@pytest.mark.parametrize("text", [
    b"", b"not json", b"[1]", b'{"leaderId":1,"leaderEpoch":1,"votedId":-1}',
    b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":2}',
    b'{"leaderId":"x","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":1}',
    b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAA","data_version":1}',
])
def test_rejects_bad_files(text: bytes) -> None:
    with pytest.raises(QuorumStateError):
        ElectionState.from_json(text)


def test_file_store_round_trip_and_atomic_replace(tmp_path: Path) -> None:
    path = quorum_state_path(tmp_path)
    assert path == tmp_path / "__cluster_metadata-0" / "quorum-state"
    store = FileQuorumStateStore(path)
    assert store.read_election_state() is None
    store.write_election_state(ElectionState(3, None, ReplicaKey(2, None)), 1)
    assert store.read_election_state() == ElectionState(3, None, ReplicaKey(2, None))
    store.write_election_state(ElectionState(4, 1, None), 1)
    assert path.read_bytes() == ElectionState(4, 1, None).to_json(1)
    assert sorted(p.name for p in path.parent.iterdir()) == ["quorum-state"]  # no temp left
    store.clear()
    assert store.read_election_state() is None


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    store.write_election_state(ElectionState(4, 1, None), 1)

    def broken_fsync(fd: int) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr("kafpy.raft.quorum_state_store.os.fsync", broken_fsync)
    with pytest.raises(OSError):
        store.write_election_state(ElectionState(5, 2, None), 1)
    monkeypatch.undo()
    assert store.read_election_state() == ElectionState(4, 1, None)
    assert not store.temp_path.exists()
