#!/usr/bin/env bash
# `make bench-seconds`: what one second of a run costs platbench itself, by
# part (issue 47), in CPU-ms per second of run, on the null target pinned to
# one core:
#   1. whole process: runs at 1 op/s (no load to speak of) of SHORT and LONG
#      seconds; the slope (CPU(LONG) - CPU(SHORT)) / (LONG - SHORT) is the
#      cost of a second, start-up and the result's writing cancelled out.
#      Three setups, alternated between rounds (A B C, C B A, ...):
#        all          the defaults (host sampling every second, perf counters
#                     of the process, the journal)
#        no-perf      --perf-scope off
#        no-telemetry --perf-scope off --telemetry-interval 1h (no host sample)
#      so that all - no-perf is the perf counters' part and no-perf -
#      no-telemetry the host sampler's; what no-telemetry still costs is the
#      journal, the recorder's interval and the Go runtime.
#   2. the parts in process (`go test -bench`): one host sample
#      (BenchmarkSample), one node_exporter scrape parsed and differenced
#      (BenchmarkScrapeSample), one second of ten op types through the journal
#      (BenchmarkJournalSecond), the recorder's interval (BenchmarkIntervalTick).
# Run it on a quiet machine (load average < 1).
#   SHORT, LONG  seconds (default 5 and 25)   ROUNDS  rounds (default 2)
#   CPU  core to pin to (default 1)           OUT     output dir (default bench-results)
#   PARTS  0: skip step 2
set -euo pipefail
cd "$(dirname "$0")/.."
SHORT=${SHORT:-5}
LONG=${LONG:-25}
ROUNDS=${ROUNDS:-2}
CPU=${CPU:-1}
OUT=${OUT:-bench-results}
BIN=${BIN:-bin/platbench}
[ -x "$BIN" ] || { echo "bench-seconds: $BIN not built (make build)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench-seconds: taskset not found (apt-get install util-linux)" >&2; exit 2; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== a second of run, null target at 1 op/s, pinned to CPU $CPU, ${SHORT}s and ${LONG}s runs, $ROUNDS rounds (load: $(cut -d' ' -f1-3 /proc/loadavg))"

declare -A setup=(
  [all]=""
  [no-perf]="--perf-scope off"
  [no-telemetry]="--perf-scope off --telemetry-interval 1h"
)
# one SETUP SECONDS -> CPU seconds (user+sys) of the whole process
one() {
  rm -f "$tmp"/r.*
  # shellcheck disable=SC2086
  /usr/bin/time -f '%U %S' -o "$tmp/time" taskset -c "$CPU" "$BIN" run --target null --no-load --quiet \
    --rate 1 --duration "${2}s" ${setup[$1]} --out "$tmp/r.json" >"$tmp/out" 2>&1 ||
    { echo "bench-seconds: $1 ${2}s failed:" >&2; tail -3 "$tmp/out" >&2; exit 1; }
  awk '{print $1 + $2}' "$tmp/time"
}
names=(all no-perf no-telemetry)
: > "$tmp/all"
for r in $(seq "$ROUNDS"); do
  order=("${names[@]}")
  [ $((r % 2)) = 1 ] || order=(no-telemetry no-perf all)
  for s in "${order[@]}"; do
    a=$(one "$s" "$SHORT"); b=$(one "$s" "$LONG")
    echo "$s $a $b" >> "$tmp/all"
  done
done
{
  printf '%-14s %22s %s\n' setup "CPU-ms per second" "(each round)"
  for s in "${names[@]}"; do
    awk -v s="$s" -v d="$((LONG - SHORT))" '$1 == s { v = ($3 - $2) * 1000 / d; a[++n] = v; t += v }
      END { printf "%-14s %22.2f (", s, t / n; for (i = 1; i <= n; i++) printf "%s%.2f", (i > 1 ? ", " : ""), a[i]; print ")" }' "$tmp/all"
  done
} | tee "$OUT/seconds.txt"

[ "${PARTS:-1}" = 1 ] || exit 0
echo "== the parts in process (go test -bench, cpu-ns/op or ms/second)" | tee -a "$OUT/seconds.txt"
{
  taskset -c "$CPU" go test -run '^$' -bench 'BenchmarkSample$' -benchtime 200x ./telemetry/host
  taskset -c "$CPU" go test -run '^$' -bench 'BenchmarkScrapeSample$' -benchtime 200x ./telemetry/nodes
  taskset -c "$CPU" go test -run '^$' -bench 'BenchmarkJournalSecond$' -benchtime 200x ./result
  taskset -c "$CPU" go test -run '^$' -bench 'BenchmarkIntervalTick$' -benchtime 200x ./recorder
} 2>&1 | grep -E '^Benchmark' | tee -a "$OUT/seconds.txt"
