"""Column generators by kind and arguments (docs/data-generation.md §3), as
workload programs name them: row i of a table is a pure function of the seed
and i, the same bytes as the Go worker's."""

import hashlib
import threading
from datetime import datetime, timedelta, timezone

from . import gen

M64 = gen.M64
UUID_LOW = 0xA5A5A5A5
WORDS_STREAM = 0x5BD1E995
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def draw(seed, stream, i):
    return gen.mix((seed ^ stream) & M64, i & M64)


def hex_raw(nbytes, seed, i=0, stream=0):
    h = draw(seed, stream, i)
    out = bytearray()
    j = 0
    while 8 * j < nbytes:
        w = h if j == 0 else draw(h, 0, j)
        out += w.to_bytes(8, "little")[: min(8, nbytes - 8 * j)]
        j += 1
    return bytes(out)


def hex_text(nbytes, seed, i=0, stream=0):
    return hex_raw(nbytes, seed, i, stream).hex()


def letters_text(n, seed, i=0, stream=0):
    m = draw(seed, stream, i)
    out = []
    for k in range(n):
        if k % 12 == 0 and k > 0:
            m = draw(m, 0, k)
        out.append(chr(65 + m % 26))
        m //= 26
    return "".join(out)


def words(seed, i, n):
    out, left, k = [], n, 0
    while left > 0:
        if k > 0:
            out.append(" ")
            left -= 1
            if left == 0:
                break
        w = gen.WORDS[draw(seed, WORDS_STREAM, ((i << 20) | k) & M64) % len(gen.WORDS)][:left]
        out.append(w)
        left -= len(w)
        k += 1
    return "".join(out)


def text_gen(lo, hi, seed, i=0, stream=0):
    n = lo
    if hi > lo:
        n = lo + (draw(seed, stream, i) >> 40) % (hi - lo + 1)
    return words((seed ^ stream) & M64, i, n)


def uuid_text(seed, i=0, stream=0):
    return gen.uuid_v4(draw(seed, stream, i), draw(seed, stream ^ UUID_LOW, i))


def rfc3339nano(ns):
    s, frac = divmod(ns, 1_000_000_000)
    t = EPOCH + timedelta(seconds=s)
    f = ("." + ("%09d" % frac).rstrip("0")) if frac else ""
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f + "Z"


def parse_time(s):
    """An RFC 3339 time (as Go's JSON writes one) in ns since 1970."""
    main, frac = s, ""
    if "." in s:
        main, rest = s.split(".", 1)
        k = 0
        while k < len(rest) and rest[k].isdigit():
            k += 1
        frac, main = rest[:k], main + rest[k:]
    t = datetime.fromisoformat(main.replace("Z", "+00:00"))
    d = t - EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000_000 + int((frac + "000000000")[:9] or 0)


class Claims:
    """Rows that exist now (visible: loaded, plus inserts that returned
    below every insert still in flight) and the next row an insert claims."""

    def init_claims(self, rows):
        self.next = self.visible = rows
        self.claims = []
        self.claim_lock = threading.Lock()

    def claim(self, n):
        """Reserves n new row indexes for an insert; returns the first."""
        with self.claim_lock:
            first = self.next
            self.next += n
            self.claims.append(first)
            return first

    def release(self, first):
        """Ends the insert that claimed first: reads pick rows below the oldest insert in flight."""
        with self.claim_lock:
            self.claims.remove(first)
            self.visible = min(self.claims, default=self.next)


class Table(Claims):
    """A program's table: its columns' generators, its rows and keys."""

    def __init__(self, t, seed):
        self.name = self.table = t["name"]
        self.seed = seed
        self.rows = t.get("rows", 0)
        self.create = t["create"]
        self.columns = [c["name"] for c in t["columns"]]
        self.text = [c["type"] == "text" for c in t["columns"]]
        self.update_idx = t.get("update") or []
        self.update_cols = [self.columns[k] for k in self.update_idx]
        self.key_col = self.columns[0]
        self.gens = [self.compile(c, k) for k, c in enumerate(t["columns"])]
        self.key_offset = None
        self.zipfs = {}
        self.init_claims(self.rows)

    def compile(self, c, k):
        a, kind = c.get("args") or {}, c["kind"]
        st = int(a.get("stream", "0"))
        if kind == "seq":
            s = a.get("start", 0)
            return lambda seed, i, row: s + i
        if kind == "uniform_int":
            lo, hi = a["lo"], a["hi"]
            span = (hi - lo + 1) & M64
            if span == 0:
                return lambda seed, i, row: gen_wrap(lo + draw(seed, st, i))
            return lambda seed, i, row: lo + draw(seed, st, i) % span
        if kind in ("zipf_int", "latest_int"):
            n = a["n"]
            z = gen.Zipf(n, a["theta"])
            if kind == "zipf_int":
                return lambda seed, i, row: gen.mix(0x7A697066, z.rank(unit(draw(seed, st, i)))) % n
            return lambda seed, i, row: max(n - 1 - z.rank(unit(draw(seed, st, i))), 0)
        if kind in ("const_int", "const"):
            v = a["value"]
            return lambda seed, i, row: v
        if kind == "timestamp":
            start, step = parse_time(a["start"]), a["step_ns"]
            if a.get("format") == "unix_ms":
                return lambda seed, i, row: (start + i * step) // 1_000_000
            return lambda seed, i, row: rfc3339nano(start + i * step)
        if kind == "hex":
            n = a["bytes"]
            return lambda seed, i, row: hex_text(n, seed, i, st)
        if kind == "letters":
            n = a["len"]
            return lambda seed, i, row: letters_text(n, seed, i, st)
        if kind == "text":
            lo, hi = a["min"], a["max"]
            return lambda seed, i, row: text_gen(lo, hi, seed, i, st)
        if kind == "uuid4":
            return lambda seed, i, row: uuid_text(seed, i, st)
        if kind == "choice":
            items, cnt, sep = a["list"], max(a.get("count", 1), 1), a.get("sep", "")
            return lambda seed, i, row: sep.join(
                items[(draw(seed, st, i) >> (16 * j)) % len(items)] for j in range(cnt)
            )
        if kind == "seq_text":
            p, s, x = a.get("prefix", ""), a["start"], a.get("suffix", "")
            return lambda seed, i, row: "%s%d%s" % (p, s + i, x)
        if kind == "sha256_of":
            src = self.columns.index(a["column"])
            if a.get("decode_hex"):
                return self.sha_hex(src)
            return lambda seed, i, row: hashlib.sha256(str(row[src]).encode()).hexdigest()
        raise ValueError("column %s: unknown generator %s" % (c["name"], kind))

    def sha_hex(self, src):
        def g(seed, i, row):
            return hashlib.sha256(bytes.fromhex(row[src])).hexdigest()

        return g

    def row(self, seed, i):
        row = []
        for g in self.gens:
            row.append(g(seed, i, row))
        return tuple(row)

    def key(self, i, seed=None):
        return self.gens[0](self.seed if seed is None else seed, i, ())

    def zipf(self, theta):
        z = self.zipfs.get(theta)
        if z is None:
            z = self.zipfs[theta] = gen.Zipf(max(self.rows, 1), theta)
        return z

    def next_key(self, c, dist, theta, n):
        """A row index in [0, n) as the Go worker's key generator picks it, from c's sequence."""
        if n <= 1:
            return 0
        u = c.uniform()
        if dist == "zipfian":
            return gen.mix(0x7A697066, self.zipf(theta).rank(u)) % n
        if dist == "latest":
            return max(n - 1 - self.zipf(theta).rank(u), 0)
        return int(u * float(n))


def unit(x):
    return (x >> 11) / 9007199254740992.0


def gen_wrap(n):
    n &= M64
    return n - (1 << 64) if n >> 63 else n
