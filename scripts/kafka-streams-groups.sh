#!/usr/bin/env bash
# kafka-streams-groups: runs scripts/kafka_streams_groups.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_streams_groups "$@"
