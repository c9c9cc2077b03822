"""The ``quorum-state`` file, as Kafka's ``FileQuorumStateStore`` keeps it in
``<metadata.log.dir>/__cluster_metadata-0/quorum-state``: one line of JSON, Kafka's
``QuorumStateData`` written by its generated JSON converter plus ``data_version``.

Version 0 (``kraft.version`` 0, static ``controller.quorum.voters``)::

    {"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,
     "currentVoters":[{"voterId":1}],"data_version":0}

Version 1 (``kraft.version`` 1, KIP-853)::

    {"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA",
     "data_version":1}

``ElectionState`` is what the file holds (Kafka's class of that name); ``QuorumState`` writes
it on every durable transition and reads it once at start.
"""
from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FILE_NAME = "quorum-state"
METADATA_PARTITION_DIR = "__cluster_metadata-0"
DATA_VERSION = "data_version"
LOWEST_SUPPORTED_VERSION = 0
HIGHEST_SUPPORTED_VERSION = 1
NO_DIRECTORY_ID = bytes(16)  # Kafka's Uuid.ZERO_UUID, "no directory id"
UNKNOWN_LEADER_ID = -1
NOT_VOTED = -1


class QuorumStateError(ValueError):
    """The quorum-state file cannot be read: bad JSON, a missing field, an unknown version."""


def uuid_to_string(raw: bytes) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, no padding."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def uuid_from_string(text: str) -> bytes:
    """Kafka's ``Uuid.fromString``: the 16 bytes of a 22-character URL-safe base64 string."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as e:
        raise QuorumStateError(f"invalid uuid {text!r}") from e
    if len(raw) != 16:
        raise QuorumStateError(f"invalid uuid {text!r}: {len(raw)} bytes")
    return raw


@dataclass(frozen=True)
class ReplicaKey:
    """A replica of the quorum: its node id and, from kraft.version 1, its directory id
    (``None`` when unknown, i.e. Kafka's ``Optional.empty()``)."""

    id: int
    directory_id: bytes | None = None

    @staticmethod
    def of(node_id: int, directory_id: bytes | None) -> ReplicaKey:
        """The zero uuid means "no directory id", as in Kafka's ``ReplicaKey.of``."""
        return ReplicaKey(node_id, None if directory_id in (None, NO_DIRECTORY_ID) else directory_id)

    def matches(self, other: ReplicaKey) -> bool:
        """Same node, and the same directory when both know theirs (``isVotedCandidate``)."""
        if self.id != other.id:
            return False
        if self.directory_id is None or other.directory_id is None:
            return True
        return self.directory_id == other.directory_id


@dataclass(frozen=True)
class ElectionState:
    """The durable part of a node's epoch state: epoch, the leader it knows, the candidate it
    voted for in that epoch; ``voters`` only for version 0 files (``currentVoters``)."""

    epoch: int
    leader_id: int | None = None
    voted_key: ReplicaKey | None = None
    voters: frozenset[int] = frozenset()

    def is_leader(self, node_id: int) -> bool:
        return self.leader_id is not None and self.leader_id == node_id

    def is_voted_candidate(self, key: ReplicaKey) -> bool:
        return self.voted_key is not None and self.voted_key.matches(key)

    def to_json(self, version: int) -> bytes:
        """The file's bytes, fields in the order Kafka's converter writes them."""
        if not LOWEST_SUPPORTED_VERSION <= version <= HIGHEST_SUPPORTED_VERSION:
            raise ValueError(f"quorum state data version {version} is not supported")
        voted_id = self.voted_key.id if self.voted_key is not None else NOT_VOTED
        leader_id = self.leader_id if self.leader_id is not None else UNKNOWN_LEADER_ID
        data: dict[str, object] = {}
        if version == 0:
            data["clusterId"] = ""
        data["leaderId"] = leader_id
        data["leaderEpoch"] = self.epoch
        data["votedId"] = voted_id
        if version == 0:
            data["appliedOffset"] = 0
            data["currentVoters"] = [{"voterId": v} for v in sorted(self.voters)]
        else:
            directory = self.voted_key.directory_id if self.voted_key is not None else None
            data["votedDirectoryId"] = uuid_to_string(directory or NO_DIRECTORY_ID)
        data[DATA_VERSION] = version
        return json.dumps(data, separators=(",", ":")).encode("utf-8")

    @staticmethod
    def from_json(text: bytes | str) -> ElectionState:
        """Parse the first line of a quorum-state file (Kafka reads only that line)."""
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as e:
                raise QuorumStateError("quorum-state is not UTF-8") from e
        line = text.split("\n", 1)[0]
        if not line:
            raise QuorumStateError("quorum-state file ended prematurely")
        try:
            node = json.loads(line)
        except json.JSONDecodeError as e:
            raise QuorumStateError(f"quorum-state is not JSON: {e}") from e
        if not isinstance(node, dict):
            raise QuorumStateError(f"quorum-state {line!r} is not an object")
        version = node.get(DATA_VERSION)
        if not isinstance(version, int) or isinstance(version, bool):
            raise QuorumStateError(f"quorum-state {line!r} has no {DATA_VERSION} field")
        if not LOWEST_SUPPORTED_VERSION <= version <= HIGHEST_SUPPORTED_VERSION:
            raise QuorumStateError(
                f"data_version ({version}) is not within the min ({LOWEST_SUPPORTED_VERSION}) "
                f"and max ({HIGHEST_SUPPORTED_VERSION}) supported version")
        leader_id = _int_field(node, "leaderId")
        epoch = _int_field(node, "leaderEpoch")
        voted_id = _int_field(node, "votedId")
        voters: frozenset[int] = frozenset()
        directory: bytes | None = None
        if version == 0:
            current = node.get("currentVoters")
            if current is not None:
                if not isinstance(current, list):
                    raise QuorumStateError("currentVoters is not an array")
                voters = frozenset(_int_field(v, "voterId") if isinstance(v, dict) else _bad("voterId")
                                   for v in current)
        else:
            raw = node.get("votedDirectoryId")
            if not isinstance(raw, str):
                raise QuorumStateError("quorum-state has no votedDirectoryId")
            directory = uuid_from_string(raw)
        return ElectionState(
            epoch=epoch,
            leader_id=None if leader_id == UNKNOWN_LEADER_ID else leader_id,
            voted_key=None if voted_id == NOT_VOTED else ReplicaKey.of(voted_id, directory),
            voters=voters,
        )


def _bad(name: str) -> int:
    raise QuorumStateError(f"quorum-state has an invalid {name}")


def _int_field(node: dict[str, object], name: str) -> int:
    value = node.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise QuorumStateError(f"quorum-state has no integer {name}")
    return value


def quorum_state_path(metadata_log_dir: str | Path) -> Path:
    """Where Kafka keeps the file: ``<metadata.log.dir>/__cluster_metadata-0/quorum-state``."""
    return Path(metadata_log_dir) / METADATA_PARTITION_DIR / DEFAULT_FILE_NAME


class FileQuorumStateStore:
    """Reads and atomically rewrites one quorum-state file (temp file, fsync, rename, fsync
    of the directory), so a crash leaves either the old or the new state, never a mix."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def temp_path(self) -> Path:
        return self.path.with_name(self.path.name + ".tmp")

    def read_election_state(self) -> ElectionState | None:
        """The stored state, or ``None`` when there is no file yet."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        return ElectionState.from_json(data)

    def write_election_state(self, state: ElectionState, version: int) -> None:
        data = state.to_json(version)
        temp = self.temp_path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, self.path)
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        finally:
            temp.unlink(missing_ok=True)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
        self.temp_path.unlink(missing_ok=True)


class MemoryQuorumStateStore:
    """The same contract in memory, holding the file's bytes (for tests and the simulation,
    which restarts nodes from exactly what would be on disk)."""

    def __init__(self, data: bytes | None = None) -> None:
        self.data = data

    def read_election_state(self) -> ElectionState | None:
        return None if self.data is None else ElectionState.from_json(self.data)

    def write_election_state(self, state: ElectionState, version: int) -> None:
        self.data = state.to_json(version)

    def clear(self) -> None:
        self.data = None
