#!/usr/bin/env bash
# kafpy-run-module.sh MODULE [args...]: runs `python -m MODULE` (kafpy.broker, kafpy.scripts.*) from this checkout, from any
# working directory (what kafka-run-class.sh is to Apache Kafka's scripts).
# The interpreter: $PYTHON if set; else python3 when a virtual environment is active; else
# the checkout's own .venv (so a new terminal works without activating it); else python3.
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
export PYTHONPATH="$base_dir${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "${PYTHON:-}" ]; then
  PYTHON_BIN=$PYTHON
elif [ -z "${VIRTUAL_ENV:-}" ] && [ -x "$base_dir/.venv/bin/python3" ]; then
  PYTHON_BIN=$base_dir/.venv/bin/python3
else
  PYTHON_BIN=python3
fi
exec "$PYTHON_BIN" -m "$@"
