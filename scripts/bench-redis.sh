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
#        PIPES="1 16", CLIENT_CPU (a core or a list, 1-8), SERVER_CPU,
#        OUT (markdown table file),
#        THREADS (redis-benchmark --threads N, for a client with many cores),
#        PROCS (platbench's GOMAXPROCS values to run, e.g. "1 2 8"; default
#        the Go default, the cores it may use: the surplus Ps of a client
#        with cores to spare cost CPU per operation, issue 47),
#        ROUNDS (rounds, the clients' order reversed every other round:
#        A B, B A; default 1)
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
THREADS=${THREADS:-}
PROCS=${PROCS:-default}
ROUNDS=${ROUNDS:-1}
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

pb() { # test pipe ops out procs
  local test=$1 pipe=$2 ops=$3 out=$4 procs=$5 env=()
  [ "$procs" = default ] || env=(env GOMAXPROCS="$procs")
  cpu "${env[@]}" ./bin/platbench run --quiet --no-load --target "redis://127.0.0.1:$PORT" --workload ycsb-a \
    --mix "$test=1" --distribution uniform --records "$KEYS" --field-count 1 --field-length "$VALUE" \
    --concurrency $((CONNS * pipe)) --target-opt pipeline="$pipe" --ops "$ops" --warmup 0 --force --out "$out" >"$work/pb.txt"
}

printf '| test | pipeline | client | ops | ops/s | p99 ms | client CPU s | CPU s per 1M ops | marginal CPU s per 1M ops | ops per client CPU-s |\n' | tee "$OUT"
printf '|---|---|---|---|---|---|---|---|---|---|\n' | tee -a "$OUT"
# platbench's GETs read its own keys: load them first (not measured).
./bin/platbench load --quiet --target "redis://127.0.0.1:$PORT" --workload ycsb-a --records "$KEYS" \
  --field-count 1 --field-length "$VALUE" --concurrency 16 --force --out "$work/load.json" >/dev/null
rb() { # test pipe n
  local threads=() name=redis-benchmark
  [ -z "$THREADS" ] || { threads=(--threads "$THREADS"); name="redis-benchmark --threads $THREADS"; }
  # redis-benchmark: -r KEYS random keys, -d VALUE bytes, -c CONNS connections, -P pipe.
  cpu redis-benchmark -p "$PORT" -t "$1" -n "$3" -r "$KEYS" -d "$VALUE" -c "$CONNS" -P "$2" "${threads[@]}" --csv >"$work/rb.csv"
  read -r rps p99 < <(awk -F, 'NR==2 {gsub(/"/,""); print $2, $7}' "$work/rb.csv")
  awk -v t="$1" -v p="$2" -v n="$3" -v r="$rps" -v l="$p99" -v c="$cpu" -v name="$name" 'BEGIN {
    printf "| %s | %d | %s | %d | %.0f | %.3f | %.2f | %.2f | %.2f | %.0f |\n", t, p, name, n, r, l, c, c*1e6/n, c*1e6/n, n/c }' | tee -a "$OUT"
}
pbrow() { # test pipe n procs
  local test=$1 pipe=$2 n=$3 procs=$4 name=platbench
  [ "$procs" = default ] || name="platbench GOMAXPROCS=$procs"
  pb "$test" "$pipe" "$FIXED_OPS" "$work/fixed.json" "$procs"; fixed=$cpu
  pb "$test" "$pipe" "$n" "$work/pb.json" "$procs"
  python3 - "$work/pb.json" "$test" "$pipe" "$n" "$cpu" "$fixed" "$FIXED_OPS" "$name" <<'PY' | tee -a "$OUT"
import json, sys
f, test, pipe, n, cpu, fixed, fixed_ops, name = sys.argv[1:]
r = json.load(open(f))
p = [p for p in r["phases"] if p["name"] == "run"][0]
ops = sum(o["count"] for o in p["ops"])
errs = sum(sum(o.get("errors", {}).values()) if isinstance(o.get("errors"), dict) else 0 for o in p["ops"])
p99 = max(o["latency"]["p99_ns"] for o in p["ops"]) / 1e6
rate = ops / (p["duration_ns"] / 1e9)
cpu, fixed = float(cpu), float(fixed)
marg = (cpu - fixed) * 1e6 / (ops - int(fixed_ops))
print(f"| {test} | {pipe} | {name}{' (errors: %d)' % errs if errs else ''} | {ops} | {rate:.0f} | {p99:.3f} | {cpu:.2f} | {cpu*1e6/ops:.2f} | {marg:.2f} | {ops/cpu:.0f} |")
PY
}
clients=(rb)
for procs in $PROCS; do clients+=("pb:$procs"); done
for round in $(seq "$ROUNDS"); do
  order=("${clients[@]}")
  if [ $((round % 2)) = 0 ]; then
    order=(); for ((i = ${#clients[@]} - 1; i >= 0; i--)); do order+=("${clients[$i]}"); done
  fi
  for pipe in $PIPES; do
    n=$N_P1; [ "$pipe" -gt 1 ] && n=$N_P16
    for test in $TESTS; do
      for c in "${order[@]}"; do
        case $c in
          rb) rb "$test" "$pipe" "$n" ;;
          pb:*) pbrow "$test" "$pipe" "$n" "${c#pb:}" ;;
        esac
      done
    done
  done
done
echo "table written to $OUT" >&2
