"""Java ``.properties`` files, read by the rules of ``java.util.Properties.load``.

The broker (``server.properties``) and the command-line tools (``--command-config``,
``--producer.config`` …) both read their files here, so a file means the same to every part
of the project and to Apache Kafka itself.

The rules, from ``Properties.load`` (Java 17):

- A *natural line* ends at ``\\n``, ``\\r`` or ``\\r\\n``; no other character ends a line
  (``\\f`` is blank space, unlike in ``str.splitlines``).
- Leading blanks (space, ``\\t``, ``\\f``) are skipped. Lines that are then empty, or start
  with ``#`` or ``!``, are skipped whole; a comment never continues onto the next line.
- A line ending in an odd number of backslashes continues on the next natural line, whose
  leading blanks are dropped. An empty continuation line ends the logical line. A trailing
  backslash at the end of the input is dropped.
- The key ends at the first unescaped ``=``, ``:`` or blank. Blanks after it are skipped,
  then at most one ``=`` or ``:``, then blanks again; the value is the rest of the line,
  trailing blanks included (Kafka's ``ConfigDef`` trims values when it parses them).
- In key and value, ``\\t \\n \\r \\f`` are the control characters, ``\\uXXXX`` is one UTF-16
  code unit (a surrogate pair becomes one character), and a backslash before any other
  character stands for that character. A malformed ``\\u`` escape raises ``ValueError``
  ("Malformed \\uxxxx encoding.", as Java's ``IllegalArgumentException``).
- A repeated key keeps its last value.

``load_properties`` reads a file as ISO 8859-1, as ``Properties.load(InputStream)`` does
(Kafka's ``Utils.loadProps``): non-Latin-1 text belongs in ``\\uXXXX`` escapes.

Who may call it: anyone; pure functions plus one file read, no other I/O.
"""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["load_properties", "parse_properties"]

_BLANKS = " \t\f"
# One natural line and the terminator that ended it (empty at the end of the input).
_NATURAL_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|\Z)")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def load_properties(path: str | Path) -> dict[str, str]:
    """The properties in the file at ``path``, read as ISO 8859-1 (see the module notes)."""
    return parse_properties(Path(path).read_bytes().decode("latin-1"))


def parse_properties(text: str) -> dict[str, str]:
    """The key/value pairs of ``.properties`` text, in file order, the last value winning."""
    props: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split(line)
        props[_unescape(key)] = _unescape(value)
    return props


def _logical_lines(text: str) -> list[str]:
    """Java's LineReader: comments and blank lines dropped, continuations joined."""
    out: list[str] = []
    parts: list[str] = []  # pieces of a logical line still being continued
    for m in _NATURAL_LINE.finditer(text):
        raw, ending = m.group(1), m.group(2)
        if not raw and not ending:  # the empty match at the end of the input
            break
        line = raw.lstrip(_BLANKS)
        if not parts and (not line or line[0] in "#!"):
            continue
        if not line:  # an empty continuation line ends the logical line
            out.append("".join(parts))
            parts = []
            continue
        backslashes = len(line) - len(line.rstrip("\\"))
        if backslashes % 2:
            parts.append(line[:-1])
            continue
        parts.append(line)
        out.append("".join(parts))
        parts = []
    if parts:  # the input ended inside a continuation
        out.append("".join(parts))
    return out


def _split(line: str) -> tuple[str, str]:
    """Key and value of one logical line, both still escaped."""
    end = len(line)
    key_end = value_start = end
    has_separator = False
    i = 0
    while i < end:
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=:":
            key_end, value_start, has_separator = i, i + 1, True
            break
        if c in _BLANKS:
            key_end, value_start = i, i + 1
            break
        i += 1
    while value_start < end:
        c = line[value_start]
        if c not in _BLANKS:
            if has_separator or c not in "=:":
                break
            has_separator = True
        value_start += 1
    return line[:key_end], line[value_start:]


def _unescape(s: str) -> str:
    """Java's loadConvert: the escapes of the module notes."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    end = len(s)
    surrogates = False
    while i < end:
        c = s[i]
        i += 1
        if c != "\\" or i >= end:  # a lone trailing backslash cannot occur in a logical line
            out.append(c)
            continue
        c = s[i]
        i += 1
        if c == "u":
            digits = s[i:i + 4]
            if len(digits) < 4 or not _HEX_DIGITS.issuperset(digits):
                raise ValueError("Malformed \\uxxxx encoding.")
            unit = int(digits, 16)
            surrogates = surrogates or 0xD800 <= unit <= 0xDFFF
            out.append(chr(unit))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    result = "".join(out)
    if surrogates:  # Java strings are UTF-16: a \\uD83D\\uDE00 pair is one character
        result = result.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return result
