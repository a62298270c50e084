"""A plain loop: point reads by primary key on one thread for SECONDS, keys
drawn uniformly by the worker's key generator before the clock starts (as
the worker draws them in C, at a cost of nanoseconds; in Python the
generator's arithmetic would cost more than a tenth of a read), the SELECT
prepared once (the module's statement cache), WAL, synchronous off. The ROWS bench rows are
loaded first on the same connection, as the worker loads them (transactions
of 10,000 rows, 100 rows per INSERT), so that both read the same database in
the same state. Prints reads per second of wall time and per second of CPU
time.

usage: plain_read.py sqlite3|apsw PATH [ROWS [SECONDS]]"""

import sys
from time import perf_counter_ns as pc
from time import process_time_ns as cpu

from common import CREATE, connect, fresh, gen, rows

SELECT = "SELECT ID,rand,hash FROM bench WHERE ID = ?"
# Keys drawn before the clock starts: few enough to take a fraction of a
# second (a key costs microseconds in Python), so that the measured reads of
# both sides of an interleaved round (compare.py) overlap; the reads go
# round them again.
KEYS = 1 << 16


def main(client, path, n=100_000, seconds=10):
    fresh(path)
    conn, cur = connect(client, path)
    cur.execute(CREATE)
    multi = "INSERT INTO bench(ID,rand,hash) VALUES " + ",".join(["(?,?,?)"] * 100)
    for start in range(0, n, 10000):
        cur.execute("BEGIN")
        batch = rows(start, min(10000, n - start))
        for j in range(0, len(batch), 100):
            part = batch[j : j + 100]
            if len(part) == 100:
                cur.execute(multi, [v for r in part for v in r])
            else:
                cur.executemany("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)", part)
        cur.execute("COMMIT")
    nxt = gen.KeyGen("uniform", None, 1, 0).next
    # The worker's first keys in its order, as 1-tuples, a thousand reads'
    # worth a chunk, used again from the first once the reads outrun them.
    chunks = [[(nxt(n),) for _ in range(1000)] for _ in range(KEYS // 1000)]
    ex = cur.execute
    done = 0
    c0, t0 = cpu(), pc()
    end = t0 + seconds * 10**9
    while True:
        for k in chunks[(done // 1000) % len(chunks)]:
            if not ex(SELECT, k).fetchall():
                raise SystemExit("missing row")
        done += 1000
        if pc() >= end:
            break
    el, el_cpu = pc() - t0, cpu() - c0
    conn.close()
    fresh(path)
    return done / (el / 1e9), done / (el_cpu / 1e9)


if __name__ == "__main__":
    print("%.0f %.0f" % main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:])))
