"""How long each test file takes, so that ``--dist loadfile`` hands out the longest first.

xdist's own order (``loadscopereorder``) sorts the work units by their number of tests, so a
file of five slow tests (the wheel's, Lab 2's) can start last and leave one worker running
alone for minutes at the end of the run. tests/conftest.py's scheduler orders the units by
the worker-seconds in xdist_weights.txt instead (longest first, the classic longest-job-first
rule for two machines); a file missing from the table is estimated from its number of tests.

The table is a measurement, not a promise: after a full run with ``--durations=0`` (``bash
scripts/run-tests.sh --durations=0 > run.log``) regenerate it with ``python -m
tests.support.xdist_weights run.log``; only the order matters, so a loaded machine's figures
serve as well as an idle one's.
"""
from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

TABLE = Path(__file__).with_name("xdist_weights.txt")
# A file not in the table: seconds per test (the table's smallest files are unit tests and
# integration files of a few quick tests).
UNKNOWN_TEST_S = 0.3
# pytest's --durations lines: "12.34s call     tests/x/test_y.py::test_z[param]"
DURATION_LINE = re.compile(r"^\s*([\d.]+)s\s+(?:setup|call|teardown)\s+(\S+?)::")


def load(table: Path = TABLE) -> dict[str, float]:
    """path -> worker-seconds, from the table's "seconds path" lines ('#' starts a comment)."""
    weights: dict[str, float] = {}
    for line in table.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            seconds, path = line.split()
            weights[path] = float(seconds)
    return weights


def unit_weight(unit: str, test_count: int, weights: Mapping[str, float]) -> float:
    """The seconds of a work unit: a file, or a folder (tests/conftest.py's shared-session
    folders) as the sum of its files. Unknown ones: UNKNOWN_TEST_S per test."""
    if unit.endswith("/"):
        known = sum(s for path, s in weights.items() if path.startswith(unit))
    else:
        known = weights.get(unit, 0.0)
    return known if known > 0 else test_count * UNKNOWN_TEST_S


def from_durations(lines: Iterable[str]) -> dict[str, float]:
    """Worker-seconds per file summed over the setup/call/teardown lines of --durations=0."""
    per_file: dict[str, float] = defaultdict(float)
    for line in lines:
        m = DURATION_LINE.match(line)
        if m:
            per_file[m.group(2)] += float(m.group(1))
    return dict(per_file)


def render(weights: Mapping[str, float]) -> str:
    rows = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
    return ("# worker-seconds per test file (python -m tests.support.xdist_weights RUN_LOG)\n"
            + "".join(f"{s:8.1f} {path}\n" for path, s in rows if s >= 1.0))


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.support.xdist_weights RUN_LOG...", file=sys.stderr)
        return 2
    weights: dict[str, float] = {}
    for name in argv:
        weights.update(from_durations(Path(name).read_text().splitlines()))
    TABLE.write_text(render(weights))
    print(f"{TABLE}: {sum(1 for s in weights.values() if s >= 1.0)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
