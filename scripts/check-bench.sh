#!/usr/bin/env bash
# The benchmark scripts still run (make test): each `make bench-*` script that
# needs no server of the test suite's, in its smallest setting, must exit 0
# and print its table with numbers in it. No figure is judged (timed
# assertions do not belong in tests): this catches a script that no longer
# runs at all, as when --out began refusing to replace a file and
# bench-pacing measured nothing (-1000 µs per op) for two waves.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/platbench ] || make -s build
# The scripts time their clients with GNU time (a fresh machine may lack it).
if [ ! -x /usr/bin/time ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null ||
    { echo "check-bench: /usr/bin/time missing and apt-get install time failed (fix: apt-get update, then apt-get install time)" >&2; exit 1; }
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "check-bench: $1" >&2; exit 1; }

RATES=10000 TICKS="" ROUNDS=1 DURATION=1 SEARCH=0 OUT=$out/pacing scripts/bench-pacing.sh > "$out/pacing.log" 2>&1 ||
  { cat "$out/pacing.log" >&2; fail "scripts/bench-pacing.sh failed"; }
grep -Eq '^10000 +[0-9.]+ µs' "$out/pacing/pacing.txt" || { cat "$out/pacing.log" >&2; fail "bench-pacing printed no CPU per op at 10,000/s"; }
echo "check-bench: bench-pacing ok ($(grep -E '^10000 ' "$out/pacing/pacing.txt" | tr -s ' '))"

SHORT=1 LONG=2 ROUNDS=1 PARTS=0 OUT=$out/seconds scripts/bench-seconds.sh > "$out/seconds.log" 2>&1 ||
  { cat "$out/seconds.log" >&2; fail "scripts/bench-seconds.sh failed"; }
[ "$(grep -Ec '^(all|no-perf|no-telemetry) +-?[0-9.]+ ' "$out/seconds/seconds.txt")" = 3 ] ||
  { cat "$out/seconds.log" >&2; fail "bench-seconds printed no row for each setup"; }
echo "check-bench: bench-seconds ok"

N_P1=2000 N_P16=2000 FIXED_OPS=500 PIPES=1 TESTS=get PROCS="default 1" OUT=$out/redis.md scripts/bench-redis.sh > "$out/redis.log" 2>&1 ||
  { cat "$out/redis.log" >&2; fail "scripts/bench-redis.sh failed"; }
[ "$(grep -Ec '^\| get \| 1 \| (redis-benchmark|platbench)[^|]* \| 2000 \| [0-9]+ ' "$out/redis.md")" = 3 ] ||
  { cat "$out/redis.log" >&2; fail "bench-redis printed no row for each client"; }
echo "check-bench: bench-redis ok"
