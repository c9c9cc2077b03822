"""Kafka error codes the group coordinator returns (Kafka's numbers).

Kept local as plain ints so the state machine depends on nothing else in the
project; they are identical to `protocol.errors.ErrorCode` values.
"""

NONE = 0
UNKNOWN_SERVER_ERROR = -1
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_FETCH_SIZE = 4
NOT_LEADER_OR_FOLLOWER = 6
REQUEST_TIMED_OUT = 7
MESSAGE_TOO_LARGE = 10
OFFSET_METADATA_TOO_LARGE = 12
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
RECORD_LIST_TOO_LARGE = 18
NOT_ENOUGH_REPLICAS = 19
NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
INVALID_GROUP_ID = 24
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
INVALID_COMMIT_OFFSET_SIZE = 28
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
KAFKA_STORAGE_ERROR = 56
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
MEMBER_ID_REQUIRED = 79
GROUP_MAX_SIZE_REACHED = 81
FENCED_INSTANCE_ID = 82
GROUP_SUBSCRIBED_TO_TOPIC = 86
UNSTABLE_OFFSET_COMMIT = 88


def append_error_to_commit_error(code: int) -> int:
    """Map an error from appending to __consumer_offsets to what OffsetCommit returns
    (as Kafka's GroupMetadataManager does)."""
    if code in (UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS,
                NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT):
        return COORDINATOR_NOT_AVAILABLE
    if code in (NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR):
        return NOT_COORDINATOR
    if code in (MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE):
        return INVALID_COMMIT_OFFSET_SIZE
    return code


def append_error_to_group_error(code: int) -> int:
    """Map an append error to what SyncGroup returns when the group could not be stored."""
    if code in (UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS,
                NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT):
        return COORDINATOR_NOT_AVAILABLE
    if code in (NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR):
        return NOT_COORDINATOR
    if code in (MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE):
        return UNKNOWN_SERVER_ERROR
    return code
