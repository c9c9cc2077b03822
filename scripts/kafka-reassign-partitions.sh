#!/usr/bin/env bash
# kafka-reassign-partitions: runs scripts/kafka_reassign_partitions.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_reassign_partitions "$@"
