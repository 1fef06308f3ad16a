#!/usr/bin/env bash
# Side-by-side accuracy check of `platbench probe disk` against fio (Debian
# fio 3.33) on the same file with the same settings: the IOTune set
# (seq 1 MiB write/read, random 4 KiB write/read), O_DIRECT, io_uring,
# 1 job x iodepth 32. Runs alternate fio / platbench ROUNDS times so drift of
# a shared or throttled disk hits both tools alike; the table compares the
# medians. Writes test-artifacts/bench-disk/{*.json,summary.md}.
#
# Environment: DIR (default .cache/bench-disk), SIZE (1G), RUNTIME (15 s per
# run), ROUNDS (3), IODEPTH (32), CPUS (taskset list for both tools, default 1),
# PLATBENCH_BIN (a prebuilt binary; default: build bin/platbench).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-.cache/bench-disk}
SIZE=${SIZE:-1G}
RUNTIME=${RUNTIME:-15}
ROUNDS=${ROUNDS:-3}
IODEPTH=${IODEPTH:-32}
CPUS=${CPUS:-1}
OUT=test-artifacts/bench-disk
FIO=${PLATBENCH_FIO:-$(command -v fio || true)}
[ -n "$FIO" ] || { echo "bench-disk: fio not found (fix: scripts/servers/fio.sh install)" >&2; exit 1; }
mkdir -p "$DIR" "$OUT"
PB=${PLATBENCH_BIN:-bin/platbench}
[ -n "${PLATBENCH_BIN:-}" ] || go build -o "$PB" ./cmd/platbench
FILE=$DIR/bench.dat
trap 'rm -f "$FILE"' EXIT
# Lay the file out once (fully written, not sparse); both tools then use it as is.
rm -f "$FILE"
"$FIO" --name=layout --filename="$FILE" --size="$SIZE" --rw=write --bs=1m --direct=1 --ioengine=psync --overwrite=1 >/dev/null

tests=("write 1m seq-write-1m" "read 1m seq-read-1m" "randwrite 4k rand-write-4k" "randread 4k rand-read-4k")
for round in $(seq 1 "$ROUNDS"); do
  for t in "${tests[@]}"; do
    set -- $t; rw=$1 bs=$2 name=$3
    echo "== round $round $name: fio" >&2
    taskset -c "$CPUS" "$FIO" --name="$name" --filename="$FILE" --size="$SIZE" --rw="$rw" --bs="$bs" \
      --direct=1 --ioengine=io_uring --iodepth="$IODEPTH" --numjobs=1 --runtime="$RUNTIME" --time_based \
      --randrepeat=0 --norandommap --output-format=json >"$OUT/fio-$name-$round.json"
    echo "== round $round $name: platbench" >&2
    taskset -c "$CPUS" "$PB" probe disk "$FILE" --force --size "$SIZE" --rw "$rw" --bs "$bs" \
      --iodepth "$IODEPTH" --jobs 1 --engine io_uring --duration "${RUNTIME}s" \
      --out "$OUT/platbench-$name-$round.json" >/dev/null
  done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
names = ["seq-write-1m", "seq-read-1m", "rand-write-4k", "rand-read-4k"]
rows = ["| test | figure | fio (median of %d) | platbench (median of %d) | platbench / fio |" % (rounds, rounds),
        "|---|---|---:|---:|---:|"]
worst = 0.0
for n in names:
    seq = n.startswith("seq")
    f, p = [], []
    for r in range(1, rounds + 1):
        j = json.load(open(f"{out}/fio-{n}-{r}.json"))["jobs"][0]
        side = j["write"] if "write" in n else j["read"]
        f.append(side["bw_bytes"] / 1e6 if seq else side["iops"])
        res = json.load(open(f"{out}/platbench-{n}-{r}.json"))
        ph = res["phases"][0]
        op = ph["ops"][0]
        secs = ph["duration_ns"] / 1e9
        p.append(op["bytes"] / secs / 1e6 if seq else op["count"] / secs)
    fm, pm = statistics.median(f), statistics.median(p)
    ratio = pm / fm
    worst = max(worst, abs(ratio - 1))
    unit = "MB/s" if seq else "IOPS"
    rows.append(f"| {n} | {unit} | {fm:,.1f} | {pm:,.1f} | {ratio:.3f} |")
    rows.append(f"| | runs | {', '.join(f'{x:,.0f}' for x in f)} | {', '.join(f'{x:,.0f}' for x in p)} | |")
rows.append("")
rows.append(f"largest deviation of the medians: {worst*100:.1f}%")
text = "\n".join(rows)
open(f"{out}/summary.md", "w").write(text + "\n")
print(text)
PY
