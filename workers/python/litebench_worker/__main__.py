"""python -m litebench_worker --client sqlite3|apsw: serve the worker protocol
on standard input and output (docs/worker-protocol.md)."""

import argparse
import json
import sys

from .protocol import serve
from .worker import describe


def main(argv=None):
    ap = argparse.ArgumentParser(prog="litebench_worker", description=__doc__)
    ap.add_argument(
        "--client",
        choices=["sqlite3", "apsw"],
        required=True,
        help="the Python SQLite module to run: sqlite3 (standard library) or apsw",
    )
    ap.add_argument(
        "--describe", action="store_true", help="print the workloads and their parameters' defaults as JSON, and exit"
    )
    args = ap.parse_args(argv)
    if args.describe:
        print(json.dumps(describe(), indent=1, sort_keys=True))
        return 0
    # Standard output carries protocol lines only.
    stdout, sys.stdout = sys.stdout.buffer, sys.stderr
    return serve(args.client, sys.stdin.fileno(), stdout)


if __name__ == "__main__":
    sys.exit(main())
