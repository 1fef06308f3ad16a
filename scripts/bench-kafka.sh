#!/usr/bin/env bash
# Side by side on one Kafka broker: Kafka's own ProducerPerformance (the Java
# client, from Maven Central) vs platbench's kafka target (franz-go).
# Same broker, message size, count, acks and compression; both clients pinned
# to CLIENT_CPU with taskset, the broker to BROKER_CPU. Runs alternate (peer,
# platbench, platbench, peer, ...) REPS times so that drift on a shared host hits both.
# Prints a Markdown table (medians) and keeps raw outputs in OUT.
#
# Usage: scripts/bench-kafka.sh            (or: make bench-kafka)
#   MESSAGES=1000000 SIZE=1000 ACKS=all COMPRESSION=none REPS=3
#   CONCURRENCY=256 (platbench workers) PARTITIONS=16 CLIENT_CPU=0 BROKER_CPU=1
#   TXN_MS=""     (transactions: each client commits every TXN_MS ms, ProducerPerformance's
#                  --transactional-id/--transaction-duration-ms, platbench's txn_duration)
#   PEER_PROPS="" (extra producer props for the peer, e.g. "linger.ms=0 batch.size=1048576")
#   PB_OPTS=""    (extra platbench URL query, e.g. "&linger=5ms&batch_bytes=16384")
#   PB_ARGS=""    (extra platbench run flags, e.g. "--pace-tick 1ms")
#   SYNC=1        (also run platbench with async=false: one goroutine per record in flight,
#                  each waiting for its acknowledgement; order A B C, C B A ...)
#   RATE=N        (messages/s: both clients at this fixed rate: ProducerPerformance
#                  --throughput N, platbench --rate N; default: as fast as possible)
#   PLATBENCH=path (use this binary instead of building bin/platbench)
#   REPORT_ONLY=1  (only print the table of the runs already in OUT)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
MESSAGES=${MESSAGES:-1000000}
SIZE=${SIZE:-1000}
ACKS=${ACKS:-all}
COMPRESSION=${COMPRESSION:-none}
REPS=${REPS:-3}
CONCURRENCY=${CONCURRENCY:-256}
PARTITIONS=${PARTITIONS:-16}
CLIENT_CPU=${CLIENT_CPU:-0}
BROKER_CPU=${BROKER_CPU:-1}
PEER_PROPS=${PEER_PROPS:-}
PB_OPTS=${PB_OPTS:-}
RATE=${RATE:-}
peer_rate=${RATE:--1}
pb_rate=()
[ -n "$RATE" ] && pb_rate=(--rate "$RATE")
read -r -a pb_args <<< "${PB_ARGS:-}"
TXN_MS=${TXN_MS:-}
PEER_TXN=()
if [ -n "$TXN_MS" ]; then
  PEER_TXN=(--transactional-id "pp-bench-$$" --transaction-duration-ms "$TXN_MS")
  PB_OPTS="$PB_OPTS&txn_duration=${TXN_MS}ms"
fi
SYNC=${SYNC:-0}
OUT=${OUT:-test-artifacts/bench-kafka}
BROKER=127.0.0.1:9092
mkdir -p "$OUT"

command -v python3 >/dev/null || { echo "bench-kafka: python3 is needed to read the results" >&2; exit 1; }
PB=${PLATBENCH:-}
if [ -n "${REPORT_ONLY:-}" ]; then PB=true; fi
if [ -z "$PB" ]; then
  CGO_ENABLED=0 go build -trimpath -o bin/platbench ./cmd/platbench
  PB=./bin/platbench
fi
CP=$(bash scripts/servers/kafka.sh classpath)
if [ -z "${REPORT_ONLY:-}" ]; then
  # Restart the broker pinned to its own core.
  bash scripts/servers/kafka.sh stop
  KAFKA_CPUS=$BROKER_CPU bash scripts/servers/kafka.sh start
  trap 'bash scripts/servers/kafka.sh stop' EXIT
  echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at start" | tee "$OUT/host.txt"
fi

peer_acks=$ACKS
[ "$ACKS" = all ] && peer_acks=all
run_peer() { # $1 = rep
  local topic="pp-bench-$1-$RANDOM"
  java -Xmx256m -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server $BROKER --create \
    --topic "$topic" --partitions "$PARTITIONS" --replication-factor 1 >/dev/null
  /usr/bin/time -f "cpu %U %S wall %e" -o "$OUT/peer-$1.time" \
    taskset -c "$CLIENT_CPU" java -Xmx1g -cp "$CP" org.apache.kafka.tools.ProducerPerformance \
    --topic "$topic" --num-records "$MESSAGES" --record-size "$SIZE" --throughput "$peer_rate" "${PEER_TXN[@]}" \
    --producer-props bootstrap.servers=$BROKER acks=$peer_acks compression.type=$COMPRESSION $PEER_PROPS \
    >"$OUT/peer-$1.out" 2>&1
  java -Xmx256m -cp "$CP" org.apache.kafka.tools.TopicCommand --bootstrap-server $BROKER --delete --topic "$topic" >/dev/null
}

run_pb() { # $1 = rep, $2 = output name (pb, pbsync), $3 = extra URL query
  /usr/bin/time -f "cpu %U %S wall %e" -o "$OUT/$2-$1.time" \
    taskset -c "$CLIENT_CPU" "$PB" run --quiet --no-load \
    --target "kafka://$BROKER?acks=$ACKS&compression=$COMPRESSION&partitions=$PARTITIONS&msg_size=$SIZE$PB_OPTS$3" \
    --workload produce --value-size "$SIZE" --ops "$MESSAGES" --concurrency "$CONCURRENCY" "${pb_rate[@]}" "${pb_args[@]}" \
    --force --out "$OUT/$2-$1.json" >"$OUT/$2-$1.out" 2>&1
}

clients=(peer pb)
[ "$SYNC" = 1 ] && clients+=(pbsync)
if [ -z "${REPORT_ONLY:-}" ]; then
  rm -f "$OUT"/pbsync-*
  for r in $(seq 1 "$REPS"); do
    # A B B A (A B C C B A): a broker that warms up favours whoever runs later.
    order=("${clients[@]}")
    if [ $((r % 2)) = 0 ]; then
      order=()
      for ((i = ${#clients[@]} - 1; i >= 0; i--)); do order+=("${clients[i]}"); done
    fi
    for c in "${order[@]}"; do
      echo "rep $r/$REPS: $c" >&2
      case $c in
        peer) run_peer "$r" ;;
        pb) run_pb "$r" pb "" ;;
        pbsync) run_pb "$r" pbsync "&async=false" ;;
      esac
    done
  done
fi

RATE="$RATE" python3 - "$OUT" "$REPS" "$MESSAGES" "$SIZE" "$ACKS" "$COMPRESSION" "$CONCURRENCY" "$TXN_MS" <<'PY'
import json, re, statistics, sys
out, reps, n, size, acks, comp, conc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
txn = f", transactions of {sys.argv[8]} ms" if sys.argv[8] else ""
def cpu(path):
    m = re.search(r"cpu ([\d.]+) ([\d.]+) wall ([\d.]+)", open(path).read())
    return float(m.group(1)) + float(m.group(2)), float(m.group(3))
import os
pbs = {"pb": "platbench kafka (franz-go 1.22.2)"}
if os.path.exists(f"{out}/pbsync-1.json"):
    pbs["pbsync"] = "platbench kafka, async=false"
rows = {"ProducerPerformance (Java client 4.3.1)": []}
rows.update({v: [] for v in pbs.values()})
for r in range(1, reps + 1):
    last = [l for l in open(f"{out}/peer-{r}.out") if "99th" in l][-1]
    m = re.search(r"([\d.]+) records/sec \(([\d.]+) MB/sec\).* (\d+) ms 99th", last)
    c, w = cpu(f"{out}/peer-{r}.time")
    # Steady rate: the median of its ~5 s progress windows in the second half of the messages
    # (the first half includes the JVM's warm-up).
    wins, sent = [], 0
    for l in open(f"{out}/peer-{r}.out"):
        w = re.match(r"(\d+) records sent, ([\d.]+) records/sec", l)
        if w and "99th" not in l:
            sent += int(w.group(1))
            if sent > n / 2:
                wins.append(float(w.group(2)))
    steady = statistics.median(wins) if wins else float("nan")
    rows["ProducerPerformance (Java client 4.3.1)"].append((float(m.group(1)), float(m.group(3)), c / n * 1e6, c, steady))
    for name, label in pbs.items():
        res = json.load(open(f"{out}/{name}-{r}.json"))
        ph = [p for p in res["phases"] if p["name"] == "run"][0]
        op = [o for o in ph["ops"] if o["op"] == "PRODUCE"][0]
        errs = sum(op.get("errors", {}).values()) if isinstance(op.get("errors"), dict) else 0
        rate = op["count"] / (ph["duration_ns"] / 1e9)
        p99 = op["latency"]["p99_ns"] / 1e6 if "p99_ns" in op["latency"] else float("nan")
        c, w = cpu(f"{out}/{name}-{r}.time")
        if errs:
            print(f"warning: {label} rep {r} had {errs} errors", file=sys.stderr)
        ivs = [sum(o["count"] for o in iv["ops"]) / (iv["duration_ns"] / 1e9) for iv in ph["intervals"] if iv["duration_ns"] >= 5e8]
        steady = statistics.median(ivs[len(ivs) // 2:]) if ivs else float("nan")
        rows[label].append((rate, p99, c / n * 1e6, c, steady))
rate_txt = f", fixed rate {int(os.environ['RATE']):,} msg/s" if os.environ.get("RATE") else ""
print(f"{n} messages x {size} B, acks={acks}, compression={comp}{txn}, platbench concurrency {conc}{rate_txt}; medians of {reps} alternating runs")
print()
print("| client | messages/s (whole run) | MB/s | steady msg/s (2nd half) | p99 latency | client CPU s per 1M messages | runs (msg/s; CPU s) |")
print("|---|---:|---:|---:|---:|---:|---|")
for k, v in rows.items():
    rate = statistics.median(x[0] for x in v)
    print(f"| {k} | {rate:,.0f} | {rate*int(size)/1e6:.1f} | {statistics.median(x[4] for x in v):,.0f} | "
          f"{statistics.median(x[1] for x in v):,.0f} ms | {statistics.median(x[2] for x in v):.2f} | "
          f"{'; '.join(f'{x[0]:,.0f}, {x[3]:.1f} s' for x in v)} |")
PY
