#!/usr/bin/env bash
# zookeeper-server-stop.sh: SIGTERM (or $SIGNAL) to ZooKeeper servers started by
# zookeeper-server-start.sh (java processes running QuorumPeerMain), as Kafka's script; `ps axww`
# so a narrow terminal (COLUMNS) cannot cut QuorumPeerMain off the end of the java command line.
SIGNAL=${SIGNAL:-TERM}
PIDS=$(ps axww | grep java | grep -i QuorumPeerMain | grep -v grep | awk '{print $1}')

if [ -z "$PIDS" ]; then
  echo "No zookeeper server to stop"
  exit 1
else
  kill -s $SIGNAL $PIDS
fi
