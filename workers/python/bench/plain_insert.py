"""A plain loop: ROWS bench rows, one prepared INSERT per row, 1000 rows per
transaction, WAL, synchronous off. Rows are generated a transaction at a time
off the clock, as the worker does. Prints rows per second of wall time and
per second of CPU time (both over the transactions only).

usage: plain_insert.py sqlite3|apsw PATH [ROWS]"""

import sys
from time import perf_counter_ns as pc
from time import process_time_ns as cpu

from common import CREATE, INSERT, connect, fresh, rows


def main(client, path, n=1_000_000, batch=1000):
    fresh(path)
    conn, cur = connect(client, path)
    cur.execute(CREATE)
    ex = cur.execute
    spent = spent_cpu = 0
    for start in range(0, n, batch):
        data = rows(start, min(batch, n - start))
        c, t = cpu(), pc()
        ex("BEGIN")
        for r in data:
            ex(INSERT, r)
        ex("COMMIT")
        spent += pc() - t
        spent_cpu += cpu() - c
    conn.close()
    fresh(path)
    return n / (spent / 1e9), n / (spent_cpu / 1e9)


if __name__ == "__main__":
    print("%.0f %.0f" % main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:])))
