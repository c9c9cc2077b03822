"""The checks of a member's heartbeat that consumer and Streams groups make alike, in Kafka
4.4's words: its epoch (throwIfMemberEpochIsInvalid) and its static instance id
(throwIfStaticMemberIsUnknown, throwIfInstanceIdIsFenced, throwIfInstanceIdIsUnreleased).

Who calls it: consumer/coordinator.py and streams/coordinator.py, which say what a member
owns in their own terms (partitions or tasks). Pure: no state, no clock.
"""
from __future__ import annotations

import logging
from typing import Mapping

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.results import HeartbeatResult

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")


def epoch_error(kind: str, member_epoch: int, previous_member_epoch: int, epoch: int,
                owns_only_what_it_was_given: bool) -> HeartbeatResult | None:
    """FENCED_MEMBER_EPOCH for an epoch newer than the coordinator gave, or older unless it
    is the previous epoch and the member owns nothing it was not given (a lost response).
    `kind`: "consumer" or "streams", as Kafka's messages name the group."""
    if epoch > member_epoch:
        return HeartbeatResult(ErrorCode.FENCED_MEMBER_EPOCH,
                               f"The {kind} group member has a greater member epoch ({epoch}) than "
                               f"the one known by the group coordinator ({member_epoch}). "
                               f"The member must abandon all its partitions and rejoin.")
    if epoch < member_epoch and not (epoch == previous_member_epoch and owns_only_what_it_was_given):
        return HeartbeatResult(ErrorCode.FENCED_MEMBER_EPOCH,
                               f"The {kind} group member has a smaller member epoch ({epoch}) "
                               f"than the one known by the group coordinator "
                               f"({member_epoch}). The member must abandon all its "
                               f"partitions and rejoin.")
    return None


def instance_error(group_id: str, static_members: Mapping[str, str], member_id: str,
                   instance_id: str) -> HeartbeatResult | None:
    """UNKNOWN_MEMBER_ID for an instance id no member has, FENCED_INSTANCE_ID for one
    another member id owns (the owner stays)."""
    owner = static_members.get(instance_id)
    if owner is None:
        return HeartbeatResult(ErrorCode.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
    if owner != member_id:
        log.info("[GroupId %s] Static member %s with instance id %s is fenced by existing "
                 "member %s.", group_id, member_id, instance_id, owner)
        return HeartbeatResult(ErrorCode.FENCED_INSTANCE_ID,
                               f"Static member {member_id} with instance id {instance_id} was "
                               f"fenced by member {owner}.")
    return None


def unreleased_instance_error(member_id: str, instance_id: str, owner: str) -> HeartbeatResult:
    """UNRELEASED_INSTANCE_ID: a member joining with an instance id a live member owns
    (even under its own member id)."""
    return HeartbeatResult(ErrorCode.UNRELEASED_INSTANCE_ID,
                           f"Static member {member_id} with instance id {instance_id} cannot join "
                           f"the group because the instance id is owned by {owner} member.")
