"""Kafka's topic-name rule and its messages (``Topic.validate``, the same words in the Kafka
3.9.1 and 4.4.0 clients jars), as CreateTopics and the configs of a topic answer them."""
from __future__ import annotations

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import InvalidTopicName, validate_topic_name


@pytest.mark.parametrize("name, reason", [
    ("", "the empty string is not allowed"),
    (".", "'.' is not allowed"),
    ("..", "'..' is not allowed"),
    ("x" * 250, f"the length of '{'x' * 250}' is longer than the max allowed length 249"),
    ("bad name!", "'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"),
])
def test_an_illegal_name_gets_kafkas_message(name: str, reason: str) -> None:
    with pytest.raises(InvalidTopicName) as refused:
        validate_topic_name(name)
    assert str(refused.value) == f"Topic name is invalid: {reason}"
    assert refused.value.error_code == ErrorCode.INVALID_TOPIC_EXCEPTION


@pytest.mark.parametrize("name", ["a", "x" * 249, "with.dots_and-dashes", "...", "__consumer_offsets"])
def test_a_legal_name_passes(name: str) -> None:
    validate_topic_name(name)
