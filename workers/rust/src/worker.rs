//! One job: resolving it, setting it up (open, stamp, read back, load) and
//! running it (intervals, acks, the final event), as internal/worker's
//! Local does.

use crate::ctx::{now, Ctx};
use crate::db::{Endpoint, Policy, Pool, Session};
use crate::env::{Env, RunError, CORES, NONE, SECONDS};
use crate::insert::{self, Insert};
use crate::job::{self, p_bool, p_int, p_seed, Settings};
use crate::metrics::{encode, merge, summarise, take_interval};
use crate::ops::{p_schema, Ops};
use crate::own;
use crate::program::Program;
use crate::proto::Out;
use crate::scan::{self, Scan};
use crate::schema::{quote_ident, MAX_PARAMS};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

/// The target this worker is.
pub const TARGET: &str = "rust-rusqlite";

pub enum Workload {
    Insert(Insert),
    Scan(Scan),
    Ops(Ops),
    Program(Box<Program>),
}

impl Workload {
    pub fn ops(&self) -> &'static [&'static str] {
        match self {
            Workload::Insert(_) => &insert::OPS,
            Workload::Scan(_) => &scan::OPS,
            Workload::Ops(_) => &crate::ops::OPS,
            Workload::Program(p) => p.ops(),
        }
    }

    /// The tables and indexes the workload creates besides the built-in
    /// schemas' (a workload file's), for the ownership rule.
    fn tables(&self) -> Vec<String> {
        match self {
            Workload::Program(p) => p.tables(),
            _ => Vec::new(),
        }
    }

    /// The transaction op k is a part of: "" for an op of its own (parts
    /// are in the final event only).
    fn part_of(&self, k: usize) -> &str {
        match self {
            Workload::Program(p) => p.part_of(k),
            _ => "",
        }
    }

    fn setup(&self, ctx: &Ctx, env: &Env) -> Result<(), String> {
        match self {
            Workload::Insert(w) => w.setup(env),
            Workload::Scan(w) => w.setup(ctx, env),
            Workload::Ops(w) => w.setup(ctx, env),
            Workload::Program(w) => w.setup(ctx, env),
        }
    }

    fn run(&self, ctx: &Ctx, env: &Env) -> Result<(), RunError> {
        match self {
            Workload::Insert(w) => w.run(ctx, env),
            Workload::Scan(w) => w.run(ctx, env),
            Workload::Ops(w) => w.run(ctx, env),
            Workload::Program(w) => w.run(ctx, env),
        }
    }
}

/// A job as the controller sends it.
pub struct Job {
    pub settings: Settings,
    pub path: String,
    pub interval_ns: i64,
    pub acks: bool,
    pub attach: bool,
    pub digest: bool,
}

fn str_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, String> {
    let mut m = BTreeMap::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            for (k, v) in o {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("job: {what} {k:?} is not a string"))?;
                m.insert(k.clone(), s.to_string());
            }
        }
        Some(_) => return Err(format!("job: {what} is not an object of strings")),
    }
    Ok(m)
}

/// Checks rows per statement against SQLite's bound-variable limit.
pub fn check_rows_per_stmt(sc: &crate::schema::Schema, rps: i64) -> Result<(), String> {
    let cols = sc.gen.len() as i64;
    let n = rps * cols;
    if n > MAX_PARAMS as i64 {
        return Err(format!(
            "--rows-per-stmt {rps} × {cols} columns of {} = {n} bound variables, past SQLite's limit of {MAX_PARAMS}; use --rows-per-stmt {} or less",
            sc.name,
            MAX_PARAMS as i64 / cols
        ));
    }
    Ok(())
}

/// Builds the workload and settings a job names, with every default
/// filled in; refuses what this worker cannot honour.
pub fn resolve(j: &Value) -> Result<(Job, Workload), String> {
    let workload = j
        .get("workload")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(p) = j.get("program").filter(|p| !p.is_null()) {
        // A workload file or scripts, compiled: the program says it all.
        let settings = Settings::resolve(&[], &str_map(j.get("settings"), "setting")?)?;
        check_target(j)?;
        let w = Workload::Program(Box::new(Program::new(p, &settings)?));
        return Ok((job_of(j, settings), w));
    }
    let Some((params, setting_defaults)) = job::spec(&workload) else {
        if job::UNSUPPORTED.contains(&workload.as_str()) {
            return Err(format!(
                "workload {workload:?} is not supported by the {TARGET} worker (it runs {})",
                job::WORKLOADS.join(", ")
            ));
        }
        return Err(format!(
            "unknown workload {workload:?} (known: {})",
            job::WORKLOADS.join(", ")
        ));
    };
    let settings = Settings::resolve(&setting_defaults, &str_map(j.get("settings"), "setting")?)?;
    let p = job::resolve_params(&workload, &params, &str_map(j.get("params"), "parameter")?)?;
    check_target(j)?;
    let w = match workload.as_str() {
        "insert" => {
            let schema = p_schema(&p)?;
            let rows = p_int(&p, "rows", 1)?;
            let workers = p_int(&p, "workers", 1)?;
            let seed = p_seed(&p)?;
            check_rows_per_stmt(schema, settings.int("rows-per-stmt"))?;
            let vacuum = p_bool(&p, "vacuum")?;
            Workload::Insert(Insert {
                schema,
                rows,
                workers: workers as usize,
                seed,
                vacuum,
            })
        }
        "scan" => Workload::Scan(Scan {
            rows: p_int(&p, "rows", 1)?,
            seed: p_seed(&p)?,
        }),
        name => Workload::Ops(Ops::new(name, &p, settings.int("batch"))?),
    };
    Ok((job_of(j, settings), w))
}

fn check_target(j: &Value) -> Result<(), String> {
    let target = j.get("target").and_then(Value::as_str).unwrap_or("");
    if !target.is_empty() && target != TARGET {
        return Err(format!("target {target:?}: this worker runs {TARGET}"));
    }
    Ok(())
}

/// The job's members other than its workload.
fn job_of(j: &Value, settings: Settings) -> Job {
    Job {
        settings,
        path: j
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        interval_ns: j.get("interval_ns").and_then(Value::as_i64).unwrap_or(0),
        acks: j.get("acks").and_then(Value::as_bool).unwrap_or(false),
        attach: j.get("attach").and_then(Value::as_bool).unwrap_or(false),
        digest: j.get("digest").and_then(Value::as_bool).unwrap_or(false),
    }
}

/// '?', '#' and '%' end or escape the path part of a URI.
fn escape_path(p: &str) -> String {
    let mut s = String::with_capacity(p.len());
    for c in p.chars() {
        match c {
            '?' | '#' | '%' => s.push_str(&format!("%{:02X}", c as u32)),
            _ => s.push(c),
        }
    }
    s
}

/// The endpoint of the job's database, as internal/engine/sqlite renders
/// its URI filename.
fn endpoint(job: &Job) -> Endpoint {
    let memory = job.settings.bool("in-memory");
    let mut q = Vec::new();
    if memory {
        q.push("mode=memory");
    }
    if job.settings.bool("shared-cache") || memory {
        q.push("cache=shared");
    }
    let mut uri = format!("file:{}", escape_path(&job.path));
    if !q.is_empty() {
        uri = format!("{uri}?{}", q.join("&"));
    }
    Endpoint {
        uri,
        in_memory: memory,
        init: job.settings.pragmas(),
    }
}

/// Content digest of every user table (see the protocol doc).
pub fn digest(db: &Pool) -> Result<String, String> {
    let tables = db
        .strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        .map_err(|e| e.to_string())?;
    let mut h = Sha256::new();
    for t in tables {
        let cols = db
            .with_conn(|c| {
                let mut st = c
                    .db()
                    .prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")?;
                let names = st.query_map([&t], |r| r.get::<_, String>(0))?;
                Ok(names.collect::<Result<Vec<_>, _>>()?)
            })
            .map_err(|e| e.to_string())?;
        h.update(format!("table {t}\n").as_bytes());
        if cols.is_empty() {
            continue;
        }
        let exprs: Vec<String> = cols
            .iter()
            .map(|c| format!("quote({})", quote_ident(c)))
            .collect();
        let q = format!(
            "SELECT {} FROM {} ORDER BY 1",
            exprs.join("||','||"),
            quote_ident(&t)
        );
        db.with_conn(|c| {
            let mut st = c.db().prepare(&q)?;
            let mut rows = st.raw_query();
            while let Some(r) = rows.next()? {
                h.update(r.get_ref(0)?.as_bytes()?);
                h.update(b"\n");
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    }
    Ok(format!("sha256:{}", hex(&h.finalize())))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02x}")).collect()
}

/// A job set up and ready to run.
pub struct Prepared {
    job: Job,
    wl: Workload,
    env: Env,
}

/// Opens the database, stamps it, reads back what SQLite runs and sets the
/// workload up; returns the setup_done event.
pub fn setup(ctx: &Ctx, j: &Value) -> Result<(Prepared, Value), String> {
    let (job, wl) = resolve(j)?;
    let memory = job.settings.bool("in-memory");
    if !memory {
        own::check(&job.path, job.attach, &wl.tables())?;
    }
    let t0 = now();
    let s = &job.settings;
    let policy = Policy {
        max_open: s.int("pool") as usize,
        conn_per_op: s.bool("conn-per-op"),
        tx_immediate: s.get("tx") == "immediate",
        prepared: s.bool("prepared"),
        single_writer: s.get("writer") == "single",
        write_mutex: s.bool("write-mutex"),
        retries: s.busy_retries(),
    };
    let sess = Session::open(endpoint(&job), policy)
        .map_err(|e| format!("open {} with {TARGET}: {e}", job.path))?;
    let db = sess.db().clone();
    if !job.attach && !memory {
        db.exec(&format!("PRAGMA application_id = {}", own::BENCH_APP_ID))
            .map_err(|e| format!("mark {}: {e}", job.path))?;
    }
    let mut ev = Map::new();
    ev.insert("t".into(), "setup_done".into());
    ev.insert("client".into(), TARGET.into());
    ev.insert("engine".into(), "sqlite".into());
    if let Ok(v) = db.strings("select sqlite_version()") {
        if let Some(v) = v.first() {
            ev.insert("engine_version".into(), v.clone().into());
        }
    }
    if let Ok(opts) = db.strings("PRAGMA compile_options") {
        ev.insert("compile_options".into(), json!(opts));
    }
    if let Ok(jm) = db.strings("PRAGMA journal_mode") {
        if let Some(got) = jm.first() {
            let got = got.to_lowercase();
            let want = s.get("journal");
            if want != "default" && got != want && !memory {
                ev.insert(
                    "notes".into(),
                    json!([format!("asked for journal_mode {want}, SQLite runs {got}")]),
                );
            }
            ev.insert("journal_mode".into(), got.into());
        }
    }
    let env = Env::new(sess, job.settings.clone(), job.attach, job.interval_ns > 0);
    if !job.attach {
        wl.setup(ctx, &env).map_err(|e| format!("setup: {e}"))?;
    }
    if job.digest {
        let d = digest(&db).map_err(|e| format!("digest after setup: {e}"))?;
        ev.insert("digest".into(), d.into());
    }
    ev.insert("setup_ms".into(), json!(((now() - t0) / 1000) as f64 / 1e3));
    env.done.store(0, std::sync::atomic::Ordering::Relaxed);
    Ok((Prepared { job, wl, env }, Value::Object(ev)))
}

/// An interval: the ops that saw anything, but for parts (statements'
/// own results are in the final event only).
fn interval_event(
    at: i64,
    start: i64,
    from: i64,
    done: i64,
    ops: &[&str],
    parts: &[bool],
    env: &Env,
) -> Value {
    let samples = take_interval(ops.len(), &env.lives());
    let mut ev = Map::new();
    ev.insert("t".into(), "interval".into());
    ev.insert("at_s".into(), json!((at - start) as f64 / 1e9));
    ev.insert("span_s".into(), json!((at - from) as f64 / 1e9));
    if done != 0 {
        ev.insert("done".into(), done.into());
    }
    let mut list = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        if s.count == 0 && s.errors == 0 || parts[i] {
            continue;
        }
        let mut o = Map::new();
        o.insert("name".into(), ops[i].into());
        o.insert("n".into(), s.count.into());
        if s.errors != 0 {
            o.insert("err".into(), s.errors.into());
        }
        let h = encode(&s.hist);
        if !h.is_empty() {
            o.insert("hist".into(), h.into());
        }
        list.push(Value::Object(o));
    }
    if !list.is_empty() {
        ev.insert("ops".into(), Value::Array(list));
    }
    Value::Object(ev)
}

impl Prepared {
    /// Measures the job and returns the final event; intervals and acks go
    /// out as they happen.
    pub fn run(&mut self, ctx: &Ctx, out: &Out) -> Value {
        if self.job.acks {
            let out = out.clone();
            self.env.ack = Some(Box::new(move |first, n| {
                out.send(&json!({"t": "ack", "seqs": [first], "rows": [n]}));
            }));
        }
        let env = &self.env;
        let start = now();
        env.mark_start(start);
        let ops = self.wl.ops();
        let parts: Vec<bool> = (0..ops.len())
            .map(|k| !self.wl.part_of(k).is_empty())
            .collect();
        let parts = &parts;
        let every = self.job.interval_ns;
        let (stop_tx, stop_rx) = channel::<()>();
        let run_err = std::thread::scope(|s| {
            if every > 0 {
                let out = out.clone();
                s.spawn(move || {
                    crate::ctx::own_fd_table();
                    let mut last = 0i64;
                    let mut next = now() + every;
                    let tick = |t: i64, last: &mut i64| {
                        let st = env.started();
                        if st == 0 || t < st {
                            // Warm-up: nothing to report. Live recorders
                            // record only measured operations, so what they
                            // hand over after this read of the start goes
                            // to the first interval, not lost.
                            return;
                        }
                        let from = if *last > st { *last } else { st };
                        *last = t;
                        let done = env.done.load(std::sync::atomic::Ordering::Relaxed);
                        out.send(&interval_event(t, st, from, done, ops, parts, env));
                    };
                    loop {
                        let wait = (next - now()).max(0);
                        match stop_rx.recv_timeout(Duration::from_nanos(wait as u64)) {
                            Err(RecvTimeoutError::Timeout) => {
                                let t = now();
                                tick(t, &mut last);
                                while next <= t {
                                    next += every;
                                }
                            }
                            _ => {
                                // A last, partial interval, however short,
                                // as the Go worker sends it: the intervals
                                // add up to the final counts (the recorders
                                // published everything before the stop),
                                // and short runs have a series too.
                                tick(now(), &mut last);
                                return;
                            }
                        }
                    }
                });
            }
            let r = self.wl.run(ctx, env);
            let _ = stop_tx.send(());
            r
        });
        let mut end = env.end();
        if end == 0 {
            end = now();
        }
        let start = match env.started() {
            0 => start,
            s => s,
        };
        let mut fin = Map::new();
        fin.insert("t".into(), "final".into());
        fin.insert(
            "elapsed_s".into(),
            json!((end - start - env.excluded()) as f64 / 1e9),
        );
        fin.insert(
            "done".into(),
            env.done.load(std::sync::atomic::Ordering::Relaxed).into(),
        );
        let mut recs = env.take_recorders();
        let mut final_ops = Vec::new();
        for m in merge(ops, &mut recs) {
            let mut o = Map::new();
            o.insert("name".into(), m.name.into());
            if let Some(k) = ops.iter().position(|n| *n == m.name) {
                let of = self.wl.part_of(k);
                if !of.is_empty() {
                    o.insert("of".into(), of.into());
                }
            }
            o.insert("count".into(), m.count.into());
            if !m.errors.is_empty() {
                let e: Map<String, Value> = m
                    .errors
                    .iter()
                    .map(|(k, n)| (k.to_string(), (*n).into()))
                    .collect();
                o.insert("errors".into(), Value::Object(e));
            }
            for (k, v) in [
                ("retries", m.retries),
                ("late", m.late),
                ("overrun", m.overrun),
            ] {
                if v != 0 {
                    o.insert(k.into(), v.into());
                }
            }
            o.insert("service".into(), Value::Object(summarise(&m.service)));
            let h = encode(&m.service);
            if !h.is_empty() {
                o.insert("hist".into(), h.into());
            }
            if let Some(r) = &m.response {
                o.insert("response".into(), Value::Object(summarise(r)));
                let h = encode(r);
                if !h.is_empty() {
                    o.insert("resp_hist".into(), h.into());
                }
            }
            final_ops.push(Value::Object(o));
        }
        if !final_ops.is_empty() {
            fin.insert("final_ops".into(), Value::Array(final_ops));
        }
        let mut metrics: Vec<Value> = env
            .take_figures()
            .into_iter()
            .map(|f| {
                let mut m = json!({"name": f.name, "unit": f.unit, "value": f.value});
                if f.better != NONE {
                    m["better"] = f.better.into();
                }
                m
            })
            .collect();
        if let Some(cores) = env.process_cpu() {
            metrics.push(json!({"name": "process_cpu", "unit": CORES, "value": cores}));
        }
        if env.excluded() > 0 {
            metrics.push(
                json!({"name": "generate", "unit": SECONDS, "value": env.excluded() as f64 / 1e9}),
            );
        }
        if !metrics.is_empty() {
            fin.insert("metrics".into(), Value::Array(metrics));
        }
        let notes = env.notes();
        if !notes.is_empty() {
            fin.insert("notes".into(), json!(notes));
        }
        fin.insert("connections_opened".into(), env.sess.opened_conns().into());
        let mut run_err = run_err;
        if run_err.is_ok() && !ctx.done() && self.job.digest {
            match digest(env.sess.db()) {
                Ok(d) => {
                    fin.insert("digest".into(), d.into());
                }
                Err(e) => run_err = Err(RunError::Failed(format!("digest after run: {e}"))),
            }
        }
        let status = match run_err {
            Err(RunError::Cancelled) => "interrupted",
            Ok(()) if ctx.done() => "interrupted",
            Err(RunError::Failed(e)) => {
                fin.insert("error".into(), e.into());
                "failed"
            }
            Ok(()) => "ok",
        };
        fin.insert("status".into(), status.into());
        Value::Object(fin)
    }

    pub fn close(&self) {
        self.env.sess.close();
    }
}

/// The workloads' parameters and setting defaults, for --describe.
pub fn describe() -> Value {
    let mut m = Map::new();
    for w in job::WORKLOADS {
        let (params, defaults) = job::spec(w).expect("a known workload");
        let p: Map<String, Value> = params
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        let s: Map<String, Value> = defaults
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        m.insert(w.into(), json!({"params": p, "settings": s}));
    }
    Value::Object(m)
}
