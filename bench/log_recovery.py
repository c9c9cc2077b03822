"""Loading many logs at startup with num.recovery.threads.per.data.dir threads.

    python -m bench.log_recovery [--logs 2000] [--threads 1,2,4]

Fills ``--logs`` partitions (two log dirs, a few batches each), then times
``LogManager.startup`` after a clean shutdown and after a crash (no clean-shutdown
marker: every log is scanned) for each thread count; prints a table.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

from kafpy.protocol.records import build_batch
from kafpy.storage import LogConfig, LogManager
from kafpy.storage.log_manager import CLEAN_SHUTDOWN_FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--logs", type=int, default=2000)
    ap.add_argument("--threads", default="1,2,4")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dirs = [os.path.join(tmp, "a"), os.path.join(tmp, "b")]
        lm = LogManager(dirs, LogConfig(), start_cleaner=False)
        lm.startup(cluster_id="bench", broker_id=0)
        batch = build_batch([(b"k", b"v" * 200)] * 10)
        for p in range(args.logs):
            lg = lm.get_or_create_log("bench", p)
            for _ in range(3):
                lg.append_as_leader(batch, 0)
        lm.shutdown()
        print(f"{'logs':>6} {'threads':>7} {'clean_s':>8} {'crash_s':>8}")
        for threads in (int(t) for t in args.threads.split(",")):
            row = []
            for crash in (False, True):
                if crash:
                    for d in dirs:
                        try:
                            os.unlink(os.path.join(d, CLEAN_SHUTDOWN_FILE))
                        except FileNotFoundError:
                            pass
                again = LogManager(dirs, LogConfig(), start_cleaner=False, recovery_threads_per_data_dir=threads)
                t = time.perf_counter()
                again.startup(cluster_id="bench", broker_id=0)
                row.append(time.perf_counter() - t)
                again.shutdown()
            print(f"{args.logs:>6} {threads:>7} {row[0]:>8.2f} {row[1]:>8.2f}")


if __name__ == "__main__":
    main()
