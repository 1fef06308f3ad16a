#!/usr/bin/env bash
# Side by side: redis-benchmark (Debian) vs platbench on the same Redis, same
# value size, connections and pipelining, both clients pinned to the same core
# (CLIENT_CPU) and the server to another (SERVER_CPU). For each case it prints
# ops/s, p99 and client CPU seconds per million operations.
#
# platbench's --concurrency is the total of ops in flight: CONNS*pipe with
# pipeline=pipe gives CONNS connections with pipe in flight each (one
# goroutine per connection drives its pipeline: target.Pipeliner).
#
# Client CPU is user+system time of the whole client process (/usr/bin/time).
# platbench's includes its start-up, the result file and the report; the
# "marginal" column subtracts a short run's (FIXED_OPS ops) CPU to leave the
# cost per operation of the steady loop.
#
# Usage: scripts/bench-redis.sh            (make bench-redis)
#   env: N_P1, N_P16 (ops per case), CONNS, VALUE, KEYS, TESTS="set get",
#        PIPES="1 16", CLIENT_CPU, SERVER_CPU, OUT (markdown table file)
set -euo pipefail
cd "$(dirname "$0")/.."
N_P1=${N_P1:-200000}
N_P16=${N_P16:-1000000}
CONNS=${CONNS:-50}
VALUE=${VALUE:-100}
KEYS=${KEYS:-100000}
TESTS=${TESTS:-set get}
PIPES=${PIPES:-1 16}
CLIENT_CPU=${CLIENT_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
FIXED_OPS=${FIXED_OPS:-2000}
PORT=${PORT:-16399}
OUT=${OUT:-test-artifacts/bench-redis.md}
work=$(mktemp -d)
mkdir -p "$(dirname "$OUT")"

command -v redis-benchmark >/dev/null || scripts/servers/redis.sh install
[ -x bin/platbench ] || make build >/dev/null
taskset -c "$SERVER_CPU" redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no \
  --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log" --dir "$work"
trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

# cpu CMD...: runs CMD pinned to CLIENT_CPU; sets $cpu (user+sys seconds).
cpu() {
  /usr/bin/time -f "%U %S" -o "$work/time" taskset -c "$CLIENT_CPU" "$@"
  cpu=$(awk '{printf "%.3f", $1 + $2}' "$work/time")
}

pb() { # test pipe ops out
  local test=$1 pipe=$2 ops=$3 out=$4
  cpu ./bin/platbench run --quiet --no-load --target "redis://127.0.0.1:$PORT" --workload ycsb-a \
    --mix "$test=1" --distribution uniform --records "$KEYS" --field-count 1 --field-length "$VALUE" \
    --concurrency $((CONNS * pipe)) --target-opt pipeline="$pipe" --ops "$ops" --warmup 0 --force --out "$out" >"$work/pb.txt"
}

printf '| test | pipeline | client | ops | ops/s | p99 ms | client CPU s | CPU s per 1M ops | marginal CPU s per 1M ops | ops per client CPU-s |\n' | tee "$OUT"
printf '|---|---|---|---|---|---|---|---|---|---|\n' | tee -a "$OUT"
# platbench's GETs read its own keys: load them first (not measured).
./bin/platbench load --quiet --target "redis://127.0.0.1:$PORT" --workload ycsb-a --records "$KEYS" \
  --field-count 1 --field-length "$VALUE" --concurrency 16 --force --out "$work/load.json" >/dev/null
for pipe in $PIPES; do
  n=$N_P1; [ "$pipe" -gt 1 ] && n=$N_P16
  for test in $TESTS; do
    # redis-benchmark: -r KEYS random keys, -d VALUE bytes, -c CONNS connections, -P pipe.
    cpu redis-benchmark -p "$PORT" -t "$test" -n "$n" -r "$KEYS" -d "$VALUE" -c "$CONNS" -P "$pipe" --csv >"$work/rb.csv"
    read -r rps p99 < <(awk -F, 'NR==2 {gsub(/"/,""); print $2, $7}' "$work/rb.csv")
    awk -v t="$test" -v p="$pipe" -v n="$n" -v r="$rps" -v l="$p99" -v c="$cpu" 'BEGIN {
      printf "| %s | %d | redis-benchmark | %d | %.0f | %.3f | %.2f | %.2f | %.2f | %.0f |\n", t, p, n, r, l, c, c*1e6/n, c*1e6/n, n/c }' | tee -a "$OUT"

    pb "$test" "$pipe" "$FIXED_OPS" "$work/fixed.json"; fixed=$cpu
    pb "$test" "$pipe" "$n" "$work/pb.json"
    python3 - "$work/pb.json" "$test" "$pipe" "$n" "$cpu" "$fixed" "$FIXED_OPS" <<'PY' | tee -a "$OUT"
import json, sys
f, test, pipe, n, cpu, fixed, fixed_ops = sys.argv[1:]
r = json.load(open(f))
p = [p for p in r["phases"] if p["name"] == "run"][0]
ops = sum(o["count"] for o in p["ops"])
errs = sum(sum(o.get("errors", {}).values()) if isinstance(o.get("errors"), dict) else 0 for o in p["ops"])
p99 = max(o["latency"]["p99_ns"] for o in p["ops"]) / 1e6
rate = ops / (p["duration_ns"] / 1e9)
cpu, fixed = float(cpu), float(fixed)
marg = (cpu - fixed) * 1e6 / (ops - int(fixed_ops))
print(f"| {test} | {pipe} | platbench{' (errors: %d)' % errs if errs else ''} | {ops} | {rate:.0f} | {p99:.3f} | {cpu:.2f} | {cpu*1e6/ops:.2f} | {marg:.2f} | {ops/cpu:.0f} |")
PY
  done
done
echo "table written to $OUT" >&2
