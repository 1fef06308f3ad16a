#!/usr/bin/env bash
# Side-by-side accuracy check of `platbench probe disk` against fio (Debian
# fio 3.33) on the same file with the same settings: the IOTune set (seq
# 1 MiB write/read, random 4 KiB write/read), O_DIRECT, io_uring, 1 job x
# iodepth 32, both tools pinned to the same CPUs. Runs alternate fio /
# platbench ROUNDS times so drift of a shared disk hits both tools alike; the
# tables compare medians and list every run.
#
# Three settings (MODES, default "tmpfs": it isolates the tools' own cost):
#   disk    the file system of DIR as it is
#   capped  the same disk under a kernel throttle (cgroup v1 blkio.throttle or
#           v2 io.max: 200 MiB/s and 5000 IOPS per direction), so the device
#           rate is fixed and any difference is the tools' (root only)
#   tmpfs   a file in memory (tmpfs accepts O_DIRECT since Linux 6.6): no
#           device at all, the tools' own per-I/O cost (root only)
# Writes test-artifacts/bench-disk/{MODE-*.json,summary.md}.
#
# Environment: DIR (default .cache/bench-disk), SIZE (1G), RUNTIME (10 s per
# run), ROUNDS (3), IODEPTH (32), CPUS (taskset list for both tools, default
# 1), PLATBENCH_BIN (a prebuilt binary; default: build bin/platbench).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-.cache/bench-disk}
SIZE=${SIZE:-1G}
RUNTIME=${RUNTIME:-10}
ROUNDS=${ROUNDS:-3}
IODEPTH=${IODEPTH:-32}
CPUS=${CPUS:-1}
MODES=${MODES:-tmpfs}
OUT=test-artifacts/bench-disk
FIO=${PLATBENCH_FIO:-$(command -v fio || true)}
[ -n "$FIO" ] || { echo "bench-disk: fio not found (fix: scripts/servers/fio.sh install)" >&2; exit 1; }
mkdir -p "$DIR" "$OUT"
for mode in $MODES; do rm -f "$OUT/$mode"-*.json; done
rm -f "$OUT/summary.md"
PB=${PLATBENCH_BIN:-bin/platbench}
[ -n "${PLATBENCH_BIN:-}" ] || go build -o "$PB" ./cmd/platbench
CG= TMPFS=
cleanup() {
  rm -f "$DIR/bench.dat"
  if [ -n "$CG" ]; then echo $$ >"$(dirname "$CG")/cgroup.procs" 2>/dev/null || true; rmdir "$CG" 2>/dev/null || true; fi
  if [ -n "$TMPFS" ]; then umount "$TMPFS" 2>/dev/null || true; rmdir "$TMPFS" 2>/dev/null || true; fi
}
trap cleanup EXIT

# MAJ:MIN of the whole disk under a directory.
disk_of() {
  local d; d=$(findmnt -no MAJ:MIN -T "$1" | head -1 | tr -d ' ')
  if [ -e "/sys/dev/block/$d/partition" ]; then d=$(cat "/sys/dev/block/$d/../dev"); fi
  echo "$d"
}

# Put this shell (and so both tools) in a cgroup with a throttle on DEV.
cap_disk() {
  local dev=$1 bps=$((200 << 20)) iops=5000
  if [ -w /sys/fs/cgroup/blkio/cgroup.procs ] && [ -e /sys/fs/cgroup/blkio/blkio.throttle.read_bps_device ]; then
    CG=/sys/fs/cgroup/blkio/platbench-bench-$$; mkdir -p "$CG"
    for f in read_bps write_bps; do echo "$dev $bps" >"$CG/blkio.throttle.${f}_device"; done
    for f in read_iops write_iops; do echo "$dev $iops" >"$CG/blkio.throttle.${f}_device"; done
  elif [ -e /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw io /sys/fs/cgroup/cgroup.controllers; then
    CG=/sys/fs/cgroup/platbench-bench-$$; mkdir -p "$CG"
    echo "$dev rbps=$bps wbps=$bps riops=$iops wiops=$iops" >"$CG/io.max"
  else
    return 1
  fi
  echo $$ >"$CG/cgroup.procs"
}

run_mode() {
  local mode=$1 file=$2
  rm -f "$file"
  # Lay the file out once (fully written, not sparse); both tools then use it as is.
  "$FIO" --name=layout --filename="$file" --size="$SIZE" --rw=write --bs=1m --direct=1 --ioengine=psync --overwrite=1 >/dev/null
  local tests=("write 1m seq-write-1m" "read 1m seq-read-1m" "randwrite 4k rand-write-4k" "randread 4k rand-read-4k")
  for round in $(seq 1 "$ROUNDS"); do
    for t in "${tests[@]}"; do
      set -- $t; local rw=$1 bs=$2 name=$3
      echo "== $mode round $round $name" >&2
      taskset -c "$CPUS" "$FIO" --name="$name" --filename="$file" --size="$SIZE" --rw="$rw" --bs="$bs" \
        --direct=1 --ioengine=io_uring --iodepth="$IODEPTH" --numjobs=1 --runtime="$RUNTIME" --time_based \
        --randrepeat=0 --norandommap --output-format=json >"$OUT/$mode-fio-$name-$round.json"
      taskset -c "$CPUS" "$PB" probe disk "$file" --force --size "$SIZE" --rw "$rw" --bs "$bs" \
        --iodepth "$IODEPTH" --jobs 1 --engine io_uring --duration "${RUNTIME}s" \
        --out "$OUT/$mode-platbench-$name-$round.json" >/dev/null 2>&1
    done
  done
  rm -f "$file"
}

ran=()
for mode in $MODES; do
  case $mode in
    disk) run_mode disk "$DIR/bench.dat"; ran+=(disk) ;;
    capped)
      if [ "$(id -u)" = 0 ] && cap_disk "$(disk_of "$DIR")"; then
        run_mode capped "$DIR/bench.dat"; ran+=(capped)
        echo $$ >"$(dirname "$CG")/cgroup.procs"; rmdir "$CG"; CG=
      else
        echo "bench-disk: no kernel throttle usable here (needs root and blkio.throttle or io.max); skipping capped" >&2
      fi ;;
    tmpfs)
      TMPFS=$(mktemp -d)
      if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=$(( $(numfmt --from=iec "$SIZE") + (64 << 20) )) tmpfs "$TMPFS"; then
        run_mode tmpfs "$TMPFS/bench.dat"; ran+=(tmpfs)
        umount "$TMPFS"
      else
        echo "bench-disk: cannot mount a tmpfs (needs root); skipping tmpfs" >&2
      fi
      rmdir "$TMPFS"; TMPFS= ;;
    *) echo "bench-disk: unknown mode $mode (fix: MODES=\"disk capped tmpfs\")" >&2; exit 2 ;;
  esac
done

python3 - "$OUT" "$ROUNDS" "${ran[@]}" <<'PY'
import json, statistics, sys
out, rounds, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = ["seq-write-1m", "seq-read-1m", "rand-write-4k", "rand-read-4k"]
text = []
for mode in modes:
    rows = [f"### {mode}", "",
            f"| test | figure | fio (median of {rounds}) | platbench (median of {rounds}) | platbench / fio | fio runs | platbench runs |",
            "|---|---|---:|---:|---:|---|---|"]
    worst = 0.0
    mode_ratios = []
    for n in names:
        seq = n.startswith("seq")
        f, p = [], []
        for r in range(1, rounds + 1):
            j = json.load(open(f"{out}/{mode}-fio-{n}-{r}.json"))["jobs"][0]
            side = j["write"] if "write" in n else j["read"]
            f.append(side["bw_bytes"] / 1e6 if seq else side["iops"])
            ph = json.load(open(f"{out}/{mode}-platbench-{n}-{r}.json"))["phases"][0]
            op, secs = ph["ops"][0], ph["duration_ns"] / 1e9
            p.append(op["bytes"] / secs / 1e6 if seq else op["count"] / secs)
        fm, pm = statistics.median(f), statistics.median(p)
        worst = max(worst, abs(pm / fm - 1))
        mode_ratios.append(pm / fm)
        unit = "MB/s" if seq else "IOPS"
        fmt = lambda xs: ", ".join(f"{x:,.0f}" for x in xs)
        rows.append(f"| {n} | {unit} | {fm:,.1f} | {pm:,.1f} | {pm/fm:.3f} | {fmt(f)} | {fmt(p)} |")
    rows += ["", f"largest deviation of the medians ({mode}): {worst*100:.1f}%", ""]
    ratios = ", ".join(f"{n} {r:.3f}" for n, r in zip(names, mode_ratios))
    rows += [f"platbench / fio ({mode}): {ratios}", ""]
    text += rows
open(f"{out}/summary.md", "w").write("\n".join(text))
print("\n".join(text))
PY
