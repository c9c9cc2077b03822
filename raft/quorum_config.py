"""The ``controller.quorum.*`` settings the consensus core reads (Kafka's ``QuorumConfig``),
with Kafka 4.4's defaults."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class QuorumConfig:
    """Timeouts in milliseconds and the largest FetchSnapshot chunk; built by the node from
    its properties."""

    election_timeout_ms: int = 1000  # controller.quorum.election.timeout.ms
    election_backoff_max_ms: int = 1000  # controller.quorum.election.backoff.max.ms
    fetch_timeout_ms: int = 2000  # controller.quorum.fetch.timeout.ms
    request_timeout_ms: int = 2000  # controller.quorum.request.timeout.ms
    retry_backoff_ms: int = 20  # controller.quorum.retry.backoff.ms
    fetch_max_bytes: int = 1048576  # controller.quorum.fetch.max.bytes
    fetch_snapshot_max_bytes: int = 1048576  # controller.quorum.fetch.snapshot.max.bytes
    auto_join: bool = False  # controller.quorum.auto.join.enable: an observer adds itself (KIP-853)

    AUTO_JOIN_KEY = "controller.quorum.auto.join.enable"

    KEYS = {
        "controller.quorum.election.timeout.ms": "election_timeout_ms",
        "controller.quorum.election.backoff.max.ms": "election_backoff_max_ms",
        "controller.quorum.fetch.timeout.ms": "fetch_timeout_ms",
        "controller.quorum.request.timeout.ms": "request_timeout_ms",
        "controller.quorum.retry.backoff.ms": "retry_backoff_ms",
        "controller.quorum.fetch.max.bytes": "fetch_max_bytes",
        "controller.quorum.fetch.snapshot.max.bytes": "fetch_snapshot_max_bytes",
    }

    MINIMUMS = {"fetch_max_bytes": 1, "fetch_snapshot_max_bytes": 1}  # Kafka's atLeast(1); the others atLeast(0)

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> QuorumConfig:
        """Read the keys above (unknown keys are not this class's business)."""
        values: dict[str, int] = {}
        for key, attr in cls.KEYS.items():
            if key in props:
                value = int(props[key])
                if value < cls.MINIMUMS.get(attr, 0):
                    raise ValueError(f"Invalid value {value} for configuration {key}: Value must be at least "
                                     f"{cls.MINIMUMS.get(attr, 0)}")
                values[attr] = value
        auto_join = props.get(cls.AUTO_JOIN_KEY, "false").strip().lower() == "true"
        return cls(**values, auto_join=auto_join)
