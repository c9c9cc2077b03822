#!/usr/bin/env bash
# kafka-console-share-consumer: runs scripts/kafka_console_share_consumer.py from this checkout, from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.scripts.kafka_console_share_consumer "$@"
