//! The read, write and mixed workloads (internal/workload/ops.go): point
//! reads by primary key and single-row (or --batch row) inserts, updates or
//! upserts, closed loop or open loop, on the rows loaded in set-up.

use crate::ctx::Ctx;
use crate::db::{classify, DbError, Session, Stmt, Writer};
use crate::env::{Env, RunError, NONE, OPS_PER_S, ROWS};
use crate::gen::{write_op, Arrivals, KeyGen, KeyKind, RowBuf, Val, Zipf};
use crate::insert::create_schema;
use crate::job::{p_duration, p_float, p_int, p_seed};
use crate::loadgen::{self, Config, Executor, OpError};
use crate::metrics::{err_kind, value_at_percentile, Recorder};
use crate::scan::preload;
use crate::schema::Schema;
use rusqlite::types::ValueRef;
use rusqlite::Statement;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering::SeqCst};

pub const OPS: [&str; 2] = ["read", "write"];
const OP_READ: usize = 0;
const OP_WRITE: usize = 1;

#[derive(Clone, Copy, PartialEq, Eq)]
enum WriteKind {
    Insert,
    Update,
    Upsert,
}

pub struct Ops {
    schema: &'static Schema,
    rows: i64,
    keys: KeyKind,
    kind: WriteKind,
    writers: usize,
    ratio: f64,
    cfg: Config,
    seed: u64,
    batch: usize,
    zipf: Option<Zipf>,
    upd_idx: Vec<usize>,
}

/// The schema a --schema parameter names.
pub fn p_schema(p: &BTreeMap<String, String>) -> Result<&'static Schema, String> {
    let v = p.get("schema").map(String::as_str).unwrap_or("");
    crate::schema::get(v).ok_or_else(|| {
        format!("--schema {v:?}: unknown schema (known: account, bench, foo, pages, users)")
    })
}

impl Ops {
    /// Builds a read, write or mixed workload from its parameters.
    pub fn new(name: &str, p: &BTreeMap<String, String>, batch: i64) -> Result<Ops, String> {
        let schema = p_schema(p)?;
        let rows = p_int(p, "rows", 0)?;
        let seed = p_seed(p)?;
        let keys_s = p.get("keys").map(String::as_str).unwrap_or("");
        let theta_s = p.get("zipf-theta").map(String::as_str).unwrap_or("");
        let theta: f64 = theta_s
            .parse()
            .map_err(|_| format!("--zipf-theta {theta_s:?}: want a number between 0 and 1"))?;
        let keys = KeyKind::parse(keys_s)
            .ok_or_else(|| format!("--keys {keys_s:?}: want uniform, zipfian or latest"))?;
        if !(theta > 0.0 && theta < 1.0) {
            return Err(format!(
                "--zipf-theta {theta}: want a number between 0 and 1 (exclusive; YCSB uses 0.99)"
            ));
        }
        let kind = match p.get("write-kind").map(String::as_str).unwrap_or("") {
            "" | "insert" => WriteKind::Insert,
            "update" => WriteKind::Update,
            "upsert" => WriteKind::Upsert,
            k => return Err(format!("--write-kind {k:?}: want insert, update or upsert")),
        };
        let mut cfg = load_config(p, seed)?;
        let (readers, writers, ratio) = match name {
            "read" => (p_int(p, "workers", 1)? as usize, 0, 0.0),
            "write" => (0, p_int(p, "workers", 1)? as usize, 100.0),
            _ => {
                let r = p_int(p, "readers", 0)?;
                let w = p_int(p, "writers", 0)?;
                let ratio = p_float(p, "write-ratio", 0.0, 100.0)?;
                if cfg.rate == 0.0 && r + w == 0 {
                    return Err("--readers 0 --writers 0: nothing to run; give at least one reader or writer".into());
                }
                (r as usize, w as usize, ratio)
            }
        };
        if (readers > 0 || kind != WriteKind::Insert)
            && rows == 0
            && (name != "write" || kind != WriteKind::Insert)
        {
            return Err(
                "--rows 0: reads and updates need rows to pick from; load some with --rows N"
                    .into(),
            );
        }
        let zipf = (keys != KeyKind::Uniform).then(|| Zipf::new(rows.max(1), theta));
        if cfg.rate == 0.0 {
            cfg.roles = std::iter::repeat_n(OP_READ, readers)
                .chain(std::iter::repeat_n(OP_WRITE, writers))
                .collect();
        }
        Ok(Ops {
            schema,
            rows,
            keys,
            kind,
            writers,
            ratio,
            cfg,
            seed,
            batch: batch.max(1) as usize,
            zipf,
            upd_idx: schema.update_idx(),
        })
    }

    pub fn setup(&self, ctx: &Ctx, env: &Env) -> Result<(), String> {
        create_schema(&env.sess, self.schema)?;
        preload(ctx, env, self.schema, self.seed, self.rows)
            .map_err(|e| format!("loading {} rows: {e}", self.rows))?;
        env.figure("table_rows_before", ROWS, NONE, self.rows as f64);
        Ok(())
    }

    fn write_sql(&self) -> String {
        match self.kind {
            WriteKind::Update => self.schema.update_sql(),
            WriteKind::Upsert => self.schema.upsert_sql(),
            WriteKind::Insert => self.schema.insert_sql(1),
        }
    }

    pub fn run(&self, ctx: &Ctx, env: &Env) -> Result<(), RunError> {
        let cfg = &self.cfg;
        let executors = if cfg.rate > 0.0 {
            cfg.max_inflight
        } else {
            cfg.roles.len()
        };
        let sess = &env.sess;
        let claims = Claims::new(self.rows, executors);
        let read = sess
            .prepare(&self.schema.select_sql(), false)
            .map_err(|e| RunError::Failed(e.to_string()))?;
        let write = if self.writers > 0 || self.ratio > 0.0 {
            Some(
                sess.prepare(&self.write_sql(), true)
                    .map_err(|e| RunError::Failed(e.to_string()))?,
            )
        } else {
            None
        };
        let sh = Shared {
            w: self,
            sess,
            claims: &claims,
            read,
            write,
            env,
        };
        let ratio = self.ratio;
        let seed = self.seed;
        let choose = move |seq: u64| {
            if write_op(seed, seq, ratio) {
                OP_WRITE
            } else {
                OP_READ
            }
        };
        let sh_ref = &sh;
        let new_executor = move |i: usize| -> Result<Box<dyn Executor + '_>, String> {
            sh_ref.executor(i).map(|e| Box::new(e) as Box<dyn Executor>)
        };
        let (st, r) = loadgen::run(ctx, env, cfg, &choose, &new_executor);
        env.set_end(st.end);
        sh.read.close();
        if let Some(w) = &sh.write {
            w.close();
        }
        load_figures(env, cfg, &st);
        let n = claims.claimed();
        if n > self.rows {
            env.figure("rows_inserted", ROWS, NONE, (n - self.rows) as f64);
        }
        // The table's row count after the run, as seed 004 prints it (not
        // measured: the clock stopped at the end of the load).
        if let Ok(n) = sess
            .db()
            .int(&format!("SELECT count(*) FROM {}", self.schema.name))
        {
            env.figure("table_rows_after", ROWS, NONE, n as f64);
        }
        r
    }
}

/// The open loop's figures: the rate wanted and issued, how late
/// operations started, the executors it took.
pub fn load_figures(env: &Env, cfg: &Config, st: &loadgen::Stats) {
    if cfg.rate > 0.0 {
        env.figure("wanted_rate", OPS_PER_S, NONE, cfg.rate);
        if let Some(lag) = &st.lag {
            if !lag.is_empty() {
                env.figure(
                    "sched_lag_p99",
                    crate::env::MICROS,
                    NONE,
                    value_at_percentile(lag, 99.0) as f64 / 1e3,
                );
            }
        }
        let el = (st.end - st.start) as f64 / 1e9;
        if el > 0.0 {
            env.figure("issued_rate", OPS_PER_S, NONE, st.issued as f64 / el);
        }
        env.figure("executors", "executors", NONE, st.executors as f64);
    }
}

/// The load-model parameters every operation workload shares.
fn load_config(p: &BTreeMap<String, String>, seed: u64) -> Result<Config, String> {
    let mut duration = p_duration(p, "duration")?;
    let warmup = p_duration(p, "warmup")?;
    let count = p_int(p, "count", 0)?;
    if count > 0 {
        duration = 0;
    } else if duration <= 0 {
        return Err(format!(
            "--duration {}: want a positive duration, or set --count",
            p.get("duration").map(String::as_str).unwrap_or("")
        ));
    }
    let rate = p_float(p, "rate", 0.0, 1e9)?;
    let arrivals = match p.get("arrivals").map(String::as_str).unwrap_or("") {
        "uniform" => Arrivals::Uniform,
        "poisson" => Arrivals::Poisson,
        a => return Err(format!("--arrivals {a:?}: want uniform or poisson")),
    };
    let max_inflight = p_int(p, "max-inflight", 1)? as usize;
    Ok(Config {
        ops: OPS.len(),
        roles: Vec::new(),
        rate,
        arrivals,
        max_inflight,
        duration,
        warmup,
        count,
        seed,
    })
}

/// A counter on a cache line of its own.
#[repr(align(64))]
struct Padded(AtomicI64);

const IDLE: i64 = i64::MAX;

/// Row indexes of inserts, handed out without a lock: each writer claims
/// its rows with one atomic add and publishes its insert in flight in a
/// slot of its own; reads pick rows below the oldest insert in flight.
pub struct Claims {
    next: Padded,
    visible: Padded,
    slots: Vec<Padded>,
}

impl Claims {
    pub fn new(rows: i64, executors: usize) -> Claims {
        Claims {
            next: Padded(AtomicI64::new(rows)),
            visible: Padded(AtomicI64::new(rows)),
            slots: (0..executors)
                .map(|_| Padded(AtomicI64::new(IDLE)))
                .collect(),
        }
    }

    pub fn claim(&self, slot: usize, n: i64) -> i64 {
        let s = &self.slots[slot].0;
        // Publish a lower bound of the claim before making it.
        s.store(self.next.0.load(SeqCst), SeqCst);
        let first = self.next.0.fetch_add(n, SeqCst);
        s.store(first, SeqCst);
        first
    }

    pub fn release(&self, slot: usize) {
        self.slots[slot].0.store(IDLE, SeqCst);
        let mut lo = self.next.0.load(SeqCst);
        for s in &self.slots {
            lo = lo.min(s.0.load(SeqCst));
        }
        let mut v = self.visible.0.load(SeqCst);
        while lo > v {
            match self.visible.0.compare_exchange(v, lo, SeqCst, SeqCst) {
                Ok(_) => break,
                Err(cur) => v = cur,
            }
        }
    }

    pub fn visible(&self) -> i64 {
        self.visible.0.load(SeqCst)
    }

    /// Chooses the rows a write writes, once (so that a retry writes the
    /// same rows): new rows for an insert (release the slot after it),
    /// else rows that exist now, key(n) picking among n (upserts pick among
    /// a tenth more: some insert).
    pub fn choose(
        &self,
        slot: usize,
        insert: bool,
        upsert: bool,
        idx: &mut [i64],
        mut key: impl FnMut(i64) -> i64,
    ) {
        if insert {
            let first = self.claim(slot, idx.len() as i64);
            for (k, x) in idx.iter_mut().enumerate() {
                *x = first + k as i64;
            }
            return;
        }
        let mut span = self.visible();
        if upsert {
            span += span / 10;
        }
        for x in idx.iter_mut() {
            *x = key(span);
        }
    }

    /// The executors that can claim rows.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Rows loaded or claimed so far.
    pub fn claimed(&self) -> i64 {
        self.next.0.load(SeqCst)
    }
}

/// What the executors of one run share.
struct Shared<'a> {
    w: &'a Ops,
    sess: &'a Session,
    claims: &'a Claims,
    read: Stmt,
    write: Option<Stmt>,
    env: &'a Env,
}

impl<'a> Shared<'a> {
    fn executor(&'a self, i: usize) -> Result<OpsExecutor<'a>, String> {
        if i >= self.claims.slots.len() {
            return Err(format!(
                "executor {i} past the {} planned",
                self.claims.slots.len()
            ));
        }
        let w = self.w;
        Ok(OpsExecutor {
            sh: self,
            slot: i,
            keys: KeyGen::new(w.keys, w.zipf.as_ref(), w.seed, i),
            row: RowBuf::default(),
            key: RowBuf::default(),
            ints: vec![0; w.schema.gen.len()],
            texts: vec![Vec::with_capacity(64); w.schema.gen.len()],
            idx: vec![0; w.batch],
            wr: self.sess.writer(),
            seq_key: w.schema.gen.seq_start(0),
        })
    }
}

/// One worker's reads and writes; nothing allocated per operation.
struct OpsExecutor<'a> {
    sh: &'a Shared<'a>,
    slot: usize,
    keys: KeyGen<'a>,
    row: RowBuf,
    key: RowBuf,
    /// Where reads scan integers and text, reused.
    ints: Vec<i64>,
    texts: Vec<Vec<u8>>,
    idx: Vec<i64>,
    wr: Writer<'a>,
    /// The key column's first value when it is a sequence (the bench
    /// table's ID): row i's key is then that plus i, without a call to
    /// the generator.
    seq_key: Option<i64>,
}

pub fn bind_val(st: &mut Statement<'_>, j: usize, buf: &RowBuf, v: Val) -> rusqlite::Result<()> {
    match v {
        Val::Int(x) => st.raw_bind_parameter(j, x),
        t @ Val::Text(..) => st.raw_bind_parameter(j, buf.str_of(t)),
    }
}

impl OpsExecutor<'_> {
    /// Passes the engine's expected errors on to be counted; anything else
    /// ends the run.
    fn classify(&self, e: DbError) -> OpError {
        let c = classify(&e);
        if c.fatal() {
            OpError::Fatal(e.to_string())
        } else {
            OpError::Counted(err_kind(c.name()))
        }
    }

    fn read(&mut self) -> Result<(), OpError> {
        let w = self.sh.w;
        let i = self.keys.next_key(self.sh.claims.visible());
        // An integer key is bound as it is, a text key from the key buffer.
        let int_key = match self.seq_key {
            Some(start) => Some(start.wrapping_add(i)),
            None => (!w.schema.gen.is_text(0)).then(|| w.schema.gen.int(0, w.seed, i)),
        };
        if int_key.is_none() {
            w.schema.key(w.seed, i, &mut self.key);
        }
        let mut found = false;
        let key = &self.key;
        let (ints, texts) = (&mut self.ints, &mut self.texts);
        let r = self.sh.sess.query(
            &self.sh.read,
            &mut |st: &mut Statement<'_>| match int_key {
                Some(k) => st.raw_bind_parameter(1, k),
                None => bind_val(st, 1, key, key.vals[0]),
            },
            &mut |row: &rusqlite::Row<'_>| {
                found = true;
                for (k, (iv, tv)) in ints.iter_mut().zip(texts.iter_mut()).enumerate() {
                    match row.get_ref(k)? {
                        ValueRef::Integer(v) => *iv = v,
                        ValueRef::Text(t) | ValueRef::Blob(t) => {
                            tv.clear();
                            tv.extend_from_slice(t);
                        }
                        ValueRef::Real(f) => *iv = f as i64,
                        ValueRef::Null => tv.clear(),
                    }
                }
                Ok(())
            },
        );
        if let Err(e) = r {
            return Err(self.classify(e));
        }
        if !found {
            return Err(OpError::Counted(err_kind("missing")));
        }
        Ok(())
    }

    /// One write operation: --batch rows in one transaction (or one
    /// autocommit statement), retried per --busy-retry.
    fn write(&mut self) -> (i64, Result<(), OpError>) {
        let w = self.sh.w;
        let claims = self.sh.claims;
        let inserting = w.kind == WriteKind::Insert;
        let keys = &mut self.keys;
        claims.choose(
            self.slot,
            inserting,
            w.kind == WriteKind::Upsert,
            &mut self.idx,
            |n| keys.next_key(n),
        );
        let mut retries = 0i64;
        let r = loop {
            match self.write_once() {
                Ok(()) => {
                    if let Some(ack) = &self.sh.env.ack {
                        ack(self.idx[0], self.idx.len() as i64);
                    }
                    break Ok(());
                }
                Err(e) => {
                    if !self.sh.sess.again(&e, retries) {
                        break Err(self.classify(e));
                    }
                    retries += 1;
                }
            }
        };
        if inserting {
            claims.release(self.slot);
        }
        (retries, r)
    }

    fn write_once(&mut self) -> Result<(), DbError> {
        if self.idx.len() == 1 {
            return self.exec_write(self.idx[0]);
        }
        self.wr.begin()?;
        for k in 0..self.idx.len() {
            if let Err(e) = self.exec_write(self.idx[k]) {
                let _ = self.wr.rollback();
                return Err(e);
            }
        }
        self.wr.commit()
    }

    /// Writes row i: its values (for an update, those of row i under the
    /// next seed, keyed by row i's key).
    fn exec_write(&mut self, i: i64) -> Result<(), DbError> {
        let w = self.sh.w;
        let st = self.sh.write.as_ref().expect("a write statement");
        self.row.clear();
        if w.kind == WriteKind::Update {
            w.schema.gen.row(w.seed.wrapping_add(1), i, &mut self.row);
            w.schema.key(w.seed, i, &mut self.key);
            let (row, key, upd) = (&self.row, &self.key, &w.upd_idx);
            self.wr.exec(st, &mut |s: &mut Statement<'_>| {
                for (j, &k) in upd.iter().enumerate() {
                    bind_val(s, j + 1, row, row.vals[k])?;
                }
                bind_val(s, upd.len() + 1, key, key.vals[0])
            })
        } else {
            w.schema.gen.row(w.seed, i, &mut self.row);
            let row = &self.row;
            self.wr.exec(st, &mut |s: &mut Statement<'_>| {
                for (j, v) in row.vals.iter().enumerate() {
                    bind_val(s, j + 1, row, *v)?;
                }
                Ok(())
            })
        }
    }
}

impl Executor for OpsExecutor<'_> {
    fn run_op(&mut self, op: usize, _: &mut Recorder) -> (i64, Result<(), OpError>) {
        if op == OP_READ {
            (0, self.read())
        } else {
            self.write()
        }
    }
}
