#!/usr/bin/env bash
# PostgreSQL for the history store's integration tests (store/postgres,
# `--store postgres://...`): Debian's PostgreSQL 15, a private cluster in
# .cache/postgres listening on 127.0.0.1 only (no Unix socket), trust
# authentication for the superuser platbench, database platbench.
# initdb refuses to run as root: run by root, the cluster belongs to the
# postgres user (Debian's package creates it; else nobody), and its data
# directory cannot live in the clone, since a clone under /root or a mktemp -d
# directory (mode 0700) is closed to that user. Root's cluster then lives in a
# directory of its own from mktemp (named in .cache/postgres/datadir, removed
# by stop); run by anyone else, the cluster is theirs and stays in .cache/.
#   PLATBENCH_POSTGRES_DIR   where the cluster lives (its data/ beneath)
#   PLATBENCH_POSTGRES_URL   postgres://platbench@127.0.0.1:PORT/platbench
# Usage: postgres.sh install|start|stop|env
set -euo pipefail
cd "$(dirname "$0")/../.."
home=$PWD/.cache/postgres
pointer=$home/datadir # root's cluster directory, outside the clone
PORT=${PLATBENCH_POSTGRES_PORT:-15432}
BIN=${PLATBENCH_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
URL="postgres://platbench@127.0.0.1:$PORT/platbench?sslmode=disable"

owner() { if id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi; }
as_owner() { # the cluster's commands as its owner (we may be root)
  # from /: the clone may be closed to that user, and its commands start in the current directory
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u "$(owner)" -- "$@"); else "$@"; fi
}
need() { [ -x "$BIN/initdb" ] && [ -x "$BIN/pg_ctl" ] && [ -x "$BIN/psql" ]; }
if [ -n "${PLATBENCH_POSTGRES_DIR:-}" ]; then
  dir=$(realpath -m "$PLATBENCH_POSTGRES_DIR")
elif [ "$(id -u)" != 0 ]; then
  dir=$home
elif [ -f "$pointer" ] && [ -d "$(cat "$pointer")" ]; then
  dir=$(cat "$pointer")
else
  dir="" # made by start
fi

case "${1:-}" in
install)
  need && exit 0
  if ! command -v apt-get >/dev/null; then echo "postgres.sh: apt-get not found; install PostgreSQL 15 by hand (fix: PLATBENCH_POSTGRES_BIN=<its bin directory>)" >&2; exit 1; fi
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  need
  ;;
start)
  need || { echo "postgres.sh: PostgreSQL not found in $BIN (fix: $0 install)" >&2; exit 1; }
  if [ -f "$dir/data/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then exit 0; fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "postgres.sh: port $PORT is taken by another process (fix: PLATBENCH_POSTGRES_PORT=<free port> $0 start)" >&2; exit 1
  fi
  if [ -z "$dir" ]; then
    mkdir -p "$home"
    dir=$(mktemp -d "${TMPDIR:-/tmp}/platbench-postgres.XXXXXX")
    echo "$dir" >"$pointer"
  fi
  mkdir -p "$dir"
  [ "$(id -u)" != 0 ] || chown "$(owner)" "$dir"
  if ! as_owner test -x "$dir"; then
    echo "postgres.sh: the PostgreSQL user $(owner) cannot enter $dir (fix: PLATBENCH_POSTGRES_DIR=<a directory it can reach> $0 start)" >&2; exit 1
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$BIN/initdb" -D "$dir/data" -U platbench --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 ||
      { echo "postgres.sh: initdb failed (see $dir/initdb.log)" >&2; exit 1; }
  fi
  as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories='' -c fsync=off" start >/dev/null ||
    { echo "postgres.sh: PostgreSQL did not start on 127.0.0.1:$PORT (see $dir/data/server.log)" >&2; exit 1; }
  if ! "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U platbench -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'platbench'" | grep -q 1; then
    "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U platbench platbench
  fi
  ;;
stop)
  [ -n "$dir" ] || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
  # root's cluster outside the clone goes with the server: nothing is left in /tmp
  if [ -z "${PLATBENCH_POSTGRES_DIR:-}" ] && [ -f "$pointer" ] && [ "$(cat "$pointer")" = "$dir" ]; then
    rm -rf "$dir" "$pointer"
  fi
  ;;
env)
  echo "export PLATBENCH_POSTGRES_URL='$URL'"
  ;;
*)
  echo "usage: $0 install|start|stop|env" >&2; exit 2
  ;;
esac
