#!/usr/bin/env bash
# Apache Cassandra for the CQL target's integration tests and benchmarks.
# install: resolves cassandra-all 5.0.9 and its runtime jars from Maven Central
#          (scripts/servers/cassandra/pom.xml) into .cache/cassandra-5.0.9/lib.
# start:   one node on 127.0.0.1:9042 (fresh data each time, -Xmx1G, auth on,
#          superuser cassandra/cassandra); PLATBENCH_CASSANDRA_NODES=3 starts
#          nodes on 127.0.0.1, 127.0.0.2, 127.0.0.3 (same ports, one IP each).
#          PLATBENCH_CASSANDRA_CPUS=1 pins the JVM with taskset (benchmarks).
#          PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT=19500 adds the Prometheus JMX
#          exporter agent with platbench's rules (scripts/servers/jmx) on each
#          node's address and that port; env then prints
#          PLATBENCH_CASSANDRA_JMX_URLS. PLATBENCH_CASSANDRA_ADDR_OFFSET=N puts
#          node i on 127.0.0.(i+N) (a second cluster beside the first; use
#          PLATBENCH_CASSANDRA_RUN for its own directory).
#          Client TLS is on and optional: port 9042 takes plain and TLS
#          connections; the nodes share a self-signed certificate for
#          127.0.0.1-3 whose PEM is $run/tls/ca.pem (keytool, at start).
# stop:    stops every node this script started.
# env:     prints export PLATBENCH_CQL_URL=... for the tests.
# Usage: cassandra.sh install|start|stop|env|stop-node N|start-node N|pause-node N|resume-node N
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=5.0.9
cache="${PLATBENCH_CACHE:-$repo/.cache}"
home="$cache/cassandra-$version"
run="${PLATBENCH_CASSANDRA_RUN:-$cache/cassandra-run}"
nodes="${PLATBENCH_CASSANDRA_NODES:-1}"
heap="${PLATBENCH_CASSANDRA_HEAP:-1G}"
timeout_s="${PLATBENCH_CASSANDRA_TIMEOUT:-180}"

die() { echo "cassandra.sh: $*" >&2; exit 1; }

install() {
  if [ -f "$home/lib/cassandra-all-$version.jar" ] && [ -f "$home/.complete" ]; then return 0; fi
  local pkgs=()
  command -v java >/dev/null || pkgs+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || pkgs+=(maven)
  if [ ${#pkgs[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "${pkgs[*]} missing and no apt-get (fix: install Java 17 and Maven)"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${pkgs[@]}" >&2 \
      || die "apt-get install ${pkgs[*]} failed (fix: run 'apt-get update' first)"
  fi
  mkdir -p "$home/lib"
  cp "$here/cassandra/pom.xml" "$home/pom.xml"
  (cd "$home" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$home/lib" >&2) \
    || die "maven could not fetch cassandra-all $version (fix: check access to Maven Central)"
  [ -f "$home/lib/cassandra-all-$version.jar" ] || die "cassandra-all-$version.jar missing after maven ran"
  touch "$home/.complete"
}

addr_of() { echo "127.0.0.$(($1 + ${PLATBENCH_CASSANDRA_ADDR_OFFSET:-0}))"; }

# make_tls writes a self-signed keystore for every node's address, once per
# start of the cluster (start-node keeps it).
make_tls() {
  local d="$run/tls"
  [ -f "$d/keystore.p12" ] && [ -f "$d/ca.pem" ] && return 0
  command -v keytool >/dev/null || die "keytool missing (fix: install a JDK, e.g. openjdk-17-jre-headless)"
  mkdir -p "$d"
  # Every address a node of this checkout can have (PLATBENCH_CASSANDRA_ADDR_OFFSET
  # moves them), so that the TLS tests pass on moved addresses too.
  local san="" i
  for i in 1 2 3; do san="$san${san:+,}IP:$(addr_of "$i")"; done
  keytool -genkeypair -alias node -keyalg RSA -keysize 2048 -validity 3650 -storetype PKCS12 \
    -keystore "$d/keystore.p12" -storepass cassandra -keypass cassandra -dname "CN=platbench-test-cassandra" \
    -ext "SAN=$san" >/dev/null 2>&1 || die "keytool could not create $d/keystore.p12"
  keytool -exportcert -rfc -alias node -keystore "$d/keystore.p12" -storepass cassandra > "$d/ca.pem" 2>/dev/null \
    || die "keytool could not export $d/ca.pem"
}

# start_node starts node i and waits until it is ready. A node joining a
# cluster can fail its first start on a loaded machine (seen in CI: "Unable
# to contact any seeds" when the seed was busy with another node's
# bootstrap): a fresh node (its data is new) is then started again, up to
# three times, before giving up.
start_node() {
  local i=$1 attempt
  for attempt in 1 2 3; do
    if start_node_once "$i"; then return 0; fi
    if [ "${PLATBENCH_CASSANDRA_KEEP_DATA:-0}" = 1 ] || [ "$i" -eq 1 ] || [ "$attempt" -eq 3 ]; then
      die "node$i exited during startup (log: $run/node$i/logs/system.log)"
    fi
    echo "cassandra.sh: node$i failed to join (attempt $attempt); starting it again in 5 s" >&2
    sleep 5
  done
}

start_node_once() {
  local i=$1 addr dir seeds jmx
  addr=$(addr_of "$i"); dir="$run/node$i"; jmx=$((7099 + 100 * (i + ${PLATBENCH_CASSANDRA_ADDR_OFFSET:-0})))
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    echo "cassandra.sh: node$i already running (pid $(cat "$dir/pid"))" >&2; return 0
  fi
  # A node of another checkout (or a stale one) on this address would answer
  # wait_ready in this one's place: say so rather than test against it.
  if (exec 3<>"/dev/tcp/$addr/9042") 2>/dev/null; then
    die "$addr:9042 is taken by another process, not by this checkout's node$i (fix: stop it, or PLATBENCH_CASSANDRA_ADDR_OFFSET=<n> to use other loopback addresses)"
  fi
  if [ "${PLATBENCH_CASSANDRA_KEEP_DATA:-0}" != 1 ] || [ ! -d "$dir/data" ]; then rm -rf "$dir"; fi
  mkdir -p "$dir/data" "$dir/commitlog" "$dir/saved_caches" "$dir/hints" "$dir/cdc_raw" "$dir/logs"
  seeds=$(addr_of 1)
  make_tls
  sed -e "s#@DIR@#$dir#g" -e "s#@ADDR@#$addr#g" -e "s#@SEEDS@#$seeds#g" -e "s#@TLS@#$run/tls#g" \
    "$here/cassandra/cassandra.yaml.in" > "$dir/cassandra.yaml"
  # Each node's 16 tokens are given, interleaved evenly over the Murmur3 ring:
  # a node that bootstraps while another's bootstrap is still gossiping would
  # otherwise allocate the same tokens ("Bootstrap Token collision", seen in
  # a CI run) with the deterministic allocator.
  if [ "$nodes" -gt 1 ]; then
    local tokens
    tokens=$(python3 -c "n,i=$nodes,$i-1; w=2**64//(16*n); print(','.join(str(-2**63+(k*n+i)*w) for k in range(16)))")
    sed -i -e "s/^num_tokens: .*/num_tokens: 16\ninitial_token: $tokens/" \
      -e '/^allocate_tokens_for_local_replication_factor:/d' "$dir/cassandra.yaml"
  fi
  local jamm; jamm=$(ls "$home"/lib/jamm-*.jar | head -1)
  local pin=() agent=()
  [ -n "${PLATBENCH_CASSANDRA_CPUS:-}" ] && pin=(taskset -c "$PLATBENCH_CASSANDRA_CPUS")
  if [ -n "${PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT:-}" ]; then
    agent=("-javaagent:$(bash "$here/jmx/agent.sh")=$addr:$PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT:$here/jmx/cassandra.yaml")
  fi
  # shellcheck disable=SC2046
  nohup "${pin[@]}" java -Xms"$heap" -Xmx"$heap" -Xss512k -XX:+UseG1GC -XX:+AlwaysPreTouch \
    -XX:MaxDirectMemorySize=512m -XX:-UsePerfData \
    $(grep -v '^#' "$here/cassandra/jvm17.options") \
    -javaagent:"$jamm" "${agent[@]}" \
    -Dcassandra.config="file://$dir/cassandra.yaml" \
    -Dlogback.configurationFile="$here/cassandra/logback.xml" \
    -Dcassandra.logdir="$dir/logs" -Dcassandra.storagedir="$dir" \
    -Dcassandra.ring_delay_ms=1000 -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -Dcassandra.superuser_setup_delay_ms=0 \
    -Dcassandra.jmx.local.port="$jmx" \
    -Dcassandra-foreground=yes \
    -cp "$home/lib/*" org.apache.cassandra.service.CassandraDaemon \
    > "$dir/logs/stdout.log" 2>&1 &
  echo $! > "$dir/pid"
  wait_ready "$i"
}

# wait_ready waits until the node accepts CQL connections and has created its
# default superuser (the tests log in with it).
wait_ready() {
  local i=$1 addr dir deadline
  addr=$(addr_of "$i"); dir="$run/node$i"; deadline=$((SECONDS + timeout_s))
  while :; do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      grep -m3 -e "Exception encountered during startup" -e "Unable to contact" -e "collision" "$dir/logs/stdout.log" >&2 || tail -5 "$dir/logs/stdout.log" >&2
      rm -f "$dir/pid"
      return 1
    fi
    if (exec 3<>"/dev/tcp/$addr/9042") 2>/dev/null && \
       { [ "$i" -gt 1 ] || grep -q -e "Created default superuser role" -e "Setup task succeeded" "$dir/logs/system.log" 2>/dev/null; }; then
      echo "cassandra.sh: node$i ready on $addr:9042 after ${SECONDS}s" >&2; return 0
    fi
    [ $SECONDS -lt $deadline ] || die "node$i not ready on $addr:9042 after ${timeout_s}s (log: $dir/logs/system.log)"
    sleep 1
  done
}

stop_node() {
  local i=$1 dir pid
  dir="$run/node$i"
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
  rm -f "$dir/pid"
}

case "${1:?usage: cassandra.sh install|start|stop|env|stop-node N|start-node N}" in
  install) install ;;
  start)
    install
    rm -rf "$run/tls"
    for i in $(seq "$nodes"); do start_node "$i"; done ;;
  stop)
    for d in "$run"/node*; do [ -d "$d" ] && stop_node "${d##*node}"; done; true ;;
  stop-node) stop_node "${2:?node number}" ;;
  start-node) PLATBENCH_CASSANDRA_KEEP_DATA=1 start_node "${2:?node number}" ;;
  # pause-node/resume-node freeze a node (SIGSTOP/SIGCONT) like a long GC
  # pause: its connections stay open and requests time out.
  pause-node) kill -STOP "$(cat "$run/node${2:?node number}/pid")" ;;
  resume-node) kill -CONT "$(cat "$run/node${2:?node number}/pid")" ;;
  env)
    hosts=$(addr_of 1)
    for i in $(seq 2 "$nodes"); do hosts="$hosts,$(addr_of "$i")"; done
    echo "export PLATBENCH_CQL_URL=cql://cassandra:cassandra@$hosts:9042"
    # The same nodes over TLS: the CA to trust.
    echo "export PLATBENCH_CQL_TLS_CA=$run/tls/ca.pem"
    # The node-loss test stops and restarts a node through this script.
    echo "export PLATBENCH_CQL_NODECTL=$here/cassandra.sh"
    if [ -n "${PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT:-}" ]; then
      urls=""
      for i in $(seq "$nodes"); do urls="$urls${urls:+,}http://$(addr_of "$i"):$PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT/metrics"; done
      echo "export PLATBENCH_CASSANDRA_JMX_URLS=$urls"
    fi ;;
  *) die "unknown action $1 (use install|start|stop|env|stop-node N|start-node N|pause-node N|resume-node N)" ;;
esac
