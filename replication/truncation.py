"""Where a follower truncates its log to after a leader change (KIP-101, KIP-279).

Who may call it: ``kafpy.replication.fetcher.FetcherCore``, with the leader's answer about one
partition: a ``diverging_epoch`` in a Fetch response (truncation on fetch, KIP-595's
follower side, used by Kafka's fetchers since 2.7) or an OffsetsForLeaderEpoch result.
Both are ``(E, O)``: the largest epoch E <= the one asked about that the leader has, and
the offset where E ends in the leader's log.

The rule (Kafka's ``AbstractFetcherThread.getOffsetTruncationState``):

- the leader knows no such epoch (O undefined): truncate to the fetch offset the partition
  was added with, the follower's high watermark (logs written without epochs);
- the leader did not say which epoch (E undefined, OffsetsForLeaderEpoch v0): min(O, LEO);
- the follower has epoch E: truncate to min(O, its own end of E, LEO); done;
- the follower's largest epoch <= E is some E' < E: truncate to its own end of E' and ask
  again about E' (the leader's end of E' may be earlier still); not done yet;
- the follower has no epoch <= E: min(O, LEO) (it did not track epochs that far back).

Why the caller must truncate before anything else touches the partition's high watermark
(KAFKA-14704): a response that carries a diverging epoch also carries the leader's high
watermark; raising the follower's HW first would expose offsets of a tail that is about to
be removed. The fetcher ignores that response's HW and records entirely.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from kafpy.replication.follower_log import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, FollowerLog

__all__ = ["OffsetTruncationState", "offset_truncation_state", "truncate"]

log = logging.getLogger("kafka.server.ReplicaFetcherThread")


@dataclass(frozen=True, slots=True)
class OffsetTruncationState:
    """Truncate to ``offset``; ``truncation_completed`` is False when the leader must be
    asked again about an earlier epoch."""

    offset: int
    truncation_completed: bool


def offset_truncation_state(replica: FollowerLog, leader_epoch: int, leader_end_offset: int,
                            initial_fetch_offset: int, name: str = "") -> OffsetTruncationState:
    """Where to truncate ``replica`` given the leader's ``(leader_epoch, leader_end_offset)``;
    ``initial_fetch_offset`` is the partition's fetch offset (its HW when it was added)."""
    replica_end = replica.log_end_offset
    if leader_end_offset == UNDEFINED_EPOCH_OFFSET:
        log.warning("Based on replica's leader epoch, leader replied with an unknown offset in %s. "
                    "The initial fetch offset %d will be used for truncation.", name, initial_fetch_offset)
        return OffsetTruncationState(min(initial_fetch_offset, replica_end), True)
    if leader_epoch == UNDEFINED_EPOCH:
        log.warning("The leader did not name an epoch for %s; its end offset %d will be used for truncation.",
                    name, leader_end_offset)
        return OffsetTruncationState(min(leader_end_offset, replica_end), True)
    found = replica.end_offset_for_epoch(leader_epoch)
    if found is None:
        log.warning("The replica of %s has no leader epoch <= %d; truncating to the leader's end offset %d.",
                    name, leader_epoch, leader_end_offset)
        return OffsetTruncationState(min(leader_end_offset, replica_end), True)
    follower_epoch, follower_end = found
    if follower_epoch != leader_epoch:
        intermediate = min(follower_end, replica_end)
        log.info("Based on replica's leader epoch, leader replied with epoch %d unknown to the replica of %s; "
                 "truncating to %d, the end of its largest smaller epoch %d, and asking again.",
                 leader_epoch, name, intermediate, follower_epoch)
        return OffsetTruncationState(intermediate, False)
    return OffsetTruncationState(min(follower_end, leader_end_offset, replica_end), True)


def truncate(replica: FollowerLog, state: OffsetTruncationState) -> bool:
    """Truncates ``replica`` to ``state.offset``; True if records were removed. Called even
    when the offset is the log end (as Kafka's fetcher does): the log then drops only
    leader-epoch entries that start there, such as the epoch of a former leader that appended
    nothing in it. Kept, that entry would be the next fetch's last fetched epoch, which the
    leader answers with the same diverging epoch again, for ever: the replica would fetch
    nothing and never rejoin the ISR."""
    end = replica.log_end_offset
    replica.truncate_to(state.offset)
    return state.offset < end
