#!/usr/bin/env bash
# Prometheus node_exporter (Debian's prometheus-node-exporter, 1.5.0 on bookworm)
# for the telemetry/nodes tests: one exporter on 127.0.0.1:19100 with only the
# collectors platbench reads (cpu, meminfo, diskstats, netdev, vmstat, qdisc, netstat), run as a
# background process of ours (not the system service the package installs).
# PLATBENCH_NODE_EXPORTER_ADDRS="127.0.0.1 127.0.0.2 127.0.0.3" starts one
# per address, on the same port: one per Cassandra node of the test cluster
# (scripts/test.sh), so that --server-metrics-port finds an exporter on each
# node the CQL target discovers (on one host they all read the same kernel).
#   PLATBENCH_NODE_EXPORTER_URL   http://127.0.0.1:19100/metrics (the first)
#   PLATBENCH_NODE_EXPORTER_URLS  every exporter's URL, comma-separated
#   PLATBENCH_NODE_EXPORTER_PORT  the port
#   PLATBENCH_NODE_EXPORTER       the binary (tests start and stop their own
#                                 instance to see a node go down mid-run)
# Usage: node_exporter.sh install|start|stop|env
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${PLATBENCH_NODE_EXPORTER_DIR:-$PWD/.cache/node_exporter}
PORT=${PLATBENCH_NODE_EXPORTER_PORT:-19100}
BIN=${NODE_EXPORTER:-prometheus-node-exporter}
read -r -a ADDRS <<<"${PLATBENCH_NODE_EXPORTER_ADDRS:-127.0.0.1}"
pidfile_of() { if [ "$1" = 127.0.0.1 ]; then echo "$dir/node_exporter.pid"; else echo "$dir/node_exporter-$1.pid"; fi; }
running() { [ -f "$(pidfile_of "$1")" ] && kill -0 "$(cat "$(pidfile_of "$1")")" 2>/dev/null; }

start_one() { # address
  local a=$1 pidfile
  pidfile=$(pidfile_of "$a")
  running "$a" && return 0
  if (exec 3<>"/dev/tcp/$a/$PORT") 2>/dev/null; then
    echo "node_exporter.sh: port $a:$PORT is taken by another process (fix: PLATBENCH_NODE_EXPORTER_PORT=<free port> $0 start)" >&2; return 1
  fi
  nohup "$BIN" --web.listen-address="$a:$PORT" --collector.disable-defaults \
    --collector.cpu --collector.meminfo --collector.diskstats --collector.netdev --collector.vmstat --collector.qdisc --collector.netstat \
    >"$dir/node_exporter-$a.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/$a/$PORT") 2>/dev/null; then return 0; fi
    running "$a" || break
    sleep 0.1
  done
  echo "node_exporter.sh: node_exporter on $a:$PORT not ready after 10 s (see $dir/node_exporter-$a.log)" >&2; return 1
}

case "${1:-}" in
install)
  command -v "$BIN" >/dev/null && exit 0
  if ! command -v apt-get >/dev/null; then echo "node_exporter.sh: apt-get not found; install node_exporter 1.5 by hand (NODE_EXPORTER=path)" >&2; exit 1; fi
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  # The package enables a system service on :9100; policy-rc.d usually keeps
  # it from starting in containers, and it does not disturb our port anyway.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-node-exporter >/dev/null
  command -v "$BIN" >/dev/null
  ;;
start)
  command -v "$BIN" >/dev/null || { echo "node_exporter.sh: $BIN not installed (fix: $0 install)" >&2; exit 1; }
  mkdir -p "$dir"
  for a in "${ADDRS[@]}"; do start_one "$a"; done
  ;;
stop)
  # Every exporter this script started, whatever the addresses now.
  for f in "$dir"/node_exporter*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f"); kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
  ;;
env)
  echo "export PLATBENCH_NODE_EXPORTER_URL=http://${ADDRS[0]}:$PORT/metrics"
  urls=""; for a in "${ADDRS[@]}"; do urls="$urls${urls:+,}http://$a:$PORT/metrics"; done
  echo "export PLATBENCH_NODE_EXPORTER_URLS=$urls"
  echo "export PLATBENCH_NODE_EXPORTER_PORT=$PORT"
  echo "export PLATBENCH_NODE_EXPORTER=$(command -v "$BIN" || echo /usr/bin/prometheus-node-exporter)"
  ;;
*) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
