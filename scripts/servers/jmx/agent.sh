#!/usr/bin/env bash
# Prints the path of the Prometheus JMX exporter java agent, fetching it
# from Maven Central into .cache/jmx_exporter first (pinned; idempotent):
#   io.prometheus.jmx:jmx_prometheus_javaagent:1.0.1
# Used by kafka.sh and cassandra.sh when their JMX port variable is set:
#   -javaagent:$(agent.sh)=127.0.0.1:PORT:scripts/servers/jmx/kafka.yaml
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
VERSION=1.0.1
DIR="$ROOT/.cache/jmx_exporter"
JAR="$DIR/jmx_prometheus_javaagent-$VERSION.jar"
if [ ! -s "$JAR" ]; then
  command -v mvn >/dev/null || { echo "jmx/agent.sh: mvn not found (fix: apt-get install -y maven)" >&2; exit 1; }
  mkdir -p "$DIR"
  mvn -q -B dependency:copy -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$VERSION" -DoutputDirectory="$DIR" >&2
  [ -s "$JAR" ] || { echo "jmx/agent.sh: $JAR not fetched" >&2; exit 1; }
fi
echo "$JAR"
