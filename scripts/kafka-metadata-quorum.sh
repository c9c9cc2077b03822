#!/usr/bin/env bash
# kafka-metadata-quorum: runs scripts/kafka_metadata_quorum.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_metadata_quorum "$@"
