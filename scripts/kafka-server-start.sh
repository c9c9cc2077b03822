#!/usr/bin/env bash
# kafka-server-start.sh [-daemon] server.properties [--override property=value]*
# Runs this checkout's broker (python -m kafpy.broker, through kafpy-run-module.sh) like Apache
# Kafka's script runs kafka.Kafka.
# -daemon: detach, output to $LOG_DIR/kafkaServer.out (LOG_DIR defaults to <repo>/logs).
if [ $# -lt 1 ];
then
	echo "USAGE: $0 [-daemon] server.properties [--override property=value]*"
	exit 1
fi
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
RUN_MODULE="$base_dir/scripts/kafpy-run-module.sh"

DAEMON_MODE=false
if [ "$1" = "-daemon" ]; then
  DAEMON_MODE=true
  shift
fi

if [ "$DAEMON_MODE" = "true" ]; then
  LOG_DIR=${LOG_DIR:-$base_dir/logs}
  mkdir -p "$LOG_DIR"
  CONSOLE_OUTPUT_FILE="$LOG_DIR/kafkaServer.out"
  if command -v setsid >/dev/null 2>&1; then
    nohup setsid "$RUN_MODULE" kafpy.broker "$@" > "$CONSOLE_OUTPUT_FILE" 2>&1 < /dev/null &
  else
    nohup "$RUN_MODULE" kafpy.broker "$@" > "$CONSOLE_OUTPUT_FILE" 2>&1 < /dev/null &
  fi
else
  exec "$RUN_MODULE" kafpy.broker "$@"
fi
