#!/usr/bin/env bash
# The Python worker's tests, in one command: its environment (setup.sh), the
# formatter and linter, the unit tests (the generators against the Go
# generators' reference values, settings, histograms) and the end-to-end
# conformance against 'litebench worker' built from this tree.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
echo "== ruff"
.venv/bin/ruff format --check --quiet .
.venv/bin/ruff check --quiet .
echo "== pytest"
.venv/bin/python -m pytest -q
echo "== conformance (go test ./workers/python)"
cd ../..
LITEBENCH_PYTHON_REQUIRED=1 go test -count=1 ./workers/python
