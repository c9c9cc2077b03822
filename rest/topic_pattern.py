"""A REST consumer's ``topic_pattern``: matched with RE2's semantics (linear time, no
backreferences or lookaround, refused when RE2 cannot compile it), as Kafka's consumer
matches a subscription regex with RE2/J, against the whole topic name; the same engine as
the wire protocol's regex subscriptions (``kafpy.protocol.user_regex``).

Who may call it: ``kafpy.rest.v2`` when a consumer subscribes by pattern.
"""
from __future__ import annotations

from typing import Callable

from kafpy.protocol.user_regex import InvalidUserRegex, compile_user_regex

MAX_PATTERN_CHARS = 4096


class InvalidPattern(ValueError):
    """RE2 cannot compile the pattern (or it is too long)."""


def topic_matcher(pattern: str) -> Callable[[str], bool]:
    """A predicate: whether a topic's whole name matches ``pattern``."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidPattern(f"The pattern is over {MAX_PATTERN_CHARS} characters")
    try:
        compiled = compile_user_regex(pattern)
    except InvalidUserRegex as e:
        raise InvalidPattern(f"Invalid regular expression {pattern!r}: {e}") from None
    return compiled.fullmatch
