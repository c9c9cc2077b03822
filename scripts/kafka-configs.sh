#!/usr/bin/env bash
# kafka-configs: runs scripts/kafka_configs.py from this checkout, from any working directory.
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
export PYTHONPATH="$base_dir${PYTHONPATH:+:$PYTHONPATH}"
exec "${PYTHON:-python3}" -m scripts.kafka_configs "$@"
