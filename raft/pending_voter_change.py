"""An AddRaftVoter or RemoveRaftVoter the leader has appended and not yet answered (the state
Kafka's ``AddVoterHandlerState`` / ``RemoveVoterHandlerState`` keep): created by
``voter_changes``, kept by ``RaftCore`` (one at a time), awaited by the raft client.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AddRaftVoterResponse, RemoveRaftVoterResponse
from kafpy.raft.quorum_state_store import ReplicaKey
from kafpy.raft.voter_set import Endpoint

VoterChangeResponse = Union[AddRaftVoterResponse, RemoveRaftVoterResponse]

# Kafka's Errors default messages for the errors answered without one of their own
DEFAULT_MESSAGES = {
    ErrorCode.NONE: None,
    ErrorCode.NOT_LEADER_OR_FOLLOWER: (
        "For requests intended only for the leader, this error indicates that the broker is not the current "
        "leader. For requests intended for any replica, this error indicates that the broker is not a replica "
        "of the topic partition."),
    ErrorCode.REQUEST_TIMED_OUT: "The request timed out.",
}


@dataclass
class PendingVoterChange:
    """An AddRaftVoter or RemoveRaftVoter waiting for its VotersRecord to commit: the offset
    of that record, the deadline, and the answer once there is one (the driver waits for it)."""

    add: bool
    voter: ReplicaKey
    last_offset: int  # -1 until the VotersRecord is appended
    deadline_ms: int
    response: VoterChangeResponse | None = None
    endpoints: tuple[Endpoint, ...] = ()  # the voter being added: where to send ApiVersions
    awaiting_api_versions: bool = False
    api_versions_sent: bool = False
    # AddRaftVoter v1's AckWhenCommitted: false answers once the VotersRecord is appended
    # (the change stays pending, and blocks the next, until it commits)
    ack_when_committed: bool = True

    def complete(self, error: ErrorCode, message: str | None = None) -> None:
        if self.response is not None:
            return
        text = message if message is not None else DEFAULT_MESSAGES.get(error)
        self.response = (AddRaftVoterResponse if self.add else RemoveRaftVoterResponse)(
            error_code=int(error), error_message=text)
