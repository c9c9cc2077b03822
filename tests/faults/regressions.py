"""Seeds that once found a defect (in the broker or in this harness), each with what it does:
``python -m tests.faults --regression`` runs them all; the CI-sized suite
(tests/integration/faults) runs the cheap ones, named in CI_SEEDS."""
from __future__ import annotations

REGRESSIONS = {
    8: "a broker cut from its peers both ways, then a partition leader killed meanwhile",
    12: "a leader killed, a broker cut one way from ZooKeeper, then ZooKeeper killed, overlapping",
    46: "a full log disk on a leader",
    203: "ZooKeeper killed, then a broker cut from it past its session: it took 24 s to come back "
         "after the cut healed (the ZooKeeper client's reconnect backoff grew to tens of seconds)",
    107: "pause, then the controller killed, then ZooKeeper killed and restarted before it: the "
         "restarted controller exits (BrokerIdInUseError) until its previous session expires",
}
CI_SEEDS = (8, 12, 46)  # 107 and 203 take ~40 s each: the long command runs them
