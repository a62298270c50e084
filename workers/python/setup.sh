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
# The insert's timing loop in C (litebench_worker/_timed.c), built against
# the environment's Python. Without a C compiler or Python's headers the
# worker times its inserts in Python instead, at some 0.1-0.3 µs more per
# statement; LITEBENCH_REQUIRE_WORKERS=1 (CI) makes that an error.
ext=litebench_worker/_timed$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [ ! -f "$ext" ] || [ litebench_worker/_timed.c -nt "$ext" ]; then
  inc=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  if ! ${CC:-cc} -O2 -Wall -Wextra -Werror -shared -fPIC -I"$inc" litebench_worker/_timed.c -o "$ext.tmp"; then
    rm -f "$ext.tmp"
    msg="setup.sh: could not build the C timing loop (needs a C compiler and Python's headers: apt-get install gcc python3-dev); the worker times its inserts in Python"
    if [ "${LITEBENCH_REQUIRE_WORKERS:-}" = 1 ]; then
      echo "$msg" >&2
      exit 1
    fi
    echo "$msg" >&2
  else
    mv "$ext.tmp" "$ext"
  fi
fi
