#!/usr/bin/env bash
# Builds litebench-worker-dqlite in this directory from the committed
# go.mod/go.sum. go-dqlite is not served by the Go module proxy: go.mod
# replaces it with the source of Debian's golang-github-canonical-go-dqlite-dev
# package, and the cgo build links Debian's libdqlite (libdqlite-dev).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null; then
  echo "go-dqlite: the Go toolchain is not installed (install Go 1.26 or later)" >&2
  exit 1
fi
if [ ! -f /usr/include/dqlite.h ] || [ ! -f /usr/share/gocode/src/github.com/canonical/go-dqlite/go.mod ]; then
  echo "go-dqlite: apt-get install go-dqlite libdqlite-dev golang-github-canonical-go-dqlite-dev" >&2
  exit 1
fi
if [ "$(go env CGO_ENABLED)" != 1 ] || ! command -v "$(go env CC)" >/dev/null; then
  echo "go-dqlite: go-dqlite needs cgo and a C compiler ($(go env CC)); install gcc and set CGO_ENABLED=1" >&2
  exit 1
fi
go build -o litebench-worker-dqlite .
