"""What the plain loops share: the client modules, opening a bench database
as the worker does, and the bench rows (the same generator, so that the
loops do the same work as the worker minus its harness)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from litebench_worker import gen  # noqa: E402

INSERT = "INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)"
CREATE = gen.SCHEMAS["bench"].create[0]


def connect(client, path):
    """A connection in autocommit mode with WAL and synchronous off, statement cache on."""
    if client == "sqlite3":
        import sqlite3

        conn = sqlite3.connect(path, isolation_level=None)
    else:
        import apsw

        conn = apsw.Connection(path)
    cur = conn.cursor()
    for p in ("PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = wal", "PRAGMA synchronous = off"):
        cur.execute(p).fetchall()
    return conn, cur


def fresh(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def rows(first, n, seed=1):
    return [gen.bench_row(seed, i) for i in range(first, first + n)]
