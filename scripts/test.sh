#!/usr/bin/env bash
# The README's test command: installs and starts the real servers on 127.0.0.1,
# runs every Go test against them (an integration test whose server, root or
# tool is missing fails rather than skips: PLATBENCH_REQUIRE_SERVERS, and
# every skip is counted by reason at the end), then stops the servers.
set -euo pipefail
cd "$(dirname "$0")/.."
# Root first, before anything is installed: the suite apt-get installs servers,
# creates network namespaces (scripts/check-netns.sh) and runs PostgreSQL as its
# own user. Without root it would fail half-way; say so at once instead.
if [ "$(id -u)" != 0 ]; then
  echo "make test needs root (apt-get installs, network namespaces, a PostgreSQL cluster run as its own user): run it as root, e.g. sudo make test; make unit runs the tests that need no server" >&2
  exit 2
fi
mkdir -p .cache test-artifacts
# failed LOG: a failing step's test failures on stderr too, where a reader of
# only the end of the output (or of stderr alone) sees them.
failed() {
  {
    echo "make test: failed; from $1:"
    grep -E -e '^(--- FAIL|FAIL|panic:)' -e '^[[:space:]]+[[:alnum:]_]+_test\.go:[0-9]+:' -e '(error|Error|ERROR)' "$1" | head -40
  } >&2
}
# Hygiene gates first (gofmt, go mod tidy, vet, staticcheck, deadcode): they
# need no server and fail fast.
scripts/lint.sh
# The container image (make image) is built and checked: tag, user, contents.
scripts/check-image.sh
# The Kubernetes manifests against the official schemas (no cluster needed).
scripts/check-k8s.sh
# Three Cassandra nodes on 127.0.0.1-3 (about 3.5 GiB, 35 s to start): the
# CQL tests then cover token-aware routing and losing a node at RF=3.
# PLATBENCH_CASSANDRA_NODES=1 runs them on one node.
export PLATBENCH_CASSANDRA_NODES=${PLATBENCH_CASSANDRA_NODES:-3}
# Kafka runs with the Prometheus JMX exporter agent and platbench's rules
# (scripts/servers/jmx): the db-metrics tests read the servers' own figures.
export KAFKA_JMX_PORT=${KAFKA_JMX_PORT:-19404}
# So do the Cassandra nodes, each on its own address and port 19500.
export PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT=${PLATBENCH_CASSANDRA_JMX_EXPORTER_PORT:-19500}
# And the Hazelcast members, member N on port 19510+N.
export PLATBENCH_HAZELCAST_JMX_PORT=${PLATBENCH_HAZELCAST_JMX_PORT:-19510}
# One node_exporter per Cassandra node, on the node's address.
if [ -z "${PLATBENCH_NODE_EXPORTER_ADDRS:-}" ]; then
  PLATBENCH_NODE_EXPORTER_ADDRS=$(for i in $(seq 1 "$PLATBENCH_CASSANDRA_NODES"); do printf '127.0.0.%d ' "$i"; done)
  export PLATBENCH_NODE_EXPORTER_ADDRS
fi
scripts/servers.sh install
# The trap comes first: a server that fails to start must not leave the
# others running.
trap 'scripts/servers.sh stop || true' EXIT
scripts/servers.sh start
eval "$(scripts/servers.sh env)"
# Change points against Apache Otava (pinned, in a venv under .cache), also
# Otava reading the PostgreSQL store; go test ./... below runs them again.
set +e
scripts/check-otava.sh 2>&1 | tee test-artifacts/check-otava.log
otava=${PIPESTATUS[0]}
set -e
if [ "$otava" -ne 0 ]; then
  failed test-artifacts/check-otava.log
  exit "$otava"
fi
export PLATBENCH_OTAVA=$PWD/.cache/otava/bin/otava
# A missing server, root or tool fails its test instead of skipping it
# (internal/testenv), and every skip is logged with its kind and reason,
# counted at the end.
export PLATBENCH_REQUIRE_SERVERS=1
export PLATBENCH_SKIP_LOG=$PWD/test-artifacts/skips.log
rm -f "$PLATBENCH_SKIP_LOG"
set +e
PLATBENCH_REDIS_EXPECT=redis go test -count=1 -timeout 45m ./... 2>&1 | tee test-artifacts/go-test.log
status=${PIPESTATUS[0]}
# The recorder and runner share state between workers and the collector: run
# them under the race detector too.
go test -race -count=1 ./recorder ./runner 2>&1 | tee -a test-artifacts/go-test.log
race=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$race
# The Redis tests again against Valkey 8 (the README says Redis and Valkey):
# each test checks that the server it reached says it is Valkey.
PLATBENCH_REDIS_EXPECT=valkey PLATBENCH_REDIS_URL=$PLATBENCH_VALKEY_URL PLATBENCH_REDIS_AUTH_URL=$PLATBENCH_VALKEY_AUTH_URL \
  PLATBENCH_REDIS_CLUSTER_URL=$PLATBENCH_VALKEY_CLUSTER_URL PLATBENCH_REDIS_CLUSTER3_URL=$PLATBENCH_VALKEY_CLUSTER3_URL PLATBENCH_REDIS_SERVER_BIN=$PLATBENCH_VALKEY_SERVER_BIN \
  go test -count=1 ./adapter/redis ./telemetry/dbmetrics 2>&1 | sed 's/^\(ok\|FAIL\|---\)/\1 [valkey]/' | tee -a test-artifacts/go-test.log
valkey=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$valkey
# A distributed run across network namespaces: three loaders and Redis, each
# with its own address, meet by --rendezvous and merge over the network.
scripts/check-netns.sh 2>&1 | tee -a test-artifacts/go-test.log
netns=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$netns
# The benchmark scripts (make bench-pacing, bench-seconds, bench-redis) still
# run, in their smallest setting (about 20 s; no figure judged).
scripts/check-bench.sh 2>&1 | tee -a test-artifacts/go-test.log
benchscripts=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$benchscripts
# Every fuzz test for a few seconds (parsers of user input): 3 s each here
# (42 of them; CI's budget is 35 minutes and the suite took 31), `make fuzz`
# alone runs 5 s each.
FUZZTIME=${FUZZTIME:-3s} scripts/fuzz.sh 2>&1 | tee -a test-artifacts/go-test.log
fuzz=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$fuzz
set -e
# Skips by kind and reason; one that hides a missing server, root or tool
# fails make test even if its test did not (testenv fails those tests too).
skips=0
if [ -s "$PLATBENCH_SKIP_LOG" ]; then
  skips=$(wc -l <"$PLATBENCH_SKIP_LOG")
  echo "skipped tests: $skips, by kind and reason:"
  cut -f1,3 "$PLATBENCH_SKIP_LOG" | sort | uniq -c | sort -rn | sed 's/^/  /'
  if cut -f1 "$PLATBENCH_SKIP_LOG" | grep -qxE 'server|root|tool'; then
    echo "make test: an integration test was skipped for a missing server, root or tool:" >&2
    grep -E '^(server|root|tool)'$'\t' "$PLATBENCH_SKIP_LOG" | sed 's/^/  /' >&2
    [ "$status" -ne 0 ] || status=1
  fi
else
  echo "skipped tests: 0"
fi
echo "go test packages: $(grep -c '^ok ' test-artifacts/go-test.log || true) ok, $(grep -cE '^FAIL[[:space:]]' test-artifacts/go-test.log || true) failed"
[ "$status" -eq 0 ] || failed test-artifacts/go-test.log
exit "$status"
