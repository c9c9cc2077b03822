"""Regular expressions a client sends (a consumer group's SubscribedTopicRegex, a REST
``topic_pattern``), compiled and matched with RE2 semantics, as Kafka does with RE2/J.

RE2 runs in time linear in the subject, whatever the pattern, so no pattern can hold the event
loop the way a backtracking engine (Python's ``re``) can with ``.*.*...X``; what RE2 cannot
compile (look-arounds, back-references, possessive quantifiers) is refused, and the caller
answers the protocol's error (INVALID_REGULAR_EXPRESSION for a heartbeat). A compiled program
is bounded in memory (``MAX_PROGRAM_BYTES``) and the compiled patterns are kept in a small LRU
cache, so a client sending many distinct patterns cannot grow the broker without bound.

Who calls it: the consumer group coordinator (regex subscriptions), the REST proxy (topic
patterns). Full match, as Kafka's ``Pattern.matcher(topic).matches()``.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable

import re2  # google-re2 ships no type information (pyproject.toml: ignore_missing_imports)

__all__ = ["UserRegex", "compile_user_regex", "InvalidUserRegex"]

MAX_PROGRAM_BYTES = 8 << 20
"""RE2's memory budget for one compiled pattern (its default); a pattern needing more is refused."""
CACHE_SIZE = 1024


class InvalidUserRegex(ValueError):
    """A pattern RE2 cannot compile; the message is RE2's reason."""


_BOTH = re2._Anchor.ANCHOR_BOTH
_NO_MATCH = (-1, -1)


class UserRegex:
    """One compiled user pattern: ``fullmatch`` a name, or pick the matching names of many.

    Matching calls the compiled program directly (``_regexp.Match``, anchored at both ends,
    no capture): the ``re2`` module's ``fullmatch`` builds a match object and offset maps per
    call, five times the cost, which adds up over every topic of a large cluster."""

    __slots__ = ("pattern", "_match")

    def __init__(self, pattern: str, compiled: "re2._Regexp") -> None:
        self.pattern = pattern
        program = getattr(compiled, "_regexp", None)
        if program is not None and hasattr(program, "Match"):
            def match(name: str) -> bool:
                data = name.encode("utf-8")
                return bool(program.Match(_BOTH, data, 0, len(data))[0] != _NO_MATCH)
        else:   # another binding version: its public API
            def match(name: str) -> bool:
                return compiled.fullmatch(name) is not None
        self._match = match

    def fullmatch(self, name: str) -> bool:
        return self._match(name)

    def matching(self, names: Iterable[str]) -> frozenset[str]:
        """The names the whole pattern matches (linear in their total length)."""
        match = self._match
        return frozenset(n for n in names if match(n))


def _options() -> "re2.Options":
    o = re2.Options()
    o.log_errors = False   # a client's bad pattern is its error, not a line on the broker's stderr
    o.max_mem = MAX_PROGRAM_BYTES
    o.never_capture = True   # only whether the whole name matches is asked
    return o


_OPTIONS = _options()
_cache: "OrderedDict[str, UserRegex | InvalidUserRegex]" = OrderedDict()


def compile_user_regex(pattern: str) -> UserRegex:
    """The compiled pattern; raises ``InvalidUserRegex`` when RE2 refuses it. Cached (LRU)."""
    hit = _cache.get(pattern)
    if hit is None:
        try:
            hit = UserRegex(pattern, re2.compile(pattern, options=_OPTIONS))
        except re2.error as e:
            reason = e.args[0] if e.args else e
            hit = InvalidUserRegex(reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason))
        _cache[pattern] = hit
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(pattern)
    if isinstance(hit, InvalidUserRegex):
        raise hit
    return hit
