#!/usr/bin/env bash
# Runs every Go fuzz test (func FuzzXxx in *_test.go) briefly: FUZZTIME each
# (default 5s). `make test` runs it after the unit tests; `make fuzz` alone.
# Every parser of user input has one (value grammar, workload/suite/profile
# files, target options, URLs, result files).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5s}
status=0
# A log of its own: a fixed name in /tmp would mix two checkouts' runs.
log=$(mktemp)
stamp=$(mktemp) # touched before each fuzz test: the inputs it writes are newer
trap 'rm -f "$log" "$stamp"' EXIT
while IFS=: read -r file fn; do
  pkg="./$(dirname "$file")"
  echo "fuzz: $pkg $fn ($FUZZTIME)"
  corpus="$pkg/testdata/fuzz/$fn"
  before=$( (find "$corpus" -type f 2>/dev/null || true) | wc -l)
  ok=0
  touch "$stamp"
  for attempt in 1 2; do
    if go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1; then ok=1; break; fi
    # Go's fuzzer sometimes ends a timed run with "context deadline exceeded"
    # and no failing input (a known flake of its timed runs): that run found nothing, so it
    # is run once more; a failure that wrote an input is never retried.
    after=$( (find "$corpus" -type f 2>/dev/null || true) | wc -l)
    grep -q "context deadline exceeded" "$log" && [ "$after" = "$before" ] || break
    echo "fuzz: $pkg $fn ended with the toolchain's 'context deadline exceeded' and no failing input: once more"
  done
  if [ "$ok" = 0 ]; then
    cat "$log"
    # The input itself, too: CI's clone (and its testdata) is gone after the run.
    for f in $( (find "$corpus" -type f -newer "$stamp" 2>/dev/null || true) ); do
      echo "fuzz: failing input $f:"
      cat "$f"
    done
    echo "fuzz: $pkg $fn FAILED (the failing input is under $pkg/testdata/fuzz/$fn)"
    status=1
  fi
done < <(git ls-files '*_test.go' | xargs grep -o '^func Fuzz[A-Za-z0-9_]*' | sed 's/^\(.*\):func /\1:/' | sort -u)
exit "$status"
