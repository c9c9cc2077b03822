"""How a failed write to `__consumer_offsets` becomes the error a group API answers.

The codes themselves are `kafpy.protocol.errors.ErrorCode`; this module only keeps Kafka's
translation (GroupCoordinatorService.handleOperationException and
GroupMetadataManager.appendGroupMetadataErrorToResponseError): a client must see a
coordinator error it knows how to retry (find the coordinator again, or wait), never a
produce error about a topic it did not write to.
"""

from __future__ import annotations

from kafpy.protocol.errors import ErrorCode

# The partition is unavailable for now: retry against the same coordinator later.
_UNAVAILABLE = frozenset({
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_ENOUGH_REPLICAS,
    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, ErrorCode.REQUEST_TIMED_OUT})
# This broker no longer leads the partition: find the coordinator again.
_MOVED = frozenset({ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR})
_TOO_LARGE = frozenset({ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE,
                        ErrorCode.INVALID_FETCH_SIZE})


def _translate(code: int, too_large: ErrorCode) -> ErrorCode:
    code = ErrorCode(code)
    if code in _UNAVAILABLE:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if code in _MOVED:
        return ErrorCode.NOT_COORDINATOR
    if code in _TOO_LARGE:
        return too_large
    return code


def append_error_to_commit_error(code: int) -> ErrorCode:
    """What OffsetCommit answers when its append failed with `code`."""
    return _translate(code, ErrorCode.INVALID_COMMIT_OFFSET_SIZE)


def append_error_to_group_error(code: int) -> ErrorCode:
    """What JoinGroup/SyncGroup answer when the group could not be stored."""
    return _translate(code, ErrorCode.UNKNOWN_SERVER_ERROR)
