"""User-supplied regular expressions: RE2 semantics (what Kafka's RE2/J accepts and refuses),
full matches, linear time on a pattern that makes a backtracking engine explode, and a bounded
cache of compiled patterns."""
from __future__ import annotations

import pytest

from kafpy.protocol import user_regex
from kafpy.protocol.user_regex import InvalidUserRegex, compile_user_regex


@pytest.mark.parametrize("pattern", ["(?=secret).*", "(?!a)b", "(a)\\1", "a++", "x{2,1}", "[", "(?<=a)b"])
def test_what_re2_cannot_compile_is_refused_with_its_reason(pattern):
    with pytest.raises(InvalidUserRegex) as refused:
        compile_user_regex(pattern)
    assert str(refused.value)
    with pytest.raises(InvalidUserRegex):   # the refusal is cached too
        compile_user_regex(pattern)


def test_the_whole_name_must_match():
    r = compile_user_regex("sec.*t")
    assert r.fullmatch("secret") and not r.fullmatch("secrets") and not r.fullmatch("a-secret")
    assert r.matching(["secret", "secret-2", "public", "sect"]) == {"secret", "sect"}
    assert compile_user_regex("(?i)SECRET|pub.*").matching(["secret", "public", "private"]) == {"secret", "public"}


@pytest.mark.timeout(60)   # a hang guard, not a measurement (bench/user_regex.py measures)
def test_a_pattern_that_backtracks_in_python_re_is_answered():
    """``.*`` 34 times then X held the broker 8 s with Python's re on one name; RE2 is linear."""
    r = compile_user_regex(".*" * 34 + "X")
    assert r.matching(["a" * 249] * 2000) == frozenset()
    assert r.fullmatch("a" * 249 + "X")


def test_the_cache_of_compiled_patterns_is_bounded(monkeypatch):
    monkeypatch.setattr(user_regex, "CACHE_SIZE", 8)
    monkeypatch.setattr(user_regex, "_cache", type(user_regex._cache)())
    for i in range(50):
        compile_user_regex(f"topic-{i}.*")
    assert len(user_regex._cache) == 8
    assert compile_user_regex("topic-49.*").fullmatch("topic-49-x")
