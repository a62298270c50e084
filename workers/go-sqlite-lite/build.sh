#!/usr/bin/env bash
# Builds litebench-worker-sqlite-lite in this directory from the committed
# go.mod/go.sum (no system-wide install). The cgo build of go-sqlite-lite
# (SQLite's C source) is kept in the Go build cache, so only the first build
# compiles it; running this again relinks at most.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null; then
  echo "go-sqlite-lite: the Go toolchain is not installed (install Go 1.26 or later)" >&2
  exit 1
fi
if [ "$(go env CGO_ENABLED)" != 1 ] || ! command -v "$(go env CC)" >/dev/null; then
  echo "go-sqlite-lite: the driver needs cgo and a C compiler ($(go env CC)); install gcc and set CGO_ENABLED=1" >&2
  exit 1
fi
go build -o litebench-worker-sqlite-lite .
