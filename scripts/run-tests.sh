#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite (extra args go to pytest):
#   bash scripts/run-tests.sh                      # everything
#   bash scripts/run-tests.sh tests/unit -k codec  # a subset
# Exits with pytest's code, except that "no tests collected" (5) is a failure too.
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

# Two workers (KAFPY_TEST_WORKERS, 0 = none): most integration tests wait on real processes
# (ZooKeeper sessions, JVM start-up, failover timeouts), so two run side by side in little more
# time than one. --dist loadfile keeps each file's tests, and its module-scoped brokers, on one
# worker.
workers=(-n "${KAFPY_TEST_WORKERS:-2}" --dist loadfile)
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
