#!/usr/bin/env bash
# make bench-cql: platbench vs latte on the same Cassandra, same workload,
# same concurrency, both clients pinned to the same core (CLIENT_CPU) and the
# server to another (SERVER_CPU). Prints and writes a Markdown table of ops/s,
# p99 and client CPU seconds per million operations (docs/benchmarks-cql.md).
#
# Workloads: cassandra-stress's standard1 shape (key + 5 blob columns of 34 B):
#   write: inserts of keys in sequence (platbench --workload write --no-load;
#          latte: one INSERT per cycle);
#   read:  point reads of uniformly chosen loaded keys (ROWS records loaded
#          first, not measured).
# Needs latte (scripts/build-latte.sh builds it once, 13-19 minutes).
# Env: DURATION (s, default 30), CONC (requests in flight, 32), ROWS (100000),
#      CONNS (connections per host, 1), REPS (repetitions, 3),
#      SERVER_CPU (0), CLIENT_CPU (1), OUT (.cache/bench-cql/<time>),
#      LATTE (latte binary), PLATBENCH_BIN (platbench binary; default: make build),
#      GOCQL (1: also run platbench with driver=gocql, the Apache driver, in the
#      same session, as a baseline for platbench's own CQL client; default 1),
#      WARMUP (s of unmeasured mixed load before the first run, default 20),
#      RATE (op/s: every client runs at this fixed rate instead of full speed;
#      platbench --rate, latte -r; default unset),
#      TICK (a pace tick such as 1ms: also run platbench with --pace-tick TICK,
#      as platbench_tick, in the same rounds; with RATE; default unset),
#      TELEMETRY (1: also run platbench's read with server telemetry on — the
#      node's node_exporter and the JMX exporter agent scraped every second —
#      alternating with the run without it, to show what the scraping costs
#      the loader; default 0),
#      PROFILE (1: also a user profile with clustering rows and a set<text>,
#      scripts/bench/cql-events.yaml, against latte running the equivalent
#      script scripts/bench/latte-events.rn on the same schema: inserts of one
#      row and reads of one row by primary key; PARTS partitions of 10 rows,
#      default 10000; default 0).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30}
CONC=${CONC:-32}
RATE=${RATE:-}
TICK=${TICK:-}
ROWS=${ROWS:-100000}
CONNS=${CONNS:-1}
REPS=${REPS:-3}
GOCQL=${GOCQL:-1}
TELEMETRY=${TELEMETRY:-0}
PROFILE=${PROFILE:-0}
PARTS=${PARTS:-10000}
WARMUP=${WARMUP:-20}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
OUT=${OUT:-.cache/bench-cql/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

latte=${LATTE:-$(scripts/build-latte.sh)}
if [ -n "${PLATBENCH_BIN:-}" ]; then
  pb=$(realpath "$PLATBENCH_BIN")
else
  make -s build
  pb=$PWD/bin/platbench
fi
[ -x /usr/bin/time ] || { echo "bench-cql: /usr/bin/time missing (fix: apt-get install -y time)" >&2; exit 1; }

# A fresh node pinned to SERVER_CPU.
scripts/servers/cassandra.sh stop
telopts=()
if [ "$TELEMETRY" = 1 ]; then
  # The agent in the node's JVM (scraped only by the telemetry runs) and a
  # node_exporter on the node's address, pinned with the server.
  export PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT=${PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT:-19500}
  scripts/servers/node_exporter.sh install
  taskset -c "$SERVER_CPU" scripts/servers/node_exporter.sh start
  telopts=(--server-metrics-port "${PLATBENCH_NODE_EXPORTER_PORT:-19100}" --db-metrics-url "127.0.0.1:$PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT")
fi
PLATBENCH_CASSANDRA_CPUS=$SERVER_CPU scripts/servers/cassandra.sh start
trap 'scripts/servers/cassandra.sh stop; [ "$TELEMETRY" != 1 ] || scripts/servers/node_exporter.sh stop' EXIT
url=cql://cassandra:cassandra@127.0.0.1:9042
lauth=(--user cassandra --password cassandra)

cat > "$OUT/latte-write.rn" <<'EOF'
// platbench bench-cql: cassandra-stress standard1 shape, one INSERT per cycle.
const ROWS = latte::param!("rows", 100000);
const INSERT = "insert";
const KEYSPACE = "latte_write";
const TABLE = "standard1";

pub async fn schema(ctx) {
    ctx.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} \
                 WITH REPLICATION = { 'class' : 'SimpleStrategy', 'replication_factor' : 1 }`).await?;
    ctx.execute(`DROP TABLE IF EXISTS ${KEYSPACE}.${TABLE}`).await?;
    ctx.execute(`CREATE TABLE ${KEYSPACE}.${TABLE} (key blob PRIMARY KEY, "C0" blob, "C1" blob, "C2" blob, "C3" blob, "C4" blob)`).await?;
}

pub async fn erase(ctx) {
    ctx.execute(`TRUNCATE TABLE ${KEYSPACE}.${TABLE}`).await
}

pub async fn prepare(ctx) {
    ctx.prepare(INSERT, `INSERT INTO ${KEYSPACE}.${TABLE} (key, "C0", "C1", "C2", "C3", "C4") VALUES (:key, :c0, :c1, :c2, :c3, :c4)`).await?;
}

pub async fn run(ctx, i) {
    let k = i % ROWS;
    ctx.execute_prepared(INSERT, [latte::blob(k, 23), latte::blob(i, 34), latte::blob(i + 1, 34), latte::blob(i + 2, 34), latte::blob(i + 3, 34), latte::blob(i + 4, 34)]).await?
}
EOF

cat > "$OUT/latte-read.rn" <<'EOF'
// platbench bench-cql: cassandra-stress standard1 shape, point reads of uniformly chosen loaded keys.
const ROWS = latte::param!("rows", 100000);
const INSERT = "insert";
const READ = "read";
const KEYSPACE = "latte_read";
const TABLE = "standard1";

pub async fn schema(ctx) {
    ctx.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} \
                 WITH REPLICATION = { 'class' : 'SimpleStrategy', 'replication_factor' : 1 }`).await?;
    ctx.execute(`DROP TABLE IF EXISTS ${KEYSPACE}.${TABLE}`).await?;
    ctx.execute(`CREATE TABLE ${KEYSPACE}.${TABLE} (key blob PRIMARY KEY, "C0" blob, "C1" blob, "C2" blob, "C3" blob, "C4" blob)`).await?;
}

pub async fn erase(ctx) {
    ctx.execute(`TRUNCATE TABLE ${KEYSPACE}.${TABLE}`).await
}

pub async fn prepare(ctx) {
    ctx.load_cycle_count = ROWS;
    ctx.prepare(INSERT, `INSERT INTO ${KEYSPACE}.${TABLE} (key, "C0", "C1", "C2", "C3", "C4") VALUES (:key, :c0, :c1, :c2, :c3, :c4)`).await?;
    ctx.prepare(READ, `SELECT * FROM ${KEYSPACE}.${TABLE} WHERE key = :key`).await?;
}

pub async fn load(ctx, i) {
    ctx.execute_prepared(INSERT, [latte::blob(i, 23), latte::blob(i, 34), latte::blob(i + 1, 34), latte::blob(i + 2, 34), latte::blob(i + 3, 34), latte::blob(i + 4, 34)]).await?
}

pub async fn run(ctx, i) {
    ctx.execute_prepared(READ, [latte::blob(latte::hash(i) % ROWS, 23)]).await?
}
EOF

# inout CMD...: runs CMD in OUT (latte writes a log file to its current directory).
inout() { (cd "$OUT" && "$@"); }

# measure NAME CMD...: runs CMD pinned to CLIENT_CPU in OUT (latte writes its
# log to the current directory), records wall and CPU seconds.
measure() {
  local name=$1; shift
  echo "== $name: $*" >&2
  (cd "$OUT" && /usr/bin/time -f '%e %U %S' -o "$OUT/$name.time" taskset -c "$CLIENT_CPU" "$@" > "$OUT/$name.log" 2>&1) \
    || { tail -20 "$OUT/$name.log" >&2; echo "bench-cql: $name failed" >&2; exit 1; }
}

pbopts=(--quiet --target "$url" --target-opt schema=stress --target-opt conns="$CONNS"
        --concurrency "$CONC" --records "$ROWS")
lopts=(-q -t 1 -p "$CONC" -c "$CONNS" --consistency LOCAL_ONE "${lauth[@]}" -P rows="$ROWS")
if [ -n "$RATE" ]; then
  pbopts+=(--rate "$RATE")
  lopts+=(-r "$RATE")
fi

# Load the read datasets once (not measured).
taskset -c "$CLIENT_CPU" "$pb" load "${pbopts[@]}" --target-opt keyspace=pb_read --target-opt keep=true \
  --workload read > "$OUT/pb-read-load.log" 2>&1 || { tail "$OUT/pb-read-load.log" >&2; exit 1; }
inout "$latte" schema "$OUT/latte-read.rn" "${lauth[@]}" -P rows="$ROWS" 127.0.0.1 > "$OUT/latte-read-schema.log" 2>&1
inout taskset -c "$CLIENT_CPU" "$latte" load "$OUT/latte-read.rn" "${lauth[@]}" -P rows="$ROWS" -q 127.0.0.1 > "$OUT/latte-read-load.log" 2>&1

# Warm the server (JIT, caches) before the first measured run, so that the
# first client measured does not pay for it (not measured).
if [ "$WARMUP" -gt 0 ]; then
  taskset -c "$CLIENT_CPU" "$pb" run "${pbopts[@]}" --target-opt keyspace=pb_read --target-opt keep=true \
    --target-opt create=false --workload mixed --distribution uniform --no-load --duration "${WARMUP}s" \
    --force --out "$OUT/warmup.json" > "$OUT/warmup.log" 2>&1 || { tail "$OUT/warmup.log" >&2; exit 1; }
fi

# one TOOL WL R: one measured run of a client (platbench, platbench_gocql,
# platbench_telemetry, platbench_tick or latte) on a workload (write, read).
one() {
  local tool=$1 wl=$2 r=$3 drv=native extra=() wopts=()
  case $tool in
  latte)
    if [ "$wl" = write ]; then
      inout "$latte" schema "$OUT/latte-write.rn" "${lauth[@]}" 127.0.0.1 > "$OUT/latte-write-schema-$r.log" 2>&1
    fi
    measure "latte-$wl-$r" "$latte" run "$OUT/latte-$wl.rn" "${lopts[@]}" -d "${DURATION}s" \
      -o "$OUT/latte-$wl-$r.json" 127.0.0.1
    return ;;
  platbench_gocql) drv=gocql ;;
  platbench_telemetry) extra=("${telopts[@]}") ;;
  platbench_tick) extra=(--pace-tick "$TICK") ;;
  esac
  if [ "$wl" = write ]; then
    wopts=(--target-opt keyspace=pb_write --workload write)
  else
    wopts=(--target-opt keyspace=pb_read --target-opt keep=true --target-opt create=false --workload read --distribution uniform)
  fi
  measure "$tool-$wl-$r" "$pb" run "${pbopts[@]}" "${extra[@]}" --target-opt driver=$drv --warmup 0 "${wopts[@]}" \
    --no-load --duration "${DURATION}s" --force --out "$OUT/$tool-$wl-$r.json"
}

# The clients of a round, in an order that alternates between rounds
# (A B C, C B A, ...): the server warms up for whoever runs later.
clients=(platbench)
[ -z "$TICK" ] || clients+=(platbench_tick)
[ "$TELEMETRY" != 1 ] || clients+=(platbench_telemetry)
[ "$GOCQL" != 1 ] || clients+=(platbench_gocql)
clients+=(latte)
for r in $(seq "$REPS"); do
  order=("${clients[@]}")
  if [ $((r % 2)) = 0 ]; then
    order=(); for ((i = ${#clients[@]} - 1; i >= 0; i--)); do order+=("${clients[$i]}"); done
  fi
  for wl in write read; do
    for c in "${order[@]}"; do one "$c" "$wl" "$r"; done
  done
done

if [ "$PROFILE" = 1 ]; then
  prof=$PWD/scripts/bench/cql-events.yaml lev=$PWD/scripts/bench/latte-events.rn
  profopts=(--quiet --target "$url" --target-opt conns="$CONNS" --concurrency "$CONC" --records "$PARTS"
            --workload "$prof" --target-opt keep=true --distribution uniform)
  [ -z "$RATE" ] || profopts+=(--rate "$RATE")
  taskset -c "$CLIENT_CPU" "$pb" load "${profopts[@]}" > "$OUT/pb-profile-load.log" 2>&1 || { tail "$OUT/pb-profile-load.log" >&2; exit 1; }
  inout "$latte" schema "$lev" "${lauth[@]}" -P parts="$PARTS" 127.0.0.1 > "$OUT/latte-profile-schema.log" 2>&1
  inout taskset -c "$CLIENT_CPU" "$latte" load "$lev" "${lauth[@]}" -P parts="$PARTS" -q 127.0.0.1 > "$OUT/latte-profile-load.log" 2>&1
  for r in $(seq "$REPS"); do
    for wl in write read; do
      mix=insert=1 fn=insert; [ "$wl" = write ] || { mix=byrow=1; fn=read; }
      pbrun() { measure "platbench-profile-$wl-$r" "$pb" run "${profopts[@]}" --mix "$mix" --no-load --warmup 0 \
        --duration "${DURATION}s" --force --out "$OUT/platbench-profile-$wl-$r.json"; }
      lrun() { measure "latte-profile-$wl-$r" "$latte" run "$lev" "${lopts[@]}" -P parts="$PARTS" -f "$fn" -d "${DURATION}s" \
        -o "$OUT/latte-profile-$wl-$r.json" 127.0.0.1; }
      # A B B A: the server warms up for whoever runs second.
      if [ $((r % 2)) = 1 ]; then pbrun; lrun; else lrun; pbrun; fi
    done
  done
fi

RATE="$RATE" python3 - "$OUT" "$REPS" "$CONC" "$CONNS" "$DURATION" "$ROWS" "$GOCQL" <<'EOF'
import json, os, sys, statistics
out, reps, conc, conns, dur, rows = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
gocql = sys.argv[7] == "1"

def cpu(name):
    wall, user, sys_ = map(float, open(f"{out}/{name}.time").read().split()[-3:])
    return wall, user + sys_

def platbench(name):
    r = json.load(open(f"{out}/{name}.json"))
    ph = [p for p in r["phases"] if p["name"] == "run"][0]
    ops = sum(o["count"] for o in ph["ops"])
    a = r.get("analysis") or {}
    errs = a["raw"]["errors"] if isinstance(a, dict) and a.get("phase") == "run" else "?"
    p99 = max(o["latency"]["p99_ns"] for o in ph["ops"]) / 1e6
    return ops, ph["duration_ns"] / 1e9, p99, errs

def latte(name):
    r = json.load(open(f"{out}/{name}.json"))
    res = r["result"]
    pct = r["percentiles"]
    lat = res.get("request_latency") or res["cycle_latency"]
    p = lat["percentiles"]
    vals = p if isinstance(p, list) else p.get("values", p)
    i = min(range(len(pct)), key=lambda k: abs(pct[k] - 99.0))
    v = vals[i]
    v = v["value"] if isinstance(v, dict) else v
    return res["cycle_count"], res["elapsed_time_s"], float(v), res["error_count"]

def summarize(tool, wl, parse):
    runs = []
    for r in range(1, reps + 1):
        name = f"{tool}-{wl}-{r}"
        ops, secs, p99, errs = parse(name)
        wall, c = cpu(name)
        runs.append((ops / secs, p99, c / ops * 1e6, ops / c, errs, ops, c))
    med = lambda k: statistics.median(x[k] for x in runs)
    return (wl, tool, med(0), med(1), med(2), med(3), sum(x[4] for x in runs), runs)

rows_out = []
for wl in ("write", "read"):
    tools = [("platbench", platbench)] + ([("platbench_gocql", platbench)] if gocql else []) + [("latte", latte)]
    for extra in ("platbench_tick", "platbench_telemetry"):
        if os.path.exists(f"{out}/{extra}-{wl}-1.time"):
            tools.insert(1, (extra, platbench))
    rows_out += [summarize(tool, wl, parse) for tool, parse in tools]
# The user profile (PROFILE=1): platbench's profile against latte's script.
for wl in ("profile-write", "profile-read"):
    if os.path.exists(f"{out}/platbench-{wl}-1.time"):
        rows_out += [summarize(tool, wl, parse) for tool, parse in (("platbench", platbench), ("latte", latte))]

rate = os.environ.get("RATE") or ""
pace = f"fixed rate {rate} op/s" if rate else "full speed"
lines = [f"{pace}, concurrency {conc}, {conns} connection(s), {dur} s per run, {rows} rows, {reps} runs each (median; all runs below)", "",
         "| workload | client | ops/s | p99 ms | client CPU s per 1M ops | ops per client CPU-second | errors |",
         "|---|---|---:|---:|---:|---:|---:|"]
for wl, tool, ops, p99, cpm, opc, errs, _ in rows_out:
    lines.append(f"| {wl} | {tool} | {ops:,.0f} | {p99:.2f} | {cpm:.2f} | {opc:,.0f} | {errs} |")
lines += ["", "| run | ops | ops/s | p99 ms | client CPU s |", "|---|---:|---:|---:|---:|"]
for wl, tool, *_, runs in rows_out:
    for i, x in enumerate(runs, 1):
        lines.append(f"| {tool}-{wl}-{i} | {x[5]:,} | {x[0]:,.0f} | {x[1]:.2f} | {x[6]:.2f} |")
text = "\n".join(lines)
open(f"{out}/summary.md", "w").write(text + "\n")
print(text)
EOF
echo "bench-cql: results in $OUT" >&2
