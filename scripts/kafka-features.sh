#!/usr/bin/env bash
# kafka-features: runs scripts/kafka_features.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_features "$@"
