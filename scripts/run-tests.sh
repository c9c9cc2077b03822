#!/usr/bin/env bash
# Install everything the tests need, lint and type-check the whole tree, then run the suite
# (extra args go to pytest):
#   bash scripts/run-tests.sh                      # everything
#   bash scripts/run-tests.sh tests/unit -k codec  # a subset (ruff and mypy still check all)
# ruff (`ruff check .`) and mypy (`mypy`, the files and rules in pyproject.toml) run first; a
# failure of either fails the run before the tests start (KAFPY_SKIP_LINT=1 skips both, for a
# quick local loop; CI never sets it). Then exits with pytest's code, except that "no tests
# collected" (5) is a failure too.
# The interpreter is the launch scripts' (scripts/kafpy-python.sh): $PYTHON, else the active
# virtual environment's, else the checkout's .venv, created when missing; never the system's
# python3 itself, which Debian's PEP 668 marking makes refuse `pip install`.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
. "$REPO/scripts/kafpy-python.sh"
PYTHON=$(kafpy_python "$REPO" --create)
export PYTHON   # install-deps.sh installs into the same interpreter
echo "[run-tests] python: $PYTHON" >&2

bash "$REPO/scripts/install-deps.sh"

args=("$@")
if ((${#args[@]} == 0)); then
    args=(tests)
fi

# How fast this machine runs Python right now, before anything of ours loads it (0.17 to
# 0.32 s within a few minutes on one 2-core machine here, with nothing of ours running):
# pytest took 19 and 30 minutes in two CI runs of nearly the same suite, and two runs here
# differ by a factor of ~1.8 in almost every file alike. Printed with the load average, so
# that a slow machine can be told apart from a heavier suite.
speed=$("$PYTHON" - <<'PY'
import os, time
wall, cpu = time.perf_counter(), time.process_time()
sum(i * i for i in range(3_000_000))
print(f"a fixed Python loop took {time.perf_counter() - wall:.2f} s ({time.process_time() - cpu:.2f} CPU-s);"
      f" {os.cpu_count()} cores, load average {open('/proc/loadavg').read().split()[0]}")
PY
)
echo "[run-tests] machine: $speed" >&2

mypy_pid=
if [[ "${KAFPY_SKIP_LINT:-}" != 1 ]]; then
    echo "[run-tests] ruff $("$PYTHON" -m ruff --version | cut -d' ' -f2): ruff check . (rules: pyproject.toml [tool.ruff.lint])" >&2
    "$PYTHON" -m ruff check . || { echo "[run-tests] ERROR: ruff failed" >&2; exit 1; }
    echo "[run-tests] $("$PYTHON" -m mypy --version | cut -d' ' -f1-2): mypy (files: kafpy/ with its floors, tests/, bench/; pyproject.toml [tool.mypy])" >&2
    "$PYTHON" -m mypy &
    mypy_pid=$!
fi

# While mypy runs (one core), one collection fills the bytecode caches, kafpy's and pytest's
# rewritten test modules (tests/support/bytecode.py says where they go): in a fresh clone each
# xdist worker would otherwise compile all of them itself, four times the same CPU at the start.
started=$SECONDS
"$PYTHON" -m pytest --collect-only -q -p no:cacheprovider "${args[@]}" > /dev/null 2>&1 || true
echo "[run-tests] bytecode caches filled by one collection in $((SECONDS - started)) s" >&2
if [[ -n "$mypy_pid" ]]; then
    wait "$mypy_pid" || { echo "[run-tests] ERROR: mypy failed" >&2; exit 1; }
fi

# Four workers on two cores (KAFPY_TEST_WORKERS, 0 = none): most integration tests wait on real
# processes (ZooKeeper sessions, failover timeouts, brokers' replies), not on the CPU. Measured
# with `python -m bench.suite_cpu -- -n2 --dist=loadfile tests`: the whole suite costs about
# 2,100 CPU-seconds while two workers take about 3,900 worker-seconds, so two workers leave
# the two cores idle about half the time. --dist loadfile keeps each file's tests, and its module-scoped brokers, on one
# worker; tests/conftest.py hands the files out longest first (tests/support/xdist_weights.txt,
# regenerated from a run with --durations=0: python -m tests.support.xdist_weights RUN_LOG).
workers=(-n "${KAFPY_TEST_WORKERS:-4}" --dist loadfile)
echo "[run-tests] $PYTHON -m pytest -q -ra --durations=15 --timeout=300 ${workers[*]} ${args[*]}" >&2
set +e
"$PYTHON" -m pytest -q -ra --durations=15 --timeout=300 -p no:cacheprovider "${workers[@]}" "${args[@]}"
rc=$?
set -e

if [[ $rc -eq 5 ]]; then
    echo "[run-tests] ERROR: pytest collected no tests" >&2
    exit 1
fi
exit $rc
