#!/usr/bin/env bash
# Tests go-sqlite-lite: vet and gofmt (of this worker's code, not of the
# vendored driver), the data generators the worker links (litebench's
# internal/gen against testdata/vectors.json), the adapter's
# unit tests, and the conformance test: the same small jobs (every workload,
# one worker, fixed seed) through 'litebench worker' built from this tree
# and through this worker, with equal digests and row counts. Prints one
# line per failure and exits non-zero if there was any.
set -uo pipefail
cd "$(dirname "$0")"
here=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# step NAME COMMAND...: runs COMMAND; on failure prints the test failures
# it reported (one line each), or its last line.
step() {
  local name=$1
  shift
  if ! "$@" >"$tmp/out" 2>&1; then
    failed=1
    if grep -Eq '_test\.go:[0-9]+:' "$tmp/out"; then
      grep -E '_test\.go:[0-9]+:' "$tmp/out" | sed -e 's/^[[:space:]]*/FAIL '"$name"': /'
    else
      echo "FAIL $name: $(grep -v '^[[:space:]]*$' "$tmp/out" | tail -1)"
    fi
  fi
}

step build ./build.sh
step litebench sh -c "cd ../.. && go build -o '$tmp/litebench' ./cmd/litebench"
step vet go vet ./...
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './third_party/*'))
[ -z "$unformatted" ] || { failed=1; echo "FAIL gofmt: would change $unformatted"; }
step generators sh -c "cd ../.. && go test -count=1 ./internal/gen"
step tests env LITEBENCH_BIN="$tmp/litebench" WORKER_BIN="$here/litebench-worker-sqlite-lite" go test -count=1 -v ./...
[ "$failed" = 1 ] || echo "go-sqlite-lite: all tests passed"
exit $failed
