#!/usr/bin/env bash
# kafka-share-groups: runs scripts/kafka_share_groups.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_share_groups "$@"
