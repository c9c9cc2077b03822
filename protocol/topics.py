"""Facts about topic names that every part of the project shares: Kafka's internal topics
and its rules for a legal topic name (org.apache.kafka.common.internals.Topic).

Who may call it: everyone (broker, coordinator, tools). Pure data and functions, no I/O.
"""
from __future__ import annotations

import re

from kafpy.protocol.errors import ErrorCode, KafkaError

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
SHARE_GROUP_STATE_TOPIC_NAME = "__share_group_state"
# Kafka's Topic.INTERNAL_TOPICS (4.x lists the share-group state topic too).
INTERNAL_TOPICS = frozenset({GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME,
                             SHARE_GROUP_STATE_TOPIC_NAME})

LEGAL_TOPIC_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_TOPIC_NAME_LENGTH = 249


class InvalidTopicName(KafkaError, ValueError):
    """A name Kafka refuses; ``error_code`` is INVALID_TOPIC_EXCEPTION."""

    error_code = ErrorCode.INVALID_TOPIC_EXCEPTION


def validate_topic_name(name: str) -> None:
    """Raise InvalidTopicName with Kafka's message when ``name`` is not a legal topic name
    (``Topic.validate``, the same words in Kafka 3.9 and 4.4)."""
    reason = None
    if not name:
        reason = "the empty string is not allowed"
    elif name in (".", ".."):
        reason = f"'{name}' is not allowed"
    elif len(name) > MAX_TOPIC_NAME_LENGTH:
        reason = f"the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
    elif not LEGAL_TOPIC_CHARS.match(name):
        reason = f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    if reason is not None:
        raise InvalidTopicName(f"Topic name is invalid: {reason}")


def has_collision_chars(name: str) -> bool:
    return "." in name or "_" in name


def unify_collision_chars(name: str) -> str:
    """'.' and '_' collide in metric names, so Kafka refuses topics that differ only there."""
    return name.replace(".", "_")
