"""exp, log and pow of docs/data-generation.md §8: IEEE operations only, so the
same bits as the Go worker's on every machine (Python floats are IEEE doubles
and Python never fuses a multiply and an add)."""

import math
import struct

LN2HI = 6.93147180369123816490e-01
LN2LO = 1.90821492927058770002e-10
LG1 = 6.666666666666735130e-01
LG2 = 3.999999999940941908e-01
LG3 = 2.857142874366239149e-01
LG4 = 2.222219843214978396e-01
LG5 = 1.818357216161805012e-01
LG6 = 1.531383769920937332e-01
LG7 = 1.479819860511658591e-01
P1 = 1.66666666666666657415e-01
P2 = -2.77777777770155933842e-03
P3 = 6.61375632143793436117e-05
P4 = -1.65339022054652515390e-06
P5 = 4.13813679705723846039e-08


def ldexp(m, e):
    try:
        return math.ldexp(m, e)
    except OverflowError:
        return math.copysign(math.inf, m)


def exp(x):
    if x != x:
        return x
    if x > 7.09782712893383973096e02:
        return math.inf
    if x < -7.45133219101941108420e02:
        return 0.0
    if -1.0 / (1 << 28) < x < 1.0 / (1 << 28):
        return 1 + x
    k = 0
    if x < 0:
        k = int(1.44269504088896338700e00 * x - 0.5)
    elif x > 0:
        k = int(1.44269504088896338700e00 * x + 0.5)
    hi = x - k * LN2HI
    lo = k * LN2LO
    r = hi - lo
    t = r * r
    c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))))
    y = 1 - ((lo - (r * c) / (2 - c)) - hi)
    return ldexp(y, k)


def log(x):
    if x != x or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < math.sqrt(2) / 2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (LG1 + s4 * (LG3 + s4 * (LG5 + s4 * LG7)))
    t2 = s4 * (LG2 + s4 * (LG4 + s4 * LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * LN2HI - ((hfsq - (s * (hfsq + r) + k * LN2LO)) - f)


def pow(x, y):
    if y == 0 or x == 1:
        return 1.0
    if y == 1:
        return float(x)
    if x == 0:
        return math.inf if y < 0 else 0.0
    if y == 0.5:
        return math.sqrt(x)
    if y == -0.5:
        return 1 / math.sqrt(x)
    yi = float(math.trunc(abs(y)))
    yf = abs(y) - yi
    if yf != 0 and x < 0:
        return math.nan
    if yi >= 9.223372036854775808e18:
        if x == -1:
            return 1.0
        return 0.0 if (abs(x) < 1) == (y > 0) else math.inf
    a1, ae = 1.0, 0
    if yf != 0:
        if yf > 0.5:
            yf -= 1
            yi += 1
        a1 = exp(yf * log(x))
    x1, xe = math.frexp(x)
    i = int(yi)
    while i != 0:
        if xe < -(1 << 12) or (1 << 12) < xe:
            ae += xe
            break
        if i & 1 == 1:
            a1 *= x1
            ae += xe
        x1 *= x1
        xe <<= 1
        if x1 < 0.5:
            x1 += x1
            xe -= 1
        i >>= 1
    if y < 0:
        a1 = 1 / a1
        ae = -ae
    return ldexp(a1, ae)


def bits(f):
    return struct.unpack("<Q", struct.pack("<d", f))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]
