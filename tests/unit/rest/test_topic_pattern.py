"""A REST topic_pattern: RE2 semantics, whole-name matches, refused when RE2 cannot compile it."""
import pytest

from kafpy.rest.topic_pattern import MAX_PATTERN_CHARS, InvalidPattern, topic_matcher


def test_whole_names_match():
    matches = topic_matcher("secr.*")
    assert matches("secret") and not matches("not-secret") and not matches("secr\n")
    assert topic_matcher("a|b")("b") and not topic_matcher("a|b")("ab")


def test_what_re2_cannot_compile_is_refused():
    for bad in ("(a)\\1", "(?=a)", "(?<!a)b", "(", "x" * (MAX_PATTERN_CHARS + 1)):
        with pytest.raises(InvalidPattern):
            topic_matcher(bad)

