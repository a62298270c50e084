#!/usr/bin/env bash
# Builds the Node worker (target node-better-sqlite3) into
# workers/node/node_modules and nowhere else: 'npm ci' from the committed
# lock file. better-sqlite3 compiles its bundled SQLite when no prebuilt
# binary can be fetched (about two minutes; it needs python3, make and a C++
# compiler). npm's cache (~/.npm) keeps the packages, and a tree installed
# from the same lock file by the same Node is kept as it is, so a second run
# takes a second.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "workers/node: node and npm are not installed: install Node.js 20 or later (apt-get install nodejs npm)"
  exit 2
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "workers/node: node $(node --version) is too old: install Node.js 20 or later"
  exit 2
fi
# Some packages ship Go source (flatted does): a go.mod makes node_modules a
# module of its own, which the Go tool's ./... leaves out of litebench.
guard() {
  printf 'module github.com/litebench/litebench/workers/node/node_modules\n\n// npm installs this directory; the go tool leaves it alone.\n' >node_modules/go.mod
}
stamp=node_modules/.litebench-build
want="$(node --version) $(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && node worker.js --check >/dev/null 2>&1; then
  guard
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
guard
node worker.js --check >/dev/null
echo "$want" >"$stamp"
