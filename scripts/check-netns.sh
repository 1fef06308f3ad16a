#!/usr/bin/env bash
# A multi-host distributed run on one machine: three loaders and a Redis
# server, each in its own network namespace with its own address on a
# bridge, run with --rendezvous; loader 0 collects and merges over the
# network. The closest this machine gets to a real cluster. Then the network
# as a run's limit: a tbf shaper on loader 0's side of the path, and a
# --link-limit stated for a link the host cannot see the cap of. make test
# runs it (root and iproute2 needed; it says so and fails otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ip >/dev/null || { echo "check-netns: iproute2's ip not found (fix: apt-get install iproute2)" >&2; exit 1; }
command -v tc >/dev/null || { echo "check-netns: iproute2's tc not found (fix: apt-get install iproute2)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "check-netns: needs root to create network namespaces" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "check-netns: redis-server not found (fix: scripts/servers/redis.sh install)" >&2; exit 1; }
make -s build
net=10.77.0
br=pbbr0
ns=(pbl0 pbl1 pbl2 pbsrv)
addr=("$net.1" "$net.2" "$net.3" "$net.10")
work=$(mktemp -d)
cleanup() {
  for n in "${ns[@]}"; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null || true; ip netns del "$n" 2>/dev/null || true; done
  ip link del "$br" 2>/dev/null || true
  rm -rf "$work"
}
cleanup
trap cleanup EXIT
mkdir -p "$work"
ip link add "$br" type bridge
ip link set "$br" up
for i in "${!ns[@]}"; do
  n=${ns[$i]}
  ip netns add "$n"
  ip link add "v$n" type veth peer name eth0 netns "$n"
  ip link set "v$n" master "$br" up
  ip -n "$n" addr add "${addr[$i]}/24" dev eth0
  ip -n "$n" link set eth0 up
  ip -n "$n" link set lo up
done
ip netns exec pbsrv redis-server --bind "$net.10" --port 6379 --save '' --appendonly no --protected-mode no --daemonize yes \
  --pidfile "$work/redis.pid" --logfile "$work/redis.log" --dir "$work"
for _ in $(seq 50); do ip netns exec pbl0 bash -c "exec 3<>/dev/tcp/$net.10/6379" 2>/dev/null && break; sleep 0.1; done
head -c 32 /dev/urandom | base64 >"$work/secret"
head -c 32 /dev/urandom | base64 >"$work/wrong"
loader() { # shard out secret-file [namespace]
  ip netns exec "${4:-pbl$1}" bin/platbench run --quiet --target "redis://$net.10:6379" --workload ycsb-b \
    --records 3000 --duration 3s --shard "$1/3" --rendezvous "$net.1:7070" --rendezvous-timeout 2m \
    --rendezvous-secret-file "$3" --out "$2"
}
# Loader 0 first: it waits for the others. A stranger on another host (the
# server's namespace) with the wrong secret comes before the real loaders:
# it must be refused, say why, and be named in loader 0's log.
loader 0 - "$work/secret" >"$work/merged.json" 2>"$work/l0.log" &
p0=$!
for _ in $(seq 100); do ip netns exec pbl1 bash -c "exec 3<>/dev/tcp/$net.1/7070" 2>/dev/null && break; sleep 0.1; done
if loader 2 "$work/x.json" "$work/wrong" pbsrv >"$work/intruder.log" 2>&1; then
  echo "check-netns: a loader with the wrong secret joined the run" >&2; exit 1
fi
grep -q "did not prove the run's secret" "$work/intruder.log" || { cat "$work/intruder.log" >&2; echo "check-netns: the intruder was not told why it was refused" >&2; exit 1; }
loader 1 "$work/l1.json" "$work/secret" >"$work/l1.log" 2>&1 &
p1=$!
loader 2 "$work/l2.json" "$work/secret" >"$work/l2.log" 2>&1 &
p2=$!
wait "$p0" || { cat "$work"/l*.log >&2; echo "check-netns: loader 0 failed" >&2; exit 1; }
wait "$p1" && wait "$p2" || { cat "$work"/l*.log >&2; echo "check-netns: a loader failed" >&2; exit 1; }
grep -q "refused $net.10:[0-9]* (says it is loader 2): it does not prove the run's secret" "$work/l0.log" ||
  { cat "$work/l0.log" >&2; echo "check-netns: loader 0's log does not name the intruder at $net.10" >&2; exit 1; }
python3 - "$work/merged.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
run = [p for p in r["phases"] if p["name"] == "run"][0]
ops = sum(o["count"] for o in run["ops"])
shards = sorted(l["shard"] for l in r.get("loaders", []))
if shards != ["0/3", "1/3", "2/3"] or ops == 0:
    print("check-netns: merged result: loaders %s, %d run ops" % (shards, ops)); sys.exit(1)
print("check-netns: 3 loaders in 3 namespaces met at 10.77.0.1:7070 (an intruder with the wrong secret refused), ran against Redis at 10.77.0.10, "
      "merged %d ops; run phases started within %.1f ms" % (ops, r.get("loader_start_spread_ns", 0) / 1e6))
PY

# The network as the limit. Loader 0's eth0 reports 10 Gb/s (a veth); a
# 20 Mbit/s tbf on it is the path's real capacity, which 4 KB updates in a
# closed loop of 16 fill. The analysis must name that interface from its
# qdisc (rate, overlimits, backlog), not the requests in flight.
netrun() { # out flags...
  ip netns exec pbl0 bin/platbench run --quiet --target "redis://$net.10:6379" --workload ycsb-a --mix update=1 \
    --records 500 --field-count 1 --field-length 4000 --duration 4s --out "$1" "${@:2}"
}
ip netns exec pbl0 tc qdisc add dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms
netrun "$work/tbf.json" --concurrency 16 >"$work/tbf.log" 2>&1 || { cat "$work/tbf.log" >&2; echo "check-netns: the run through a tbf failed" >&2; exit 1; }
ip netns exec pbl0 tc qdisc del dev eth0 root
# A cap the host cannot read, stated: no shaper, 1000 updates/s (about
# 37 Mbit/s) against --link-limit 38mbit (97% of it). A stated limit the
# traffic goes past by a tenth is not the link's (analysis.StatedOver).
netrun "$work/stated.json" --rate 1000 --link-limit 38mbit >"$work/stated.log" 2>&1 ||
  { cat "$work/stated.log" >&2; echo "check-netns: the run with --link-limit failed" >&2; exit 1; }
python3 - "$work/tbf.json" "$work/stated.json" <<'PY'
import json, sys
for path, source in zip(sys.argv[1:], ["tbf rate", "--link-limit"]):
    r = json.load(open(path))
    b = r.get("analysis", {}).get("bottleneck") or {}
    summary = (b.get("says") or {}).get("summary") or {}
    if b.get("limit") != "network" or b.get("where") != "loader host, interface eth0" or summary.get("s", [None] * 3)[2] != source:
        print("check-netns: %s: bottleneck %s at %s (%s), want the network at eth0 against its %s" % (
            path, b.get("limit"), b.get("where"), summary, source)); sys.exit(1)
    f = summary["f"]
    print("check-netns: %s named the network: eth0 sent %.1f Mbit/s against its %s of %.0f Mbit/s, its queue held packets in %.0f%% of the seconds (%s evidence)" % (
        path.rsplit("/", 1)[1], f[0] * 8 / 1e6, source, f[1] * 8 / 1e6, 100 * f[2], b.get("strength")))
PY
