#!/usr/bin/env bash
# `make bench`: platbench's own overhead and the embedded store, measured.
# Figures are ratios within one run where possible: these machines are shared.
#   BENCH_LONG_OPS   ops of the long memory run (default 100M)
#   BENCH_RECORDS    records of the embedded YCSB A run (default 1M)
#   BENCH_DURATION   length of the embedded YCSB A run (default 60s)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=bin/platbench
OUT=${BENCH_OUT:-bench-results}
mkdir -p "$OUT"
LONG_OPS=${BENCH_LONG_OPS:-100M}
RECORDS=${BENCH_RECORDS:-1M}
DURATION=${BENCH_DURATION:-60s}
pin=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin="taskset -c 1"; fi

echo "== 1. runner + recorder overhead on the null target (go test -bench; benchstat-compatible)"
$pin go test -run '^$' -bench 'RunnerNull|BaselineLoop' -benchtime 5000000x -count 3 ./runner | tee "$OUT/runner.txt"
go test -run '^$' -bench . -benchtime 2000000x ./recorder ./workload | tee "$OUT/recorder-workload.txt"

echo "== 1b. the open loop beside the closed loop, one core: client CPU per op, schedule lag (make bench-pacing for the binary and the highest rate paced)"
$pin go test -run '^$' -bench 'OpenLoopNull' -benchtime 200000x ./runner | tee "$OUT/open-loop.txt"

echo "== 2. memory: peak RSS after 1M and after $LONG_OPS null operations (one worker)"
rss() { # ops -> peak RSS in KiB
  /usr/bin/time -f '%M' -o "$OUT/rss.tmp" $pin $BIN run --target null --no-load --ops "$1" --concurrency 1 \
    --distribution uniform --quiet --force --out "$OUT/null-$1.json" >/dev/null
  cat "$OUT/rss.tmp"
}
a=$(rss 1M); b=$(rss "$LONG_OPS")
echo "peak RSS: 1M ops ${a} KiB, $LONG_OPS ops ${b} KiB, ratio $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b/a}')" | tee "$OUT/rss.txt"
grep -h '"count"' "$OUT/null-$LONG_OPS.json" >/dev/null || true
$BIN report "$OUT/null-$LONG_OPS.json" | grep -E 'op rate|total operations|operation time' | tee -a "$OUT/rss.txt"

echo "== 3. embedded store (pebble), YCSB A, $RECORDS records, $DURATION"
$BIN run --workload ycsb-a --records "$RECORDS" --duration "$DURATION" --force --out "$OUT/embedded-ycsb-a.json" 2>/dev/null | tee "$OUT/embedded.txt"

echo "== 4. soak: RSS at 1 min vs 30 min on null at 100k op/s, ten op types, six node_exporters; result size per hour; report of a day (issue 34; BENCH_SOAK=0 skips its half hour)"
if [ "${BENCH_SOAK:-1}" != 0 ]; then
  PLATBENCH_BIN=$BIN BENCH_OUT="$OUT" scripts/bench-soak.sh
fi
