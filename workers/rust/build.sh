#!/usr/bin/env bash
# Builds the rust-rusqlite worker into workers/rust/target/release/
# litebench-worker-rust with the locked dependencies (rusqlite with its
# bundled SQLite, compiled here). Nothing is installed outside this
# directory; cargo rebuilds only what changed, so a second run is quick.
# Set CARGO to choose the cargo binary.
set -euo pipefail
cd "$(dirname "$0")"
cargo=${CARGO:-cargo}
if ! command -v "$cargo" >/dev/null 2>&1; then
  echo "build.sh: cargo is missing; install the Rust toolchain (https://rustup.rs: rustup toolchain install stable) or set CARGO" >&2
  exit 2
fi
"$cargo" build --release --locked --quiet
echo "built $(pwd)/target/release/litebench-worker-rust"
