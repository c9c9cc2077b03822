#!/usr/bin/env bash
# zookeeper-server-start.sh [-daemon] zookeeper.properties
# Starts a real ZooKeeper (org.apache.zookeeper.server.quorum.QuorumPeerMain) from an
# installed distribution: $ZOOKEEPER_CLASSPATH if set, else Debian's zookeeper package
# (/usr/share/java/zookeeper.jar, or $KAFPY_ZOOKEEPER_JAR), else the ZooKeeper jars of a Kafka distribution under
# ${KAFPY_CACHE:-~/.cache/kafpy}/kafka-*/libs.
if [ $# -lt 1 ];
then
	echo "USAGE: $0 [-daemon] zookeeper.properties"
	exit 1
fi
base_dir=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)

DAEMON_MODE=false
if [ "$1" = "-daemon" ]; then
  DAEMON_MODE=true
  shift
fi

CLASSPATH=${ZOOKEEPER_CLASSPATH:-}
ZOOKEEPER_JAR=${KAFPY_ZOOKEEPER_JAR:-/usr/share/java/zookeeper.jar}
if [ -z "$CLASSPATH" ] && [ -f "$ZOOKEEPER_JAR" ]; then
  # The jar's manifest lists its dependencies; slf4j-simple logs to the console.
  CLASSPATH=$ZOOKEEPER_JAR
  for extra in /usr/share/java/slf4j-simple.jar; do
    [ -f "$extra" ] && CLASSPATH="$CLASSPATH:$extra"
  done
fi
if [ -z "$CLASSPATH" ]; then
  for libs in "${KAFPY_CACHE:-$HOME/.cache/kafpy}"/kafka-*/libs; do
    if ls "$libs"/zookeeper-*.jar >/dev/null 2>&1; then
      CLASSPATH="$libs/*"
      break
    fi
  done
fi
if [ -z "$CLASSPATH" ]; then
  echo "No ZooKeeper installation found." >&2
  echo "Install one, e.g. on Debian/Ubuntu: sudo apt-get install zookeeper" >&2
  echo "(or set ZOOKEEPER_CLASSPATH to the ZooKeeper jars)." >&2
  exit 1
fi

if [ -n "$JAVA_HOME" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
if ! command -v "$JAVA" >/dev/null 2>&1; then
  echo "No java executable found: install a JRE (e.g. sudo apt-get install default-jre-headless)." >&2
  exit 1
fi
HEAP_OPTS=${KAFKA_HEAP_OPTS:-"-Xmx512M -Xms512M"}
LOG_OPTS=(-Dorg.slf4j.simpleLogger.showDateTime=true "-Dorg.slf4j.simpleLogger.dateTimeFormat=[yyyy-MM-dd HH:mm:ss,SSS]")

if [ "$DAEMON_MODE" = "true" ]; then
  LOG_DIR=${LOG_DIR:-$base_dir/logs}
  mkdir -p "$LOG_DIR"
  nohup "$JAVA" $HEAP_OPTS "${LOG_OPTS[@]}" -cp "$CLASSPATH" org.apache.zookeeper.server.quorum.QuorumPeerMain "$@" > "$LOG_DIR/zookeeper.out" 2>&1 < /dev/null &
else
  exec "$JAVA" $HEAP_OPTS "${LOG_OPTS[@]}" -cp "$CLASSPATH" org.apache.zookeeper.server.quorum.QuorumPeerMain "$@"
fi
