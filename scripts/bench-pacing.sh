#!/usr/bin/env bash
# `make bench-pacing`: the open loop's own cost on the null target, one core,
# beside the closed loop in the same run (docs/benchmarks.md, issue 16).
#   1. client CPU per op (user+sys from /usr/bin/time over the ops the result
#      counts, less the CPU of an idle run of the same length at 1 op/s: the
#      process's start, telemetry and result writing) and schedule lag
#      p50/p99/p99.9/max, closed loop and fixed rates, the modes alternated
#      (A B B A ...) over ROUNDS rounds, medians kept;
#   2. the highest rate one core paces with lag p99 <= 100 µs: doubling from
#      100k/s, then bisecting between the last pass and the first failure.
# The binary is pinned to CPU $CPU (taskset); run it on a quiet machine (load
# average < 1): the figures are the loader's own and a busy machine's wakeups
# are late.
#   RATES     fixed rates to measure (default "10000 100000 1000000 2000000")
#   TICKS     longer pace ticks (--pace-tick) to measure too, at each of
#             TICK_RATES (default TICKS "250us 1ms", TICK_RATES "10000 100000"):
#             the CPU a longer tick saves and the lag it adds (mode RATE@TICK)
#   ROUNDS    rounds (default 3)   DURATION  seconds per run (default 10)
#   CPU       core to pin to (default 1)
#   SEARCH    0: skip step 2 (the highest rate paced)
#   OUT       output directory (default bench-results)
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${RATES:-"10000 100000 1000000 2000000"}
TICKS=${TICKS-"250us 1ms"}
TICK_RATES=${TICK_RATES:-"10000 100000"}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CPU=${CPU:-1}
OUT=${OUT:-bench-results}
BIN=${BIN:-bin/platbench}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BIN" ] || { echo "bench-pacing: $BIN not built (make build)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench-pacing: taskset not found (apt-get install util-linux)" >&2; exit 2; }
echo "== pacing on null, pinned to CPU $CPU, ${DURATION}s runs, $ROUNDS rounds (load: $(cut -d' ' -f1-3 /proc/loadavg))"

# one MODE -> "cpu_ns lag_p50 lag_p99 lag_p999 lag_max late_client ops" (ns)
one() {
  local mode=$1 res="$tmp/r.json" t="$tmp/time"
  local args=(run --target null --no-load --quiet --out "$res" --duration "${DURATION}s")
  case $mode in
    closed) ;;
    idle) args+=(--rate 1) ;;
    *@*) args+=(--rate "${mode%@*}" --pace-tick "${mode#*@}") ;;
    *) args+=(--rate "$mode") ;;
  esac
  rm -f "$tmp"/r.*  # the last mode's result: platbench never replaces a file silently
  /usr/bin/time -f '%U %S' -o "$t" taskset -c "$CPU" "$BIN" "${args[@]}" >"$tmp/out" 2>&1 || true
  [ -s "$res" ] || { echo "bench-pacing: $mode wrote no result:" >&2; tail -3 "$tmp/out" >&2; exit 1; }
  python3 - "$res" "$t" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
p = [p for p in r["phases"] if p["name"] == "run"][0]
ops = sum(o["count"] for o in p["ops"])
lag = {}
for o in p["ops"]:  # the op types share one schedule: take the worst of each figure
    for k, v in (o.get("lag") or {}).items():
        lag[k] = max(lag.get(k, 0), v)
print(f'{(u + s) * 1e9:.0f} {lag.get("p50_ns", 0)} {lag.get("p99_ns", 0)} {lag.get("p999_ns", 0)} {lag.get("max_ns", 0)} {p.get("late_client", 0)} {ops}')
EOF
}

# The machine's floor: a bare timer wakeup every 100 µs (C, no runtime), the
# least any loader pays per operation at 10,000/s (one wakeup per op), and
# how late such wakeups come on this machine (no loader's lag is lower). It
# runs in every round, beside the modes, so that each round's 10,000/s is
# set against its own floor (a VM's wakeup cost drifts by 20% in minutes).
floor=""
if command -v cc >/dev/null && cc -O2 -o "$tmp/timer-floor" scripts/bench/timer-floor.c 2>/dev/null; then
  floor="$tmp/timer-floor"
fi
modes=(idle closed $RATES)
for tr in $TICK_RATES; do for tk in $TICKS; do modes+=("$tr@$tk"); done; done
for r in $(seq "$ROUNDS"); do
  order=("${modes[@]}")
  if [ $((r % 2)) = 0 ]; then order=($(printf '%s\n' "${modes[@]}" | tac)); fi
  [ -z "$floor" ] || [ $((r % 2)) = 0 ] || taskset -c "$CPU" "$floor" 100000 $((DURATION * 10000)) >> "$tmp/floor"
  for m in "${order[@]}"; do
    x=$(one "$m")
    echo "$m $x" | tee -a "$tmp/all"
  done
  [ -z "$floor" ] || [ $((r % 2)) = 1 ] || taskset -c "$CPU" "$floor" 100000 $((DURATION * 10000)) >> "$tmp/floor"
done >/dev/null
{
  printf '%-14s %14s %10s %10s %10s %10s %12s\n' mode "cpu/op" "lag p50" "lag p99" "lag p99.9" "lag max" "late client"
  idle=$(awk '$1 == "idle" {print $2}' "$tmp/all" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  for m in "${modes[@]}"; do
    [ "$m" = idle ] && continue
    awk -v m="$m" '$1 == m' "$tmp/all" | IDLE=$idle python3 -c '
import sys, statistics as st
import os
idle = float(os.environ["IDLE"])
rows = [list(map(float, l.split()[1:])) for l in sys.stdin if l.strip()]
rows = [[(r[0] - idle) / max(r[6], 1)] + r[1:] for r in rows]
med = [st.median(c) for c in zip(*rows)]
fmt = lambda ns: f"{ns/1e3:.2f} µs" if ns < 1e6 else f"{ns/1e6:.2f} ms"
m = sys.argv[1]
cells = [fmt(v) if m != "closed" else "-" for v in med[1:5]]
print(f"{m:<14} {fmt(med[0]):>14} " + " ".join(f"{c:>10}" for c in cells) + f" {int(med[5]):>12}")
' "$m"
  done
} | tee "$OUT/pacing.txt"

if [ -n "$floor" ]; then
  sed 's/^/machine floor (scripts\/bench\/timer-floor.c, pinned to CPU '"$CPU"'): /' "$tmp/floor" | tee -a "$OUT/pacing.txt"
  # Each round's 10,000/s CPU per op over that round's floor.
  if grep -q '^10000 ' "$tmp/all"; then
    idle=$(awk '$1 == "idle" {print $2}' "$tmp/all" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    IDLE=$idle python3 - "$tmp/all" "$tmp/floor" <<'PY' | tee -a "$OUT/pacing.txt"
import os, statistics as st, sys
idle = float(os.environ["IDLE"])
ten = [(float(l.split()[1]) - idle) / float(l.split()[7]) / 1e3 for l in open(sys.argv[1]) if l.startswith("10000 ")]
fl = [float(l.split()[0]) for l in open(sys.argv[2]) if l.strip()]
ratios = [t / f for t, f in zip(ten, fl)]
print("10,000/s over the floor, round by round: " + ", ".join(f"{t:.1f}/{f:.1f} µs = {r:.2f}x" for t, f, r in zip(ten, fl, ratios))
      + f"; median {st.median(ratios):.2f}x")
PY
  fi
else
  echo "machine floor: not measured (no C compiler)" | tee -a "$OUT/pacing.txt"
fi

[ "${SEARCH:-1}" = 1 ] || exit 0
# The highest rate one core paces with lag p99 <= 100 µs.
ok() { local x; x=$(one "$1") || exit 1; set -- $x; [ "${3%.*}" -le 100000 ]; }
lo=0 hi=0 r=100000
while [ "$r" -le 16000000 ]; do
  if ok "$r"; then lo=$r; r=$((r * 2)); else hi=$r; break; fi
done
if [ "$hi" -gt 0 ] && [ "$lo" -gt 0 ]; then
  for _ in 1 2 3; do
    mid=$(((lo + hi) / 2))
    if ok "$mid"; then lo=$mid; else hi=$mid; fi
  done
fi
echo "highest rate paced on one core with schedule lag p99 <= 100 µs: ${lo} ops/s (first failing: ${hi:-none})" | tee -a "$OUT/pacing.txt"
