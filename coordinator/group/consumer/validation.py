"""Which ConsumerGroupHeartbeat requests are INVALID_REQUEST before any group is looked at,
in Kafka 4.4's order and words (GroupCoordinatorService's
throwIfConsumerGroupHeartbeatRequestIsInvalid).

Called by ConsumerGroupCoordinator for every heartbeat; kept apart because it reads no
state but the request and the configured assignor names."""
from __future__ import annotations

from typing import Collection

from kafpy.coordinator.group.consumer.group import JOIN_EPOCH, LEAVE_EPOCH, STATIC_LEAVE_EPOCH, Assignment


def _blank(value: str | None) -> bool:
    """Kafka's throwIfEmptyString: null passes, an empty or all-blank string does not."""
    return value is not None and not value.strip()


def invalid_heartbeat_reason(group_id: str, member_id: str, member_epoch: int,
                             instance_id: str | None, rack_id: str | None,
                             rebalance_timeout_ms: int, names: list[str] | None,
                             regex: str | None, owned: Assignment | None,
                             api_version: int) -> str | None:
    """Why the heartbeat is INVALID_REQUEST, or None. `owned` is the request's
    TopicPartitions (None when null)."""
    if (api_version >= 1 or member_epoch > 0 or member_epoch == LEAVE_EPOCH) and not member_id.strip():
        return "MemberId can't be empty."
    if _blank(group_id) or not group_id:
        return "GroupId can't be empty."
    if _blank(instance_id):
        return "InstanceId can't be empty."
    if _blank(rack_id):
        return "RackId can't be empty."
    if member_epoch == JOIN_EPOCH:
        if rebalance_timeout_ms == -1:
            return "RebalanceTimeoutMs must be provided in first request."
        if owned is None or owned:
            return "TopicPartitions must be empty when (re-)joining."
        if names is None and regex is None:
            return "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."
    elif member_epoch == STATIC_LEAVE_EPOCH:
        if instance_id is None:
            return "InstanceId can't be null."
    elif member_epoch < STATIC_LEAVE_EPOCH:
        return "MemberEpoch is invalid."
    return None


def unsupported_assignor_message(server_assignor: str | None, assignors: Collection[str]) -> str | None:
    """UNSUPPORTED_ASSIGNOR's message when the member names an assignor the broker lacks."""
    if server_assignor is None or server_assignor in assignors:
        return None
    return (f"ServerAssignor {server_assignor} is not supported. Supported assignors: "
            f"{', '.join(assignors)}.")
