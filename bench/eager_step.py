"""A request's first step: driven by hand (kafpy.broker.eager_coroutine, the socket server's
way) against ``asyncio.Task(coro, eager_start=True)`` (Python 3.12+).

    python -m bench.eager_step [--calls 200000] [--rounds 3]

Both run a handler coroutine that returns without waiting, as most requests' handlers do,
on a running event loop, interleaved round by round; prints microseconds per request. On a
Python without ``eager_start`` (3.10, 3.11) the second column is n/a.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time


async def _handler(x: int) -> int:
    return x + 1


def by_hand(calls: int) -> float:
    t0 = time.perf_counter()
    for i in range(calls):
        coro = _handler(i)
        try:
            coro.send(None)
        except StopIteration:
            pass
    return (time.perf_counter() - t0) / calls * 1e6


def eager_task(loop: asyncio.AbstractEventLoop, calls: int) -> float:
    t0 = time.perf_counter()
    for i in range(calls):
        task = asyncio.Task(_handler(i), loop=loop, eager_start=True)  # type: ignore[call-arg]
        if task.done():
            task.result()
    return (time.perf_counter() - t0) / calls * 1e6


async def _run(calls: int, rounds: int) -> None:
    loop = asyncio.get_running_loop()
    eager = sys.version_info >= (3, 12)
    print(f"Python {sys.version.split()[0]}, {calls} calls per round")
    print(f"{'round':>5}  {'by hand us':>10}  {'eager Task us':>13}")
    for r in range(rounds):
        hand = by_hand(calls)
        other = f"{eager_task(loop, calls):13.2f}" if eager else f"{'n/a':>13}"
        print(f"{r + 1:>5}  {hand:10.2f}  {other}")


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.eager_step", description=__doc__)
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    asyncio.run(_run(args.calls, args.rounds))


if __name__ == "__main__":
    main()
