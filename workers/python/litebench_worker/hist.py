"""Latency recording: HdrHistogram counts kept in plain lists, summaries computed
the way hdrhistogram-go computes them, and HdrHistogram's V2 compressed base64
encoding from the hdrhistogram package.

Values are nanoseconds from 1 ns to 10 minutes. Full-run histograms have 3
significant figures: value v lands at index v below 2048, else at
(b << 10) + (v >> b) with b = v.bit_length() - 11. The hot loops inline that,
looking the index of durations below 131 µs up in SMALL; everything else
calls the functions here.
"""

import math
from itertools import compress, islice
from operator import ne

from hdrh.histogram import HdrHistogram

try:
    from ._timed import delta as DELTA  # IntervalTaker's comparison in C (setup.sh builds it)
except ImportError:  # pragma: no cover - the taker then compares in Python
    DELTA = None

HIGHEST = 600_000_000_000  # 10 minutes
ERROR_KINDS = ("busy", "locked", "constraint", "interrupted", "missing", "mismatch", "other")
PERCENTILES = ((50, "p50"), (75, "p75"), (90, "p90"), (95, "p95"), (99, "p99"), (99.9, "p999"), (99.99, "p9999"))


class Geometry:
    """The layout of a histogram from 1 ns to HIGHEST with `figures` significant figures."""

    def __init__(self, figures):
        self.figures = figures
        sub_count_mag = math.ceil(math.log2(2 * 10**figures))
        self.half_mag = sub_count_mag - 1
        self.half = 1 << self.half_mag
        self.mask = (1 << sub_count_mag) - 1
        self.length = HdrHistogram(1, HIGHEST, figures).counts_len
        self.top = self.index(HIGHEST)

    def index(self, v):
        b = v.bit_length() - self.half_mag - 1
        return (b << self.half_mag) + (v >> b) if b > 0 else v

    def bucket(self, v):
        return (v | self.mask).bit_length() - self.half_mag - 1

    def value_at(self, idx):
        """The lowest value of the counts at flat index idx."""
        b = (idx >> self.half_mag) - 1
        sub = (idx & (self.half - 1)) + self.half
        if b < 0:
            sub -= self.half
            b = 0
        return sub << b

    def lowest(self, v):
        b = self.bucket(v)
        return (v >> b) << b

    def size(self, v):
        b = self.bucket(v)
        return 1 << (b + 1 if (v >> b) > self.mask else b)

    def highest(self, v):
        return self.lowest(v) + self.size(v) - 1

    def median(self, v):
        return self.lowest(v) + (self.size(v) >> 1)

    def new(self):
        return [0] * self.length

    def record(self, counts, v):
        """Records v, clamped into [1, HIGHEST] as the Go recorder clamps."""
        counts[self.index(min(max(v, 1), HIGHEST))] += 1

    def settle(self, counts):
        """Applies the clamps the hot loops leave out: 0 is 1, past HIGHEST is HIGHEST."""
        if counts[0]:
            counts[1] += counts[0]
            counts[0] = 0
        over = sum(counts[self.top + 1 :])
        if over:
            counts[self.top] += over
            counts[self.top + 1 :] = [0] * (self.length - self.top - 1)
        return counts

    def add(self, into, counts):
        for i, c in enumerate(counts):
            if c:
                into[i] += c

    def encode(self, counts):
        """HdrHistogram V2 compressed, base64; "" when empty."""
        h = HdrHistogram(1, HIGHEST, self.figures)
        total, last = 0, -1
        for i, c in enumerate(counts):
            if c:
                h.counts[i] = c
                total += c
                last = i
        if last < 0:
            return ""
        h.total_count = total
        h.min_value = 1
        h.max_value = self.value_at(last)
        return h.encode().decode("ascii")

    def quantile(self, counts, total, p):
        """hdrhistogram-go's ValueAtQuantile(p) for p > 0."""
        rank = p / 100 * float(total) + 0.5
        rank = 1 if not rank >= 1 else total if rank >= float(total) else int(rank)
        run = 0
        for i, c in enumerate(counts):
            run += c
            if run >= rank:
                return self.highest(self.value_at(i))
        return 0

    def summary(self, counts):
        """The distribution in µs, rounded to 3 decimals, as the Go worker's summaries."""
        nz = [(i, c) for i, c in enumerate(counts) if c]
        if not nz:
            return {"count": 0, "min": 0.0, "mean": 0.0, "max": 0.0}
        total = sum(c for _, c in nz)
        mean = 0.0
        for i, c in nz:
            mean += float(c) * float(self.median(self.value_at(i))) / total
        s = {
            "count": total,
            "min": us(self.lowest(self.value_at(nz[0][0]))),
            "mean": round3(mean / 1e3),
            "max": us(self.highest(self.value_at(nz[-1][0]))),
        }
        for p, key in PERCENTILES:
            s[key] = us(self.quantile(counts, total, p))
        return s


FULL = Geometry(3)
INTERVAL = Geometry(2)


def small_indexes(bits=17):
    """FULL's index of every value below 2**bits (131 µs): the hot loops look
    durations up here, which costs a third of computing the index."""
    idx = list(range(2048))
    for b in range(1, bits - 10):
        for sub in range(1024, 2048):
            idx.extend([(b << 10) + sub] * (1 << b))
    return idx


SMALL = small_indexes()
LOOKUP = len(SMALL)


def record_ends(h, ends):
    """Records in FULL histogram h the latencies between the consecutive
    times (ns, ascending) of the list ends, and keeps only its last time,
    which the next latency starts from."""
    if len(ends) > 1:
        prev, small, lookup = ends[0], SMALL, LOOKUP
        for now in islice(ends, 1, None):
            d = now - prev
            prev = now
            if d < lookup:
                h[small[d]] += 1
            else:
                FULL.record(h, d)
        del ends[:-1]


def round3(f):
    """Go's math.Round(f*1000)/1000 for f >= 0 (halves away from zero)."""
    x = f * 1000
    r = math.floor(x)
    if x - r >= 0.5:
        r += 1
    return r / 1000


def us(ns):
    return round3(float(ns) / 1e3)


class Recorder:
    """One worker's observations per op kind. Only its worker writes to it.

    Hot loops write to the lists directly: service[op] (and, in open loop,
    response[op]) are FULL histograms, allocated when first needed; count[op]
    counts successes (rows for inserts). A live recorder feeds the intervals:
    the ticker reads what changed in its felt histograms (response in open
    loop, service otherwise) since the last interval, so recording costs
    nothing more. Overruns go to their own histogram, out of the intervals.
    """

    def __init__(self, nops, live=False, open_loop=False):
        self.service = [None] * nops
        self.response = [None] * nops
        self.overruns = [None] * nops
        self.count = [0] * nops
        self.errs = [[0] * len(ERROR_KINDS) for _ in range(nops)]
        self.err_total = [0] * nops
        self.retries = [0] * nops
        self.late = [0] * nops
        self.overrun = [0] * nops
        self.live = live
        self.felt = self.response if open_loop else self.service

    def hist(self, op):
        h = self.service[op]
        if h is None:
            h = self.service[op] = FULL.new()
        return h

    def resp(self, op):
        h = self.response[op]
        if h is None:
            h = self.response[op] = FULL.new()
        return h

    def observe(self, op, d, n=1):
        FULL.record(self.hist(op), d)
        self.count[op] += n

    def observe_overrun(self, op, d):
        h = self.overruns[op]
        if h is None:
            h = self.overruns[op] = FULL.new()
        FULL.record(h, d)
        self.overrun[op] += 1

    def error(self, op, kind):
        self.errs[op][ERROR_KINDS.index(kind) if kind in ERROR_KINDS else -1] += 1
        self.err_total[op] += 1


class IntervalTaker:
    """What the live recorders saw per op kind since the last take.

    It runs beside the recording threads, and takes one moment's counts: in
    C (DELTA), which holds the GIL throughout and passes over the counts
    that are the same object as at the last take; else with a copy of the
    list, which is atomic under the GIL, and a comparison at C speed. A FULL
    bucket lies inside one INTERVAL bucket, so the interval histogram is
    exact.
    """

    def __init__(self, delta=DELTA):
        self.prev = {}
        self.zeros = FULL.new()
        self.delta = delta

    def take(self, recorders, op):
        """(successes, errors, INTERVAL counts or None) since the last call."""
        n = errs = 0
        counts = None
        for r in recorders:
            if not r.live:
                continue
            key = (id(r), op)
            prev, prev_errs = self.prev.get(key, (self.zeros, 0))
            e = r.err_total[op]
            errs += e - prev_errs
            h = r.felt[op]
            if h is None:
                # Nothing recorded of this kind yet: no counts to compare
                # (a 31,744-count pass a second for nothing).
                self.prev[key] = (prev, e)
                continue
            if self.delta is not None:
                if prev is self.zeros:
                    prev = FULL.new()  # the C comparison keeps its counts here
                if counts is None:
                    counts = INTERVAL.new()
                n += self.delta(h, prev, counts)
                self.prev[key] = (prev, e)
                continue
            # A tuple: the collector stops tracking it (ints only), so a
            # snapshot of 31,744 counts a second costs the run no GC passes.
            cur = tuple(h)
            for i in compress(range(FULL.length), map(ne, cur, prev)):
                d = cur[i] - prev[i]
                if counts is None:
                    counts = INTERVAL.new()
                v = min(max(FULL.value_at(i), 1), HIGHEST)
                counts[INTERVAL.index(v)] += d
                n += d
            self.prev[key] = (cur, e)
        if n == 0:
            counts = None  # counts only grow: no increase, no bucket changed
        return n, errs, counts


def merge(names, recorders):
    """One final op per kind that saw anything, as the Go worker's final_ops."""
    out = []
    for op, name in enumerate(names):
        service, response = None, None
        o = {"name": name, "count": 0}
        errs = [0] * len(ERROR_KINDS)
        retries = late = overrun = 0
        for r in recorders:
            o["count"] += r.count[op]
            retries += r.retries[op]
            late += r.late[op]
            overrun += r.overrun[op]
            errs = [a + b for a, b in zip(errs, r.errs[op])]
            for h in (r.service[op], r.overruns[op]):
                if h is not None:
                    service = service or FULL.new()
                    FULL.add(service, h)
            if r.response[op] is not None:
                response = response or FULL.new()
                FULL.add(response, r.response[op])
        if service is None and not any(errs) and not o["count"]:
            continue
        if any(errs):
            o["errors"] = {k: n for k, n in zip(ERROR_KINDS, errs) if n}
        for key, v in (("retries", retries), ("late", late), ("overrun", overrun)):
            if v:
                o[key] = v
        service = FULL.settle(service or FULL.new())
        o["service"] = FULL.summary(service)
        h = FULL.encode(service)
        if h:
            o["hist"] = h
        if response is not None:
            FULL.settle(response)
            o["response"] = FULL.summary(response)
            h = FULL.encode(response)
            if h:
                o["resp_hist"] = h
        out.append(o)
    return out
