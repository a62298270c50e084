//! Deterministic data, bit for bit as docs/data-generation.md specifies it
//! (the Go package internal/gen is the reference): the column generators,
//! the key distributions, the open-loop op chooser and arrival times, and
//! the portable exp/log/log1p/pow they rest on. Integer arithmetic wraps;
//! Rust never fuses a multiply and an add, so the float expressions are
//! written as the specification gives them.

use serde_json::Value;
use sha2::{Digest, Sha256};

pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
const M1: u64 = 0xBF58_476D_1CE4_E5B9;
const M2: u64 = 0x94D0_49BB_1331_11EB;

pub const STREAM_UUID_LOW: u64 = 0xA5A5_A5A5;
pub const STREAM_WORDS: u64 = 0x5bd1_e995;
pub const STREAM_KEYS: u64 = 0x6b_6579;
pub const STREAM_OPS: u64 = 0x72_6174;
pub const STREAM_SCATTER: u64 = 0x7a69_7066;

/// splitmix64's finaliser.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(M1);
    z = (z ^ (z >> 27)).wrapping_mul(M2);
    z ^ (z >> 31)
}

/// The first output of splitmix64 started in state x.
pub fn splitmix64(x: u64) -> u64 {
    mix(x.wrapping_add(GAMMA))
}

/// splitmix64 as a sequence.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix {
    pub state: u64,
}

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }
}

/// Value `index` of stream `stream` under `seed`.
pub fn draw(seed: u64, stream: u64, index: u64) -> u64 {
    mix((seed ^ stream)
        .wrapping_mul(GAMMA)
        .wrapping_add(index.wrapping_mul(M1))
        .wrapping_add(M2))
}

/// The top 53 bits of x as a float in [0, 1).
pub fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

// ---------------------------------------------------------------------------
// exp, log, log1p and pow (Go's portable implementations, §8); the
// constants are given by their bits, as the specification's table does.

const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

const SQRT2_2: f64 = f64::from_bits(0x3fe6_a09e_667f_3bcd);
const TWO_THIRDS: f64 = f64::from_bits(0x3fe5_5555_5555_5555);

const SHIFT: u32 = 52;
const MASK: u64 = 0x7FF;
const BIAS: i64 = 1023;
const SMALLEST_NORMAL: f64 = 2.225_073_858_507_201_4e-308;

fn normalize(x: f64) -> (f64, i64) {
    if x.abs() < SMALLEST_NORMAL {
        return (x * (1u64 << 52) as f64, -52);
    }
    (x, 0)
}

/// frexp: x = frac · 2^exp with 0.5 ≤ |frac| < 1.
pub fn frexp(f: f64) -> (f64, i64) {
    if f == 0.0 || f.is_infinite() || f.is_nan() {
        return (f, 0);
    }
    let (f, mut exp) = normalize(f);
    let mut x = f.to_bits();
    exp += ((x >> SHIFT) & MASK) as i64 - BIAS + 1;
    x &= !(MASK << SHIFT);
    x |= ((-1 + BIAS) as u64) << SHIFT;
    (f64::from_bits(x), exp)
}

/// ldexp: frac · 2^exp, rounded once.
pub fn ldexp(frac: f64, exp: i64) -> f64 {
    if frac == 0.0 || frac.is_infinite() || frac.is_nan() {
        return frac;
    }
    let (frac, e) = normalize(frac);
    let mut exp = exp + e;
    let mut x = frac.to_bits();
    exp += ((x >> SHIFT) & MASK) as i64 - BIAS;
    if exp < -1075 {
        return 0.0f64.copysign(frac);
    }
    if exp > 1023 {
        return if frac < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let mut m = 1.0;
    if exp < -1022 {
        exp += 53;
        m = 1.0 / (1u64 << 53) as f64;
    }
    x &= !(MASK << SHIFT);
    x |= ((exp + BIAS) as u64) << SHIFT;
    m * f64::from_bits(x)
}

pub fn exp(x: f64) -> f64 {
    const LOG2E: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
    const OVERFLOW: f64 = f64::from_bits(0x4086_2e42_fefa_39ef);
    const UNDERFLOW: f64 = f64::from_bits(0xc087_4910_d52d_3051);
    const NEAR_ZERO: f64 = 1.0 / (1u64 << 28) as f64;
    const P1: f64 = f64::from_bits(0x3fc5_5555_5555_5555);
    const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
    const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
    const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
    const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);
    if x.is_nan() {
        return x;
    }
    if x > OVERFLOW {
        return f64::INFINITY;
    }
    if x < UNDERFLOW {
        return 0.0;
    }
    if -NEAR_ZERO < x && x < NEAR_ZERO {
        return 1.0 + x;
    }
    let mut k: i64 = 0;
    if x < 0.0 {
        k = (LOG2E * x - 0.5) as i64;
    } else if x > 0.0 {
        k = (LOG2E * x + 0.5) as i64;
    }
    let hi = x - k as f64 * LN2_HI;
    let lo = k as f64 * LN2_LO;
    let r = hi - lo;
    let t = r * r;
    let c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    ldexp(y, k)
}

pub fn log(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    let (mut f1, mut ki) = frexp(x);
    if f1 < SQRT2_2 {
        f1 *= 2.0;
        ki -= 1;
    }
    let f = f1 - 1.0;
    let k = ki as f64;
    let s = f / (2.0 + f);
    let s2 = s * s;
    let s4 = s2 * s2;
    let t1 = s2 * (LG1 + s4 * (LG3 + s4 * (LG5 + s4 * LG7)));
    let t2 = s4 * (LG2 + s4 * (LG4 + s4 * LG6));
    let r = t1 + t2;
    let hfsq = 0.5 * f * f;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

pub fn log1p(x: f64) -> f64 {
    const SQRT2_M1: f64 = f64::from_bits(0x3fda_8279_99fc_ef32);
    const SQRT2_HALF_M1: f64 = f64::from_bits(0xbfd2_bec3_3301_8867);
    const SMALL: f64 = 1.0 / (1u64 << 29) as f64;
    const TINY: f64 = 1.0 / (1u64 << 54) as f64;
    const TWO53: f64 = (1u64 << 53) as f64;
    if x < -1.0 || x.is_nan() {
        return f64::NAN;
    }
    if x == -1.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    let absx = x.abs();
    let mut f = 0.0;
    let mut iu: u64 = 0;
    let mut k: i64 = 1;
    if absx < SQRT2_M1 {
        if absx < SMALL {
            if absx < TINY {
                return x;
            }
            return x - x * x * 0.5;
        }
        if x > SQRT2_HALF_M1 {
            k = 0;
            f = x;
            iu = 1;
        }
    }
    let mut c = 0.0;
    if k != 0 {
        let mut u;
        if absx < TWO53 {
            u = 1.0 + x;
            iu = u.to_bits();
            k = ((iu >> 52) as i64) - 1023;
            if k > 0 {
                c = 1.0 - (u - x);
            } else {
                c = x - (u - 1.0);
            }
            c /= u;
        } else {
            u = x;
            iu = u.to_bits();
            k = ((iu >> 52) as i64) - 1023;
            c = 0.0;
        }
        iu &= 0x000f_ffff_ffff_ffff;
        if iu < 0x0006_a09e_667f_3bcd {
            u = f64::from_bits(iu | 0x3ff0_0000_0000_0000);
        } else {
            k += 1;
            u = f64::from_bits(iu | 0x3fe0_0000_0000_0000);
            iu = (0x0010_0000_0000_0000 - iu) >> 2;
        }
        f = u - 1.0;
    }
    let hfsq = 0.5 * f * f;
    let fk = k as f64;
    if iu == 0 {
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            c += fk * LN2_LO;
            return fk * LN2_HI + c;
        }
        let r = hfsq * (1.0 - TWO_THIRDS * f);
        if k == 0 {
            return f - r;
        }
        return fk * LN2_HI - ((r - (fk * LN2_LO + c)) - f);
    }
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * (LG1 + z * (LG2 + z * (LG3 + z * (LG4 + z * (LG5 + z * (LG6 + z * LG7))))));
    if k == 0 {
        return f - (hfsq - s * (hfsq + r));
    }
    fk * LN2_HI - ((hfsq - (s * (hfsq + r) + (fk * LN2_LO + c))) - f)
}

/// x**y for finite x and y.
pub fn pow(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if y == 1.0 {
        return x;
    }
    if x.is_nan() || y.is_nan() || x.is_infinite() || y.is_infinite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y < 0.0 { f64::INFINITY } else { 0.0 };
    }
    if y == 0.5 {
        return x.sqrt();
    }
    if y == -0.5 {
        return 1.0 / x.sqrt();
    }
    let mut yi = y.abs().trunc();
    let mut yf = y.abs() - yi;
    if yf != 0.0 && x < 0.0 {
        return f64::NAN;
    }
    if yi >= (1u64 << 63) as f64 {
        if x == -1.0 {
            return 1.0;
        }
        if (x.abs() < 1.0) == (y > 0.0) {
            return 0.0;
        }
        return f64::INFINITY;
    }
    let mut a1 = 1.0;
    let mut ae: i64 = 0;
    if yf != 0.0 {
        if yf > 0.5 {
            yf -= 1.0;
            yi += 1.0;
        }
        a1 = exp(yf * log(x));
    }
    let (mut x1, mut xe) = frexp(x);
    let mut i = yi as i64;
    while i != 0 {
        if !(-(1 << 12)..=(1 << 12)).contains(&xe) {
            ae += xe;
            break;
        }
        if i & 1 == 1 {
            a1 *= x1;
            ae += xe;
        }
        x1 *= x1;
        xe <<= 1;
        if x1 < 0.5 {
            x1 += x1;
            xe -= 1;
        }
        i >>= 1;
    }
    if y < 0.0 {
        a1 = 1.0 / a1;
        ae = -ae;
    }
    ldexp(a1, ae)
}

// ---------------------------------------------------------------------------
// Key distributions (§5), the op chooser (§6) and arrival times (§7).

pub const KEYS_UNIFORM: &str = "uniform";
pub const KEYS_ZIPFIAN: &str = "zipfian";
pub const KEYS_LATEST: &str = "latest";

/// Above this many items zeta expands instead of summing
/// (docs/data-generation.md §5).
pub const ZETA_EXACT_MAX: i64 = 1 << 20;

/// Σ 1/k^theta for k = 1 … n: summed up to ZETA_EXACT_MAX, above it the
/// first nine terms plus the Euler–Maclaurin expansion to the B6 term.
pub fn zeta(n: i64, theta: f64) -> f64 {
    let mut zn = 0.0;
    if n <= ZETA_EXACT_MAX {
        for i in 1..=n {
            zn += 1.0 / pow(i as f64, theta);
        }
        return zn;
    }
    for i in 1..10 {
        zn += 1.0 / pow(i as f64, theta);
    }
    let (a, b) = (10.0, n as f64);
    let c1 = theta;
    let c3 = c1 * (theta + 1.0) * (theta + 2.0);
    let c5 = c3 * (theta + 3.0) * (theta + 4.0);
    let integral = (pow(b, 1.0 - theta) - pow(a, 1.0 - theta)) / (1.0 - theta);
    let ends = (1.0 / pow(a, theta) + 1.0 / pow(b, theta)) / 2.0;
    let d1 = (c1 / pow(a, theta + 1.0) - c1 / pow(b, theta + 1.0)) / 12.0;
    let d3 = (c3 / pow(a, theta + 3.0) - c3 / pow(b, theta + 3.0)) / 720.0;
    let d5 = (c5 / pow(a, theta + 5.0) - c5 / pow(b, theta + 5.0)) / 30240.0;
    zn + ((((integral + ends) + d1) - d3) + d5)
}

/// Ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^theta (Gray et al., as YCSB).
#[derive(Clone, Debug)]
pub struct Zipf {
    pub n: i64,
    pub alpha: f64,
    pub zetan: f64,
    pub eta: f64,
    pub half: f64,
}

impl Zipf {
    pub fn new(n: i64, theta: f64) -> Zipf {
        let n = n.max(1);
        let zn = zeta(n, theta);
        let half = 1.0 + pow(0.5, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - pow(2.0 / n as f64, 1.0 - theta)) / (1.0 - half / zn);
        Zipf {
            n,
            alpha,
            zetan: zn,
            eta,
            half,
        }
    }

    pub fn rank(&self, u: f64) -> i64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < self.half {
            return 1.min(self.n - 1);
        }
        let f = self.n as f64 * pow(self.eta * u - self.eta + 1.0, self.alpha);
        if f.is_nan() || f < 0.0 {
            return 0;
        }
        (f.min(self.n as f64) as i64).min(self.n - 1)
    }
}

/// Where a zipfian rank lands among n rows.
pub fn scatter(rank: i64, n: i64) -> i64 {
    (draw(0, STREAM_SCATTER, rank as u64) % n as u64) as i64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Uniform,
    Zipfian,
    Latest,
}

impl KeyKind {
    pub fn parse(s: &str) -> Option<KeyKind> {
        match s {
            KEYS_UNIFORM => Some(KeyKind::Uniform),
            KEYS_ZIPFIAN => Some(KeyKind::Zipfian),
            KEYS_LATEST => Some(KeyKind::Latest),
            _ => None,
        }
    }
}

/// One worker's generator of row indexes.
pub struct KeyGen<'z> {
    kind: KeyKind,
    zipf: Option<&'z Zipf>,
    rnd: SplitMix,
}

impl<'z> KeyGen<'z> {
    pub fn new(kind: KeyKind, zipf: Option<&'z Zipf>, seed: u64, worker: usize) -> KeyGen<'z> {
        KeyGen {
            kind,
            zipf,
            rnd: SplitMix {
                state: draw(seed, STREAM_KEYS, (worker as u64).wrapping_add(1)),
            },
        }
    }

    /// A row index in [0, n), n the rows that exist now.
    pub fn next_key(&mut self, n: i64) -> i64 {
        pick(self.kind, self.zipf, &mut self.rnd, n)
    }
}

/// A row index in [0, n) drawn from rnd (docs/data-generation.md §5): 0
/// without a draw when n ≤ 1.
pub fn pick(kind: KeyKind, zipf: Option<&Zipf>, rnd: &mut SplitMix, n: i64) -> i64 {
    if n <= 1 {
        return 0;
    }
    let u = unit(rnd.next_u64());
    match kind {
        KeyKind::Zipfian => scatter(zipf.expect("zipfian keys need a zipf").rank(u), n),
        KeyKind::Latest => (n - 1 - zipf.expect("latest keys need a zipf").rank(u)).max(0),
        KeyKind::Uniform => (u * n as f64) as i64,
    }
}

/// Whether open-loop operation seq writes, for write_percent percent.
pub fn write_op(seed: u64, seq: u64, write_percent: f64) -> bool {
    ((draw(seed, STREAM_OPS, seq) % 10000) as f64) < write_percent * 100.0
}

/// The uniform number that spaces open-loop operation seq.
pub fn arrival_u(seed: u64, seq: i64) -> f64 {
    unit(splitmix64(seed ^ seq as u64))
}

/// The gap before an operation of a Poisson process of rate per second.
pub fn poisson_gap(rate: f64, u: f64) -> i64 {
    (-log1p(-u) * (1e9 / rate)) as i64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    Uniform,
    Poisson,
}

/// The due offset (ns) of operation seq given that of seq-1.
pub fn schedule(a: Arrivals, rate: f64, seq: i64, prev: i64, u: f64) -> i64 {
    if seq == 0 {
        return 0;
    }
    match a {
        Arrivals::Uniform => (seq as f64 * 1e9 / rate) as i64,
        Arrivals::Poisson => prev.wrapping_add(poisson_gap(rate, u)),
    }
}

// ---------------------------------------------------------------------------
// Column generators (§3).

pub const WORDS: [&str; 67] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "ex",
    "ea",
    "commodo",
    "consequat",
    "duis",
    "aute",
    "irure",
    "in",
    "reprehenderit",
    "voluptate",
    "velit",
    "esse",
    "cillum",
    "fugiat",
    "nulla",
    "pariatur",
    "excepteur",
    "sint",
    "occaecat",
    "cupidatat",
    "non",
    "proident",
    "sunt",
    "culpa",
    "qui",
    "officia",
    "deserunt",
    "mollit",
    "anim",
    "id",
    "est",
    "laborum",
    "sqlite",
    "page",
    "journal",
    "wal",
    "checkpoint",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeFormat {
    UnixMs,
    Rfc3339Nano,
}

/// A column's generator and its parameters (uniform_int and zipf_int are
/// in no built-in schema; the reference vectors test them).
#[derive(Clone, Debug)]
#[allow(dead_code)]
pub enum Gen {
    Seq {
        start: i64,
    },
    UniformInt {
        lo: i64,
        hi: i64,
        stream: u64,
    },
    ZipfInt {
        n: i64,
        stream: u64,
        zipf: Zipf,
    },
    LatestInt {
        n: i64,
        stream: u64,
        zipf: Zipf,
    },
    ConstInt {
        value: i64,
    },
    Timestamp {
        start_ns: i64,
        step_ns: i64,
        format: TimeFormat,
    },
    Hex {
        bytes: usize,
        stream: u64,
    },
    Letters {
        len: usize,
        stream: u64,
    },
    Text {
        min: usize,
        max: usize,
        stream: u64,
    },
    Uuid4 {
        stream: u64,
    },
    /// The SHA-256 of column `src` (an earlier one).
    Sha256Of {
        src: usize,
        decode_hex: bool,
    },
    Choice {
        list: Vec<String>,
        count: usize,
        sep: String,
        stream: u64,
    },
    Const {
        value: String,
    },
    SeqText {
        prefix: String,
        start: i64,
        suffix: String,
    },
}

impl Gen {
    pub fn is_text(&self) -> bool {
        match self {
            Gen::Seq { .. }
            | Gen::UniformInt { .. }
            | Gen::ZipfInt { .. }
            | Gen::LatestInt { .. }
            | Gen::ConstInt { .. } => false,
            Gen::Timestamp { format, .. } => *format == TimeFormat::Rfc3339Nano,
            _ => true,
        }
    }
}

/// One generated value: an integer, or a span of a row buffer's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Int(i64),
    Text(u32, u32),
}

/// Generated rows: their values in row order and the text they point into.
#[derive(Default, Debug)]
pub struct RowBuf {
    pub vals: Vec<Val>,
    pub text: String,
}

impl RowBuf {
    pub fn clear(&mut self) {
        self.vals.clear();
        self.text.clear();
    }

    pub fn str_of(&self, v: Val) -> &str {
        match v {
            Val::Text(a, b) => &self.text[a as usize..b as usize],
            Val::Int(_) => "",
        }
    }
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

fn push_hex(out: &mut String, b: &[u8]) {
    for &c in b {
        out.push(HEX_DIGITS[(c >> 4) as usize] as char);
        out.push(HEX_DIGITS[(c & 15) as usize] as char);
    }
}

/// The decimal digits of v (with '-' when negative), in buf.
fn fmt_i64(v: i64, buf: &mut [u8; 20]) -> &str {
    let mut n = v.unsigned_abs();
    let mut p = buf.len();
    loop {
        p -= 1;
        buf[p] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        p -= 1;
        buf[p] = b'-';
    }
    std::str::from_utf8(&buf[p..]).expect("digits are ASCII")
}

fn push_int(out: &mut String, v: i64) {
    out.push_str(fmt_i64(v, &mut [0u8; 20]));
}

/// Calls f with each 8-byte word of a hex generator's raw bytes, cut to
/// what is left of them (least significant byte first).
fn hex_words(bytes: usize, stream: u64, seed: u64, i: i64, mut f: impl FnMut(&[u8])) {
    let h = draw(seed, stream, i as u64);
    let mut j = 0usize;
    while 8 * j < bytes {
        let w = if j == 0 { h } else { draw(h, 0, j as u64) };
        f(&w.to_le_bytes()[..(bytes - 8 * j).min(8)]);
        j += 1;
    }
}

/// Appends n bytes of row i's words (Text with min = max = n).
pub fn append_words(out: &mut String, seed: u64, i: i64, n: usize) {
    let mut left = n;
    let mut k: u64 = 0;
    while left > 0 {
        if k > 0 {
            out.push(' ');
            left -= 1;
            if left == 0 {
                break;
            }
        }
        let w =
            WORDS[(draw(seed, STREAM_WORDS, ((i as u64) << 20) | k) % WORDS.len() as u64) as usize];
        let w = &w[..w.len().min(left)];
        out.push_str(w);
        left -= w.len();
        k += 1;
    }
}

fn append_uuid(out: &mut String, a: u64, b: u64) {
    let mut u = [0u8; 16];
    u[..8].copy_from_slice(&a.to_le_bytes());
    u[8..].copy_from_slice(&b.to_le_bytes());
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    push_hex(out, &u[0..4]);
    out.push('-');
    push_hex(out, &u[4..6]);
    out.push('-');
    push_hex(out, &u[6..8]);
    out.push('-');
    push_hex(out, &u[8..10]);
    out.push('-');
    push_hex(out, &u[10..16]);
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Go's time.RFC3339Nano of a UTC instant in Unix nanoseconds.
pub fn append_rfc3339nano(out: &mut String, ns: i64) {
    use std::fmt::Write;
    let secs = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let _ = write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        y,
        m,
        d,
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if nanos != 0 {
        let mut digits = [0u8; 9];
        let mut n = nanos;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let mut len = 9;
        while digits[len - 1] == b'0' {
            len -= 1;
        }
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[..len]).expect("digits are ASCII"));
    }
    out.push('Z');
}

/// A checked list of named columns, ready to generate rows.
#[derive(Clone, Debug)]
pub struct Table {
    pub names: Vec<String>,
    pub gens: Vec<Gen>,
}

impl Table {
    pub fn new(cols: Vec<(&str, Gen)>) -> Table {
        Table {
            names: cols.iter().map(|(n, _)| n.to_string()).collect(),
            gens: cols.into_iter().map(|(_, g)| g).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.gens.len()
    }

    pub fn is_text(&self, k: usize) -> bool {
        self.gens[k].is_text()
    }

    /// The first value of column k when it is a sequence (row i's value
    /// is then start + i).
    pub fn seq_start(&self, k: usize) -> Option<i64> {
        match self.gens[k] {
            Gen::Seq { start } => Some(start),
            _ => None,
        }
    }

    /// Row i's value of integer column k.
    pub fn int(&self, k: usize, seed: u64, i: i64) -> i64 {
        match &self.gens[k] {
            Gen::Seq { start } => start.wrapping_add(i),
            Gen::UniformInt { lo, hi, stream } => {
                let m = draw(seed, *stream, i as u64);
                let span = (hi.wrapping_sub(*lo) as u64).wrapping_add(1);
                if span == 0 {
                    lo.wrapping_add(m as i64)
                } else {
                    lo.wrapping_add((m % span) as i64)
                }
            }
            Gen::ZipfInt { n, stream, zipf } => {
                scatter(zipf.rank(unit(draw(seed, *stream, i as u64))), *n)
            }
            Gen::LatestInt { n, stream, zipf } => {
                (n - 1 - zipf.rank(unit(draw(seed, *stream, i as u64)))).max(0)
            }
            Gen::ConstInt { value } => *value,
            Gen::Timestamp {
                start_ns, step_ns, ..
            } => start_ns
                .wrapping_add(i.wrapping_mul(*step_ns))
                .div_euclid(1_000_000),
            _ => panic!("column {} is not an integer", self.names[k]),
        }
    }

    /// Appends row i's value of text column k. For sha256_of of a text
    /// column, `src` is that column's value when the caller has it (None:
    /// it is generated).
    pub fn append_text(
        &self,
        k: usize,
        out: &mut String,
        seed: u64,
        i: i64,
        src_val: Option<&str>,
    ) {
        match &self.gens[k] {
            Gen::Timestamp {
                start_ns, step_ns, ..
            } => append_rfc3339nano(out, start_ns.wrapping_add(i.wrapping_mul(*step_ns))),
            Gen::Hex { bytes, stream } => hex_words(*bytes, *stream, seed, i, |w| push_hex(out, w)),
            Gen::Letters { len, stream } => {
                let mut m = draw(seed, *stream, i as u64);
                for kk in 0..*len {
                    if kk % 12 == 0 && kk > 0 {
                        m = draw(m, 0, kk as u64);
                    }
                    out.push((b'A' + (m % 26) as u8) as char);
                    m /= 26;
                }
            }
            Gen::Text { min, max, stream } => {
                let n = if max <= min {
                    *min
                } else {
                    let m = draw(seed, *stream, i as u64);
                    min + ((m >> 40) % (max - min + 1) as u64) as usize
                };
                append_words(out, seed ^ stream, i, n);
            }
            Gen::Uuid4 { stream } => append_uuid(
                out,
                draw(seed, *stream, i as u64),
                draw(seed, stream ^ STREAM_UUID_LOW, i as u64),
            ),
            Gen::Choice {
                list,
                count,
                sep,
                stream,
            } => {
                let m = draw(seed, *stream, i as u64);
                for j in 0..(*count).max(1) {
                    if j > 0 {
                        out.push_str(sep);
                    }
                    out.push_str(&list[((m >> (16 * j)) % list.len() as u64) as usize]);
                }
            }
            Gen::Const { value } => out.push_str(value),
            Gen::SeqText {
                prefix,
                start,
                suffix,
            } => {
                out.push_str(prefix);
                push_int(out, start.wrapping_add(i));
                out.push_str(suffix);
            }
            Gen::Sha256Of { src, decode_hex } => {
                let mut h = Sha256::new();
                match (&self.gens[*src], *decode_hex) {
                    (Gen::Hex { bytes, stream }, true) => {
                        hex_words(*bytes, *stream, seed, i, |w| h.update(w))
                    }
                    _ if !self.is_text(*src) => {
                        h.update(fmt_i64(self.int(*src, seed, i), &mut [0u8; 20]).as_bytes())
                    }
                    _ => match src_val {
                        Some(s) => h.update(s.as_bytes()),
                        None => {
                            let mut s = String::new();
                            self.append_text(*src, &mut s, seed, i, None);
                            h.update(s.as_bytes());
                        }
                    },
                }
                push_hex(out, &h.finalize());
            }
            _ => panic!("column {} is not text", self.names[k]),
        }
    }

    /// Appends row i's values to buf.
    pub fn row(&self, seed: u64, i: i64, buf: &mut RowBuf) {
        let first = buf.vals.len();
        for k in 0..self.gens.len() {
            if !self.is_text(k) {
                let v = self.int(k, seed, i);
                buf.vals.push(Val::Int(v));
                continue;
            }
            let a = buf.text.len();
            match self.gens[k] {
                Gen::Sha256Of {
                    src,
                    decode_hex: false,
                } if self.is_text(src) => {
                    // Hash the source's value as this row already holds it.
                    let mut h = Sha256::new();
                    h.update(buf.str_of(buf.vals[first + src]).as_bytes());
                    push_hex(&mut buf.text, &h.finalize());
                }
                _ => self.append_text(k, &mut buf.text, seed, i, None),
            }
            let b = buf.text.len();
            buf.vals.push(Val::Text(a as u32, b as u32));
        }
    }
}

/// Row i's value of a text generator on its own under seed (not
/// sha256_of, which needs the row).
pub fn append_one(g: Gen, out: &mut String, seed: u64, i: i64) {
    let t = Table {
        names: vec![String::new()],
        gens: vec![g],
    };
    t.append_text(0, out, seed, i, None);
}

/// "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" (Go's RFC 3339) in Unix
/// nanoseconds.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    let n = |a: usize, z: usize| -> Option<i64> {
        let f = s.get(a..z)?;
        f.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| f.parse().ok())?
    };
    let days = days_from_civil(n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let mut ns = (days * 86_400 + n(11, 13)? * 3600 + n(14, 16)? * 60 + n(17, 19)?) * 1_000_000_000;
    let mut rest = &s[19..];
    if let Some(f) = rest.strip_prefix('.') {
        let d = f.bytes().take_while(u8::is_ascii_digit).count();
        if d == 0 || d > 9 {
            return None;
        }
        ns += f[..d].parse::<i64>().ok()? * 10i64.pow(9 - d as u32);
        rest = &f[d..];
    }
    match rest {
        "Z" | "z" => Some(ns),
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let off = (rest[1..3].parse::<i64>().ok()? * 60 + rest[4..6].parse::<i64>().ok()?)
                * 60_000_000_000;
            Some(if rest.starts_with('+') {
                ns - off
            } else {
                ns + off
            })
        }
        _ => None,
    }
}

/// A table's columns as internal/gen's testdata/vectors.json and a
/// workload program write them: name, kind and args.
pub fn decode_table(cols: &[Value]) -> Result<Table, String> {
    let mut names: Vec<String> = Vec::new();
    let mut gens = Vec::new();
    for c in cols {
        let name = c["name"].as_str().unwrap_or("").to_string();
        let kind = c["kind"].as_str().unwrap_or("");
        let g = decode_gen(kind, &c["args"], &names)
            .map_err(|e| format!("column {name} ({kind}): {e}"))?;
        names.push(name);
        gens.push(g);
    }
    Ok(Table { names, gens })
}

fn decode_gen(kind: &str, a: &Value, names: &[String]) -> Result<Gen, String> {
    // Integers from the number's text: bounds may be ±2^63.
    let int = |k: &str| -> Result<i64, String> {
        match a.get(k) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v
                .to_string()
                .parse::<i64>()
                .map_err(|_| format!("{k}: want an integer, not {v}")),
        }
    };
    let size = |k: &str| -> Result<usize, String> {
        usize::try_from(int(k)?).map_err(|_| format!("{k}: want a count"))
    };
    let text = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let stream = match a.get("stream") {
        None | Some(Value::Null) => 0,
        Some(Value::String(s)) => s.parse::<u64>().map_err(|_| format!("stream {s:?}"))?,
        Some(v) => v.as_u64().ok_or_else(|| format!("stream {v}"))?,
    };
    let theta = a.get("theta").and_then(Value::as_f64).unwrap_or(0.0);
    Ok(match kind {
        "seq" => Gen::Seq {
            start: int("start")?,
        },
        "uniform_int" => Gen::UniformInt {
            lo: int("lo")?,
            hi: int("hi")?,
            stream,
        },
        "zipf_int" => Gen::ZipfInt {
            n: int("n")?,
            stream,
            zipf: Zipf::new(int("n")?, theta),
        },
        "latest_int" => Gen::LatestInt {
            n: int("n")?,
            stream,
            zipf: Zipf::new(int("n")?, theta),
        },
        "const_int" => Gen::ConstInt {
            value: int("value")?,
        },
        "timestamp" => Gen::Timestamp {
            start_ns: parse_rfc3339(&text("start"))
                .ok_or_else(|| format!("start {:?}: want RFC 3339", text("start")))?,
            step_ns: int("step_ns")?,
            format: match text("format").as_str() {
                "unix_ms" => TimeFormat::UnixMs,
                "rfc3339nano" => TimeFormat::Rfc3339Nano,
                f => return Err(format!("format {f:?}")),
            },
        },
        "hex" => Gen::Hex {
            bytes: size("bytes")?,
            stream,
        },
        "letters" => Gen::Letters {
            len: size("len")?,
            stream,
        },
        "text" => Gen::Text {
            min: size("min")?,
            max: size("max")?,
            stream,
        },
        "uuid4" => Gen::Uuid4 { stream },
        "sha256_of" => Gen::Sha256Of {
            src: names
                .iter()
                .position(|n| *n == text("column"))
                .ok_or_else(|| format!("column {:?} is not an earlier column", text("column")))?,
            decode_hex: a
                .get("decode_hex")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
        "choice" => {
            let list: Vec<String> = a
                .get("list")
                .and_then(Value::as_array)
                .map(|l| {
                    l.iter()
                        .map(|s| s.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            if list.is_empty() {
                return Err("an empty list".into());
            }
            Gen::Choice {
                list,
                count: size("count")?,
                sep: text("sep"),
                stream,
            }
        }
        "const" => Gen::Const {
            value: text("value"),
        },
        "seq_text" => Gen::SeqText {
            prefix: text("prefix"),
            start: int("start")?,
            suffix: text("suffix"),
        },
        k => return Err(format!("unknown generator {k:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        let mut s = String::new();
        append_rfc3339nano(
            &mut s,
            days_from_civil(2024, 1, 1) * 86_400_000_000_000 + 1_234_567_890,
        );
        assert_eq!(s, "2024-01-01T00:00:01.23456789Z");
        s.clear();
        append_rfc3339nano(&mut s, -1);
        assert_eq!(s, "1969-12-31T23:59:59.999999999Z");
    }

    #[test]
    fn frexp_ldexp_roundtrip() {
        for &x in &[1.0, 0.75, 3.5e-310, -7.25e100, 1e-300] {
            let (f, e) = frexp(x);
            assert!((0.5..1.0).contains(&f.abs()), "{x}: {f}");
            assert_eq!(ldexp(f, e), x);
        }
    }
}
