#!/usr/bin/env bash
# kafka-storage: runs scripts/kafka_storage.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_storage "$@"
