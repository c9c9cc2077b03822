"""Seeds that once found a defect (in the broker or in this harness), each with what it does:
``python -m tests.faults --regression`` runs them all; the CI-sized suite
(tests/integration/faults) runs the cheap ones, named in CI_SEEDS."""
from __future__ import annotations

REGRESSIONS = {
    8: "a broker cut from its peers both ways, then a partition leader killed meanwhile",
    12: "a leader killed, a broker cut one way from ZooKeeper, then ZooKeeper killed, overlapping; "
        "one run in about 25: ZooKeeper died while the controller took the dead broker out of ISRs, "
        "the writes landed, their answers did not, and the retries met the versions they had made: "
        "the controller re-decided from its own writes, found nothing to do and told no leader of "
        "the new leader epoch, so every leader's ISR expansion was refused as fenced for ever",
    46: "a full log disk on a leader",
    203: "ZooKeeper killed, then a broker cut from it past its session: it took 24 s to come back "
         "after the cut healed (the ZooKeeper client's reconnect backoff grew to tens of seconds)",
    107: "pause, then the controller killed, then ZooKeeper killed and restarted before it: the "
         "restarted controller exits (BrokerIdInUseError) until its previous session expires",
    259: "a broker cut one way from ZooKeeper after it was elected leader and before any write in that "
         "epoch: following the next leader it kept that epoch (starting at its log end) in its cache, sent "
         "it as last fetched epoch for ever and never rejoined the ISR",
    271: "as 259, the leader paused past its session instead",
    281: "a broker cut from everything, then a follower's disk full: the idempotent confluent producer "
         "wrote 5 records twice, the first copies under producer epoch 0 (sequences 302-306), the second "
         "under epoch 1 from sequence 0 (librdkafka bumped its epoch, KIP-360, and re-sent records that "
         "were in fact written: confluentinc/librdkafka#4953). Kafka promises idempotence per producer "
         "id and epoch: counted as duplicates across epochs, not violations",
}
CI_SEEDS = (8, 12, 46)  # 107 and 203 take ~40 s each: the long command runs them

# Seeds that fail today, with what they showed; each moves to REGRESSIONS once fixed
# (``python -m tests.faults --runs 1 --seed N`` replays one).
OPEN = {
    248: "idempotent confluent producer: 'ck-idem:143','ck-idem:144' at offsets 155-156 and again at "
         "462-463 of partition 2, 'ck-idem:141' at 173 and (re-batched with :142) at 174 of partition 1, "
         "after the partitions' leader (also the controller) was cut one way from ZooKeeper. That run's "
         "logs were not kept and replays have not bumped the producer epoch (no duplicates) so far; a "
         "run now records the batch headers, so the next occurrence shows whether the copies are under "
         "one epoch (a broker defect) or across epochs (allowed, as 281)",
}

# Which list of fault kinds (tests/faults/faults.py KIND_LISTS) a kept seed was found with, so
# that its schedule stays the same when a kind is added; a seed not named here was found
# before slow_disk existed ("before_slow_disk")
KINDS_FOUND_WITH: dict[int, str] = {}
