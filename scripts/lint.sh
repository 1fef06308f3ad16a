#!/usr/bin/env bash
# Hygiene gates, run by `make test` (and so by CI) before any server starts;
# `make lint` runs them alone. Each gate fails the run on a finding:
#   gofmt, go mod tidy -diff, go vet, staticcheck and deadcode (pinned versions,
#   installed into .cache/gobin).
set -euo pipefail
cd "$(dirname "$0")/.."
STATICCHECK_VERSION=v0.7.0 # staticcheck 2026.1
DEADCODE_VERSION=v0.39.0   # golang.org/x/tools
export GOBIN="$PWD/.cache/gobin"
mkdir -p "$GOBIN"
[ -x "$GOBIN/staticcheck" ] && "$GOBIN/staticcheck" -version | grep -q "($STATICCHECK_VERSION)" ||
  go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
[ -x "$GOBIN/deadcode" ] && [ -f "$GOBIN/deadcode.$DEADCODE_VERSION" ] || {
  go install "golang.org/x/tools/cmd/deadcode@$DEADCODE_VERSION" && touch "$GOBIN/deadcode.$DEADCODE_VERSION"
}
fail=0
gate() { # gate NAME OUTPUT: a non-empty OUTPUT is a finding
  if [ -n "$2" ]; then
    echo "lint: $1:"; echo "$2" | sed 's/^/  /'; fail=1
  else
    echo "lint: $1 ok"
  fi
}
gate "gofmt (fix: gofmt -w on these files)" "$(gofmt -l $(git ls-files '*.go'))"
# Every module first, quietly: on a cold module cache the go commands below
# print "go: downloading ..." on stderr, which is progress, not a finding.
go mod download
# tidy is judged by its diff (stdout) and its exit status; stderr is shown only
# when it failed without a diff (a go.mod it cannot read, a module it cannot fetch).
tidy_err=$(mktemp)
if tidy_diff=$(go mod tidy -diff 2>"$tidy_err"); then
  tidy_diff=""
elif [ -z "$tidy_diff" ]; then
  tidy_diff="go mod tidy -diff failed: $(cat "$tidy_err")"
fi
rm -f "$tidy_err"
gate "go mod tidy -diff (fix: go mod tidy)" "$tidy_diff"
gate "go vet" "$(go vet ./... 2>&1 || true)"
gate "staticcheck" "$("$GOBIN/staticcheck" ./... 2>&1 || true)"
# Unreachable functions outside tests (deadcode looks from main). Packages
# that exist for tests (test servers, synthetic results) are judged from the tests instead:
# none of their functions may be unused by them.
testpkgs='adapter/cql/cqltest|result/synth|internal/testenv'
gate "deadcode (fix: delete the function, or wire it)" "$("$GOBIN/deadcode" ./... 2>&1 | grep -Ev "^($testpkgs)/" || true)"
gate "deadcode -test of the test packages (fix: delete the function, or test it)" "$("$GOBIN/deadcode" -test -filter "$testpkgs" ./... 2>&1 || true)"
exit "$fail"
