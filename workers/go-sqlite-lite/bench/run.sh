#!/usr/bin/env bash
# Compares litebench-worker-sqlite-lite with the plain loops of bench/main.go:
# internal/worker/workerbench/compare.sh says how (ROUNDS=5 by default).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/../../internal/worker/workerbench/compare.sh" "$here" litebench-worker-sqlite-lite
