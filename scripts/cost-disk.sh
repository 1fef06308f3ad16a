#!/usr/bin/env bash
# The disk probe's own cost per I/O next to fio's, in measures that do not
# depend on how busy the machine is: user-space instructions per I/O
# (valgrind --tool=callgrind, counted exactly) and user+sys CPU seconds per
# I/O (/usr/bin/time, both tools pinned with taskset). A file on tmpfs
# (O_DIRECT works there since Linux 6.6), so no device time is in either.
#
# Instructions: each tool runs twice under callgrind, for SHORT and LONG
# seconds; (Ir(LONG) - Ir(SHORT)) / (I/Os(LONG) - I/Os(SHORT)) takes out
# start-up and set-up, leaving the steady per-I/O path. callgrind counts
# user-space instructions only: the kernel's share shows in the CPU figure.
# fio forks its job, so every process's count is summed; Go's asynchronous
# preemption signals trip callgrind, so platbench runs with them off (the
# scheduler still preempts at function calls).
#
# Environment: DIR (default /dev/shm), TESTS (default "randread:4k
# randwrite:4k"), IODEPTH (32), SHORT/LONG (1/3 s under callgrind), RUNTIME
# (5 s for the CPU runs), CPUS (1), PLATBENCH_BIN (default: build one).
# Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/dev/shm}
TESTS=${TESTS:-randread:4k randwrite:4k}
IODEPTH=${IODEPTH:-32}
SHORT=${SHORT:-1}
LONG=${LONG:-3}
RUNTIME=${RUNTIME:-5}
CPUS=${CPUS:-1}
FIO=${PLATBENCH_FIO:-$(command -v fio || true)}
[ -n "$FIO" ] || { echo "cost-disk: fio not found (fix: scripts/servers/fio.sh install)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "cost-disk: valgrind not found (fix: apt-get install valgrind)" >&2; exit 1; }
PB=${PLATBENCH_BIN:-bin/platbench}
[ -n "${PLATBENCH_BIN:-}" ] || go build -o "$PB" ./cmd/platbench
TMP=$(mktemp -d)
FILE=$DIR/platbench-cost-$$.dat
trap 'rm -rf "$TMP" "$FILE"' EXIT
"$FIO" --name=layout --filename="$FILE" --size=256M --rw=write --bs=1m --direct=1 --ioengine=psync --overwrite=1 >/dev/null

# run TOOL RW BS SECONDS JSON [wrapper...]: one run of fio or platbench.
run() {
  local tool=$1 rw=$2 bs=$3 secs=$4 out=$5; shift 5
  if [ "$tool" = fio ]; then
    "$@" "$FIO" --name=t --filename="$FILE" --size=256M --rw="$rw" --bs="$bs" --direct=1 --ioengine=io_uring \
      --iodepth="$IODEPTH" --numjobs=1 --runtime="$secs" --time_based --randrepeat=0 --norandommap \
      --output-format=json >"$out"
  else
    "$@" "$PB" probe disk "$FILE" --force --size 256M --rw "$rw" --bs "$bs" --iodepth "$IODEPTH" --jobs 1 \
      --engine io_uring --duration "${secs}s" --out "$out" >/dev/null 2>&1
  fi
}

# ios TOOL JSON: the number of I/Os a run completed.
ios() {
  python3 - "$@" <<'PY'
import json, sys
tool, path = sys.argv[1], sys.argv[2]
j = json.load(open(path))
if tool == "fio":
    print(sum(j["jobs"][0][s]["total_ios"] for s in ("read", "write")))
else:
    print(sum(o["count"] for o in j["phases"][0]["ops"]))
PY
}

echo "| test | tool | instructions / I/O (user) | CPU µs / I/O (user+sys) | I/Os in the CPU run |"
echo "|---|---|---:|---:|---:|"
for t in $TESTS; do
  rw=${t%%:*} bs=${t##*:}
  for tool in fio platbench; do
    declare -A ir=() n=()
    for secs in "$SHORT" "$LONG"; do
      run "$tool" "$rw" "$bs" "$secs" "$TMP/$tool-$secs.json" \
        env GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$TMP/cg-$tool-$secs.%p" -q
      ir[$secs]=$(cat "$TMP/cg-$tool-$secs".* | awk '/^summary:/ {s += $2} END {print s}')
      n[$secs]=$(ios "$tool" "$TMP/$tool-$secs.json")
    done
    ipio=$(( (ir[$LONG] - ir[$SHORT]) / (n[$LONG] - n[$SHORT]) ))
    run "$tool" "$rw" "$bs" "$RUNTIME" "$TMP/$tool-cpu.json" /usr/bin/time -f '%U %S' -o "$TMP/time" taskset -c "$CPUS"
    cnt=$(ios "$tool" "$TMP/$tool-cpu.json")
    cpu=$(awk -v n="$cnt" '{printf "%.2f", ($1 + $2) * 1e6 / n}' "$TMP/time")
    echo "| $rw $bs | $tool | $ipio | $cpu | $cnt |"
  done
done
