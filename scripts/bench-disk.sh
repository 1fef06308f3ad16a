#!/usr/bin/env bash
# Side-by-side accuracy and cost check of `platbench probe disk` against fio
# (Debian fio 3.33) on the same file with the same settings: the IOTune set
# (seq 1 MiB write/read, random 4 KiB write/read), O_DIRECT, io_uring, at
# 1 job x iodepth 32 and at 4 jobs x iodepth 128 (CONFIGS), both tools pinned
# to the same CPUs, plus seed 004's job (rw=write bs=16K direct=1 numjobs=4
# iodepth=128) with fio's libaio and io_uring engines. Runs alternate fio /
# platbench ROUNDS times so drift hits both tools alike; the tables compare
# medians: throughput, CPU per I/O (user+sys of the whole process, io_uring
# worker threads included, from /usr/bin/time) and latency percentiles
# (platbench's per-I/O latency against fio's lat, queued to completion seen,
# and clat, submitted to completion seen).
#
# Three settings (MODES, default "tmpfs": it isolates the tools' own cost):
#   disk    the file system of DIR as it is
#   capped  the same disk under a kernel throttle (cgroup v1 blkio.throttle or
#           v2 io.max: 200 MiB/s and 5000 IOPS per direction), so the device
#           rate is fixed and any difference is the tools' (root only)
#   tmpfs   a file in memory (tmpfs accepts O_DIRECT since Linux 6.6): no
#           device at all, the tools' own per-I/O cost (root only)
# Writes test-artifacts/bench-disk/{MODE-*.json,MODE-*.time,summary.md}.
#
# Environment: DIR (default .cache/bench-disk), SIZE (1G), RUNTIME (10 s per
# run), ROUNDS (4: even, so fio and platbench each run first equally often), CONFIGS ("1x32 4x128": JOBSxIODEPTH), SEED004 (1: run
# seed 004's job; 0: skip), CPUS (taskset list for both tools, default 1),
# PB_ARGS (extra probe flags, e.g. "--registerfiles --fixedbufs"), FIO_ARGS
# (extra fio flags), PLATBENCH_BIN (a prebuilt binary; default: build bin/platbench).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-.cache/bench-disk}
SIZE=${SIZE:-1G}
RUNTIME=${RUNTIME:-10}
ROUNDS=${ROUNDS:-4}
CONFIGS=${CONFIGS:-1x32 4x128}
SEED004=${SEED004:-1}
CPUS=${CPUS:-1}
PB_ARGS=${PB_ARGS:-}
FIO_ARGS=${FIO_ARGS:-}
MODES=${MODES:-tmpfs}
OUT=test-artifacts/bench-disk
FIO=${PLATBENCH_FIO:-$(command -v fio || true)}
[ -n "$FIO" ] || { echo "bench-disk: fio not found (fix: scripts/servers/fio.sh install)" >&2; exit 1; }
mkdir -p "$DIR" "$OUT"
for mode in $MODES; do rm -f "$OUT/$mode"-*.json "$OUT/$mode"-*.time; done
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

# fio_run OUT JOBS DEPTH RW BS ENGINE: one timed fio run. Sequential jobs
# get contiguous ranges of the file (offset_increment), as the probe's jobs.
fio_run() {
  local out=$1 jobs=$2 depth=$3 rw=$4 bs=$5 engine=$6 file=$7 size=$SIZE range=()
  if [ "$jobs" -gt 1 ] && { [ "$rw" = write ] || [ "$rw" = read ]; }; then
    size=$(( $(numfmt --from=iec "$SIZE") / jobs ))
    range=(--offset_increment="$size")
  fi
  /usr/bin/time -f '%U %S' -o "$out.time" taskset -c "$CPUS" "$FIO" --name=t --filename="$file" --size="$size" "${range[@]}" \
    --rw="$rw" --bs="$bs" --direct=1 --ioengine="$engine" --iodepth="$depth" --numjobs="$jobs" --group_reporting \
    --runtime="$RUNTIME" --time_based --randrepeat=0 --norandommap --lat_percentiles=1 $FIO_ARGS \
    --output-format=json >"$out.json"
}

# pb_run OUT JOBS DEPTH RW BS FILE: one timed platbench run.
pb_run() {
  local out=$1 jobs=$2 depth=$3 rw=$4 bs=$5 file=$6
  /usr/bin/time -f '%U %S' -o "$out.time" taskset -c "$CPUS" "$PB" probe disk "$file" --force --size "$SIZE" \
    --rw "$rw" --bs "$bs" --iodepth "$depth" --jobs "$jobs" --engine io_uring --duration "${RUNTIME}s" $PB_ARGS \
    --out "$out.json" >/dev/null 2>&1
}

run_mode() {
  local mode=$1 file=$2
  rm -f "$file"
  # Lay the file out once (fully written, not sparse); both tools then use it as is.
  "$FIO" --name=layout --filename="$file" --size="$SIZE" --rw=write --bs=1m --direct=1 --ioengine=psync --overwrite=1 >/dev/null
  local tests=("write 1m seq-write-1m" "read 1m seq-read-1m" "randwrite 4k rand-write-4k" "randread 4k rand-read-4k")
  for round in $(seq 1 "$ROUNDS"); do
    for cfg in $CONFIGS; do
      local jobs=${cfg%x*} depth=${cfg#*x}
      for t in "${tests[@]}"; do
        set -- $t; local rw=$1 bs=$2 name=$3
        echo "== $mode round $round ${cfg} $name" >&2
        # A B B A: the order alternates from round to round.
        if [ $((round % 2)) = 1 ]; then
          fio_run "$OUT/$mode-$cfg-fio-$name-$round" "$jobs" "$depth" "$rw" "$bs" io_uring "$file"
          pb_run "$OUT/$mode-$cfg-platbench-$name-$round" "$jobs" "$depth" "$rw" "$bs" "$file"
        else
          pb_run "$OUT/$mode-$cfg-platbench-$name-$round" "$jobs" "$depth" "$rw" "$bs" "$file"
          fio_run "$OUT/$mode-$cfg-fio-$name-$round" "$jobs" "$depth" "$rw" "$bs" io_uring "$file"
        fi
      done
    done
    if [ "$SEED004" = 1 ]; then
      echo "== $mode round $round seed 004 (write 16k, 4 jobs x iodepth 128)" >&2
      fio_run "$OUT/$mode-seed004-fio-libaio-$round" 4 128 write 16k libaio "$file"
      pb_run "$OUT/$mode-seed004-platbench-$round" 4 128 write 16k "$file"
      fio_run "$OUT/$mode-seed004-fio-io_uring-$round" 4 128 write 16k io_uring "$file"
    fi
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

python3 scripts/bench-disk-summary.py "$OUT" "$ROUNDS" "$CONFIGS" "$SEED004" "${ran[@]}"
