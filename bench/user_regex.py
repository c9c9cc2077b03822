"""How long resolving a client's regular expression against the topic names takes, with RE2
(``kafpy.protocol.user_regex``, what the broker uses) and with Python's backtracking ``re``
(what it used before), for an ordinary pattern and for ``.*`` repeated N times then ``X``.

    python -m bench.user_regex [--topics 10000] [--stars 34] [--re-stars 5]

Python's ``re`` is run with fewer ``.*`` (``--re-stars``): its time grows so fast with each one
that 34 would not finish. Prints milliseconds per resolution.
"""
from __future__ import annotations

import argparse
import re
import time
from typing import Callable

from kafpy.protocol.user_regex import compile_user_regex


def _time(run: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000, help="topic names matched against")
    parser.add_argument("--stars", type=int, default=34, help=".* repeated this often for RE2")
    parser.add_argument("--re-stars", type=int, default=5, help=".* repeated this often for Python's re")
    args = parser.parse_args()
    names = [f"orders-{i:06d}-" + "x" * 40 for i in range(args.topics)]
    ordinary = "orders-0[0-4].*"
    evil, re_evil = ".*" * args.stars + "X", ".*" * args.re_stars + "X"
    rows = [
        ("RE2", ordinary, _time(lambda: compile_user_regex(ordinary).matching(names))),
        ("re", ordinary, _time(lambda: [n for n in names if re.fullmatch(ordinary, n)])),
        ("RE2", f".* x{args.stars} + X", _time(lambda: compile_user_regex(evil).matching(names))),
        ("re", f".* x{args.re_stars} + X", _time(lambda: [n for n in names[:20] if re.fullmatch(re_evil, n)], 1)
         * len(names) / 20),
    ]
    print(f"{args.topics} topic names of {len(names[0])} characters")
    for engine, pattern, ms in rows:
        print(f"{engine:4} {pattern:16} {ms:12.1f} ms")


if __name__ == "__main__":
    main()
