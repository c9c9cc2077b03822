"""Command-line plumbing shared by the tools: an option parser with the behaviour and help
layout of the jopt-simple parser that Apache Kafka's tools use, and `key=value` argument
lists. (Java properties files are read by broker.properties, shared with the broker.)

The tools print the same usage table and the same error lines as Kafka's (`Missing required
argument "[topic]"`, `Option "[x]" can't be used with option "[y]"`), so scripts written
against Kafka keep working. Nothing here touches the network.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn, TextIO

__all__ = [
    "tool_main", "debug_traceback", "OptionParser", "OptionSpec", "OptionSet", "OptionException", "UsageExit",
    "parse_key_value_args", "kafka_version",
]

KAFKA_VERSION = "3.9.1"


def kafka_version() -> str:
    """The Apache Kafka release whose tools' behaviour these tools follow."""
    return KAFKA_VERSION


def debug_traceback() -> None:
    """Called in an `except` block: with KAFPY_TOOLS_DEBUG=1 the exception's Python traceback
    goes to stderr after the tool's Kafka-style error report (without it, only the report)."""
    import os
    import traceback

    if os.environ.get("KAFPY_TOOLS_DEBUG", "") not in ("", "0"):
        sys.stderr.write(traceback.format_exc())


def tool_main(run: Callable[[list[str]], int], argv: list[str] | None = None) -> int:
    """Entry point shared by the tools: usage exits keep their status, and a closed
    standard output (`... | head`) ends the tool quietly, as Java's PrintStream does."""
    import os

    try:
        return run(sys.argv[1:] if argv is None else argv)
    except UsageExit as e:
        return int(e.code or 0)
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 1


class OptionException(Exception):
    """A malformed command line (unknown option, missing or unparsable argument).
    `conversion` is true when only a value failed to convert (jopt-simple reports those
    lazily, when the tool reads the value)."""

    def __init__(self, message: str, conversion: bool = False) -> None:
        super().__init__(message)
        self.conversion = conversion


class UsageExit(SystemExit):
    """Raised after the usage table was printed; carries the exit status."""


_TYPE_NAMES = {str: "String", int: "Integer", float: "Double"}


@dataclass
class OptionSpec:
    """One `--name` option: whether it takes an argument, how to show and convert it."""

    name: str
    description: str = ""
    arg: str | None = None  # None: flag; "required"; "optional"
    described_as: str | None = None
    type: Callable[[str], object] = str
    type_name: str | None = None
    default: object = None
    separator: str | None = None  # split each value on this (jopt withValuesSeparatedBy)

    def __str__(self) -> str:  # jopt prints specs as "[name]" in its messages
        return f"[{self.name}]"

    def option_text(self) -> str:
        text = f"--{self.name}"
        if self.arg is None:
            return text
        tname = self.type_name or _TYPE_NAMES.get(self.type, "String")  # type: ignore[call-overload]  # int, str, ... or a parser function
        inner = f"{tname}: {self.described_as}" if self.described_as else tname
        return text + (f" <{inner}>" if self.arg == "required" else f" [{inner}]")

    def help_description(self) -> str:
        desc = self.description
        if self.default is not None:
            shown = self.default
            if isinstance(shown, (list, tuple)):
                shown = ", ".join(str(v) for v in shown)
            desc = f"{desc} (default: {shown})" if desc else f"(default: {shown})"
        return desc


@dataclass
class OptionSet:
    """The parsed command line: which options were given and their values. `value_of` and
    `values_of` are dynamically typed: a value's type is what its option's `type` converter
    made."""

    specs: dict[str, OptionSpec]
    values: dict[str, list[object]] = field(default_factory=dict)
    non_options: list[str] = field(default_factory=list)

    def has(self, name: str) -> bool:
        return name in self.values

    def value_of(self, name: str) -> Any:
        vals = self.values.get(name)
        if vals:
            return vals[0]
        if vals is not None and not vals:
            return None  # a flag, or an optional argument given without a value
        return self.specs[name].default

    def values_of(self, name: str) -> list[Any]:
        if name in self.values:
            return list(self.values[name])
        default = self.specs[name].default
        if default is None:
            return []
        return list(default) if isinstance(default, (list, tuple)) else [default]


class OptionParser:
    """A jopt-simple-like parser: long options, `--opt value` or `--opt=value`, unique
    abbreviations, repeated options collecting values, and Kafka's `--help`/`--version`."""

    def __init__(self, *, with_help: bool = True, with_version: bool = True,
                 option_width: int = 41) -> None:
        self.specs: dict[str, OptionSpec] = {}
        self.option_width = option_width  # option column plus separator, as jopt sized it
        if with_help:
            self.accepts("help", "Print usage information.")
        if with_version:
            self.accepts("version", "Display Kafka version.")

    def accepts(self, name: str, description: str = "", *, arg: str | None = None,
                described_as: str | None = None, type: Callable[[str], object] = str,
                type_name: str | None = None, default: object = None,
                separator: str | None = None) -> OptionSpec:
        spec = OptionSpec(name, description, arg, described_as, type, type_name, default, separator)
        self.specs[name] = spec
        return spec

    # -- parsing -------------------------------------------------------------------

    def _lookup(self, name: str) -> OptionSpec:
        if name in self.specs:
            return self.specs[name]
        matches = [n for n in self.specs if n.startswith(name)]
        if len(matches) == 1:
            return self.specs[matches[0]]
        if len(matches) > 1:
            raise OptionException(f"Option '{name}' is ambiguous.  Possibilities: "
                                  f"[{', '.join(sorted(matches))}]")
        raise OptionException(f"{name} is not a recognized option")

    def _looks_like_option(self, token: str) -> bool:
        if not token.startswith("--") or token == "--":
            return False
        try:
            self._lookup(token[2:].split("=", 1)[0])
            return True
        except OptionException:
            return False

    def _convert(self, spec: OptionSpec, raw: str) -> list[object]:
        parts = raw.split(spec.separator) if spec.separator else [raw]
        out: list[object] = []
        for part in parts:
            try:
                out.append(spec.type(part))
            except (TypeError, ValueError):
                raise OptionException(f"Cannot parse argument '{raw}' of option {spec.name}",
                                      conversion=True)
        return out

    def parse(self, args: list[str]) -> OptionSet:
        opts = OptionSet(self.specs)
        i = 0
        while i < len(args):
            token = args[i]
            i += 1
            if token == "--":
                opts.non_options.extend(args[i:])
                break
            if not token.startswith("-") or token == "-":
                opts.non_options.append(token)
                continue
            body = token.lstrip("-")
            name, eq, inline = body.partition("=")
            spec = self._lookup(name)
            vals = opts.values.setdefault(spec.name, [])
            if spec.arg is None:
                if eq:
                    raise OptionException(f"Option {spec} does not take an argument")
                continue
            if eq:
                vals.extend(self._convert(spec, inline))
            elif spec.arg == "required":
                if i >= len(args) or self._looks_like_option(args[i]):
                    raise OptionException(f"Option {spec} requires an argument")
                vals.extend(self._convert(spec, args[i]))
                i += 1
            else:  # optional argument: only a following token that is not an option
                if i < len(args) and not args[i].startswith("-"):
                    vals.extend(self._convert(spec, args[i]))
                    i += 1
        return opts

    def parse_or_usage(self, args: list[str]) -> OptionSet:
        """parse(), but a malformed command line prints the message and the usage table and
        exits 1, as most of Kafka's tools do (kafka-topics and kafka-configs do not)."""
        try:
            return self.parse(args)
        except OptionException as e:
            self.usage_and_exit(str(e))

    # -- help ------------------------------------------------------------------------

    def format_help(self) -> str:
        """The usage table as jopt-simple's built-in formatter lays it out (description
        column 39 wide, continuation lines indented by two)."""
        rows = [("Option", "Description"), ("------", "-----------")]
        for name in sorted(self.specs):
            spec = self.specs[name]
            rows.append((spec.option_text(), spec.help_description()))
        lines = []
        for opt, desc in rows:
            left = _wrap(opt, self.option_width - 2)
            right: list[str] = []
            for para in desc.split("\n"):
                right.extend(_wrap(para, 39))
            n = max(len(left), len(right), 1)
            left += [""] * (n - len(left))
            right += [""] * (n - len(right))
            for lcell, rcell in zip(left, right):
                lines.append(lcell.ljust(self.option_width) + rcell.ljust(39))
        return "\n".join(lines) + "\n"

    def print_help(self, out: TextIO | None = None) -> None:
        (out or sys.stderr).write(self.format_help())

    def usage_and_exit(self, message: str, code: int = 1) -> NoReturn:
        """Kafka's CommandLineUtils.printUsageAndExit: message, the table, exit 1."""
        sys.stdout.flush()
        sys.stderr.write(message + "\n")
        self.print_help(sys.stderr)
        sys.stderr.flush()
        raise UsageExit(code)

    def maybe_help_or_version(self, opts: OptionSet, args: list[str], message: str) -> None:
        if not args or opts.has("help"):
            self.usage_and_exit(message)
        if opts.has("version"):
            print(kafka_version())
            raise UsageExit(0)

    def check_required(self, opts: OptionSet, *names: str) -> None:
        for name in names:
            if not opts.has(name):
                self.usage_and_exit(f'Missing required argument "{self.specs[name]}"')

    def check_invalid(self, opts: OptionSet, used: str, invalid: list[str] | set[str]) -> None:
        if opts.has(used):
            for name in invalid:
                if opts.has(name):
                    self.usage_and_exit(f'Option "{self.specs[used]}" can\'t be used with option '
                                        f'"{self.specs[name]}"')


_BREAK = re.compile(r"(?<=\s)|(?<=[A-Za-z-]-)(?=[A-Za-z])|(?<=[A-Za-z]\.)(?=[A-Za-z])"
                    r"|(?<=[A-Za-z0-9][:,])(?=[A-Za-z0-9])|(?<=[A-Za-z])(?=\()")


def _tokens(text: str) -> list[str]:
    """Split into pieces at line-break opportunities: after spaces, and after a hyphen or
    a full stop followed by a letter (as java.text.BreakIterator's line instance does)."""
    pieces = []
    start = 0
    for m in _BREAK.finditer(text):
        if m.start() > start:
            pieces.append(text[start:m.start()])
            start = m.start()
    pieces.append(text[start:])
    return [p for p in pieces if p]


def _wrap(text: str, width: int) -> list[str]:
    """Greedy wrap to `width` characters per line, counting the blank that follows the
    last word (as jopt-simple does); continuation lines are indented by two spaces and
    over-long words are cut."""
    if not text:
        return []
    limit = width
    lines: list[str] = []
    current = ""
    for piece in _tokens(text):
        indent = "  " if lines else ""
        if current and len(indent + current + piece) > limit:
            lines.append(indent + current.rstrip())
            current = piece.lstrip(" ")
        else:
            current += piece
        while len(("  " if lines else "") + current.rstrip()) > limit:
            room = limit - len("  " if lines else "")
            lines.append(("  " if lines else "") + current[:room])
            current = current[room:]
    if current.strip():
        lines.append(("  " if lines else "") + current.rstrip())
    return lines


# -- key=value arguments ------------------------------------------------------------------

def parse_key_value_args(args: list[str]) -> dict[str, str]:
    """Kafka's CommandLineUtils.parseKeyValueArgs: `k=v` (the value may hold `=`);
    a key without value maps to the empty string."""
    props: dict[str, str] = {}
    for arg in args:
        key, _, value = arg.partition("=")
        props[key] = value
    return props
