#!/usr/bin/env bash
# kafpy-run-module.sh MODULE [args...]: runs `python -m MODULE` (kafpy.broker, kafpy.scripts.*) from this checkout, from any
# working directory (what kafka-run-class.sh is to Apache Kafka's scripts).
# The interpreter (scripts/kafpy-python.sh): $PYTHON if set; else the active virtual
# environment's; else the checkout's own .venv (so a new terminal works without activating
# it); else python3.
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
export PYTHONPATH="$base_dir${PYTHONPATH:+:$PYTHONPATH}"
. "$base_dir/scripts/kafpy-python.sh"
PYTHON_BIN=$(kafpy_python "$base_dir")
exec "$PYTHON_BIN" -m "$@"
