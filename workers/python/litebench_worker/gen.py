"""Deterministic data, keys, op choices and arrival times.

A port of litebench's Go generators (internal/workload data.go and keys.go,
the op chooser of the operation workloads, internal/loadgen's schedule): the
same seed gives the same bytes in every language.
"""

import hashlib
import math
from datetime import datetime, timedelta

from . import fmath

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
C1 = 0xBF58476D1CE4E5B9
C2 = 0x94D049BB133111EB


def mix(seed, i):
    """splitmix64's finaliser over seed and i."""
    z = (seed * GOLDEN + i * C1 + C2) & M64
    z = ((z ^ (z >> 30)) * C1) & M64
    z = ((z ^ (z >> 27)) * C2) & M64
    return z ^ (z >> 31)


def splitmix64(x):
    x = (x + GOLDEN) & M64
    x = ((x ^ (x >> 30)) * C1) & M64
    x = ((x ^ (x >> 27)) * C2) & M64
    return x ^ (x >> 31)


def uniform01(x):
    """Maps a 64-bit hash to [0, 1)."""
    return (x >> 11) / 9007199254740992.0  # 2**53


WORDS = """lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco
laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse
cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia
deserunt mollit anim id est laborum sqlite page journal wal checkpoint""".split()

NAMES = [
    "Ada",
    "Alan",
    "Barbara",
    "Claude",
    "Donald",
    "Edsger",
    "Frances",
    "Grace",
    "John",
    "Ken",
    "Leslie",
    "Margaret",
    "Niklaus",
    "Radia",
    "Tony",
    "Barbara",
]

BASE_TIME = datetime(2024, 1, 1)
BASE_MILLI = 1704067200000  # BASE_TIME in Unix milliseconds
PAGE_BODY_SIZE = 5400


def text(seed, i, n):
    """n bytes of deterministic words for row i."""
    s = (seed ^ 0x5BD1E995) & M64
    hi = (i << 20) & M64
    parts, size, k = [], -1, 0
    while size < n:
        w = WORDS[mix(s, hi | k) % len(WORDS)]
        parts.append(w)
        size += len(w) + 1
        k += 1
    return " ".join(parts)[:n]


def bench_values(seed, i):
    """Row i's rand (8 random bytes, hex) and hash (their SHA-256, hex)."""
    b = mix(seed, i).to_bytes(8, "little")
    return b.hex(), hashlib.sha256(b).hexdigest()


def check_bench(rand, digest):
    """Seed 000's check: the stored hash is the SHA-256 of rand's bytes."""
    try:
        return hashlib.sha256(bytes.fromhex(rand)).hexdigest() == digest
    except (ValueError, TypeError):
        return False


def uuid_v4(a, b):
    u = bytearray(a.to_bytes(8, "little") + b.to_bytes(8, "little"))
    u[6] = u[6] & 0x0F | 0x40
    u[8] = u[8] & 0x3F | 0x80
    h = u.hex()
    return "-".join((h[:8], h[8:12], h[12:16], h[16:20], h[20:]))


def rfc3339_milli(i):
    """BASE_TIME plus i milliseconds as Go's RFC3339Nano writes it."""
    t = BASE_TIME + timedelta(milliseconds=i)
    ms = i % 1000
    frac = (".%03d" % ms).rstrip("0") if ms else ""
    return t.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


def users_key(seed, i):
    return uuid_v4(mix(seed, i), mix(seed ^ 0xA5A5A5A5, i))


def bench_row(seed, i):
    r, h = bench_values(seed, i)
    return (i, r, h)


def users_row(seed, i):
    return (users_key(seed, i), rfc3339_milli(i), "Someone")


def account_row(seed, i):
    m = mix(seed, i)
    return (
        i + 1,
        "user%d@example.com" % (i + 1),
        NAMES[m % 16] + " " + NAMES[(m >> 16) % 16],
        text(seed, i, 64 + (m >> 40) % 64),
        BASE_MILLI + i,
        1,
    )


def foo_row(seed, i):
    m = mix(seed, i)
    b = bytearray(30)
    for k in range(30):
        if k % 12 == 0 and k > 0:
            m = mix(m, k)
        b[k] = 65 + m % 26
        m //= 26
    return (i + 1, b.decode())


def pages_row(seed, i):
    return (i + 1, text(seed, i, PAGE_BODY_SIZE))


class Schema:
    """A table the seeds use, with its deterministic rows."""

    def __init__(self, name, create, columns, row, key, update_cols):
        self.name = self.table = name
        self.create = create
        self.columns = columns
        self.row = row  # row(seed, i) -> tuple in column order
        # key is row i's primary key: i plus an offset, or a function of (seed, i)
        self.key_offset = key if isinstance(key, int) else None
        self.key = key if self.key_offset is None else (lambda seed, i: i + self.key_offset)
        self.key_col = columns[0]
        self.update_cols = update_cols
        self.update_idx = [columns.index(c) for c in update_cols]


SCHEMAS = {
    s.name: s
    for s in [
        Schema(
            "bench",
            ["CREATE TABLE bench(ID int PRIMARY KEY ASC, rand TEXT, hash TEXT)"],
            ["ID", "rand", "hash"],
            bench_row,
            0,
            ["rand", "hash"],
        ),
        Schema(
            "users",
            [
                "CREATE TABLE users(id BLOB PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, username TEXT NOT NULL)",
                "CREATE UNIQUE INDEX idx_users_on_id ON users(id)",
            ],
            ["id", "created_at", "username"],
            users_row,
            users_key,
            ["created_at", "username"],
        ),
        Schema(
            "account",
            [
                "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, "
                "description TEXT, created_at INTEGER NOT NULL, version INTEGER)",
                "CREATE INDEX account_name ON account(name)",
            ],
            ["id", "email", "name", "description", "created_at", "version"],
            account_row,
            1,
            ["name", "description"],
        ),
        Schema(
            "foo",
            ["CREATE TABLE foo(id INTEGER NOT NULL PRIMARY KEY, name TEXT)"],
            ["id", "name"],
            foo_row,
            1,
            ["name"],
        ),
        Schema(
            "pages", ["CREATE TABLE pages(id INTEGER PRIMARY KEY, body TEXT)"], ["id", "body"], pages_row, 1, ["body"]
        ),
    ]
}


# zeta sums term by term up to ZETA_EXACT_MAX and expands above it
# (Euler-Maclaurin to the B6 term after the first nine terms), as
# docs/data-generation.md section 5 gives it.
ZETA_EXACT_MAX = 1 << 20


def zeta(n, theta):
    zn = 0.0
    if n <= ZETA_EXACT_MAX:
        for i in range(1, n + 1):
            zn += 1 / math.pow(float(i), theta)
        return zn
    pw = fmath.pow
    for i in range(1, 10):
        zn += 1 / pw(float(i), theta)
    a, b = 10.0, float(n)
    c1 = theta
    c3 = c1 * (theta + 1) * (theta + 2)
    c5 = c3 * (theta + 3) * (theta + 4)
    integral = (pw(b, 1 - theta) - pw(a, 1 - theta)) / (1 - theta)
    ends = (1 / pw(a, theta) + 1 / pw(b, theta)) / 2
    d1 = (c1 / pw(a, theta + 1) - c1 / pw(b, theta + 1)) / 12
    d3 = (c3 / pw(a, theta + 3) - c3 / pw(b, theta + 3)) / 720
    d5 = (c5 / pw(a, theta + 5) - c5 / pw(b, theta + 5)) / 30240
    return zn + ((((integral + ends) + d1) - d3) + d5)


class Zipf:
    """Ranks 0..n-1 with P(k) proportional to 1/(k+1)**theta (Gray et al., as YCSB)."""

    def __init__(self, n, theta):
        n = max(n, 1)
        self.n = n
        zeta2 = 1 + math.pow(0.5, theta)
        zn = zeta(n, theta)
        self.zetan = zn
        self.alpha = 1 / (1 - theta)
        self.eta = (1 - math.pow(2 / float(n), 1 - theta)) / (1 - zeta2 / zn)
        self.half = 1 + math.pow(0.5, theta)

    def rank(self, u):
        uz = u * self.zetan
        if uz < 1:
            return 0
        if uz < self.half:
            return min(1, self.n - 1)
        r = int(float(self.n) * math.pow(self.eta * u - self.eta + 1, self.alpha))
        return min(max(r, 0), self.n - 1)


class KeyGen:
    """Row indexes for one worker: uniform, zipfian (hot rows scattered) or
    latest. next(n) is a row index in [0, n), n being how many rows exist now."""

    def __init__(self, kind, zipf, seed, worker):
        self.zipf = zipf
        self.state = mix(seed ^ 0x6B6579, worker + 1)
        self.next = {"zipfian": self.zipfian, "latest": self.latest}.get(kind, self.uniform)

    def u(self):
        z = self.state = (self.state + GOLDEN) & M64
        z = ((z ^ (z >> 30)) * C1) & M64
        z = ((z ^ (z >> 27)) * C2) & M64
        return ((z ^ (z >> 31)) >> 11) / 9007199254740992.0

    def uniform(self, n):
        if n <= 1:
            return 0
        z = self.state = (self.state + GOLDEN) & M64  # u(), inline: it is the common case
        z = ((z ^ (z >> 30)) * C1) & M64
        z = ((z ^ (z >> 27)) * C2) & M64
        return int(((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * float(n))

    def zipfian(self, n):
        if n <= 1:
            return 0
        return mix(0x7A697066, self.zipf.rank(self.u())) % n

    def latest(self, n):
        if n <= 1:
            return 0
        return max(n - 1 - self.zipf.rank(self.u()), 0)


def chooser(seed, ratio):
    """Open loop: operation seq writes (True) or reads, the same for a seed."""
    s = seed ^ 0x726174
    limit = ratio * 100
    return lambda seq: float(mix(s, seq) % 10000) < limit


def schedule(arrivals, rate, seq, prev, u):
    """Scheduled offset in ns of operation seq, given that of seq-1."""
    if seq == 0:
        return 0
    if arrivals == "uniform":
        return int(float(seq) * 1e9 / rate)
    return prev + int(-math.log1p(-u) * (1e9 / rate))
