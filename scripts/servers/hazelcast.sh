#!/usr/bin/env bash
# Hazelcast for the hazelcast target's integration tests: three members of
# Hazelcast 5.4.0 (Maven Central; from 5.5 the community edition refuses the
# CP subsystem) on 127.0.0.1:5701-5703, tcp-ip join, cluster name "dev",
# CP subsystem with 3 CP members, phone-home off, -Xmx512m each.
# Usage: hazelcast.sh install | start | stop | env | kill N | restart
#   kill N   SIGKILLs member N (1..3): the tests' member-loss scenario
#   restart  stop then start: a fresh cluster with a whole CP group
# PLATBENCH_HAZELCAST_JMX_PORT=19510 adds the Prometheus JMX exporter agent
# (scripts/servers/jmx) with the project's rules (jmx/hazelcast.yaml) to each
# member, member N on 127.0.0.1:PORT+N; env then prints
# PLATBENCH_HAZELCAST_JMX_URLS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=5.4.0
CLUSTER=${PLATBENCH_HAZELCAST_CLUSTER:-dev}
jar=${PLATBENCH_HAZELCAST_JAR:-$root/.cache/hazelcast/hazelcast-$VERSION.jar}
dir=$root/.cache/hazelcast/run
conf=$root/scripts/servers/hazelcast/member.yaml
JAVA_OPTS=(-Xms128m -Xmx512m -XX:+UseG1GC
  --add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.management/sun.management=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED)

running() { [ -f "$dir/member$1.pid" ] && kill -0 "$(cat "$dir/member$1.pid")" 2>/dev/null; }

start_member() {
  local n=$1 port=$((5700 + $1))
  running "$n" && return 0
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "hazelcast.sh: port $port is taken by a process this script did not start (fix: stop it, or run '$0 stop')" >&2; return 1
  fi
  mkdir -p "$dir"
  local agent=()
  if [ -n "${PLATBENCH_HAZELCAST_JMX_PORT:-}" ]; then
    agent=("-javaagent:$(bash "$root/scripts/servers/jmx/agent.sh")=127.0.0.1:$((PLATBENCH_HAZELCAST_JMX_PORT + n)):$root/scripts/servers/jmx/hazelcast.yaml")
  fi
  # setsid: the member survives the shell that started it (go test, make).
  setsid ${PLATBENCH_HAZELCAST_TASKSET:-} java "${JAVA_OPTS[@]}" "${agent[@]}" \
    -Dhazelcast.config="$conf" -Dhz.port="$port" -Dhz.cluster="$CLUSTER" \
    -cp "$jar" com.hazelcast.core.server.HazelcastMemberStarter >"$dir/member$n.log" 2>&1 </dev/null &
  echo $! >"$dir/member$n.pid"
}

stop_member() {
  local n=$1 pid
  [ -f "$dir/member$n.pid" ] || return 0
  pid=$(cat "$dir/member$n.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/member$n.pid"
}

case "${1:-}" in
install)
  [ -s "$jar" ] && exit 0
  command -v java >/dev/null || { echo "hazelcast.sh: java (17+) not found (fix: apt-get install -y openjdk-17-jre-headless)" >&2; exit 1; }
  if ! command -v mvn >/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null
  fi
  mkdir -p "$(dirname "$jar")"
  mvn -q -B dependency:copy -Dartifact=com.hazelcast:hazelcast:$VERSION -DoutputDirectory="$(dirname "$jar")"
  [ -s "$jar" ] || { echo "hazelcast.sh: $jar missing after mvn dependency:copy" >&2; exit 1; }
  ;;
start)
  [ -s "$jar" ] || { echo "hazelcast.sh: $jar not found (fix: $0 install)" >&2; exit 1; }
  for n in 1 2 3; do start_member "$n"; done
  # Ready when the CP subsystem has its 3 members (every member logs it).
  for i in $(seq 1 90); do
    ok=0
    for n in 1 2 3; do
      running "$n" || { echo "hazelcast.sh: member $n exited; last lines of $dir/member$n.log:" >&2; tail -5 "$dir/member$n.log" >&2; exit 1; }
      grep -q "CP Subsystem is initialized\|CP subsystem is initialized\|METADATA CP group is initialized\|CP Subsystem is ready" "$dir/member$n.log" 2>/dev/null && ok=$((ok + 1))
    done
    [ "$ok" -ge 1 ] && grep -q "Members {size:3" "$dir/member1.log" && exit 0
    sleep 1
  done
  echo "hazelcast.sh: CP subsystem not initialized after 90 s (see $dir/member*.log)" >&2
  exit 1
  ;;
stop)
  for n in 1 2 3; do stop_member "$n"; done
  ;;
kill)
  n=${2:?usage: $0 kill N}
  [ -f "$dir/member$n.pid" ] || { echo "hazelcast.sh: member $n is not running" >&2; exit 1; }
  kill -9 "$(cat "$dir/member$n.pid")" 2>/dev/null || true
  rm -f "$dir/member$n.pid"
  ;;
restart)
  "$0" stop
  "$0" start
  ;;
env)
  echo "export PLATBENCH_HAZELCAST_URL=hazelcast://127.0.0.1:5701,127.0.0.1:5702,127.0.0.1:5703?cluster=$CLUSTER"
  echo "export PLATBENCH_HAZELCAST_CTL=$root/scripts/servers/hazelcast.sh"
  if [ -n "${PLATBENCH_HAZELCAST_JMX_PORT:-}" ]; then
    p=$PLATBENCH_HAZELCAST_JMX_PORT
    echo "export PLATBENCH_HAZELCAST_JMX_URLS=http://127.0.0.1:$((p + 1))/metrics,http://127.0.0.1:$((p + 2))/metrics,http://127.0.0.1:$((p + 3))/metrics"
  fi
  ;;
*) echo "usage: $0 install|start|stop|env|kill N|restart" >&2; exit 2 ;;
esac
