#!/usr/bin/env bash
# Redis for the redis target's integration tests and scripts/bench-redis.sh.
# Debian's redis-server and redis-tools (7.0.x), three instances on 127.0.0.1:
#   plain   : no password            PLATBENCH_REDIS_URL
#   auth    : requirepass            PLATBENCH_REDIS_AUTH_URL
#   cluster : a one-node Redis Cluster owning every slot   PLATBENCH_REDIS_CLUSTER_URL
#   cluster3: a Redis Cluster of 3 masters (no replicas) on the next 3 ports,
#             slots split in thirds   PLATBENCH_REDIS_CLUSTER3_URL (all three seeds)
# A cluster node also listens on its port + 10000 (the cluster bus): keep
# PLATBENCH_REDIS_PORT + 10005 below 32768, where Linux's ephemeral ports
# begin, or a client connection may hold a bus port and the node not start.
# No persistence (--save '' --appendonly no): these are benchmarks, not stores.
# scripts/servers/valkey.sh runs the same three instances of Valkey through
# this script (REDIS_SERVER, REDIS_CLI, PLATBENCH_REDIS_DIR/PORT, ENV_PREFIX).
# Usage: redis.sh install|start|stop|env
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${PLATBENCH_REDIS_DIR:-$PWD/.cache/redis}
PORT=${PLATBENCH_REDIS_PORT:-16379}
AUTH_PORT=$((PORT + 1))
CLUSTER_PORT=$((PORT + 2))
C3_PORTS="$((PORT + 3)) $((PORT + 4)) $((PORT + 5))"
PASSWORD=platbench-secret
SERVER=${REDIS_SERVER:-redis-server}
CLI=${REDIS_CLI:-redis-cli}
ENV_PREFIX=${ENV_PREFIX:-PLATBENCH_REDIS}

need() { command -v "$SERVER" >/dev/null && command -v "$CLI" >/dev/null && { [ "$SERVER" != redis-server ] || command -v redis-benchmark >/dev/null; }; }
redis-cli() { command "$CLI" "$@"; }

start_one() { # name port extra-args...
  local name=$1 port=$2; shift 2
  if [ -f "$dir/$name.pid" ] && kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then return 0; fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "redis.sh: port $port is taken by another process (fix: PLATBENCH_REDIS_PORT=<free port> $0 start)" >&2; return 1
  fi
  mkdir -p "$dir/$name"
  rm -f "$dir/$name/nodes.conf"
  ${PLATBENCH_REDIS_TASKSET:-} "$SERVER" --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/$name.pid" --logfile "$dir/$name.log" --dir "$dir/$name" "$@"
}

wait_ready() { # port [password]
  local port=$1 i
  for i in $(seq 1 100); do
    if redis-cli -p "$port" ${2:+-a "$2" --no-auth-warning} ping 2>/dev/null | grep -q PONG; then return 0; fi
    sleep 0.1
  done
  echo "redis.sh: redis on 127.0.0.1:$port not ready after 10 s (see $dir/*.log)" >&2; return 1
}

# start_cluster3 starts 3 cluster-enabled masters and joins them: slots
# split in thirds, CLUSTER MEET, then waits for cluster_state:ok on each.
start_cluster3() {
  local i=0 p first=""
  for p in $C3_PORTS; do
    start_one "cluster3-$i" "$p" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
    i=$((i + 1))
  done
  for p in $C3_PORTS; do wait_ready "$p"; done
  if redis-cli -p "${C3_PORTS%% *}" cluster info | grep -q 'cluster_state:ok'; then return 0; fi
  i=0
  for p in $C3_PORTS; do
    redis-cli -p "$p" cluster addslotsrange $((i * 5462)) $(( i == 2 ? 16383 : (i + 1) * 5462 - 1 )) >/dev/null
    if [ -z "$first" ]; then first=$p; else redis-cli -p "$p" cluster meet 127.0.0.1 "$first" >/dev/null; fi
    i=$((i + 1))
  done
  for p in $C3_PORTS; do
    for i in $(seq 1 100); do
      redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' && break
      sleep 0.1
    done
    redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || { echo "redis.sh: 3-master cluster: node $p not ok after 10 s (see $dir/cluster3-*.log)" >&2; exit 1; }
  done
}

case "${1:-}" in
install)
  need && exit 0
  if ! command -v apt-get >/dev/null; then echo "redis.sh: apt-get not found; install redis-server and redis-tools 7.x by hand" >&2; exit 1; fi
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
  # The Debian package may start a system instance on 6379; it is not ours and does not disturb our ports.
  need
  ;;
start)
  need || { echo "redis.sh: $SERVER not installed (fix: $0 install)" >&2; exit 1; }
  mkdir -p "$dir"
  start_one plain "$PORT"
  start_one auth "$AUTH_PORT" --requirepass "$PASSWORD"
  start_one cluster "$CLUSTER_PORT" --cluster-enabled yes --cluster-config-file nodes.conf
  wait_ready "$PORT"; wait_ready "$AUTH_PORT" "$PASSWORD"; wait_ready "$CLUSTER_PORT"
  if ! redis-cli -p "$CLUSTER_PORT" cluster info | grep -q 'cluster_state:ok'; then
    redis-cli -p "$CLUSTER_PORT" cluster addslotsrange 0 16383 >/dev/null
    for i in $(seq 1 50); do
      redis-cli -p "$CLUSTER_PORT" cluster info | grep -q 'cluster_state:ok' && break
      sleep 0.1
    done
    redis-cli -p "$CLUSTER_PORT" cluster info | grep -q 'cluster_state:ok' || { echo "redis.sh: cluster on $CLUSTER_PORT not ok after 5 s" >&2; exit 1; }
  fi
  start_cluster3
  ;;
stop)
  for n in plain auth cluster cluster3-0 cluster3-1 cluster3-2; do
    if [ -f "$dir/$n.pid" ]; then
      pid=$(cat "$dir/$n.pid"); kill "$pid" 2>/dev/null || true
      for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$dir/$n.pid"
    fi
  done
  # An instance restarted by a test (or whose pid file is gone) still holds
  # its port: stop whatever redis-server serves our ports.
  for port in "$PORT" "$AUTH_PORT" "$CLUSTER_PORT" $C3_PORTS; do
    pkill -f "(^|/)$(basename "$SERVER") 127.0.0.1:$port( |\$)" 2>/dev/null || true
  done
  ;;
env)
  echo "export ${ENV_PREFIX}_URL=redis://127.0.0.1:$PORT"
  echo "export ${ENV_PREFIX}_AUTH_URL=redis://:$PASSWORD@127.0.0.1:$AUTH_PORT"
  echo "export ${ENV_PREFIX}_CLUSTER_URL=redis://127.0.0.1:$CLUSTER_PORT"
  echo "export ${ENV_PREFIX}_CLUSTER3_URL=redis://$(for p in $C3_PORTS; do printf '127.0.0.1:%s,' "$p"; done | sed 's/,$//')"
  ;;
*) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
