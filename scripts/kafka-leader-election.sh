#!/usr/bin/env bash
# kafka-leader-election: runs scripts/kafka_leader_election.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_leader_election "$@"
