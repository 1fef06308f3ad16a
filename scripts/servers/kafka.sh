#!/usr/bin/env bash
# Apache Kafka (KRaft, one combined broker+controller) on 127.0.0.1 for the
# Kafka integration tests and scripts/bench-kafka.sh.
#   install  fetch kafka_2.13, kafka-tools and a log4j2 binding (pinned, Maven
#            Central) into .cache/kafka-$KAFKA_VERSION/libs; idempotent
#   start    format the log dir once, start the broker, wait until it serves
#   stop     stop it (SIGTERM, then SIGKILL after 20 s)
#   env      print PLATBENCH_KAFKA_* for the tests
# Listeners: 9092 PLAINTEXT, 9093 controller, 9094 SASL_PLAINTEXT (PLAIN and
# SCRAM-SHA-256; users admin/admin-secret (super user) and bench/bench-secret).
# PLATBENCH_KAFKA_PORT=P moves them to P, P+1 and P+2 (a second checkout's
# tests on the same machine).
# KAFKA_CPUS=1 pins the broker with taskset (benchmarks); KAFKA_HEAP (default 768m).
# KAFKA_JMX_PORT=19404 adds the Prometheus JMX exporter agent (scripts/servers/jmx)
# with the project's rules (jmx/kafka.yaml) on 127.0.0.1:PORT; env then prints
# PLATBENCH_KAFKA_JMX_URL. KAFKA_JMX_RULES overrides the rule file.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
KAFKA_VERSION=4.3.1
CONF="$ROOT/scripts/servers/kafka"
HOME_DIR="$ROOT/.cache/kafka-$KAFKA_VERSION"
LIBS="$HOME_DIR/libs"
RUN="${KAFKA_RUN_DIR:-$ROOT/.cache/kafka-run}"
DATA="$RUN/data"
PIDF="$RUN/kafka.pid"
LOG="$RUN/server.log"
HEAP="${KAFKA_HEAP:-768m}"
PORT="${PLATBENCH_KAFKA_PORT:-9092}"
SASL_PORT=$((PORT + 2))

java_cmd() {
  java -Xms256m -Xmx"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$CONF/log4j2.properties" -Dkafka.logs.file="$LOG" \
    -cp "$LIBS/*" "$@"
}

install() {
  if [ -f "$LIBS/.complete" ]; then return 0; fi
  local pkgs=()
  command -v java >/dev/null || pkgs+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || pkgs+=(maven)
  if [ ${#pkgs[@]} -gt 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >&2
  fi
  command -v java >/dev/null || { echo "kafka.sh: java not found (fix: apt-get install -y openjdk-17-jre-headless)" >&2; exit 1; }
  command -v mvn >/dev/null || { echo "kafka.sh: mvn not found (fix: apt-get install -y maven)" >&2; exit 1; }
  rm -rf "$LIBS"; mkdir -p "$LIBS"
  mvn -q -B -f "$CONF/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIBS" >&2
  ls "$LIBS"/kafka_2.13-"$KAFKA_VERSION".jar "$LIBS"/kafka-tools-"$KAFKA_VERSION".jar >/dev/null
  touch "$LIBS/.complete"
}

running() { [ -f "$PIDF" ] && kill -0 "$(cat "$PIDF")" 2>/dev/null; }

ready() { # the broker accepts connections on its PLAINTEXT and SASL ports
  (exec 3<>/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/"$SASL_PORT") 2>/dev/null
}

start() {
  install
  if running; then echo "kafka.sh: already running (pid $(cat "$PIDF"))" >&2; return 0; fi
  if ready; then echo "kafka.sh: something already listens on 127.0.0.1:$PORT (fix: stop it, or PLATBENCH_KAFKA_PORT=<p> to use ports p, p+1 and p+2)" >&2; exit 1; fi
  mkdir -p "$RUN"
  sed -e "s#@DATA@#$DATA#" -e "s#@PORT@#$PORT#g" -e "s#@CONTROLLER_PORT@#$((PORT + 1))#g" -e "s#@SASL_PORT@#$SASL_PORT#g" "$CONF/server.properties.in" > "$RUN/server.properties"
  if [ ! -f "$DATA/meta.properties" ]; then
    rm -rf "$DATA"
    java_cmd kafka.tools.StorageTool format --cluster-id cGxhdGJlbmNoLWthZmthMQ --config "$RUN/server.properties" \
      --add-scram 'SCRAM-SHA-256=[name=bench,password=bench-secret]' \
      --add-scram 'SCRAM-SHA-256=[name=admin,password=admin-secret]' >"$RUN/format.log" 2>&1 \
      || { echo "kafka.sh: formatting $DATA failed; see $RUN/format.log" >&2; cat "$RUN/format.log" >&2; exit 1; }
  fi
  local pin=() agent=()
  if [ -n "${KAFKA_CPUS:-}" ]; then pin=(taskset -c "$KAFKA_CPUS"); fi
  if [ -n "${KAFKA_JMX_PORT:-}" ]; then
    agent=("-javaagent:$(bash "$ROOT/scripts/servers/jmx/agent.sh")=127.0.0.1:$KAFKA_JMX_PORT:${KAFKA_JMX_RULES:-$ROOT/scripts/servers/jmx/kafka.yaml}")
  fi
  : >"$LOG"
  "${pin[@]}" java "${agent[@]}" -Xms256m -Xmx"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$CONF/log4j2.properties" -Dkafka.logs.file="$LOG" \
    -cp "$LIBS/*" kafka.Kafka "$RUN/server.properties" >"$RUN/stdout.log" 2>&1 &
  echo $! >"$PIDF"
  for _ in $(seq 1 120); do
    if ready; then echo "kafka.sh: ready on 127.0.0.1:$PORT (pid $(cat "$PIDF"))" >&2; return 0; fi
    if ! running; then
      echo "kafka.sh: the broker exited during startup; last lines of $RUN/stdout.log and $LOG:" >&2
      tail -n 20 "$RUN/stdout.log" "$LOG" >&2; rm -f "$PIDF"; exit 1
    fi
    sleep 0.5
  done
  echo "kafka.sh: broker not ready on 127.0.0.1:$PORT after 60 s; see $LOG" >&2
  exit 1
}

stop() {
  if ! running; then rm -f "$PIDF"; return 0; fi
  local pid; pid=$(cat "$PIDF")
  kill "$pid"
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || { rm -f "$PIDF"; return 0; }; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$PIDF"
}

env() {
  echo "export PLATBENCH_KAFKA_URL=kafka://127.0.0.1:$PORT"
  echo "export PLATBENCH_KAFKA_SASL_URL=kafka://127.0.0.1:$SASL_PORT"
  echo "export PLATBENCH_KAFKA_SCRIPT=$ROOT/scripts/servers/kafka.sh"
  if [ -n "${KAFKA_JMX_PORT:-}" ]; then echo "export PLATBENCH_KAFKA_JMX_URL=http://127.0.0.1:$KAFKA_JMX_PORT/metrics"; fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) env ;;
  classpath) install; echo "$LIBS/*" ;;
  *) echo "usage: kafka.sh install|start|stop|env|classpath" >&2; exit 2 ;;
esac
