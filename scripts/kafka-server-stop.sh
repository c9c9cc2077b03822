#!/usr/bin/env bash
# kafka-server-stop.sh [--process-role=...] [--node-id=...]
# Sends SIGTERM (or $SIGNAL) to every broker of this project (processes whose command line
# runs "-m kafpy.broker", or the installed kafpy-server / kafka-server-start.sh entry points).
# --process-role and --node-id are accepted and ignored: every kafpy broker is a combined broker.
SIGNAL=${SIGNAL:-TERM}

PIDS=""
for dir in /proc/[0-9]*; do
  pid=${dir#/proc/}
  [ "$pid" = "$$" ] && continue
  [ -r "$dir/cmdline" ] || continue
  if tr '\0' '\n' < "$dir/cmdline" 2>/dev/null | awk '(prev == "-m" && $0 == "kafpy.broker") || (NR <= 2 && $0 ~ /(^|\/)kafpy-server$/) || (NR == 2 && prev ~ /python[0-9.]*$/ && $0 ~ /(^|\/)kafka-server-start\.sh$/) { found = 1 } { prev = $0 } END { exit !found }'; then
    PIDS="$PIDS $pid"
  fi
done
PIDS=$(echo $PIDS)

if [ -z "$PIDS" ]; then
  echo "No kafka server to stop"
  exit 1
else
  kill -s $SIGNAL $PIDS
fi
