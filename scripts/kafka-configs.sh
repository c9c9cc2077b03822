#!/usr/bin/env bash
# kafka-configs: runs scripts/kafka_configs.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_configs "$@"
