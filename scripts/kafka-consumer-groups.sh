#!/usr/bin/env bash
# kafka-consumer-groups: runs scripts/kafka_consumer_groups.py from this checkout, from any working directory.
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
export PYTHONPATH="$base_dir${PYTHONPATH:+:$PYTHONPATH}"
exec "${PYTHON:-python3}" -m scripts.kafka_consumer_groups "$@"
