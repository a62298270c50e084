"""The expressions of workload programs (docs/workload-program.md): values are
None (NULL), bool, int (64-bit), float and str; functions draw from the
worker's splitmix64 sequence exactly as the Go worker does."""

import math
from decimal import Decimal

from . import fmath, gen
from .columns import hex_text, letters_text, text_gen, uuid_text

M64 = gen.M64
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class EvalError(Exception):
    """An expression that cannot be evaluated: it stops the run."""


def fail(x, msg):
    raise EvalError("%s: %s" % (x.get("at", ""), msg))


def go_float(f):
    """f as Go writes it with strconv's 'g' format and the shortest precision (%v)."""
    if f != f:
        return "NaN"
    if f in (math.inf, -math.inf):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    sign, digits, ex = Decimal(repr(f)).normalize().as_tuple()
    ds = "".join(map(str, digits))
    e10 = ex + len(ds) - 1
    if e10 < -4 or e10 >= 6:
        s = ds[0] + ("." + ds[1:] if len(ds) > 1 else "") + "e%s%02d" % ("-" if e10 < 0 else "+", abs(e10))
    elif e10 < 0:
        s = "0." + "0" * (-e10 - 1) + ds
    elif len(ds) <= e10 + 1:
        s = ds + "0" * (e10 + 1 - len(ds))
    else:
        s = ds[: e10 + 1] + "." + ds[e10 + 1 :]
    return ("-" if sign else "") + s


def canon_int(s):
    """s as an integer if it is one written plainly (no sign +, no leading zero)."""
    d = s[1:] if s.startswith("-") else s
    if not d or len(d) > 19 or not d.isdigit() or not d.isascii() or (d[0] == "0" and (len(d) > 1 or s[0] == "-")):
        return None
    n = int(s)
    return n if I64_MIN <= n <= I64_MAX else None


def text_value(s):
    """Text as \\gset reads it: an integer written plainly is an integer."""
    n = canon_int(s)
    return s if n is None else n


def show(v):
    if v is None:
        return "NULL"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is float:
        return go_float(v)
    return str(v)


def to_bool(v, x):
    t = type(v)
    if t is bool:
        return v
    if t is int or t is float:
        return v != 0
    if t is str:
        s = v.lower()
        if s in ("true", "t", "yes", "on", "1"):
            return True
        if s in ("false", "f", "no", "off", "0"):
            return False
    fail(x, '"%s" is not a boolean' % show(v))


def to_number(v, x):
    t = type(v)
    if t is int or t is float:
        return v
    if t is bool:
        fail(x, "a boolean is not a number")
    if t is str:
        s = v.strip(" \t\n\r\v\f")
        n = canon_int(s)
        if n is not None:
            return n
        try:
            if s.lower().lstrip("+-") in ("inf", "infinity", "nan") or "_" in s:
                raise ValueError
            return float(s)
        except ValueError:
            fail(x, '"%s" is not a number' % s)
    fail(x, "NULL is not a number")


def to_int(v, x):
    v = to_number(v, x)
    if type(v) is float:
        if v != v or v < -9.2233720368547758e18 or v >= 9.2233720368547758e18:
            fail(x, "%s is out of range for an integer" % go_float(v))
        return int(v)
    return v


def to_float(v, x):
    return float(to_number(v, x))


def wrap(n):
    n &= M64
    return n - (1 << 64) if n >> 63 else n


def checked(n, x):
    if n < I64_MIN or n > I64_MAX:
        fail(x, "bigint out of range")
    return n


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trunc_mod(a, b):
    return a - b * trunc_div(a, b)


def cmp(op, c):
    if op == "=":
        return c == 0
    if op in ("<>", "!="):
        return c != 0
    if op == "<":
        return c < 0
    if op == "<=":
        return c <= 0
    if op == ">":
        return c > 0
    return c >= 0


class Ctx:
    """One worker's variables, random sequence and the run's tables."""

    def __init__(self, nvars, state, tables):
        self.vars = [None] * nvars
        self.set = [False] * nvars
        self.state = state
        self.tables = tables

    def next(self):
        z = self.state = (self.state + gen.GOLDEN) & M64
        z = ((z ^ (z >> 30)) * gen.C1) & M64
        z = ((z ^ (z >> 27)) * gen.C2) & M64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) / 9007199254740992.0


def literal(e):
    op = e["op"]
    if op == "int":
        return int(e["v"])
    if op == "float":
        return float(e.get("f", 0))
    if op == "bool":
        return bool(e.get("b", False))
    if op == "text":
        return e.get("s", "")
    return None


def evaluate(e, c):
    """The value of expression e for worker context c (compiled each time:
    a program compiles its expressions once, with compile_expr)."""
    return compile_expr(e)(c)


def compile_expr(e):
    """Expression e as a function of a worker's context, its value."""
    op = e["op"]
    if op == "var":
        k = e.get("slot", 0)

        def var(c):
            if not c.set[k]:
                fail(e, "variable :%s is not set" % e.get("name", ""))
            return c.vars[k]

        return var
    if op == "call":
        fn = FUNCS.get(e["fn"])
        if fn is None:
            raise EvalError("%s: unknown function %s()" % (e.get("at", ""), e["fn"]))
        A = [compile_expr(x) for x in e.get("a", [])]
        return lambda c: fn(e, A, c)
    if op == "binary":
        return compile_binary(e)
    if op == "unary":
        return compile_unary(e)
    if op == "is":
        a, what, neg = compile_expr(e["a"][0]), e["fn"], e.get("not", False)

        def is_(c):
            v = a(c)
            if what == "null":
                r = v is None
            else:
                r = v is not None and to_bool(v, e) == (what == "true")
            return r != neg

        return is_
    if op == "case":
        A = [compile_expr(x) for x in e.get("a", [])]
        pairs = [(A[k], A[k + 1]) for k in range(0, len(A) - 1, 2)]
        els = compile_expr(e["else"]) if "else" in e else None

        def case(c):
            for when, then in pairs:
                w = when(c)
                if w is not None and to_bool(w, e):
                    return then(c)
            return els(c) if els is not None else None

        return case
    v = literal(e)
    return lambda c: v


def compile_unary(e):
    a, fn = compile_expr(e["a"][0]), e["fn"]

    def unary(c):
        v = a(c)
        if v is None:
            return None
        if fn == "not":
            return not to_bool(v, e)
        if fn == "~":
            return wrap(~to_int(v, e))
        v = to_number(v, e)
        if type(v) is float:
            return -v
        return checked(-v, e)

    return unary


def compile_binary(e):
    fn = e["fn"]
    a, b = compile_expr(e["a"][0]), compile_expr(e["a"][1])
    if fn in ("and", "or"):
        conj = fn == "and"

        def logic(c):
            x = a(c)
            if x is not None:
                xb = to_bool(x, e)
                if xb != conj:
                    return xb
            y = b(c)
            if y is None:
                return None
            yb = to_bool(y, e)
            if x is None:
                return yb if yb != conj else None
            return yb

        return logic

    def binary(c):
        x = a(c)
        y = b(c)
        if x is None or y is None:
            return None
        return arith(e, fn, x, y)

    return binary


def arith(e, fn, a, b):
    """a fn b for two values that are not NULL."""
    if fn in ("|", "#", "&", "<<", ">>"):
        ai, bi = to_int(a, e), to_int(b, e)
        if fn == "|":
            return ai | bi
        if fn == "#":
            return ai ^ bi
        if fn == "&":
            return ai & bi
        if fn == "<<":
            return wrap(ai << (bi & 63))
        return ai >> (bi & 63)
    a, b = to_number(a, e), to_number(b, e)
    if type(a) is int and type(b) is int:
        if fn == "+":
            return checked(a + b, e)
        if fn == "-":
            return checked(a - b, e)
        if fn == "*":
            return checked(a * b, e)
        if fn in ("/", "%"):
            if b == 0:
                fail(e, "division by zero")
            if fn == "/":
                return checked(trunc_div(a, b), e)
            return trunc_mod(a, b)
        return cmp(fn, (a > b) - (a < b))
    af, bf = float(a), float(b)
    if fn == "+":
        return af + bf
    if fn == "-":
        return af - bf
    if fn == "*":
        return af * bf
    if fn == "/":
        if bf == 0:
            return math.copysign(math.inf, af) * math.copysign(1, bf) if af != 0 and af == af else math.nan
        return af / bf
    if fn == "%":
        fail(e, "% wants integers")
    return cmp(fn, (af > bf) - (af < bf))


def arg(e, A, c, i):
    v = A[i](c)
    if v is None:
        fail(e, "%s(): argument %d is NULL" % (e["fn"], i + 1))
    return v


def in_range(lb, ub, r):
    span = float((ub - lb) + 1)
    off = int(span * r)
    return lb + min(off, ub - lb)


def bounds(e, A, c):
    lb, ub = to_int(arg(e, A, c, 0), e), to_int(arg(e, A, c, 1), e)
    if ub < lb:
        fail(e, "%s(%d, %d): empty range; the upper bound must not be below the lower" % (e["fn"], lb, ub))
    return lb, ub


def normal(c):
    while True:
        v1 = 2 * c.uniform() - 1
        v2 = 2 * c.uniform() - 1
        s = v1 * v1 + v2 * v2
        if 0 < s < 1:
            return v1 * math.sqrt(-2 * fmath.log(s) / s)


def fnv1a(v, seed):
    r = 0xCBF29CE484222325 ^ (seed & M64)
    for _ in range(8):
        r ^= v & 0xFF
        v >>= 8
        r = (r * 0x100000001B3) & M64
    return wrap(r)


def murmur2(v, seed):
    m = 0xC6A4A7935BD1E995
    r = (seed & M64) ^ 0x35253C9ADE8F4CA8
    k = (v & M64) * m & M64
    k ^= k >> 47
    k = k * m & M64
    r ^= k
    r = r * m & M64
    r ^= r >> 47
    r = r * m & M64
    r ^= r >> 47
    return wrap(r)


def length(e, A, c, i):
    n = to_int(arg(e, A, c, i), e)
    if n < 0 or n > 1 << 20:
        fail(e, "%s(): length %d: want 0 to %d" % (e["fn"], n, 1 << 20))
    return n


def extreme(e, A, c, sign):
    best, isf = None, False
    for a in A:
        v = a(c)
        if v is None:
            continue
        v = to_number(v, e)
        isf = isf or type(v) is float
        if best is None or ((v > best) - (v < best)) * sign > 0:
            best = v
    if isf and type(best) is int:
        best = float(best)
    return best


# The functions, each fn(e, A, c): the call e, its compiled arguments A, the
# worker's context c.


def f_random(e, A, c):
    lb, ub = bounds(e, A, c)
    return in_range(lb, ub, c.uniform())


def f_random_exponential(e, A, c):
    lb, ub = bounds(e, A, c)
    p = to_float(arg(e, A, c, 2), e)
    if not p > 0:
        fail(e, "random_exponential(): parameter %s must be greater than 0" % go_float(p))
    cut = fmath.exp(-p)
    r = -fmath.log(cut + (1 - cut) * (1 - c.uniform())) / p
    return in_range(lb, ub, r)


def f_random_gaussian(e, A, c):
    lb, ub = bounds(e, A, c)
    p = to_float(arg(e, A, c, 2), e)
    if not p >= 2:
        fail(e, "random_gaussian(): parameter %s must be at least 2" % go_float(p))
    while True:
        z = normal(c)
        if -p <= z < p:
            break
    return in_range(lb, ub, (z + p) / (p * 2))


def f_random_zipfian(e, A, c):
    lb, ub = bounds(e, A, c)
    s = to_float(arg(e, A, c, 2), e)
    if not 1.001 <= s <= 1000:
        fail(e, "random_zipfian(): parameter %s must be from 1.001 to 1000" % go_float(s))
    if ub == lb:
        return lb
    n = float(ub - lb + 1)
    b = fmath.pow(2, s - 1)
    while True:
        u, v = c.uniform(), c.uniform()
        x = math.floor(fmath.pow(u, -1 / (s - 1)))
        t = fmath.pow(1 + 1 / x, s - 1)
        if ((v * x) * (t - 1)) / (b - 1) <= t / b and x <= n:
            return lb - 1 + int(x)


def f_hash(e, A, c):
    v, s = to_int(arg(e, A, c, 0), e), to_int(arg(e, A, c, 1), e)
    return fnv1a(v, s) if e["fn"] == "hash_fnv1a" else murmur2(v, s)


def f_abs(e, A, c):
    v = to_number(arg(e, A, c, 0), e)
    return abs(v) if type(v) is float else checked(abs(v), e)


def f_sqrt(e, A, c):
    x = to_float(arg(e, A, c, 0), e)
    return math.sqrt(x) if x >= 0 else math.nan


def f_pow(e, A, c):
    return fmath.pow(to_float(arg(e, A, c, 0), e), to_float(arg(e, A, c, 1), e))


def f_mod(e, A, c):
    a, b = to_int(arg(e, A, c, 0), e), to_int(arg(e, A, c, 1), e)
    if b == 0:
        fail(e, "division by zero")
    return 0 if b == -1 else trunc_mod(a, b)


def f_key(e, A, c):
    t = c.tables[e.get("table", 0)]
    return t.key(t.next_key(c, e.get("dist", "uniform"), e.get("theta", 0), t.visible))


def f_hex(e, A, c):
    n = length(e, A, c, 0)
    return hex_text(n, c.next()) if n else ""


def f_text(e, A, c):
    lo = length(e, A, c, 0)
    hi = length(e, A, c, 1)
    if hi < lo:
        fail(e, "text(%d, %d): the maximum is below the minimum" % (lo, hi))
    return text_gen(lo, hi, c.next())


def f_choice(e, A, c):
    return A[c.next() % len(A)](c)


FUNCS = {
    "random": f_random,
    "random_exponential": f_random_exponential,
    "random_gaussian": f_random_gaussian,
    "random_zipfian": f_random_zipfian,
    "hash": f_hash,
    "hash_murmur2": f_hash,
    "hash_fnv1a": f_hash,
    "abs": f_abs,
    "int": lambda e, A, c: to_int(arg(e, A, c, 0), e),
    "double": lambda e, A, c: to_float(arg(e, A, c, 0), e),
    "exp": lambda e, A, c: fmath.exp(to_float(arg(e, A, c, 0), e)),
    "ln": lambda e, A, c: fmath.log(to_float(arg(e, A, c, 0), e)),
    "sqrt": f_sqrt,
    "pow": f_pow,
    "power": f_pow,
    "pi": lambda e, A, c: math.pi,
    "greatest": lambda e, A, c: extreme(e, A, c, 1),
    "least": lambda e, A, c: extreme(e, A, c, -1),
    "mod": f_mod,
    "rows": lambda e, A, c: c.tables[e.get("table", 0)].visible,
    "key": f_key,
    "hex": f_hex,
    "letters": lambda e, A, c: letters_text(length(e, A, c, 0), c.next()),
    "text": f_text,
    "uuid4": lambda e, A, c: uuid_text(c.next()),
    "choice": f_choice,
}
