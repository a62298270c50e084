#!/usr/bin/env bash
# The Node worker's tests in one command: its build, the formatter and
# linter, the unit tests (the generators against the Go reference's
# vectors, the histogram layout) and the end-to-end conformance against
# 'litebench worker' built from this tree. Prints one line per failure and
# exits non-zero on any.
set -uo pipefail
cd "$(dirname "$0")"
./build.sh || exit 1
status=0

# step NAME FILTER CMD...: runs CMD; when it fails, prints what FILTER (a
# command reading CMD's output) keeps of it, one line per failure.
step() {
  local name=$1 filter=$2
  shift 2
  local out
  if ! out=$("$@" 2>&1); then
    status=1
    local lines
    lines=$(echo "$out" | $filter | sed -e 's/^[[:space:]]*//' -e "s/^/FAIL $name: /")
    echo "${lines:-FAIL $name: $(echo "$out" | tail -n 1)}"
  fi
}
lines() { grep -E "$pattern"; }
# eslint's report: a file name, then its problems indented below it.
eslint_lines() { awk '/^\// { f = $0; next } /^ +[0-9]+:[0-9]+/ { sub(/^ +/, ""); print f ":" $0 }'; }

pattern='^\[warn\]' step prettier lines npx --no-install prettier --check .
step eslint eslint_lines npx --no-install eslint .
pattern='^[[:space:]]*not ok' step unit lines node --test --test-reporter=tap test/
pattern='(conform_test\.go:[0-9]+:|^--- FAIL|^panic)' step conformance lines \
  env -C ../.. LITEBENCH_NODE_REQUIRED=1 go test -count=1 ./workers/node
[ $status -eq 0 ] && echo "workers/node: ok"
exit $status
