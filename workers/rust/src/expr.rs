//! The expressions of workload programs (docs/workload-program.md): values,
//! their conversions, operators and functions, as internal/spec's
//! evaluator computes them, bit for bit.

use crate::gen::{
    append_one, exp, log, pick, pow, unit, Gen, KeyKind, SplitMix, Zipf, KEYS_UNIFORM,
};
use serde_json::Value;

/// A value: NULL, a boolean, a 64-bit integer, a double or text.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

/// A double as Go's strconv.FormatFloat(f, 'g', -1, 64) (and %v) writes
/// it: the shortest digits, with an exponent below 1e-4 and from 1e6 on.
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{f:e}");
    let (mant, exp) = e.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// Text read as pgbench reads a variable: an integer written plainly is an
/// integer, anything else stays text.
pub fn text_value(s: &str) -> V {
    match canon_int(s) {
        Some(n) => V::Int(n),
        None => V::Text(s.to_string()),
    }
}

/// s as a decimal integer written without a plus sign or leading zeros.
pub fn canon_int(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let neg = b.first() == Some(&b'-');
    let d = if neg { &b[1..] } else { b };
    if d.is_empty() || d.len() > 19 || (d[0] == b'0' && (d.len() > 1 || neg)) {
        return None;
    }
    let mut u: u64 = 0;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        u = u * 10 + (c - b'0') as u64;
    }
    if neg && u <= 1 << 63 {
        Some((u as i64).wrapping_neg())
    } else if !neg && u < 1 << 63 {
        Some(u as i64)
    } else {
        None
    }
}

/// s quoted as Go's %q quotes it.
pub fn go_quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\r' => o.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// An expression that failed: where and why. It stops the run.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError(pub String);

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn fail<T>(at: &str, msg: String) -> Result<T, EvalError> {
    Err(EvalError(format!("{at}: {msg}")))
}

type R = Result<V, EvalError>;

/// A variable of a worker.
#[derive(Clone, Debug)]
pub struct Slot {
    pub v: V,
    pub set: bool,
}

/// What key() and rows() see of a table: its rows now and row i's key.
pub trait Tables {
    fn visible(&self, table: usize) -> i64;
    fn key(&self, table: usize, i: i64) -> V;
}

/// One worker's state for evaluating: its variables and its sequence.
pub struct Ctx<'t> {
    pub vars: Vec<Slot>,
    pub rng: SplitMix,
    pub tables: &'t dyn Tables,
}

impl Ctx<'_> {
    fn uniform(&mut self) -> f64 {
        unit(self.rng.next_u64())
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Func {
    Abs,
    Double,
    Int,
    Exp,
    Ln,
    Sqrt,
    Pow,
    Pi,
    Greatest,
    Least,
    Mod,
    Murmur2,
    Fnv1a,
    Random,
    RandomExp,
    RandomGauss,
    RandomZipf,
    Key,
    Rows,
    Hex,
    Letters,
    Text,
    Uuid4,
    Choice,
}

/// The functions by name, with their arity (max −1: any number).
fn func(name: &str) -> Option<(Func, usize, isize)> {
    use Func::*;
    Some(match name {
        "abs" => (Abs, 1, 1),
        "double" => (Double, 1, 1),
        "int" => (Int, 1, 1),
        "exp" => (Exp, 1, 1),
        "ln" => (Ln, 1, 1),
        "sqrt" => (Sqrt, 1, 1),
        "pow" | "power" => (Pow, 2, 2),
        "pi" => (Pi, 0, 0),
        "greatest" => (Greatest, 1, -1),
        "least" => (Least, 1, -1),
        "mod" => (Mod, 2, 2),
        "hash" | "hash_murmur2" => (Murmur2, 2, 2),
        "hash_fnv1a" => (Fnv1a, 2, 2),
        "random" => (Random, 2, 2),
        "random_exponential" => (RandomExp, 3, 3),
        "random_gaussian" => (RandomGauss, 3, 3),
        "random_zipfian" => (RandomZipf, 3, 3),
        "key" => (Key, 0, 0),
        "rows" => (Rows, 0, 0),
        "hex" => (Hex, 1, 1),
        "letters" => (Letters, 1, 1),
        "text" => (Text, 2, 2),
        "uuid4" => (Uuid4, 0, 0),
        "choice" => (Choice, 1, -1),
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bin {
    And,
    Or,
    BitOr,
    Xor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A compiled expression.
#[derive(Debug)]
pub enum Node {
    Lit(V),
    Var {
        slot: usize,
        name: String,
        at: String,
    },
    Neg(Box<Node>, String),
    BitNot(Box<Node>, String),
    Not(Box<Node>, String),
    Binary {
        op: Bin,
        a: Box<Node>,
        b: Box<Node>,
        at: String,
    },
    Is {
        what: u8, // 0 null, 1 true, 2 false
        not: bool,
        a: Box<Node>,
        at: String,
    },
    Case {
        arms: Vec<(Node, Node)>,
        els: Option<Box<Node>>,
        at: String,
    },
    Call {
        f: Func,
        name: String,
        args: Vec<Node>,
        at: String,
        table: usize,
        keys: KeyKind,
        zipf: Option<Zipf>,
    },
}

/// Compiles a program's expression (its JSON form). rows gives a table's
/// rows loaded at set-up (the zipfian of key() is prepared for them).
pub fn compile(x: &Value, rows: &dyn Fn(usize) -> Option<i64>) -> Result<Node, String> {
    let s = |k: &str| x.get(k).and_then(Value::as_str).unwrap_or("");
    let at = s("at").to_string();
    let args: Vec<Node> = match x.get("a").and_then(Value::as_array) {
        Some(a) => a
            .iter()
            .map(|e| compile(e, rows))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let arg = |args: Vec<Node>, n: usize| -> Result<Vec<Node>, String> {
        if args.len() != n {
            return Err(format!("program: {at}: {} wants {n} operands", s("op")));
        }
        Ok(args)
    };
    let op = s("op");
    Ok(match op {
        "int" => {
            let v = s("v");
            V::Int(v.parse().map_err(|_| format!("program: int {v:?}"))?).into_lit()
        }
        "float" => V::Float(x.get("f").and_then(Value::as_f64).unwrap_or(0.0)).into_lit(),
        "bool" => V::Bool(x.get("b").and_then(Value::as_bool).unwrap_or(false)).into_lit(),
        "null" => V::Null.into_lit(),
        "text" => V::Text(s("s").to_string()).into_lit(),
        "var" => Node::Var {
            slot: x.get("slot").and_then(Value::as_u64).unwrap_or(0) as usize,
            name: s("name").to_string(),
            at,
        },
        "unary" => {
            let a = Box::new(arg(args, 1)?.pop().expect("one operand"));
            match s("fn") {
                "-" => Node::Neg(a, at),
                "~" => Node::BitNot(a, at),
                "not" => Node::Not(a, at),
                f => return Err(format!("program: {at}: unknown unary operator {f:?}")),
            }
        }
        "binary" => {
            let mut ab = arg(args, 2)?;
            let b = Box::new(ab.pop().expect("two operands"));
            let a = Box::new(ab.pop().expect("two operands"));
            let op = match s("fn") {
                "and" => Bin::And,
                "or" => Bin::Or,
                "|" => Bin::BitOr,
                "#" => Bin::Xor,
                "&" => Bin::BitAnd,
                "<<" => Bin::Shl,
                ">>" => Bin::Shr,
                "+" => Bin::Add,
                "-" => Bin::Sub,
                "*" => Bin::Mul,
                "/" => Bin::Div,
                "%" => Bin::Rem,
                "=" => Bin::Eq,
                "<>" | "!=" => Bin::Ne,
                "<" => Bin::Lt,
                "<=" => Bin::Le,
                ">" => Bin::Gt,
                ">=" => Bin::Ge,
                f => return Err(format!("program: {at}: unknown operator {f:?}")),
            };
            Node::Binary { op, a, b, at }
        }
        "is" => {
            let what = match s("fn") {
                "null" => 0,
                "true" => 1,
                "false" => 2,
                f => return Err(format!("program: {at}: unknown test IS {f:?}")),
            };
            Node::Is {
                what,
                not: x.get("not").and_then(Value::as_bool).unwrap_or(false),
                a: Box::new(arg(args, 1)?.pop().expect("one operand")),
                at,
            }
        }
        "case" => {
            let mut arms = Vec::new();
            let mut it = args.into_iter();
            while let (Some(w), Some(t)) = (it.next(), it.next()) {
                arms.push((w, t));
            }
            let els = match x.get("else") {
                Some(e) if !e.is_null() => Some(Box::new(compile(e, rows)?)),
                _ => None,
            };
            Node::Case { arms, els, at }
        }
        "call" => {
            let name = s("fn");
            let (f, lo, hi) =
                func(name).ok_or_else(|| format!("program: unknown function {name}()"))?;
            if args.len() < lo || (hi >= 0 && args.len() > hi as usize) {
                return Err(format!(
                    "program: {at}: {name}() given {} arguments",
                    args.len()
                ));
            }
            let table = x.get("table").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut keys = KeyKind::Uniform;
            let mut zipf = None;
            if matches!(f, Func::Key | Func::Rows) {
                let n =
                    rows(table).ok_or_else(|| format!("program: {name}(): no table {table}"))?;
                if matches!(f, Func::Key) {
                    let dist = match s("dist") {
                        "" => KEYS_UNIFORM,
                        d => d,
                    };
                    keys = KeyKind::parse(dist)
                        .ok_or_else(|| format!("program: {at}: key(): distribution {dist:?}"))?;
                    if keys != KeyKind::Uniform {
                        let theta = x.get("theta").and_then(Value::as_f64).unwrap_or(0.0);
                        zipf = Some(Zipf::new(n.max(1), theta));
                    }
                }
            }
            Node::Call {
                f,
                name: name.to_string(),
                args,
                at,
                table,
                keys,
                zipf,
            }
        }
        o => return Err(format!("program: unknown expression {o:?}")),
    })
}

impl V {
    fn into_lit(self) -> Node {
        Node::Lit(self)
    }
}

/// Row i's key (column 0) of a table under seed, as a value.
pub fn key_of(t: &crate::gen::Table, seed: u64, i: i64) -> V {
    if t.is_text(0) {
        let mut s = String::new();
        t.append_text(0, &mut s, seed, i, None);
        V::Text(s)
    } else {
        V::Int(t.int(0, seed, i))
    }
}

impl Node {
    /// A literal's value (a variable's starting value): NULL otherwise.
    pub fn eval_const(&self) -> V {
        match self {
            Node::Lit(v) => v.clone(),
            _ => V::Null,
        }
    }
}

pub fn to_bool(v: &V, at: &str) -> Result<bool, EvalError> {
    match v {
        V::Bool(b) => Ok(*b),
        V::Int(i) => Ok(*i != 0),
        V::Float(f) => Ok(*f != 0.0),
        V::Text(s) => match s.to_lowercase().as_str() {
            "true" | "t" | "yes" | "on" | "1" => Ok(true),
            "false" | "f" | "no" | "off" | "0" => Ok(false),
            _ => fail(at, format!("{} is not a boolean", go_quote(s))),
        },
        V::Null => fail(at, format!("{} is not a boolean", go_quote("NULL"))),
    }
}

/// Go's strconv.ParseFloat: a finite number, or an infinity or NaN
/// written as one (out of range is an error).
fn parse_float(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    if f.is_infinite() {
        let l = s.trim_start_matches(['+', '-']).to_lowercase();
        if l != "inf" && l != "infinity" {
            return None;
        }
    }
    Some(f)
}

/// An integer or a double out of v (text is parsed).
pub fn to_number(v: V, at: &str) -> R {
    match v {
        V::Int(_) | V::Float(_) => Ok(v),
        V::Bool(_) => fail(at, "a boolean is not a number".into()),
        V::Text(s) => {
            let t = s.trim();
            if let Some(n) = canon_int(t) {
                return Ok(V::Int(n));
            }
            match parse_float(t) {
                Some(f) => Ok(V::Float(f)),
                None => fail(at, format!("{} is not a number", go_quote(t))),
            }
        }
        V::Null => fail(at, "NULL is not a number".into()),
    }
}

pub fn to_int(v: V, at: &str) -> Result<i64, EvalError> {
    match to_number(v, at)? {
        V::Float(f) => {
            if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
                return fail(
                    at,
                    format!("{} is out of range for an integer", go_float(f)),
                );
            }
            Ok(f as i64)
        }
        V::Int(i) => Ok(i),
        _ => unreachable!("to_number gives numbers"),
    }
}

pub fn to_float(v: V, at: &str) -> Result<f64, EvalError> {
    match to_number(v, at)? {
        V::Float(f) => Ok(f),
        V::Int(i) => Ok(i as f64),
        _ => unreachable!("to_number gives numbers"),
    }
}

fn compare_float(a: f64, b: f64) -> i32 {
    if a < b {
        -1
    } else if a > b {
        1
    } else {
        0
    }
}

fn cmp(op: Bin, c: i32) -> V {
    V::Bool(match op {
        Bin::Eq => c == 0,
        Bin::Ne => c != 0,
        Bin::Lt => c < 0,
        Bin::Le => c <= 0,
        Bin::Gt => c > 0,
        _ => c >= 0,
    })
}

const OUT_OF_RANGE: &str = "bigint out of range";

fn ints(op: Bin, a: i64, b: i64, at: &str) -> R {
    let over = || fail(at, OUT_OF_RANGE.into());
    match op {
        Bin::Add => a.checked_add(b).map_or_else(over, |v| Ok(V::Int(v))),
        Bin::Sub => a.checked_sub(b).map_or_else(over, |v| Ok(V::Int(v))),
        Bin::Mul => a.checked_mul(b).map_or_else(over, |v| Ok(V::Int(v))),
        Bin::Div | Bin::Rem => {
            if b == 0 {
                return fail(at, "division by zero".into());
            }
            if b == -1 {
                if op == Bin::Rem {
                    return Ok(V::Int(0));
                }
                return a.checked_neg().map_or_else(over, |v| Ok(V::Int(v)));
            }
            Ok(V::Int(if op == Bin::Div { a / b } else { a % b }))
        }
        _ => Ok(cmp(op, a.cmp(&b) as i32)),
    }
}

/// pgbench's hash_fnv1a of an integer.
pub fn hash_fnv1a(mut val: i64, seed: u64) -> i64 {
    let mut r = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for _ in 0..8 {
        r ^= (val & 0xff) as u64;
        val >>= 8;
        r = r.wrapping_mul(0x100_0000_01b3);
    }
    r as i64
}

/// pgbench's hash_murmur2 (and hash) of an integer.
pub fn hash_murmur2(val: i64, seed: u64) -> i64 {
    const MUL: u64 = 0xc6a4_a793_5bd1_e995;
    let mut r = seed ^ 0x3525_3c9a_de8f_4ca8;
    let mut k = val as u64;
    k = k.wrapping_mul(MUL);
    k ^= k >> 47;
    k = k.wrapping_mul(MUL);
    r ^= k;
    r = r.wrapping_mul(MUL);
    r ^= r >> 47;
    r = r.wrapping_mul(MUL);
    r ^= r >> 47;
    r as i64
}

/// lb + the integer part of (ub − lb + 1)·r, as pgbench maps r in [0, 1).
fn in_range(lb: i64, ub: i64, r: f64) -> i64 {
    let w = ub.wrapping_sub(lb) as u64;
    let span = if w == u64::MAX {
        18_446_744_073_709_551_616.0
    } else {
        w.wrapping_add(1) as f64
    };
    let off = ((span * r) as u64).min(w);
    lb.wrapping_add(off as i64)
}

fn random_exponential(lb: i64, ub: i64, p: f64, u: f64) -> i64 {
    let cut = exp(-p);
    let uniform = 1.0 - u;
    let r = -log(cut + (1.0 - cut) * uniform) / p;
    in_range(lb, ub, r)
}

fn normal(x: &mut Ctx) -> f64 {
    loop {
        let v1 = 2.0 * x.uniform() - 1.0;
        let v2 = 2.0 * x.uniform() - 1.0;
        let s = v1 * v1 + v2 * v2;
        if s > 0.0 && s < 1.0 {
            return v1 * (-2.0 * log(s) / s).sqrt();
        }
    }
}

fn random_gaussian(lb: i64, ub: i64, p: f64, x: &mut Ctx) -> i64 {
    let z = loop {
        let z = normal(x);
        if z >= -p && z < p {
            break z;
        }
    };
    in_range(lb, ub, (z + p) / (p * 2.0))
}

fn random_zipfian(lb: i64, ub: i64, s: f64, x: &mut Ctx) -> i64 {
    let n = (ub.wrapping_sub(lb) as u64).wrapping_add(1) as f64;
    if ub == lb {
        return lb;
    }
    let b = pow(2.0, s - 1.0);
    loop {
        let u = x.uniform();
        let v = x.uniform();
        let xx = pow(u, -1.0 / (s - 1.0)).floor();
        let t = pow(1.0 + 1.0 / xx, s - 1.0);
        if v * xx * (t - 1.0) / (b - 1.0) <= t / b && xx <= n {
            return lb - 1 + xx as i64;
        }
    }
}

const MAX_TEXT: i64 = 1 << 20;

impl Node {
    /// The expression's value for worker x.
    pub fn eval(&self, x: &mut Ctx) -> R {
        match self {
            Node::Lit(v) => Ok(v.clone()),
            Node::Var { slot, name, at } => {
                let s = &x.vars[*slot];
                if !s.set {
                    return fail(at, format!("variable :{name} is not set"));
                }
                Ok(s.v.clone())
            }
            Node::Neg(a, at) => match a.eval(x)? {
                V::Null => Ok(V::Null),
                v => match to_number(v, at)? {
                    V::Float(f) => Ok(V::Float(-f)),
                    V::Int(i) => i
                        .checked_neg()
                        .map_or_else(|| fail(at, OUT_OF_RANGE.into()), |v| Ok(V::Int(v))),
                    _ => unreachable!("a number"),
                },
            },
            Node::BitNot(a, at) => match a.eval(x)? {
                V::Null => Ok(V::Null),
                v => Ok(V::Int(!to_int(v, at)?)),
            },
            Node::Not(a, at) => match a.eval(x)? {
                V::Null => Ok(V::Null),
                v => Ok(V::Bool(!to_bool(&v, at)?)),
            },
            Node::Binary { op, a, b, at } => {
                let a = a.eval(x)?;
                if matches!(op, Bin::And | Bin::Or) {
                    return logic(*op == Bin::And, a, b, at, x);
                }
                let b = b.eval(x)?;
                if a == V::Null || b == V::Null {
                    return Ok(V::Null);
                }
                binary(*op, a, b, at)
            }
            Node::Is { what, not, a, at } => {
                let a = a.eval(x)?;
                let r = match (what, &a) {
                    (0, v) => *v == V::Null,
                    (_, V::Null) => false,
                    (w, v) => to_bool(v, at)? == (*w == 1),
                };
                Ok(V::Bool(r != *not))
            }
            Node::Case { arms, els, at } => {
                for (w, t) in arms {
                    match w.eval(x)? {
                        V::Null => continue,
                        c => {
                            if to_bool(&c, at)? {
                                return t.eval(x);
                            }
                        }
                    }
                }
                match els {
                    Some(e) => e.eval(x),
                    None => Ok(V::Null),
                }
            }
            Node::Call { .. } => self.call(x),
        }
    }

    fn call(&self, x: &mut Ctx) -> R {
        let Node::Call {
            f,
            name,
            args,
            at,
            table,
            keys,
            zipf,
        } = self
        else {
            unreachable!("a call")
        };
        let arg = |x: &mut Ctx, i: usize| -> R {
            match args[i].eval(x)? {
                V::Null => fail(at, format!("{name}(): argument {} is NULL", i + 1)),
                v => Ok(v),
            }
        };
        let int = |x: &mut Ctx, i: usize| to_int(arg(x, i)?, at);
        let float = |x: &mut Ctx, i: usize| to_float(arg(x, i)?, at);
        let bounds = |x: &mut Ctx| -> Result<(i64, i64), EvalError> {
            let lb = int(x, 0)?;
            let ub = int(x, 1)?;
            if ub < lb {
                return fail(at, format!("{name}({lb}, {ub}): empty range; the upper bound must not be below the lower"));
            }
            Ok((lb, ub))
        };
        let length = |x: &mut Ctx, i: usize| -> Result<usize, EvalError> {
            let l = int(x, i)?;
            if !(0..=MAX_TEXT).contains(&l) {
                return fail(at, format!("{name}(): length {l}: want 0 to {MAX_TEXT}"));
            }
            Ok(l as usize)
        };
        let text_of = |x: &mut Ctx, g: Gen| -> V {
            let mut s = String::new();
            append_one(g, &mut s, x.rng.next_u64(), 0);
            V::Text(s)
        };
        Ok(match f {
            Func::Abs => match to_number(arg(x, 0)?, at)? {
                V::Float(f) => V::Float(f.abs()),
                V::Int(i) => V::Int(
                    i.checked_abs()
                        .map_or_else(|| fail(at, OUT_OF_RANGE.into()), Ok)?,
                ),
                _ => unreachable!("a number"),
            },
            Func::Double => V::Float(float(x, 0)?),
            Func::Int => V::Int(int(x, 0)?),
            Func::Exp => V::Float(exp(float(x, 0)?)),
            Func::Ln => V::Float(log(float(x, 0)?)),
            Func::Sqrt => V::Float(float(x, 0)?.sqrt()),
            Func::Pow => {
                let a = float(x, 0)?;
                V::Float(pow(a, float(x, 1)?))
            }
            Func::Pi => V::Float(std::f64::consts::PI),
            Func::Greatest | Func::Least => {
                let sign = if matches!(f, Func::Greatest) { 1 } else { -1 };
                let mut best = V::Null;
                let mut any_float = false;
                for a in args {
                    let v = match a.eval(x)? {
                        V::Null => continue,
                        v => to_number(v, at)?,
                    };
                    any_float |= matches!(v, V::Float(_));
                    if best == V::Null || compare_num(&v, &best) * sign > 0 {
                        best = v;
                    }
                }
                match best {
                    V::Int(i) if any_float => V::Float(i as f64),
                    b => b,
                }
            }
            Func::Mod => {
                let a = int(x, 0)?;
                let b = int(x, 1)?;
                match b {
                    0 => return fail(at, "division by zero".into()),
                    -1 => V::Int(0),
                    _ => V::Int(a % b),
                }
            }
            Func::Murmur2 | Func::Fnv1a => {
                let v = int(x, 0)?;
                let s = int(x, 1)? as u64;
                V::Int(if matches!(f, Func::Murmur2) {
                    hash_murmur2(v, s)
                } else {
                    hash_fnv1a(v, s)
                })
            }
            Func::Random => {
                let (lb, ub) = bounds(x)?;
                V::Int(in_range(lb, ub, x.uniform()))
            }
            Func::RandomExp | Func::RandomGauss | Func::RandomZipf => {
                let (lb, ub) = bounds(x)?;
                let p = float(x, 2)?;
                let pv = go_float(p);
                match f {
                    Func::RandomExp => {
                        if p.is_nan() || p <= 0.0 {
                            return fail(
                                at,
                                format!(
                                    "random_exponential(): parameter {pv} must be greater than 0"
                                ),
                            );
                        }
                        V::Int(random_exponential(lb, ub, p, x.uniform()))
                    }
                    Func::RandomGauss => {
                        if p.is_nan() || p < 2.0 {
                            return fail(
                                at,
                                format!("random_gaussian(): parameter {pv} must be at least 2"),
                            );
                        }
                        V::Int(random_gaussian(lb, ub, p, x))
                    }
                    _ => {
                        if !(1.001..=1000.0).contains(&p) {
                            return fail(
                                at,
                                format!(
                                    "random_zipfian(): parameter {pv} must be from 1.001 to 1000"
                                ),
                            );
                        }
                        V::Int(random_zipfian(lb, ub, p, x))
                    }
                }
            }
            Func::Key => {
                let n = x.tables.visible(*table);
                let i = pick(*keys, zipf.as_ref(), &mut x.rng, n);
                x.tables.key(*table, i)
            }
            Func::Rows => V::Int(x.tables.visible(*table)),
            Func::Hex => {
                let l = length(x, 0)?;
                if l == 0 {
                    return Ok(V::Text(String::new()));
                }
                text_of(
                    x,
                    Gen::Hex {
                        bytes: l,
                        stream: 0,
                    },
                )
            }
            Func::Letters => {
                let l = length(x, 0)?;
                text_of(x, Gen::Letters { len: l, stream: 0 })
            }
            Func::Text => {
                let lo = length(x, 0)?;
                let hi = length(x, 1)?;
                if hi < lo {
                    return fail(
                        at,
                        format!("text({lo}, {hi}): the maximum is below the minimum"),
                    );
                }
                text_of(
                    x,
                    Gen::Text {
                        min: lo,
                        max: hi,
                        stream: 0,
                    },
                )
            }
            Func::Uuid4 => text_of(x, Gen::Uuid4 { stream: 0 }),
            Func::Choice => {
                let k = (x.rng.next_u64() % args.len() as u64) as usize;
                return args[k].eval(x);
            }
        })
    }
}

fn compare_num(a: &V, b: &V) -> i32 {
    match (a, b) {
        (V::Int(a), V::Int(b)) => a.cmp(b) as i32,
        _ => compare_float(num_f(a), num_f(b)),
    }
}

fn num_f(v: &V) -> f64 {
    match v {
        V::Int(i) => *i as f64,
        V::Float(f) => *f,
        _ => 0.0,
    }
}

/// AND and OR with SQL's three values: b is evaluated only when a does not
/// decide.
fn logic(and: bool, a: V, b: &Node, at: &str, x: &mut Ctx) -> R {
    if a != V::Null && to_bool(&a, at)? != and {
        return Ok(V::Bool(!and));
    }
    let b = b.eval(x)?;
    if b == V::Null {
        return Ok(V::Null);
    }
    let bb = to_bool(&b, at)?;
    if a == V::Null {
        return Ok(if bb != and { V::Bool(bb) } else { V::Null });
    }
    Ok(V::Bool(bb))
}

fn binary(op: Bin, a: V, b: V, at: &str) -> R {
    if matches!(
        op,
        Bin::BitOr | Bin::Xor | Bin::BitAnd | Bin::Shl | Bin::Shr
    ) {
        let a = to_int(a, at)?;
        let b = to_int(b, at)?;
        let sh = (b & 63) as u32;
        return Ok(V::Int(match op {
            Bin::BitOr => a | b,
            Bin::Xor => a ^ b,
            Bin::BitAnd => a & b,
            Bin::Shl => a.wrapping_shl(sh),
            _ => a >> sh,
        }));
    }
    let a = to_number(a, at)?;
    let b = to_number(b, at)?;
    if let (V::Int(a), V::Int(b)) = (&a, &b) {
        return ints(op, *a, *b, at);
    }
    let (af, bf) = (num_f(&a), num_f(&b));
    Ok(match op {
        Bin::Add => V::Float(af + bf),
        Bin::Sub => V::Float(af - bf),
        Bin::Mul => V::Float(af * bf),
        Bin::Div => V::Float(af / bf),
        Bin::Rem => return fail(at, "% wants integers".into()),
        _ => cmp(op, compare_float(af, bf)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{decode_table, draw, Table, STREAM_KEYS};

    struct Fixed {
        seed: u64,
        tables: Vec<(Table, i64)>,
    }

    impl Tables for Fixed {
        fn visible(&self, t: usize) -> i64 {
            self.tables[t].1
        }
        fn key(&self, t: usize, i: i64) -> V {
            key_of(&self.tables[t].0, self.seed, i)
        }
    }

    /// Every expression of internal/spec/testdata/program-vectors.json,
    /// five times by a fresh worker: the same typed values, or the same
    /// error.
    #[test]
    fn program_vectors() {
        let v = crate::vectors_test::load("internal/spec/testdata/program-vectors.json");
        let p = &v["program"];
        let seed: u64 = p["seed"].as_str().unwrap().parse().unwrap();
        let ts = p["tables"].as_array().unwrap();
        let fixed = Fixed {
            seed,
            tables: ts
                .iter()
                .map(|t| {
                    let tab = decode_table(t["columns"].as_array().unwrap()).unwrap();
                    (tab, t["rows"].as_i64().unwrap())
                })
                .collect(),
        };
        let rows = |t: usize| ts.get(t).map(|t| t["rows"].as_i64().unwrap());
        let cases = v["cases"].as_array().unwrap();
        assert!(cases.len() > 100);
        let mut errors = 0;
        for c in cases {
            let w = c["worker"].as_u64().unwrap();
            let mut vars = Vec::new();
            for var in p["vars"].as_array().unwrap() {
                vars.push(match var.get("value") {
                    Some(x) => Slot {
                        v: compile(x, &rows).unwrap().eval_const(),
                        set: true,
                    },
                    None => Slot {
                        v: V::Null,
                        set: false,
                    },
                });
            }
            vars[p["client_id"].as_u64().unwrap() as usize] = Slot {
                v: V::Int(w as i64),
                set: true,
            };
            vars[p["scale"].as_u64().unwrap() as usize] = Slot {
                v: V::Int(1),
                set: true,
            };
            let mut x = Ctx {
                vars,
                rng: SplitMix {
                    state: draw(seed, STREAM_KEYS, w + 1),
                },
                tables: &fixed,
            };
            let n = compile(&c["expr"], &rows).unwrap();
            let src = c["src"].as_str().unwrap();
            if let Some(e) = c.get("error") {
                errors += 1;
                assert_eq!(n.eval(&mut x).unwrap_err().0, e.as_str().unwrap(), "{src}");
                continue;
            }
            for (k, want) in c["values"].as_array().unwrap().iter().enumerate() {
                let got = n.eval(&mut x).unwrap_or_else(|e| panic!("{src}: {e}"));
                let w = want.as_object().unwrap();
                let (kind, val) = w.iter().next().unwrap();
                let ok = match (kind.as_str(), &got) {
                    ("int", V::Int(i)) => val.as_str().unwrap() == i.to_string(),
                    ("float", V::Float(f)) => {
                        u64::from_str_radix(val.as_str().unwrap(), 16).unwrap() == f.to_bits()
                    }
                    ("bool", V::Bool(b)) => val.as_bool().unwrap() == *b,
                    ("text", V::Text(s)) => val.as_str().unwrap() == s,
                    ("null", V::Null) => true,
                    _ => false,
                };
                assert!(
                    ok,
                    "{src} (worker {}) value {k}: got {got:?}, want {want}",
                    c["worker"]
                );
            }
        }
        assert!(errors > 5);
    }

    #[test]
    fn formats() {
        assert_eq!(go_float(1e6), "1e+06");
        assert_eq!(go_float(123456.0), "123456");
        assert_eq!(go_float(2.5), "2.5");
        assert_eq!(go_float(1e-5), "1e-05");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(1e30), "1e+30");
        assert_eq!(text_value("042"), V::Text("042".into()));
        assert_eq!(text_value("-7"), V::Int(-7));
        assert_eq!(text_value("-0"), V::Text("-0".into()));
        assert_eq!(text_value("+7"), V::Text("+7".into()));
        assert_eq!(text_value("-9223372036854775808"), V::Int(i64::MIN));
        assert_eq!(go_quote("a\"b"), "\"a\\\"b\"");
    }
}
