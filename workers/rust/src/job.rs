//! A job's settings and parameters: defaults, canonical forms and the
//! refusals, with the messages of internal/settings, internal/engine/sqlite
//! and internal/workload.

use std::collections::BTreeMap;

type Canon = fn(&str) -> Result<String, String>;

/// Every setting, in display order, with its default and canonicaliser.
pub const SETTINGS: [(&str, &str, Canon); 20] = [
    ("journal", "default", journal_canon),
    ("sync", "default", sync_canon),
    ("busy-timeout", "5000", busy_timeout_canon),
    ("cache-size", "default", cache_size_canon),
    ("mmap-size", "default", mmap_size_canon),
    ("temp-store", "default", temp_store_canon),
    ("locking-mode", "default", locking_mode_canon),
    ("page-size", "default", page_size_canon),
    ("shared-cache", "false", boolean),
    ("in-memory", "false", boolean),
    ("pool", "0", pool_canon),
    ("conn-per-op", "false", boolean),
    ("prepared", "true", boolean),
    ("batch", "1000", batch_canon),
    ("rows-per-stmt", "1", rows_per_stmt_canon),
    ("tx", "deferred", tx_canon),
    ("write-mutex", "false", boolean),
    ("writer", "pool", writer_canon),
    ("busy-retry", "none", busy_retry_canon),
    ("placement", "in-process", placement_canon),
];

fn one_of(v: &str, vals: &[&str]) -> Result<String, String> {
    let l = v.to_lowercase();
    vals.iter()
        .find(|x| **x == l)
        .map(|x| x.to_string())
        .ok_or_else(|| format!("want one of {}", vals.join(", ")))
}

fn journal_canon(v: &str) -> Result<String, String> {
    one_of(
        v,
        &[
            "default", "delete", "truncate", "persist", "memory", "wal", "off",
        ],
    )
}
fn temp_store_canon(v: &str) -> Result<String, String> {
    one_of(v, &["default", "file", "memory"])
}
fn locking_mode_canon(v: &str) -> Result<String, String> {
    one_of(v, &["default", "normal", "exclusive"])
}
fn tx_canon(v: &str) -> Result<String, String> {
    one_of(v, &["deferred", "immediate"])
}
fn writer_canon(v: &str) -> Result<String, String> {
    one_of(v, &["pool", "single"])
}
fn placement_canon(v: &str) -> Result<String, String> {
    one_of(v, &["in-process", "process"])
}

fn boolean(v: &str) -> Result<String, String> {
    match v.to_lowercase().as_str() {
        "1" | "true" | "yes" | "on" | "y" => Ok("true".into()),
        "0" | "false" | "no" | "off" | "n" => Ok("false".into()),
        _ => Err("want true or false".into()),
    }
}

fn sync_canon(v: &str) -> Result<String, String> {
    Ok(match v.to_lowercase().as_str() {
        "0" | "off" => "off",
        "1" | "normal" => "normal",
        "2" | "full" => "full",
        "3" | "extra" => "extra",
        "default" => "default",
        _ => return Err("want default, off, normal, full or extra (or 0-3)".into()),
    }
    .into())
}

/// An integer with an optional k/m/g suffix (powers of 1024 for kb/mb/gb
/// and kib/mib/gib, of 1000 for k/m/g), as settings.ParseCount reads it.
pub fn parse_count(v: &str) -> Result<i64, String> {
    let mut l = v.trim().to_lowercase().replace('_', "");
    let mut mult: i64 = 1;
    for (suf, m) in [
        ("kib", 1i64 << 10),
        ("mib", 1 << 20),
        ("gib", 1 << 30),
        ("kb", 1 << 10),
        ("mb", 1 << 20),
        ("gb", 1 << 30),
        ("k", 1000),
        ("m", 1_000_000),
        ("g", 1_000_000_000),
    ] {
        if let Some(s) = l.strip_suffix(suf) {
            l = s.to_string();
            mult = m;
            break;
        }
    }
    let n: i64 = parse_go_int(&l).ok_or_else(|| "want a whole number".to_string())?;
    Ok(n.wrapping_mul(mult))
}

/// strconv.ParseInt(s, 10, 64): an optional sign and decimal digits.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn int_range(v: &str, lo: i64, hi: i64) -> Result<String, String> {
    let n = parse_count(v)?;
    if n < lo || n > hi {
        if lo == 1 {
            return Err("must be at least 1".into());
        }
        return Err(format!("must be between {lo} and {hi}"));
    }
    Ok(n.to_string())
}

fn opt_int(v: &str, lo: i64, hi: i64) -> Result<String, String> {
    if v.to_lowercase() == "default" {
        return Ok("default".into());
    }
    int_range(v, lo, hi)
}

fn busy_timeout_canon(v: &str) -> Result<String, String> {
    int_range(v, 0, (1 << 31) - 1)
}
fn cache_size_canon(v: &str) -> Result<String, String> {
    opt_int(v, -(1 << 40), 1 << 40)
}
fn mmap_size_canon(v: &str) -> Result<String, String> {
    opt_int(v, 0, 1 << 50)
}
fn pool_canon(v: &str) -> Result<String, String> {
    int_range(v, 0, 1 << 20)
}
fn batch_canon(v: &str) -> Result<String, String> {
    int_range(v, 1, 1 << 30)
}
fn rows_per_stmt_canon(v: &str) -> Result<String, String> {
    int_range(v, 1, 1 << 20)
}

fn page_size_canon(v: &str) -> Result<String, String> {
    if v.to_lowercase() == "default" {
        return Ok("default".into());
    }
    let n = parse_count(v)?;
    if !(512..=65536).contains(&n) || n & (n - 1) != 0 {
        return Err("want a power of two from 512 to 65536".into());
    }
    Ok(n.to_string())
}

fn busy_retry_canon(v: &str) -> Result<String, String> {
    let l = v.to_lowercase();
    match l.as_str() {
        "none" | "0" => Ok("none".into()),
        "until" | "forever" | "timeout" => Ok("until".into()),
        _ => match l.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n.to_string()),
            _ => Err("want none, a retry count, or until".into()),
        },
    }
}

/// Canonical settings of a run.
#[derive(Clone, Debug)]
pub struct Settings(pub BTreeMap<String, String>);

impl Settings {
    /// Defaults, then the workload's own defaults, then the job's values.
    pub fn resolve(
        workload_defaults: &[(&str, &str)],
        job: &BTreeMap<String, String>,
    ) -> Result<Settings, String> {
        let mut m: BTreeMap<String, String> = SETTINGS
            .iter()
            .map(|(k, d, _)| (k.to_string(), d.to_string()))
            .collect();
        for (k, v) in workload_defaults {
            m.insert(k.to_string(), v.to_string());
        }
        for (k, v) in job {
            let Some((_, _, canon)) = SETTINGS.iter().find(|(key, _, _)| key == k) else {
                return Err(format!(
                    "job: unknown setting {k:?} (see 'litebench list settings')"
                ));
            };
            let c = canon(v.trim()).map_err(|e| format!("job: --{k} {v:?}: {e}"))?;
            m.insert(k.clone(), c);
        }
        let s = Settings(m);
        if s.bool("in-memory") && s.get("journal") == "wal" {
            return Err("--journal wal needs a file: an in-memory database (--in-memory / mode=memory) cannot use WAL; drop one of them".into());
        }
        Ok(s)
    }

    pub fn get(&self, k: &str) -> &str {
        self.0.get(k).map(String::as_str).unwrap_or("")
    }

    pub fn int(&self, k: &str) -> i64 {
        self.get(k).parse().unwrap_or(0)
    }

    pub fn bool(&self, k: &str) -> bool {
        self.get(k) == "true"
    }

    /// -1: retry until it succeeds or the run ends.
    pub fn busy_retries(&self) -> i64 {
        match self.get("busy-retry") {
            "none" => 0,
            "until" => -1,
            v => v.parse().unwrap_or(0),
        }
    }

    /// The pragmas run on every new connection, in the Go worker's order
    /// and form (internal/engine/sqlite: Pragmas).
    pub fn pragmas(&self) -> Vec<String> {
        let mut p = Vec::new();
        for (name, key) in [
            ("page_size", "page-size"),
            ("busy_timeout", "busy-timeout"),
            ("locking_mode", "locking-mode"),
            ("journal_mode", "journal"),
            ("synchronous", "sync"),
            ("cache_size", "cache-size"),
            ("mmap_size", "mmap-size"),
            ("temp_store", "temp-store"),
        ] {
            let v = self.get(key);
            if v != "default" && !v.is_empty() {
                p.push(format!("PRAGMA {name} = {v}"));
            }
        }
        p
    }
}

/// A workload parameter, or a setting default: name and value.
pub type Param = (&'static str, &'static str);

const LOAD_PARAMS: [Param; 11] = [
    ("rows", "10000"),
    ("schema", "bench"),
    ("keys", "uniform"),
    ("zipf-theta", "0.99"),
    ("duration", "10s"),
    ("count", "0"),
    ("warmup", "0s"),
    ("rate", "0"),
    ("arrivals", "uniform"),
    ("max-inflight", "100"),
    ("seed", "1"),
];

/// The workloads this worker runs: their parameters (with defaults) and
/// their own setting defaults.
pub fn spec(workload: &str) -> Option<(Vec<Param>, Vec<Param>)> {
    let ops_defaults = vec![("batch", "1")];
    Some(match workload {
        "insert" => (
            vec![
                ("rows", "100000"),
                ("schema", "bench"),
                ("workers", "1"),
                ("seed", "1"),
                ("vacuum", "false"),
            ],
            vec![],
        ),
        "scan" => (vec![("rows", "1000000"), ("seed", "1")], vec![]),
        "read" | "write" => {
            let mut p = vec![("workers", "1")];
            if workload == "write" {
                p.push(("write-kind", "insert"));
            }
            p.extend(LOAD_PARAMS);
            (p, ops_defaults)
        }
        "mixed" => {
            let mut p = vec![
                ("readers", "1"),
                ("writers", "1"),
                ("write-ratio", "10"),
                ("write-kind", "insert"),
            ];
            p.extend(LOAD_PARAMS);
            (p, ops_defaults)
        }
        _ => return None,
    })
}

/// Workloads of the Go worker that this worker does not run.
pub const UNSUPPORTED: [&str; 2] = ["paginate", "http"];

pub const WORKLOADS: [&str; 5] = ["insert", "mixed", "read", "scan", "write"];

/// A workload's parameters: defaults, then the job's.
pub fn resolve_params(
    workload: &str,
    params: &[Param],
    job: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, String> {
    let mut p: BTreeMap<String, String> = params
        .iter()
        .map(|(k, d)| (k.to_string(), d.to_string()))
        .collect();
    for (k, v) in job {
        if !p.contains_key(k) {
            return Err(format!("job: workload {workload} has no parameter {k:?}"));
        }
        p.insert(k.clone(), v.clone());
    }
    Ok(p)
}

/// A whole-number parameter of at least lo.
pub fn p_int(p: &BTreeMap<String, String>, name: &str, lo: i64) -> Result<i64, String> {
    let v = p.get(name).map(String::as_str).unwrap_or("");
    match parse_count(v) {
        Ok(n) if n >= lo => Ok(n),
        _ => Err(format!(
            "--{name} {v:?}: want a whole number of at least {lo}"
        )),
    }
}

pub fn p_seed(p: &BTreeMap<String, String>) -> Result<u64, String> {
    // strconv.ParseUint(v, 10, 64): decimal digits only.
    let v = p.get("seed").map(String::as_str).unwrap_or("");
    match v.parse::<u64>() {
        Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(format!("--seed {v:?}: want a non-negative whole number")),
    }
}

pub fn p_bool(p: &BTreeMap<String, String>, name: &str) -> Result<bool, String> {
    let v = p.get(name).map(String::as_str).unwrap_or("");
    // strconv.ParseBool
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!("--{name} {v:?}: want true or false")),
    }
}

/// A number from lo to hi.
pub fn p_float(p: &BTreeMap<String, String>, name: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let v = p.get(name).map(String::as_str).unwrap_or("");
    match v.parse::<f64>() {
        Ok(f) if f >= lo && f <= hi => Ok(f),
        _ => Err(format!(
            "--{name} {v:?}: want a number from {} to {}",
            crate::expr::go_float(lo),
            crate::expr::go_float(hi)
        )),
    }
}

/// A duration such as 500ms, 10s or 2m (Go's time.ParseDuration), in ns.
pub fn p_duration(p: &BTreeMap<String, String>, name: &str) -> Result<i64, String> {
    let v = p.get(name).map(String::as_str).unwrap_or("");
    match parse_duration(v) {
        Some(d) if d >= 0 => Ok(d),
        _ => Err(format!(
            "--{name} {v:?}: want a duration such as 500ms, 10s or 2m"
        )),
    }
}

/// Go's time.ParseDuration.
pub fn parse_duration(s: &str) -> Option<i64> {
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..num_end];
        if num.is_empty() || num == "." {
            return None;
        }
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let mult = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        total += num.parse::<f64>().ok()? * mult;
    }
    if total > i64::MAX as f64 {
        return None;
    }
    Some(if neg { -(total as i64) } else { total as i64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canon() {
        let mut job = BTreeMap::new();
        job.insert("sync".to_string(), "1".to_string());
        job.insert("batch".to_string(), "10k".to_string());
        job.insert("busy-retry".to_string(), "forever".to_string());
        let s = Settings::resolve(&[("batch", "1")], &job).unwrap();
        assert_eq!(s.get("sync"), "normal");
        assert_eq!(s.int("batch"), 10000);
        assert_eq!(s.busy_retries(), -1);
        assert_eq!(
            s.pragmas(),
            vec!["PRAGMA busy_timeout = 5000", "PRAGMA synchronous = normal"]
        );
        job.insert("colour".to_string(), "red".to_string());
        assert!(Settings::resolve(&[], &job)
            .unwrap_err()
            .contains("unknown setting \"colour\""));
        let mut bad = BTreeMap::new();
        bad.insert("batch".to_string(), "0".to_string());
        assert_eq!(
            Settings::resolve(&[], &bad).unwrap_err(),
            "job: --batch \"0\": must be at least 1"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1m30s"), Some(90_000_000_000));
        assert_eq!(parse_duration("500ms"), Some(500_000_000));
        assert_eq!(parse_duration("0"), Some(0));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(crate::expr::go_float(1e9), "1e+09");
        assert_eq!(crate::expr::go_float(100.0), "100");
        assert_eq!(crate::expr::go_float(0.0), "0");
    }
}
