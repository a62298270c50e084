#!/usr/bin/env bash
# The Java worker's tests in one command: the build (build.sh), the unit tests
# with javac's lint as errors (the generators against the Go reference values
# in internal/gen/testdata/vectors.json and internal/workload/testdata/
# rows.json, settings, parameters, histogram summaries), then the end-to-end
# conformance against 'litebench worker' built from this tree
# (conform_test.go: every workload, digests, counts, refusals, cancel).
# Prints one line per failure and exits non-zero if there is any.
set -uo pipefail
cd "$(dirname "$0")"
./build.sh || exit $?
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

echo "== unit tests (mvn test, lint warnings are errors)"
if ! mvn -q -B test -Dmaven.compiler.failOnWarning=true >"$log" 2>&1; then
  status=1
  # Surefire's summary lists each failed test on one line; compiler errors
  # come as [ERROR] file:[line,col] lines.
  grep -E '^\[ERROR\]   [A-Za-z]|^\[ERROR\] /.*\.java:\[' "$log" | sed 's/^\[ERROR\] *//' | sort -u
  grep -qE '^\[ERROR\]   [A-Za-z]|^\[ERROR\] /.*\.java:\[' "$log" || tail -5 "$log"
fi

echo "== conformance (go test ./workers/java)"
if ! (cd ../.. && LITEBENCH_JAVA_REQUIRED=1 go test -count=1 ./workers/java) >"$log" 2>&1; then
  status=1
  grep -E '^\s+[a-z_]+_test\.go:[0-9]+:' "$log" | sed 's/^\s*//'
  grep -qE '^\s+[a-z_]+_test\.go:[0-9]+:' "$log" || tail -5 "$log"
fi
exit $status
