#!/usr/bin/env bash
# Installs, starts or stops every real server the integration tests use.
# Each scripts/servers/NAME.sh implements: install | start | stop | env.
#   env prints `export PLATBENCH_..._URL=...` lines for the tests.
# Usage: scripts/servers.sh install|start|stop|env [NAME...]
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?usage: servers.sh install|start|stop|env [NAME...]}
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in scripts/servers/*.sh; do [ -e "$f" ] && names+=("$(basename "$f" .sh)"); done
fi
rc=0
for n in "${names[@]}"; do
  [ -e "scripts/servers/$n.sh" ] || { echo "servers.sh: no server script named $n" >&2; exit 2; }
  if [ "$action" != env ]; then echo "== $action $n" >&2; fi
  bash "scripts/servers/$n.sh" "$action" || { echo "servers.sh: $action $n failed" >&2; rc=1; }
done
exit $rc
