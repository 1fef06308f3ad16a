#!/usr/bin/env bash
# Checks platbench's change-point detection (analysis.ChangePoints, used by
# `platbench history`) against Apache Otava itself: PyPI's apache-otava
# (pinned) in a virtualenv under .cache, fed the same series as the Go
# tests, through its own command line and CSV data source. The tests fail
# rather than skip when CI is set; scripts/test.sh runs it after starting the
# servers (the PostgreSQL store test needs PLATBENCH_POSTGRES_URL).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.8.0 # apache-otava
venv=$PWD/.cache/otava
# Its dependencies pinned too (scripts/otava-constraints.txt): unpinned, pip
# takes whatever the index serves that day.
pins=scripts/otava-constraints.txt
mark="$venv/.apache-otava-$VERSION-$(sha256sum "$pins" | cut -c1-12)"
if [ ! -f "$mark" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -c "$pins" "apache-otava==$VERSION"
  touch "$mark"
fi
export PLATBENCH_OTAVA=$venv/bin/otava
"$PLATBENCH_OTAVA" --help >/dev/null
go test -count=1 -run 'Otava' ./analysis ./cmd/platbench/cli ./store/postgres
echo "check-otava: change points equal to Apache Otava $VERSION's"
