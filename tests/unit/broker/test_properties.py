"""kafpy.broker.properties against the rules of java.util.Properties.load.

Each expected value follows from Java's LineReader/loadConvert; the same inputs are checked
against a real JVM in tests/integration/scripts/test_properties_like_java.py.
"""
from __future__ import annotations

import pytest

from kafpy.broker.properties import load_properties, parse_properties

# name -> (file bytes, expected properties, or the ValueError message)
CASES: dict[str, tuple[bytes, dict[str, str] | str]] = {
    "separators": (b"a=1\nb:2\nc 3\nd\t4\ne\f5\nf = 6\ng : 7\nh  =  8\ni==9\nj = =10\nk :=11\nl\n",
                   {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8",
                    "i": "=9", "j": "=10", "k": "=11", "l": ""}),
    "comments_and_blanks": (b"# c\n  ! c2\n\n   \n\t\f\nx=1 # not a comment\n#y=2\\\nz=3\n",
                            {"x": "1 # not a comment", "z": "3"}),
    "continuations": (b"a=one\\\n   two\\\n\tthree\nb=x\\\\\nc=y\\\\\\\n  z\nd=p\\\n\ne=q\n"
                      b"f=r\\\n# s\ng=end\\",
                      {"a": "onetwothree", "b": "x\\", "c": "y\\z", "d": "p", "e": "q",
                       "f": "r# s", "g": "end"}),
    "line_endings": (b"a=1\rb=2\r\nc=3\\\r\n  4\rd=5\\\r  6\n",
                     {"a": "1", "b": "2", "c": "34", "d": "56"}),
    "escapes": (b"t=a\\tb\nn=a\\nb\nr=a\\rb\nf=a\\fb\nu=caf\\u00e9\nU=\\u00C9\nother=\\q\\\\\\#\n"
                b"pair=\\ud83d\\ude00\n",
                {"t": "a\tb", "n": "a\nb", "r": "a\rb", "f": "a\fb", "u": "caf\u00e9", "U": "\u00c9",
                 "other": "q\\#", "pair": "\U0001F600"}),
    "escaped_separators_in_keys": (b"a\\=b=c\nd\\:e:f\ng\\ h i\n\\#k=v\nk\\\\=w\n",
                                   {"a=b": "c", "d:e": "f", "g h": "i", "#k": "v", "k\\": "w"}),
    "trailing_blanks_kept": (b"a=1  \nb=\\  2\n   c   =   3\t\n", {"a": "1  ", "b": "  2", "c": "3\t"}),
    "only_cr_and_lf_end_lines": (b"a=1\x0bb=2\x1cc\x85\nd\f=4\n", {"a": "1\x0bb=2\x1cc\x85", "d": "4"}),
    "read_as_latin1": ("k=caf\u00e9\n".encode("utf-8"), {"k": "caf\u00c3\u00a9"}),
    "last_value_wins": (b"a=1\na=2\n", {"a": "2"}),
    "malformed_unicode_escape": (b"a=\\u12g4\n", "Malformed \\uxxxx encoding."),
    "short_unicode_escape": (b"a=\\u12\n", "Malformed \\uxxxx encoding."),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_load_properties_follows_java(tmp_path, name):
    data, expected = CASES[name]
    path = tmp_path / "case.properties"
    path.write_bytes(data)
    if isinstance(expected, str):
        with pytest.raises(ValueError, match="^Malformed"):
            load_properties(path)
    else:
        assert load_properties(path) == expected


def test_parse_properties_keeps_file_order():
    assert list(parse_properties("b=1\na=2\nc=3\n")) == ["b", "a", "c"]


def test_empty_text():
    assert parse_properties("") == {}
    assert parse_properties("\n\n# only a comment") == {}
