#!/usr/bin/env bash
# Prometheus node_exporter (Debian's prometheus-node-exporter, 1.5.0 on bookworm)
# for the telemetry/nodes tests: one exporter on 127.0.0.1:19100 with only the
# collectors platbench reads (cpu, meminfo, diskstats, netdev), run as a
# background process of ours (not the system service the package installs).
#   PLATBENCH_NODE_EXPORTER_URL   http://127.0.0.1:19100/metrics
#   PLATBENCH_NODE_EXPORTER       the binary (tests start and stop their own
#                                 instance to see a node go down mid-run)
# Usage: node_exporter.sh install|start|stop|env
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${PLATBENCH_NODE_EXPORTER_DIR:-$PWD/.cache/node_exporter}
PORT=${PLATBENCH_NODE_EXPORTER_PORT:-19100}
BIN=${NODE_EXPORTER:-prometheus-node-exporter}
pidfile=$dir/node_exporter.pid

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

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
  running && exit 0
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "node_exporter.sh: port $PORT is taken by another process (fix: PLATBENCH_NODE_EXPORTER_PORT=<free port> $0 start)" >&2; exit 1
  fi
  mkdir -p "$dir"
  nohup "$BIN" --web.listen-address="127.0.0.1:$PORT" --collector.disable-defaults \
    --collector.cpu --collector.meminfo --collector.diskstats --collector.netdev \
    >"$dir/node_exporter.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then exit 0; fi
    running || break
    sleep 0.1
  done
  echo "node_exporter.sh: node_exporter on 127.0.0.1:$PORT not ready after 10 s (see $dir/node_exporter.log)" >&2; exit 1
  ;;
stop)
  if running; then
    pid=$(cat "$pidfile")
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pidfile"
  ;;
env)
  echo "export PLATBENCH_NODE_EXPORTER_URL=http://127.0.0.1:$PORT/metrics"
  echo "export PLATBENCH_NODE_EXPORTER=$(command -v "$BIN" || echo /usr/bin/prometheus-node-exporter)"
  ;;
*) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
