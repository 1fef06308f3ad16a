#!/usr/bin/env bash
# Runs every Go fuzz test (func FuzzXxx in *_test.go) briefly: FUZZTIME each
# (default 5s). `make test` runs it after the unit tests; `make fuzz` alone.
# Every parser of user input has one (value grammar, workload/suite/profile
# files, target options, URLs, result files).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5s}
status=0
while IFS=: read -r file fn; do
  pkg="./$(dirname "$file")"
  echo "fuzz: $pkg $fn ($FUZZTIME)"
  if ! go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$FUZZTIME" "$pkg" >/tmp/platbench-fuzz.log 2>&1; then
    cat /tmp/platbench-fuzz.log
    echo "fuzz: $pkg $fn FAILED (the failing input is under $pkg/testdata/fuzz/$fn)"
    status=1
  fi
done < <(git ls-files '*_test.go' | xargs grep -o '^func Fuzz[A-Za-z0-9_]*' | sed 's/^\(.*\):func /\1:/' | sort -u)
exit "$status"
