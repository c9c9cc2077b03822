"""``python -m tests.faults [--regression] [--runs N] [--seed S] [--fuzz N] ...``: the regression
seeds (with --regression, see regressions.py), then fault runs with seeds S, S+1, ..., then (with
--fuzz) a fuzz of N requests on the last run's cluster; prints each failing run (seed, schedule,
first violations) and a summary table. Exit 1 on any violation. Needs root (network namespaces,
loop devices, mounts, blkio cgroups). A kept seed (regressions.py) draws its faults from the
kinds it was found with (under --regression always, with --runs unless --kinds is given), so
that it replays the same schedule."""
from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path

from .faults import KIND_LISTS, KINDS
from .regressions import REGRESSIONS
from .run import RunResult, result_from_history, run_once


def table(results: list[RunResult]) -> str:
    injected: Counter[str] = Counter()
    for r in results:
        injected.update(r.injected)
    conv = [r.verdict.converge_s for r in results if r.verdict.converge_s is not None]
    rows = [
        ("runs (failed)", f"{len(results)} ({sum(not r.verdict.ok for r in results)})"),
        ("faults injected", str(sum(injected.values()))),
        *[(f"  {k}", str(injected[k])) for k in KINDS if injected[k]],
        ("acknowledged records (acks=all)", f"{sum(r.verdict.acked for r in results)} "
                                            f"({sum(r.verdict.acked_all for r in results)})"),
        ("acks=all records lost", str(sum(r.verdict.lost for r in results))),
        ("acks=1 records lost (allowed)", str(sum(r.verdict.lost_acks1 for r in results))),
        ("duplicates, idempotent, one producer epoch", str(sum(r.verdict.duplicates for r in results))),
        ("duplicates, idempotent, across epochs (allowed)",
         str(sum(r.verdict.duplicates_across_epochs for r in results))),
        ("duplicates, plain producers (allowed)", str(sum(r.verdict.duplicates_plain for r in results))),
        ("records consumed by the group", str(sum(r.verdict.consumed for r in results))),
        ("longest time to converge", f"{max(conv):.1f} s" if conv else "-"),
        ("fuzz requests sent", str(sum(r.fuzz_sent for r in results))),
        ("broker crashes", str(sum(v.startswith(("crash", "unclean_exit"))
                                   for r in results for v in r.verdict.violations))),
        ("metadata-log violations (KRaft)", str(sum(v.startswith("metadata_log")
                                                    for r in results for v in r.verdict.violations))),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"| {k:<{width}} | {v:>12} |" for k, v in rows)


def parse_kinds(text: str | None) -> list[str] | None:
    """``--kinds``: a name from KIND_LISTS or comma-separated kinds (None: each seed's default)."""
    if text is None:
        return None
    if text in KIND_LISTS:
        return KIND_LISTS[text]
    kinds = text.split(",")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown fault kinds {unknown}; known: {','.join(KINDS)}")
    return kinds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.faults", description=__doc__)
    ap.add_argument("--regression", action="store_true",
                    help=f"run the regression seeds {sorted(REGRESSIONS)} first")
    ap.add_argument("--runs", type=int, default=None, help="seeded runs (default 1, 0 with --regression)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--brokers", type=int, default=3, choices=range(3, 6))
    ap.add_argument("--faults", type=int, default=None, help="faults per run (default 1 to 3)")
    ap.add_argument("--kinds", type=parse_kinds, default=None,
                    help=f"comma-separated subset of {','.join(KINDS)}, or one of "
                         f"{', '.join(KIND_LISTS)} (default: all, a kept seed its own)")
    ap.add_argument("--rate", type=float, default=40.0, help="records/s per producer")
    ap.add_argument("--mode", choices=["zookeeper", "kraft"], default="zookeeper",
                    help="ZooKeeper and brokers (default), or combined KRaft nodes (no ZooKeeper; "
                         "their metadata logs checked too)")
    ap.add_argument("--fuzz", type=int, default=0, help="fuzz requests after the last run")
    ap.add_argument("--dir", type=Path, default=None, help="where histories go (a temp dir)")
    ap.add_argument("--summarize", type=Path, nargs="+", metavar="DIR",
                    help="run nothing: judge every history.jsonl under these dirs again and "
                         "print the table")
    args = ap.parse_args(argv)
    if args.summarize:
        return summarize(args.summarize)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    work = args.dir or Path(tempfile.mkdtemp(prefix="kafpy-faults-"))
    runs = args.runs if args.runs is not None else (0 if args.regression else 1)
    kept = sorted(REGRESSIONS) if args.regression else []
    seeds = kept + [args.seed + i for i in range(runs)]
    results = []
    failed_harness = 0
    try:
        for i, seed in enumerate(seeds):
            try:
                r = run_once(seed, work, brokers=args.brokers, rate=args.rate, fault_count=args.faults,
                             kinds=None if i < len(kept) else args.kinds,
                             fuzz=args.fuzz if i == len(seeds) - 1 else 0, mode=args.mode)
            except Exception as e:  # noqa: BLE001 - a harness failure fails this run, not the rest
                print(f"seed {seed}: harness failed: {e!r}"[:2000], flush=True)
                failed_harness += 1
                continue
            results.append(r)
            print(r.describe() if not r.verdict.ok else
                  f"seed {seed}: OK ({r.seconds:.0f}s; " + ", ".join(f["kind"] for f in r.faults) + ")",
                  flush=True)
    except KeyboardInterrupt:
        print("interrupted; cleaned up", file=sys.stderr)
    print(table(results))
    print(f"histories under {work}")
    return 0 if results and not failed_harness and all(r.verdict.ok for r in results) else 1


def summarize(dirs: list[Path]) -> int:
    """The table over histories kept from earlier runs, judged by today's checker."""
    paths = sorted(p for d in dirs for p in d.rglob("history.jsonl"))
    results = [result_from_history(p) for p in paths]
    for r in results:
        if not r.verdict.ok:
            print(r.describe())
    print(table(results))
    return 0 if results and all(r.verdict.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
