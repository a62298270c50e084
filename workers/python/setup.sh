#!/usr/bin/env bash
# Creates workers/python/.venv, the Python worker's own environment, with the
# pinned requirements (nothing is installed outside it). Set PYTHON to choose
# the interpreter (3.11 or later); python3 otherwise.
set -euo pipefail
cd "$(dirname "$0")"
py=${PYTHON:-python3}
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup.sh: $py is missing or older than Python 3.11; install Python 3.11+ or set PYTHON" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ requirements.txt -nt .venv/.installed ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
  touch .venv/.installed
fi
