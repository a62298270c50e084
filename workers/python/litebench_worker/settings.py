"""Settings and workload parameters as litebench defines them (internal/settings
and the workloads' parameter lists): the same names, defaults, canonical forms
and error messages."""

import json
import re


class BadInput(Exception):
    """A job the worker refuses: one line naming the problem and the fix."""


def q(s):
    """s quoted as Go's %q does (for ASCII)."""
    return json.dumps(str(s))


def parse_size(v):
    """An integer with an optional k/m/g (1000s) or kb/kib/mb/... (1024s) suffix."""
    s = v.strip().lower().replace("_", "")
    mult = 1
    for suf, m in (
        ("kib", 1 << 10),
        ("mib", 1 << 20),
        ("gib", 1 << 30),
        ("kb", 1 << 10),
        ("mb", 1 << 20),
        ("gb", 1 << 30),
        ("k", 1000),
        ("m", 1000000),
        ("g", 1000000000),
    ):
        if s.endswith(suf):
            s, mult = s[: -len(suf)], m
            break
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError("want a whole number")
    return int(s) * mult


def one_of(*vals):
    def canon(v):
        if v.lower() in vals:
            return v.lower()
        raise ValueError("want one of " + ", ".join(vals))

    return canon


def int_range(lo, hi):
    def canon(v):
        n = parse_size(v)
        if n < lo or n > hi:
            raise ValueError("must be at least 1" if lo == 1 else "must be between %d and %d" % (lo, hi))
        return str(n)

    return canon


def opt_int(lo, hi):
    r = int_range(lo, hi)
    return lambda v: "default" if v.lower() == "default" else r(v)


def bool_canon(v):
    v = v.lower()
    if v in ("1", "true", "yes", "on", "y"):
        return "true"
    if v in ("0", "false", "no", "off", "n"):
        return "false"
    raise ValueError("want true or false")


def sync_canon(v):
    m = {
        "0": "off",
        "off": "off",
        "1": "normal",
        "normal": "normal",
        "2": "full",
        "full": "full",
        "3": "extra",
        "extra": "extra",
        "default": "default",
    }
    if v.lower() in m:
        return m[v.lower()]
    raise ValueError("want default, off, normal, full or extra (or 0-3)")


def page_size_canon(v):
    if v.lower() == "default":
        return "default"
    n = parse_size(v)
    if n < 512 or n > 65536 or n & (n - 1):
        raise ValueError("want a power of two from 512 to 65536")
    return str(n)


def busy_retry_canon(v):
    v = v.lower()
    if v in ("none", "0"):
        return "none"
    if v in ("until", "forever", "timeout"):
        return "until"
    if re.fullmatch(r"\+?[0-9]+", v):
        return str(int(v))
    raise ValueError("want none, a retry count, or until")


SPECS = {
    "journal": ("default", one_of("default", "delete", "truncate", "persist", "memory", "wal", "off")),
    "sync": ("default", sync_canon),
    "busy-timeout": ("5000", int_range(0, (1 << 31) - 1)),
    "cache-size": ("default", opt_int(-(1 << 40), 1 << 40)),
    "mmap-size": ("default", opt_int(0, 1 << 50)),
    "temp-store": ("default", one_of("default", "file", "memory")),
    "locking-mode": ("default", one_of("default", "normal", "exclusive")),
    "page-size": ("default", page_size_canon),
    "shared-cache": ("false", bool_canon),
    "in-memory": ("false", bool_canon),
    "pool": ("0", int_range(0, 1 << 20)),
    "conn-per-op": ("false", bool_canon),
    "prepared": ("true", bool_canon),
    "batch": ("1000", int_range(1, 1 << 30)),
    "rows-per-stmt": ("1", int_range(1, 1 << 20)),
    "tx": ("deferred", one_of("deferred", "immediate")),
    "write-mutex": ("false", bool_canon),
    "writer": ("pool", one_of("pool", "single")),
    "busy-retry": ("none", busy_retry_canon),
    "placement": ("in-process", one_of("in-process", "process")),
}


class Settings:
    """Every setting as its canonical string, with typed accessors."""

    def __init__(self, workload_defaults, given):
        self.v = {k: d for k, (d, _) in SPECS.items()}
        self.v.update(workload_defaults)
        for k, val in given.items():
            if k not in SPECS:
                raise BadInput("job: unknown setting %s (see 'litebench list settings')" % q(k))
            try:
                self.v[k] = SPECS[k][1](str(val).strip())
            except ValueError as e:
                raise BadInput("job: --%s %s: %s" % (k, q(val), e)) from None
        if self.bool("in-memory") and self.v["journal"] == "wal":
            raise BadInput(
                "--journal wal needs a file: an in-memory database (--in-memory / mode=memory) "
                "cannot use WAL; drop one of them"
            )

    def get(self, k):
        return self.v[k]

    def int(self, k):
        return int(self.v[k])

    def bool(self, k):
        return self.v[k] == "true"

    def busy_retries(self):
        """Retries after SQLITE_BUSY/LOCKED; -1 until it succeeds or the run ends."""
        v = self.v["busy-retry"]
        return 0 if v == "none" else -1 if v == "until" else int(v)

    def pragmas(self):
        """Statements run on every new connection, in the Go worker's order."""
        p = []

        def add(name, key):
            if self.v[key] != "default":
                p.append("PRAGMA %s = %s" % (name, self.v[key]))

        add("page_size", "page-size")
        p.append("PRAGMA busy_timeout = " + self.v["busy-timeout"])
        add("locking_mode", "locking-mode")
        add("journal_mode", "journal")
        add("synchronous", "sync")
        add("cache_size", "cache-size")
        add("mmap_size", "mmap-size")
        add("temp_store", "temp-store")
        return p


LOAD_PARAMS = {
    "rows": "10000",
    "schema": "bench",
    "keys": "uniform",
    "zipf-theta": "0.99",
    "duration": "10s",
    "count": "0",
    "warmup": "0s",
    "rate": "0",
    "arrivals": "uniform",
    "max-inflight": "100",
    "seed": "1",
}

# Workload parameters with their defaults, and the settings defaults a
# workload changes.
WORKLOADS = {
    "insert": ({"rows": "100000", "schema": "bench", "workers": "1", "seed": "1", "vacuum": "false"}, {}),
    "scan": ({"rows": "1000000", "seed": "1"}, {}),
    "read": (dict(workers="1", **LOAD_PARAMS), {"batch": "1"}),
    "write": (dict(workers="1", **{"write-kind": "insert"}, **LOAD_PARAMS), {"batch": "1"}),
    "mixed": (
        dict(readers="1", writers="1", **{"write-ratio": "10", "write-kind": "insert"}, **LOAD_PARAMS),
        {"batch": "1"},
    ),
}


class Params:
    """A workload's parameters, defaults filled in, with Go's parsing and messages."""

    def __init__(self, workload, given):
        if workload not in WORKLOADS:
            raise BadInput(
                "workload %s is not supported by this worker (it runs: %s)"
                % (q(workload), ", ".join(sorted(WORKLOADS)))
            )
        self.v = dict(WORKLOADS[workload][0])
        for k, val in given.items():
            if k not in self.v:
                raise BadInput("job: workload %s has no parameter %s" % (workload, q(k)))
            self.v[k] = str(val)

    def __getitem__(self, k):
        return self.v[k]

    def int(self, name, lo):
        try:
            n = parse_size(self.v[name])
        except ValueError:
            n = lo - 1
        if n < lo:
            raise BadInput("--%s %s: want a whole number of at least %d" % (name, q(self.v[name]), lo))
        return n

    def seed(self):
        s = self.v["seed"]
        if not re.fullmatch(r"\+?[0-9]+", s) or int(s) >= 1 << 64:
            raise BadInput("--seed %s: want a non-negative whole number" % q(s))
        return int(s)

    def bool(self, name):
        v = self.v[name]
        if v in ("1", "t", "T", "TRUE", "true", "True"):
            return True
        if v in ("0", "f", "F", "FALSE", "false", "False"):
            return False
        raise BadInput("--%s %s: want true or false" % (name, q(v)))

    def float(self, name, lo, hi):
        try:
            f = float(self.v[name])
        except ValueError:
            f = None
        if f is None or not lo <= f <= hi:
            raise BadInput("--%s %s: want a number from %g to %g" % (name, q(self.v[name]), lo, hi))
        return f

    def duration(self, name):
        """Nanoseconds of a Go duration such as 500ms, 10s or 1m30s."""
        try:
            d = parse_duration(self.v[name])
        except ValueError:
            d = -1
        if d < 0:
            raise BadInput("--%s %s: want a duration such as 500ms, 10s or 2m" % (name, q(self.v[name])))
        return d


UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(s):
    """Go's time.ParseDuration, in nanoseconds."""
    t = s
    sign = 1
    if t[:1] in "+-" and t:
        sign = -1 if t[0] == "-" else 1
        t = t[1:]
    if t == "0":
        return 0
    if not t:
        raise ValueError(s)
    total, pos = 0.0, 0
    while pos < len(t):
        m = DURATION_PART.match(t, pos)
        if not m or m.group(1) in ("", "."):
            raise ValueError(s)
        total += float(m.group(1)) * UNITS[m.group(2)]
        pos = m.end()
    return sign * int(round(total))
