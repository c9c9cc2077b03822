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
    """Raise InvalidTopicName with Kafka's message when ``name`` is not a legal topic name."""
    if not name:
        raise InvalidTopicName("Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise InvalidTopicName("Topic name cannot be \".\" or \"..\"")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise InvalidTopicName(f"Topic name is illegal, it can't be longer than {MAX_TOPIC_NAME_LENGTH} "
                               f"characters, topic name: {name}")
    if not LEGAL_TOPIC_CHARS.match(name):
        raise InvalidTopicName(f"Topic name {name} is illegal, it contains a character other than ASCII "
                               "alphanumerics, '.', '_' and '-'")


def has_collision_chars(name: str) -> bool:
    return "." in name or "_" in name


def unify_collision_chars(name: str) -> str:
    """'.' and '_' collide in metric names, so Kafka refuses topics that differ only there."""
    return name.replace(".", "_")
