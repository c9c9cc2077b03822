"""How fast kafpy's active KRaft controller answers and fails over.

    python -m bench.kraft_controller [--writes 200] [--runs 3]

Starts three kafpy controllers (``process.roles=controller``, formatted by our kafka-storage,
the quorum tests' short election timeouts) in a temp dir, then measures:

- write latency: IncrementalAlterConfigs of one cluster-wide broker config sent to the active
  controller, one at a time; each is answered once its ConfigRecord is committed (one append
  linger, ``controller.quorum.append.linger.ms`` 25, plus a round of replication). Median and
  p99 over ``--writes``.
- failover: SIGKILL of the active controller until another one answers a write.

Prints one table row per measurement (failover: the median over ``--runs``).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from kafpy.protocol import messages as M

from tests.integration.raft.quorum_support import call
from tests.support.kraft_controllers import KafpyControllers

IA = M.IncrementalAlterConfigsRequest


def alter(port: int, value: str) -> int:
    """One write; its error code (0 once committed, 41 NOT_CONTROLLER elsewhere)."""
    request = IA(resources=[IA.AlterConfigsResource(resource_type=4, resource_name="", configs=[
        IA.AlterableConfig(name="log.retention.ms", config_operation=0, value=value)])])
    response = call(port, request, M.IncrementalAlterConfigsResponse, 1, timeout=10)
    return response.responses[0].error_code


def write_latencies(c: KafpyControllers, active: int, count: int) -> list[float]:
    out = []
    for i in range(count):
        start = time.perf_counter()
        assert alter(c.ports[active], str(100000 + i)) == 0
        out.append(time.perf_counter() - start)
    return out


def failover(c: KafpyControllers) -> float:
    first = c.active()
    c.kill(first)
    start = time.monotonic()
    while time.monotonic() - start < 60:
        for node in c.alive():
            try:
                if alter(c.ports[node], "123456") == 0:
                    return time.monotonic() - start
            except OSError:
                pass
        time.sleep(0.02)
    raise TimeoutError("no controller took over within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    latencies: list[float] = []
    failovers: list[float] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="kraft-bench-") as tmp:
            c = KafpyControllers(Path(tmp), "kQ1uE1x5TRfWq0Z6LlPdqf")
            c.format()
            c.start_all()
            try:
                active = c.active()
                while alter(c.ports[active], "1") != 0:  # activation done
                    time.sleep(0.05)
                latencies += write_latencies(c, active, args.writes)
                failovers.append(failover(c))
            finally:
                c.stop_all()
    latencies.sort()
    print("| measurement | value |")
    print("|---|---|")
    print(f"| write answered once committed, median | {statistics.median(latencies) * 1000:.1f} ms |")
    print(f"| write answered once committed, p99 | {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms |")
    print(f"| kill -9 of the active controller to a write answered, median of {args.runs} | "
          f"{statistics.median(failovers):.2f} s |")


if __name__ == "__main__":
    main()
