"""The one table of the coordinators' record types (Kafka's CoordinatorRecordType): the
int16 in front of every record key of an internal topic names the record's type, and
the key is encoded at that version. Each kind of group reads only its own types back.

Who uses it: group/records.py (classic groups, and which keys are another kind's),
group/consumer/records.py, group/share/records.py, group/streams/records.py,
share_state/records.py and transaction/records.py name their records from here; the
group coordinators pick their records from `__consumer_offsets` by these sets when a
partition is loaded. Numbers from Kafka 4.4's group-coordinator, share-coordinator and
transaction-coordinator JSON specs.
"""
from __future__ import annotations

import enum


class GroupRecordType(enum.IntEnum):
    """The records of `__consumer_offsets`."""

    LEGACY_OFFSET_COMMIT = 0
    OFFSET_COMMIT = 1
    GROUP_METADATA = 2
    CONSUMER_GROUP_METADATA = 3
    # Kafka 4.x only tombstones it (the group record keeps a metadata hash instead)
    CONSUMER_GROUP_PARTITION_METADATA = 4
    CONSUMER_GROUP_MEMBER_METADATA = 5
    CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA = 6
    CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER = 7
    CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT = 8
    # written by Kafka 4.0's share groups, gone from 4.4's specs: read and skipped
    SHARE_GROUP_PARTITION_METADATA = 9
    SHARE_GROUP_MEMBER_METADATA = 10
    SHARE_GROUP_METADATA = 11
    SHARE_GROUP_TARGET_ASSIGNMENT_METADATA = 12
    SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER = 13
    SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT = 14
    SHARE_GROUP_STATE_PARTITION_METADATA = 15
    CONSUMER_GROUP_REGULAR_EXPRESSION = 16
    STREAMS_GROUP_METADATA = 17
    STREAMS_GROUP_MEMBER_METADATA = 19
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA = 20
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER = 21
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT = 22
    STREAMS_GROUP_TOPOLOGY = 23



#: the record types each kind of group reads back from `__consumer_offsets`
CLASSIC_GROUP_RECORDS = frozenset({GroupRecordType.LEGACY_OFFSET_COMMIT, GroupRecordType.OFFSET_COMMIT, GroupRecordType.GROUP_METADATA})
CONSUMER_GROUP_RECORDS = frozenset({
    GroupRecordType.CONSUMER_GROUP_METADATA, GroupRecordType.CONSUMER_GROUP_PARTITION_METADATA, GroupRecordType.CONSUMER_GROUP_MEMBER_METADATA,
    GroupRecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA, GroupRecordType.CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER,
    GroupRecordType.CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT, GroupRecordType.CONSUMER_GROUP_REGULAR_EXPRESSION})
SHARE_GROUP_RECORDS = frozenset({
    GroupRecordType.SHARE_GROUP_PARTITION_METADATA, GroupRecordType.SHARE_GROUP_MEMBER_METADATA, GroupRecordType.SHARE_GROUP_METADATA,
    GroupRecordType.SHARE_GROUP_TARGET_ASSIGNMENT_METADATA, GroupRecordType.SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER,
    GroupRecordType.SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT, GroupRecordType.SHARE_GROUP_STATE_PARTITION_METADATA})
STREAMS_GROUP_RECORDS = frozenset({
    GroupRecordType.STREAMS_GROUP_METADATA, GroupRecordType.STREAMS_GROUP_MEMBER_METADATA, GroupRecordType.STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA,
    GroupRecordType.STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER, GroupRecordType.STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT,
    GroupRecordType.STREAMS_GROUP_TOPOLOGY})
#: the types of the consumer, share and Streams groups ("modern", in Kafka 4.x's words)
MODERN_GROUP_RECORDS = CONSUMER_GROUP_RECORDS | SHARE_GROUP_RECORDS | STREAMS_GROUP_RECORDS


class ShareStateRecordType(enum.IntEnum):
    """The records of `__share_group_state`."""

    SHARE_SNAPSHOT = 0
    SHARE_UPDATE = 1


class TransactionRecordType(enum.IntEnum):
    """The records of `__transaction_state`."""

    TRANSACTION_LOG = 0
