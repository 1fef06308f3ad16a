#!/usr/bin/env bash
# `make bench-soak` (and the soak line of `make bench`, issue 34): does a long
# run's memory stay flat? platbench on the null target at a fixed rate with
# ten op types and server telemetry from several node_exporter endpoints
# (static expositions served on loopback), its RSS read from /proc at 1 min
# and at the end; then the result's sizes per hour, and `platbench report`'s
# time and peak RSS on the result. Last, `report` on a synthetic day-long
# result (go test -bench BenchmarkReportDay), and report, compare, merge and
# history of two (BenchmarkDayTools). Goal: RSS growth under 1 MB per hour
# of run from 1 min on. Takes SOAK_DURATION plus about six minutes.
#   SOAK_DURATION  length of the run (default 31m: RSS at 1 min vs 30 min; 2h for
#                  issue 47's curve: RSS from minute 30 to 120)
#   SOAK_RATE      fixed rate (default 100k op/s)
#   SOAK_NODES     node_exporter endpoints (default 6)
#   BENCH_OUT      where results go (default bench-results)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PLATBENCH_BIN:-bin/platbench}
OUT=${BENCH_OUT:-bench-results}
DURATION=${SOAK_DURATION:-31m}
RATE=${SOAK_RATE:-100k}
NODES=${SOAK_NODES:-6}
mkdir -p "$OUT"
secs() { # a duration such as 31m, 90s or 2h -> seconds
  case "$1" in *h) echo $((${1%h} * 3600)) ;; *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac
}
total=$(secs "$DURATION")
[ "$total" -gt 90 ] || { echo "SOAK_DURATION=$DURATION: want more than 90s (RSS is read at 1 min and at the end)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "$BIN: no platbench binary (fix: make bench-soak, which builds it, or PLATBENCH_BIN=path)" >&2; exit 2; }

# Node exporters: one static exposition (node_exporter 1.5.0's) per port.
expo=$(mktemp -d)
cp telemetry/nodes/testdata/node_exporter-1.5.0.txt "$expo/metrics"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$expo"; }
trap cleanup EXIT
# HTTP/1.1: the connection is kept, as node_exporter keeps it (HTTP/1.0,
# http.server's default, would make every scrape a TCP handshake and a new
# connection's buffers). Set in code: `-m http.server --protocol` needs
# Python 3.11.
serve='import functools, http.server as h, sys
h.SimpleHTTPRequestHandler.protocol_version = "HTTP/1.1"
h.SimpleHTTPRequestHandler.log_message = lambda *a: None
handler = functools.partial(h.SimpleHTTPRequestHandler, directory=sys.argv[2])
h.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()'
flags=()
for i in $(seq 1 "$NODES"); do
  port=$((19300 + i))
  python3 -c "$serve" "$port" "$expo" >/dev/null 2>&1 &
  pids+=($!)
  flags+=(--server-metrics "127.0.0.1:$port")
done
for i in $(seq 1 "$NODES"); do # every exporter answers before the run starts
  python3 -c 'import sys, time, urllib.request
for _ in range(50):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1).read(); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "http://127.0.0.1:$((19300 + i))/metrics" ||
    { echo "the soak's exporter on 127.0.0.1:$((19300 + i)) does not answer (fix: free ports 19301-$((19300 + NODES)), or python3 3.7 or later)" >&2; exit 2; }
done

mix=read=1,update=1,insert=1,scan=1,read-modify-write=1,write=1,delete=1,set=1,get=1,incr=1
res="$OUT/soak.json"
echo "== soak: null at $RATE op/s, ten op types, $NODES node_exporter endpoints, $DURATION"
# gctrace: the live heap after each collection (its third figure), which RSS
# hides: RSS follows the collector's goal (twice the live heap by default),
# so a reading before the first collections of the run is low whatever grows.
# scavtrace: the heap memory released to the OS ("KiB now") and the share of
# the heap memory kept that is in use ("% util"), after each collection.
GODEBUG=gctrace=1,scavtrace=1 $BIN run --target null --no-load --records 1M --mix "$mix" --rate "$RATE" --duration "$DURATION" \
  "${flags[@]}" --quiet --force --out "$res" >"$OUT/soak-run.txt" 2>"$OUT/soak-stderr.txt" &
run=$!
pids+=($run)
# RSS, and its anonymous (heap, stacks) and file-backed (the binary's pages)
# parts, in KiB.
rss() { awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {printf "%d,%d,%d", r, a, f}' "/proc/$run/status" 2>/dev/null || echo 0,0,0; }
# RSS every minute (soak-rss.csv), to see the curve, not two points.
echo "seconds,rss_kib,anon_kib,file_kib" >"$OUT/soak-rss.csv"
for t in $(seq 60 60 $((total - 5))); do
  sleep 60
  echo "$t,$(rss)" >>"$OUT/soak-rss.csv"
done
sleep $((total - 5 - (total - 5) / 60 * 60))
end=$((total - 5))
echo "$end,$(rss)" >>"$OUT/soak-rss.csv"
wait "$run"
growth() { # from-seconds to-seconds [column] -> MB per hour of RSS growth between the samples nearest them
  awk -F, -v f="$1" -v t="$2" -v c="${3:-2}" 'NR>1 { if (!a && $1>=f) {a=$c; fa=$1} if ($1<=t) {b=$c; fb=$1} }
    END { if (a && b && fb>fa) printf "%d KiB at %d s, %d KiB at %d s: %.2f MB per hour", a, fa, b, fb, (b-a)*1024/1e6/((fb-fa)/3600); else printf "n/a" }' "$OUT/soak-rss.csv"
}
livemean() { # from-seconds to-seconds -> "mean n": the mean live heap after GC over the collections between them
  awk -v f="$1" -v t="$2" '/^gc [0-9]+ @/ { at=substr($3,2)+0; split($11,h,"->"); if (at >= f && at <= t) {s+=h[3]; n++} }
    END { if (n) printf "%.2f %d", s/n, n }' "$OUT/soak-stderr.txt"
}
live() { # the live heap's growth per hour between the means of minutes 5-10 and of the run's last five
  # (gctrace rounds each collection's to a MB: means, not two collections)
  read -r a na <<<"$(livemean 300 600)"; read -r b nb <<<"$(livemean $((end - 300)) "$end")"
  if [ -n "${a:-}" ] && [ -n "${b:-}" ] && [ "$end" -gt 900 ]; then
    awk -v a="$a" -v na="$na" -v b="$b" -v nb="$nb" -v h="$(( (end - 150) - 450 ))" \
      'BEGIN { printf "%.2f MB over minutes 5-10 (%d collections), %.2f MB over the last five (%d): %.2f MB per hour", a, na, b, nb, (b-a)/(h/3600) }'
  else printf "n/a (a run of more than 15 min)"; fi
}
{
  echo "RSS $(growth 60 1800) (goal: under 1 MB per hour)"
  echo "  of it anonymous (heap, stacks): $(growth 60 1800 3)"
  echo "  of it file-backed (the binary's pages): $(growth 60 1800 4)"
  echo "RSS past the warm-up, from 10 min to 30 min: $(growth 600 1800)"
  echo "live heap after GC: $(live) (gctrace, MB of 2^20 bytes; the program's memory without the collector's slack)"
  echo "heap released to the OS and in-use share of the heap kept (scavtrace): $(awk '/^scav / {for (i=1;i<NF;i++) {if ($(i+1)=="KiB" && $(i+2)=="now,") v=$i; if ($(i+1)=="util") u=$i}; n++; if (n==1) {fv=v; fu=u}} END {if (n) printf "%d KiB and %s at the first report, %d KiB and %s at the last (%d reports)", fv, fu, v, u, n; else printf "n/a"}' "$OUT/soak-stderr.txt")"
  if [ "$end" -gt 3660 ]; then echo "RSS past the first hour: $(growth 3660 "$end")"; fi
  total_bytes=0
  for f in "$res" "${res%.json}.seconds.jsonl.zst" "${res%.json}.seconds.jsonl" "${res%.json}.hlog"; do
    [ -e "$f" ] || continue # the .hlog is written on request; the seconds file's name before issue 47 had no .zst
    s=$(stat -c %s "$f")
    total_bytes=$((total_bytes + s))
    echo "$(basename "$f"): $s bytes, $(awk -v s="$s" -v t="$total" 'BEGIN{printf "%.1f MB per hour", s/1e6*3600/t}')"
  done
  echo "all the run's files: $total_bytes bytes, $(awk -v s="$total_bytes" -v t="$total" 'BEGIN{printf "%.1f MB per hour", s/1e6*3600/t}')"
  /usr/bin/time -f 'report: %e s wall, %M KiB peak RSS' $BIN report "$res" >/dev/null
} 2>&1 | tee "$OUT/soak.txt"

echo "== report of a synthetic day-long result of ten op types (BenchmarkReportDay)"
go test -run '^$' -bench BenchmarkReportDay -benchtime 1x ./report | tee -a "$OUT/soak.txt"
echo "== report, compare, merge and history of two synthetic day-long results, as commands (BenchmarkDayTools)"
go test -run '^$' -bench BenchmarkDayTools -benchtime 1x -timeout 30m ./cmd/platbench/cli | tee -a "$OUT/soak.txt"
