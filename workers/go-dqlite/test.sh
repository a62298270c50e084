#!/usr/bin/env bash
# Tests go-dqlite: its build, vet and gofmt. The dqlite target's
# end-to-end tests (internal/cli, TestDqlite*: every workload on 1 and 3
# nodes, a sweep with mattn, refusals, an interrupt, the kill-follower
# audit) start clusters through this worker and run with 'make test'.
# Prints one line per failure and exits non-zero if there was any.
set -uo pipefail
cd "$(dirname "$0")"
failed=0
./build.sh >/dev/null || { echo "FAIL build"; failed=1; }
go vet ./... || { echo "FAIL vet"; failed=1; }
unformatted=$(gofmt -l .)
[ -z "$unformatted" ] || { failed=1; echo "FAIL gofmt: would change $unformatted"; }
[ "$failed" = 1 ] || echo "go-dqlite: all tests passed"
exit $failed
