"""A REST consumer's ``topic_pattern``: matched with RE2's semantics (linear time, no
backreferences or lookaround, refused when RE2 cannot compile it), as Kafka's consumer
matches a subscription regex with RE2/J, against the whole topic name.

Who may call it: ``kafpy.rest.v2`` when a consumer subscribes by pattern. A small stand-in
kept to one function so a project-wide module for user-supplied regexes can replace it.
"""
from __future__ import annotations

from typing import Callable

import re2

MAX_PATTERN_CHARS = 4096
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False   # a client's bad pattern is its 422, not a line on the broker's stderr


class InvalidPattern(ValueError):
    """RE2 cannot compile the pattern (or it is too long)."""


def topic_matcher(pattern: str) -> Callable[[str], bool]:
    """A predicate: whether a topic's whole name matches ``pattern``."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidPattern(f"The pattern is over {MAX_PATTERN_CHARS} characters")
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as e:
        raise InvalidPattern(f"Invalid regular expression {pattern!r}: {e}") from None
    return lambda topic: compiled.fullmatch(topic) is not None
