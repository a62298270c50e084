#!/usr/bin/env bash
# The rust-rusqlite worker's tests, in one command: the build (build.sh),
# the formatter and linter when the toolchain has them, the unit tests (the
# generators against the Go reference vectors, settings, summaries) and the
# end-to-end conformance against 'litebench worker' built from this tree
# (go test ./workers/rust). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
cargo=${CARGO:-cargo}
if "$cargo" fmt --version >/dev/null 2>&1; then
  echo "== cargo fmt --check"
  "$cargo" fmt --check
fi
if "$cargo" clippy --version >/dev/null 2>&1; then
  echo "== cargo clippy"
  "$cargo" clippy --release --locked --quiet --all-targets -- -D warnings
fi
echo "== cargo test"
"$cargo" test --release --locked --quiet
echo "== conformance (go test ./workers/rust)"
cd ../..
LITEBENCH_RUST_REQUIRED=1 go test -count=1 ./workers/rust
