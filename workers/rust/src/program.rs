//! Workload programs (docs/workload-program.md): a workload file or pgbench
//! scripts compiled by litebench into plain data, set up and run here with
//! the program's expressions (expr.rs), the column generators, the load
//! engine and the loader the built-in workloads use.

use crate::ctx::Ctx;
use crate::db::{classify, DbError, Session, Stmt, Writer};
use crate::env::{Env, RunError, NONE, ROWS};
use crate::expr::{self, compile, go_float, go_quote, key_of, text_value, Node, Slot, Tables, V};
use crate::gen::{
    decode_table, draw, pick, KeyKind, RowBuf, SplitMix, Val, Zipf, STREAM_KEYS, STREAM_OPS,
};
use crate::insert::{create_schema, Insert};
use crate::job::Settings;
use crate::loadgen::{self, Config, Executor, OpError, ROLE_CHOOSE};
use crate::metrics::{err_kind, Recorder};
use crate::ops::{bind_val, load_figures, Claims};
use crate::own::created_name;
use crate::scan::{check_bench, preload};
use crate::schema::Schema;
use crate::worker::check_rows_per_stmt;
use rusqlite::types::ValueRef;
use rusqlite::Statement;
use serde_json::Value;
use std::sync::Mutex;

/// Names, SQL and figures of a program live as long as the worker's one
/// job: they are given the process's lifetime.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

struct Table {
    schema: &'static Schema,
    rows: i64,
    /// Figure names: plain for a program of one table.
    before: &'static str,
    after: &'static str,
    inserted: &'static str,
}

struct PStmt {
    sql: String,
    binds: Vec<usize>,
    into: Vec<usize>,
    read: bool,
    at: String,
    /// Prepared on the read pool, the writers' pool, or both, as the steps
    /// that run it need.
    need_read: bool,
    need_write: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TKind {
    Read,
    Insert,
    Update,
    Upsert,
}

struct TableOp {
    kind: TKind,
    table: usize,
    sql: String,
    keys: KeyKind,
    zipf: Option<Zipf>,
    batch: usize,
    /// A statement of the file's: each parameter's column (−1: the key).
    bind: Vec<i64>,
    upd: Vec<usize>,
}

struct NativeOp {
    name: String,
    table: usize,
    sql: String,
    depth: i64,
    page: i64,
}

enum Kind {
    Set { var: usize, expr: Node },
    Sleep { expr: Node, unit: i64 },
    Sql(usize),
    Begin { read: bool },
    Commit,
    Rollback,
    Table(TableOp),
    Native(NativeOp),
}

struct Step {
    kind: Kind,
    part: Option<usize>,
    at: String,
}

struct Txn {
    name: String,
    steps: Vec<Step>,
}

enum Expect {
    Eq,
    Cmp(String),
    Unchanged,
    Empty,
}

struct Check {
    name: String,
    sql: String,
    expect: Expect,
    want: String,
    at: String,
}

/// A program ready to set up and run.
pub struct Program {
    seed: u64,
    tables: Vec<Table>,
    init: Vec<String>,
    vars: Vec<(String, Option<V>)>,
    client_id: usize,
    scale_slot: Option<usize>,
    stmts: Vec<PStmt>,
    txns: Vec<Txn>,
    ops: &'static [&'static str],
    of: Vec<String>,
    load: Option<Config>,
    mix: Vec<(usize, f64)>,
    insert: Option<Insert>,
    checks: Vec<Check>,
    explicit: bool,
    /// :scale, derived at set-up; the unchanged checks' values before the
    /// run.
    scale: Mutex<i64>,
    before: Mutex<Vec<String>>,
}

fn arr(v: &Value, k: &str) -> Vec<Value> {
    v.get(k)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn s<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn int(v: &Value, k: &str) -> i64 {
    v.get(k).and_then(Value::as_i64).unwrap_or(0)
}

fn float(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn slots(v: &Value, k: &str, n: usize, what: &str) -> Result<Vec<usize>, String> {
    arr(v, k)
        .iter()
        .map(|x| match x.as_u64() {
            Some(i) if (i as usize) < n => Ok(i as usize),
            _ => Err(format!("program: {what}: no variable {x}")),
        })
        .collect()
}

impl Program {
    /// Reads a program and checks what this worker needs of it.
    pub fn new(p: &Value, settings: &Settings) -> Result<Program, String> {
        let version = int(p, "version");
        if version != 1 {
            return Err(format!(
                "program version {version}: this worker runs version 1"
            ));
        }
        let seed: u64 = s(p, "seed")
            .parse()
            .map_err(|_| format!("program seed {:?}: want a decimal number", s(p, "seed")))?;
        let ptabs = arr(p, "tables");
        let mut tables = Vec::new();
        for t in &ptabs {
            let tname = s(t, "name").to_string();
            let gen = decode_table(&arr(t, "columns"))
                .map_err(|e| format!("program: table {tname}: {e}"))?;
            if gen.len() == 0 {
                return Err(format!("program: table {tname} has no columns"));
            }
            let update_cols = arr(t, "update")
                .iter()
                .filter_map(|k| k.as_u64().and_then(|k| gen.names.get(k as usize)))
                .map(|n| leak(n.clone()))
                .collect();
            let fig = |f: &str| {
                if ptabs.len() == 1 {
                    leak(f.to_string())
                } else {
                    leak(format!("{f}.{tname}"))
                }
            };
            let (before, after, inserted) = (
                fig("table_rows_before"),
                fig("table_rows_after"),
                fig("rows_inserted"),
            );
            let schema: &'static Schema = Box::leak(Box::new(Schema {
                name: leak(tname),
                ddl: arr(t, "create")
                    .iter()
                    .map(|q| q.as_str().unwrap_or("").to_string())
                    .collect(),
                indexes: Vec::new(),
                gen,
                update_cols,
            }));
            tables.push(Table {
                schema,
                rows: int(t, "rows").max(0),
                before,
                after,
                inserted,
            });
        }
        let rows = |t: usize| tables.get(t).map(|t| t.rows);
        let mut vars = Vec::new();
        for v in arr(p, "vars") {
            let val = match v.get("value") {
                Some(x) if !x.is_null() => Some(compile(x, &rows)?.eval_const()),
                _ => None,
            };
            vars.push((s(&v, "name").to_string(), val));
        }
        let nv = vars.len();
        let slot = |k: &str| -> Result<Option<usize>, String> {
            match int(p, k) {
                i if i < 0 => Ok(None),
                i if (i as usize) < nv => Ok(Some(i as usize)),
                i => Err(format!("program: {k} {i}: no such variable")),
            }
        };
        let client_id = slot("client_id")?.ok_or("program: client_id: no such variable")?;
        let scale_slot = if p.get("scale").is_some() {
            slot("scale")?
        } else {
            None
        };
        let mut stmts = Vec::new();
        for st in arr(p, "statements") {
            stmts.push(PStmt {
                sql: s(&st, "sql").to_string(),
                binds: slots(&st, "binds", nv, "statement")?,
                into: slots(&st, "into", nv, "statement")?,
                read: st.get("read").and_then(Value::as_bool).unwrap_or(false),
                at: s(&st, "at").to_string(),
                need_read: false,
                need_write: false,
            });
        }
        let ops: Vec<&'static str> = arr(p, "ops")
            .iter()
            .map(|o| leak(o.as_str().unwrap_or("").to_string()))
            .collect();
        let mut txns = Vec::new();
        for t in arr(p, "transactions") {
            let mut steps = Vec::new();
            let mut cur: Option<bool> = None;
            for st in arr(&t, "steps") {
                let at = s(&st, "at").to_string();
                let part = match int(&st, "part") {
                    k if k < 0 => None,
                    k if (k as usize) < ops.len() => Some(k as usize),
                    k => return Err(format!("program: {at}: part {k}: no such op")),
                };
                let expr = || -> Result<Node, String> {
                    compile(st.get("expr").unwrap_or(&Value::Null), &rows)
                };
                let kind = match s(&st, "kind") {
                    "set" => {
                        let var = int(&st, "var") as usize;
                        if var >= nv {
                            return Err(format!("program: {at}: no variable {var}"));
                        }
                        Kind::Set { var, expr: expr()? }
                    }
                    "sleep" => Kind::Sleep {
                        expr: expr()?,
                        unit: int(&st, "unit_ns").max(1),
                    },
                    "sql" => {
                        let k = int(&st, "stmt") as usize;
                        let Some(ps) = stmts.get_mut(k) else {
                            return Err(format!("program: {at}: no statement {k}"));
                        };
                        match cur {
                            Some(true) => ps.need_read = true,
                            Some(false) => ps.need_write = true,
                            None if ps.read => ps.need_read = true,
                            None => ps.need_write = true,
                        }
                        Kind::Sql(k)
                    }
                    "begin" => {
                        let read = st.get("read").and_then(Value::as_bool).unwrap_or(false);
                        cur = Some(read);
                        Kind::Begin { read }
                    }
                    "commit" => {
                        cur = None;
                        Kind::Commit
                    }
                    "rollback" => {
                        cur = None;
                        Kind::Rollback
                    }
                    "table" => Kind::Table(table_op(&st, &tables, &at)?),
                    "native" => {
                        let op = st.get("op").unwrap_or(&Value::Null);
                        let table = int(op, "table") as usize;
                        if table >= tables.len() {
                            return Err(format!("program: {at}: no table {table}"));
                        }
                        let name = s(op, "op").to_string();
                        if !matches!(
                            name.as_str(),
                            "scan_verify" | "paginate_offset" | "paginate_keyset"
                        ) {
                            return Err(format!(
                                "program: {at}: unknown native operation {name:?}"
                            ));
                        }
                        Kind::Native(NativeOp {
                            name,
                            table,
                            sql: s(op, "sql").to_string(),
                            depth: int(op, "depth"),
                            page: int(op, "page"),
                        })
                    }
                    k => return Err(format!("program: {at}: unknown step {k:?}")),
                };
                steps.push(Step { kind, part, at });
            }
            txns.push(Txn {
                name: s(&t, "name").to_string(),
                steps,
            });
        }
        let of: Vec<String> = (0..ops.len())
            .map(|k| {
                p.get("of")
                    .and_then(|o| o.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        if ops.len() < txns.len() {
            return Err("program: fewer ops than transactions".into());
        }
        let mut load = None;
        let mut mix = Vec::new();
        let mut insert = None;
        if let Some(ins) = p.get("insert").filter(|v| !v.is_null()) {
            let t = tables
                .get(int(ins, "table") as usize)
                .ok_or("program: insert: no such table")?;
            check_rows_per_stmt(t.schema, settings.int("rows-per-stmt"))?;
            insert = Some(Insert {
                schema: t.schema,
                rows: int(ins, "rows"),
                workers: int(ins, "workers").max(1) as usize,
                seed,
                vacuum: ins.get("vacuum").and_then(Value::as_bool).unwrap_or(false),
            });
        } else {
            let l = p.get("load").ok_or("program: neither load nor insert")?;
            for m in arr(l, "mix") {
                let t = int(&m, "txn") as usize;
                if t >= txns.len() {
                    return Err(format!("program: mix: no transaction {t}"));
                }
                mix.push((t, float(&m, "weight")));
            }
            let rate = float(l, "rate");
            let mut roles = Vec::new();
            for r in arr(l, "roles") {
                roles.push(match r.as_i64().unwrap_or(-1) {
                    -1 => ROLE_CHOOSE,
                    k if k >= 0 && (k as usize) < txns.len() => k as usize,
                    k => return Err(format!("program: role {k}: no such transaction")),
                });
            }
            if (rate > 0.0 || roles.contains(&ROLE_CHOOSE)) && mix.is_empty() {
                return Err("program: operations are chosen but the mix is empty".into());
            }
            if rate <= 0.0 && roles.is_empty() {
                return Err("program: no workers (roles) and no rate".into());
            }
            let count = int(l, "count").max(0);
            let duration = if count > 0 { 0 } else { int(l, "duration_ns") };
            if count == 0 && duration <= 0 {
                return Err("program: load: neither a duration nor a count".into());
            }
            load = Some(Config {
                ops: ops.len(),
                roles,
                rate,
                arrivals: match s(l, "arrivals") {
                    "" | "uniform" => crate::gen::Arrivals::Uniform,
                    "poisson" => crate::gen::Arrivals::Poisson,
                    a => return Err(format!("program: arrivals {a:?}: want uniform or poisson")),
                },
                max_inflight: int(l, "max_inflight").max(1) as usize,
                duration,
                warmup: int(l, "warmup_ns").max(0),
                count,
                seed,
            });
        }
        let mut checks = Vec::new();
        for c in arr(p, "checks") {
            checks.push(Check {
                name: s(&c, "name").to_string(),
                sql: s(&c, "sql").to_string(),
                expect: match s(&c, "expect") {
                    "eq" | "" => Expect::Eq,
                    "cmp" => Expect::Cmp(s(&c, "cmp").to_string()),
                    "unchanged" => Expect::Unchanged,
                    "empty" => Expect::Empty,
                    e => return Err(format!("program: check {}: expect {e:?}", s(&c, "name"))),
                },
                want: s(&c, "want").to_string(),
                at: s(&c, "at").to_string(),
            });
        }
        let nchecks = checks.len();
        Ok(Program {
            seed,
            tables,
            init: arr(p, "init")
                .iter()
                .map(|q| q.as_str().unwrap_or("").to_string())
                .collect(),
            vars,
            client_id,
            scale_slot,
            stmts,
            txns,
            ops: Box::leak(ops.into_boxed_slice()),
            of,
            load,
            mix,
            insert,
            checks,
            explicit: settings.get("tx") == "immediate",
            scale: Mutex::new(1),
            before: Mutex::new(vec![String::new(); nchecks]),
        })
    }

    /// The tables and indexes the program creates.
    pub fn tables(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tables {
            out.push(t.schema.name.to_string());
            out.extend(t.schema.ddl.iter().filter_map(|q| created_name(q)));
        }
        out.extend(self.init.iter().filter_map(|q| created_name(q)));
        out
    }

    /// The result names: transactions, then statements of their own.
    pub fn ops(&self) -> &'static [&'static str] {
        self.ops
    }

    /// The transaction op k is a part of ("" for a transaction).
    pub fn part_of(&self, k: usize) -> &str {
        self.of.get(k).map(String::as_str).unwrap_or("")
    }

    pub fn setup(&self, ctx: &Ctx, env: &Env) -> Result<(), String> {
        for t in &self.tables {
            create_schema(&env.sess, t.schema)?;
        }
        for t in &self.tables {
            preload(ctx, env, t.schema, self.seed, t.rows)
                .map_err(|e| format!("loading {} rows of {}: {e}", t.rows, t.schema.name))?;
        }
        let db = env.sess.db();
        for q in &self.init {
            db.exec(q).map_err(|e| format!("init SQL: {e}"))?;
        }
        if self.insert.is_none() {
            for t in &self.tables {
                env.figure(t.before, ROWS, NONE, t.rows as f64);
            }
        }
        if self.scale_slot.is_some() {
            let exists = db.int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pgbench_branches'");
            let n = match exists {
                Ok(1) => db.int("SELECT count(*) FROM pgbench_branches").unwrap_or(0),
                _ => 0,
            };
            *self.scale.lock().expect("scale") = if n > 0 { n } else { 1 };
        }
        let mut before = self.before.lock().expect("checks");
        for (k, c) in self.checks.iter().enumerate() {
            if matches!(c.expect, Expect::Unchanged) {
                let (v, _) = read_check(env, &c.sql)
                    .map_err(|e| format!("check {} before the run: {e}", go_quote(&c.name)))?;
                before[k] = v;
            }
        }
        Ok(())
    }

    pub fn run(&self, ctx: &Ctx, env: &Env) -> Result<(), RunError> {
        if let Some(ins) = &self.insert {
            ins.run(ctx, env)?;
            if ctx.done() {
                return Ok(());
            }
            return self.verify(env);
        }
        let cfg = self.load.as_ref().expect("a program with a load");
        let executors = if cfg.rate > 0.0 {
            cfg.max_inflight
        } else {
            cfg.roles.len()
        };
        let sess = &env.sess;
        let failed = |e: String| RunError::Failed(e);
        let prep = |sql: &str, write: bool, at: &str| {
            sess.prepare(sql, write)
                .map_err(|e| failed(format!("{at}: does not prepare: {e}")))
        };
        let mut read = Vec::new();
        let mut write = Vec::new();
        for st in &self.stmts {
            read.push(match st.need_read {
                true => Some(prep(&st.sql, false, &st.at)?),
                false => None,
            });
            write.push(match st.need_write {
                true => Some(prep(&st.sql, true, &st.at)?),
                false => None,
            });
        }
        let mut own = Vec::new();
        for t in &self.txns {
            let mut v = Vec::new();
            for st in &t.steps {
                v.push(match &st.kind {
                    Kind::Table(op) => Some(prep(&op.sql, op.kind != TKind::Read, &st.at)?),
                    Kind::Native(op) => Some(prep(&op.sql, false, &st.at)?),
                    _ => None,
                });
            }
            own.push(v);
        }
        let sh = Shared {
            p: self,
            env,
            sess,
            tabs: RunTables {
                seed: self.seed,
                schemas: self.tables.iter().map(|t| t.schema).collect(),
                claims: self
                    .tables
                    .iter()
                    .map(|t| Claims::new(t.rows, executors))
                    .collect(),
            },
            read,
            write,
            own,
            scale: *self.scale.lock().expect("scale"),
        };
        let choose = mix_chooser(self.seed, &self.mix);
        let sh_ref = &sh;
        let new_executor = move |i: usize| -> Result<Box<dyn Executor + '_>, String> {
            sh_ref.executor(i).map(|e| Box::new(e) as Box<dyn Executor>)
        };
        let (st, r) = loadgen::run(ctx, env, cfg, &choose, &new_executor);
        env.set_end(st.end);
        for s in sh
            .read
            .iter()
            .chain(&sh.write)
            .chain(sh.own.iter().flatten())
            .flatten()
        {
            s.close();
        }
        load_figures(env, cfg, &st);
        for (t, c) in self.tables.iter().zip(&sh.tabs.claims) {
            let n = c.claimed();
            if n > t.rows {
                env.figure(t.inserted, ROWS, NONE, (n - t.rows) as f64);
            }
        }
        if ctx.done() {
            return r;
        }
        for t in &self.tables {
            if let Ok(n) = sess
                .db()
                .int(&format!("SELECT count(*) FROM {}", t.schema.name))
            {
                env.figure(t.after, ROWS, NONE, n as f64);
            }
        }
        r?;
        self.verify(env)
    }

    /// The checks: each adds a note; a failed one fails the run.
    fn verify(&self, env: &Env) -> Result<(), RunError> {
        let before = self.before.lock().expect("checks");
        let mut failed = Vec::new();
        for (k, c) in self.checks.iter().enumerate() {
            let name = go_quote(&c.name);
            let (mut got, found) = read_check(env, &c.sql)
                .map_err(|e| RunError::Failed(format!("check {name}: {e}")))?;
            let mut want = c.want.clone();
            let ok = match &c.expect {
                Expect::Empty => {
                    want = "no row".into();
                    if found {
                        got = "a row".into();
                    }
                    !found
                }
                Expect::Unchanged => {
                    want = format!("{} (unchanged)", before[k]);
                    got == before[k]
                }
                Expect::Eq | Expect::Cmp(_) => {
                    let op = match &c.expect {
                        Expect::Cmp(op) => op.as_str(),
                        _ => "=",
                    };
                    if op != "=" {
                        want = format!("{op} {}", c.want);
                    }
                    if !found {
                        got = "no row".into();
                        false
                    } else {
                        compare_text(&got, op, &c.want)
                    }
                }
            };
            if ok {
                env.note(format!("check {name} passed: {got}"));
                continue;
            }
            let msg = format!("check {name} failed: got {got}, want {want} ({})", c.at);
            env.note(msg.clone());
            failed.push(msg);
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(RunError::Failed(failed.join("; ")))
        }
    }
}

fn table_op(st: &Value, tables: &[Table], at: &str) -> Result<TableOp, String> {
    let op = st.get("op").unwrap_or(&Value::Null);
    let table = int(op, "table") as usize;
    let t = tables
        .get(table)
        .ok_or_else(|| format!("program: {at}: no table {table}"))?;
    let kind = match s(op, "op") {
        "read" => TKind::Read,
        "insert" => TKind::Insert,
        "update" => TKind::Update,
        "upsert" => TKind::Upsert,
        o => return Err(format!("program: {at}: unknown table operation {o:?}")),
    };
    let keys_s = match s(op, "keys") {
        "" => "uniform",
        k => k,
    };
    let keys = KeyKind::parse(keys_s).ok_or_else(|| format!("program: {at}: keys {keys_s:?}"))?;
    let ncols = t.schema.gen.len() as i64;
    let bind: Vec<i64> = arr(op, "bind")
        .iter()
        .map(|b| b.as_i64().unwrap_or(-2))
        .collect();
    if bind.iter().any(|&b| b < -1 || b >= ncols) {
        return Err(format!("program: {at}: bind {bind:?}: no such column"));
    }
    Ok(TableOp {
        kind,
        table,
        sql: s(op, "sql").to_string(),
        keys,
        zipf: (keys != KeyKind::Uniform).then(|| Zipf::new(t.rows.max(1), float(op, "theta"))),
        batch: int(op, "batch").max(1) as usize,
        bind,
        upd: t.schema.update_idx(),
    })
}

/// The transaction of operation seq: the mix's choice.
fn mix_chooser(seed: u64, mix: &[(usize, f64)]) -> impl Fn(u64) -> usize + Sync + '_ {
    let total: f64 = mix.iter().map(|m| m.1).sum();
    let mut acc = 0.0;
    let thr: Vec<f64> = mix
        .iter()
        .map(|m| {
            acc += m.1;
            acc * (10000.0 / total)
        })
        .collect();
    move |seq: u64| {
        if mix.is_empty() {
            return 0;
        }
        if total <= 0.0 {
            return mix[0].0;
        }
        let x = (draw(seed, STREAM_OPS, seq) % 10000) as f64;
        for (k, t) in thr.iter().enumerate() {
            if x < *t {
                return mix[k].0;
            }
        }
        mix[mix.len() - 1].0
    }
}

/// A column as Go's database/sql renders it as text (NULL: None).
fn text_of(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(go_float(f)),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
    }
}

/// The first column of a check's first row as text (NULL as ""), and
/// whether there was a row.
fn read_check(env: &Env, sql: &str) -> Result<(String, bool), DbError> {
    env.sess.db().with_conn(|c| {
        let mut st = c.db().prepare(sql)?;
        let mut rows = st.raw_query();
        match rows.next()? {
            Some(r) => Ok((text_of(r.get_ref(0)?).unwrap_or_default(), true)),
            None => Ok((String::new(), false)),
        }
    })
}

/// A result against a wanted value: as numbers when both are, else as
/// text.
fn compare_text(got: &str, op: &str, want: &str) -> bool {
    let num = |s: &str| -> Option<f64> { s.trim().parse::<f64>().ok() };
    let c = match (num(got), num(want)) {
        (Some(g), Some(w)) => {
            if g < w {
                -1
            } else if g > w {
                1
            } else {
                0
            }
        }
        _ => match op {
            "=" => return got == want,
            "!=" | "<>" => return got != want,
            _ => got.cmp(want) as i32,
        },
    };
    match op {
        "=" => c == 0,
        "!=" | "<>" => c != 0,
        "<" => c < 0,
        "<=" => c <= 0,
        ">" => c > 0,
        _ => c >= 0,
    }
}

/// The tables as a run sees them: the rows that exist now.
struct RunTables {
    seed: u64,
    schemas: Vec<&'static Schema>,
    claims: Vec<Claims>,
}

impl Tables for RunTables {
    fn visible(&self, t: usize) -> i64 {
        self.claims[t].visible()
    }

    fn key(&self, t: usize, i: i64) -> V {
        key_of(&self.schemas[t].gen, self.seed, i)
    }
}

/// What the executors of one run share.
struct Shared<'a> {
    p: &'a Program,
    env: &'a Env,
    sess: &'a Session,
    tabs: RunTables,
    read: Vec<Option<Stmt>>,
    write: Vec<Option<Stmt>>,
    /// The statement of each table or native step, by transaction and step.
    own: Vec<Vec<Option<Stmt>>>,
    scale: i64,
}

impl<'a> Shared<'a> {
    fn executor(&'a self, i: usize) -> Result<PExec<'a>, String> {
        let p = self.p;
        if self.tabs.claims.first().is_some_and(|c| i >= c.slots()) {
            return Err(format!(
                "executor {i} past the {} planned",
                self.tabs.claims[0].slots()
            ));
        }
        let mut vars: Vec<Slot> = p
            .vars
            .iter()
            .map(|(_, v)| Slot {
                v: v.clone().unwrap_or(V::Null),
                set: v.is_some(),
            })
            .collect();
        vars[p.client_id] = Slot {
            v: V::Int(i as i64),
            set: true,
        };
        if let Some(k) = p.scale_slot {
            vars[k] = Slot {
                v: V::Int(self.scale),
                set: true,
            };
        }
        Ok(PExec {
            sh: self,
            slot: i,
            x: expr::Ctx {
                vars,
                rng: SplitMix {
                    state: draw(p.seed, STREAM_KEYS, i as u64 + 1),
                },
                tables: &self.tabs,
            },
            wr: self.sess.writer(),
            rd: self.sess.reader(),
            cur: None,
            args: Vec::new(),
            row: RowBuf::default(),
            key: RowBuf::default(),
            idx: Vec::new(),
        })
    }
}

/// How a step failed.
enum Fail {
    /// An expression: the run stops.
    Eval(String),
    /// A row a step expected was not there: counted.
    Missing,
    /// The database (table: a table operation, already retried).
    Db(DbError, bool),
}

impl From<expr::EvalError> for Fail {
    fn from(e: expr::EvalError) -> Fail {
        Fail::Eval(e.0)
    }
}

impl From<DbError> for Fail {
    fn from(e: DbError) -> Fail {
        Fail::Db(e, false)
    }
}

/// One worker of a program: its variables, sequence and connections.
struct PExec<'a> {
    sh: &'a Shared<'a>,
    slot: usize,
    x: expr::Ctx<'a>,
    wr: Writer<'a>,
    rd: Writer<'a>,
    /// The transaction a script began: read-only (true) or not.
    cur: Option<bool>,
    args: Vec<V>,
    row: RowBuf,
    key: RowBuf,
    idx: Vec<i64>,
}

fn bind_args(st: &mut Statement<'_>, args: &[V]) -> rusqlite::Result<()> {
    for (k, v) in args.iter().enumerate() {
        let j = k + 1;
        match v {
            V::Int(i) => st.raw_bind_parameter(j, *i)?,
            V::Bool(b) => st.raw_bind_parameter(j, *b as i64)?,
            V::Float(f) => st.raw_bind_parameter(j, *f)?,
            V::Text(s) => st.raw_bind_parameter(j, s.as_str())?,
            V::Null => st.raw_bind_parameter(j, rusqlite::types::Null)?,
        }
    }
    Ok(())
}

impl Executor for PExec<'_> {
    /// Runs transaction op; one that fails busy or locked begins again
    /// from its first step with the same random numbers, as busy-retry
    /// allows.
    fn run_op(&mut self, op: usize, rec: &mut Recorder) -> (i64, Result<(), OpError>) {
        let mut retries = 0i64;
        loop {
            let saved = self.x.rng.state;
            let (table_retries, r) = self.run_txn(op, rec);
            match r {
                Ok(()) => return (retries + table_retries, Ok(())),
                Err(Fail::Eval(e)) => return (retries, Err(OpError::Fatal(e))),
                Err(Fail::Missing) => {
                    return (
                        retries + table_retries,
                        Err(OpError::Counted(err_kind("missing"))),
                    )
                }
                Err(Fail::Db(e, table)) => {
                    let c = classify(&e);
                    if c.fatal() {
                        return (
                            retries,
                            Err(OpError::Fatal(format!("{}: {e}", self.sh.p.txns[op].name))),
                        );
                    }
                    if table || !self.sh.sess.again(&e, retries) {
                        return (
                            retries + table_retries,
                            Err(OpError::Counted(err_kind(c.name()))),
                        );
                    }
                }
            }
            retries += 1;
            self.x.rng.state = saved;
        }
    }
}

impl PExec<'_> {
    /// Runs the steps of transaction op once; returns the table
    /// operations' retries.
    fn run_txn(&mut self, op: usize, rec: &mut Recorder) -> (i64, Result<(), Fail>) {
        let sh = self.sh;
        let mut retries = 0;
        for (k, st) in sh.p.txns[op].steps.iter().enumerate() {
            let r = match &st.kind {
                Kind::Set { var, expr } => expr
                    .eval(&mut self.x)
                    .map(|v| {
                        self.x.vars[*var] = Slot { v, set: true };
                    })
                    .map_err(Fail::from),
                Kind::Sleep { expr, unit } => self.sleep(expr, *unit, &st.at),
                Kind::Sql(_) | Kind::Begin { .. } | Kind::Commit | Kind::Rollback => {
                    let t0 = st.part.map(|_| crate::ctx::now());
                    let r = self.sql_step(&st.kind);
                    if let (Some(part), Some(t0)) = (st.part, t0) {
                        match &r {
                            Ok(()) => rec.observe(part, crate::ctx::now() - t0),
                            Err(Fail::Missing) => rec.error(part, err_kind("missing")),
                            Err(Fail::Db(e, _)) => rec.error(part, err_kind(classify(e).name())),
                            Err(Fail::Eval(_)) => {}
                        }
                    }
                    r
                }
                Kind::Table(t) => {
                    let stmt = sh.own[op][k].as_ref().expect("prepared");
                    let (n, r) = self.table(t, stmt);
                    retries += n;
                    r
                }
                Kind::Native(n) => {
                    let stmt = sh.own[op][k].as_ref().expect("prepared");
                    self.native(n, stmt).map_err(Fail::from)
                }
            };
            if let Err(e) = r {
                if let Some(read) = self.cur.take() {
                    let _ = if read {
                        self.rd.rollback()
                    } else {
                        self.wr.rollback()
                    };
                }
                return (retries, Err(e));
            }
        }
        (retries, Ok(()))
    }

    fn sleep(&mut self, e: &Node, unit: i64, at: &str) -> Result<(), Fail> {
        let v = e.eval(&mut self.x)?;
        let n = expr::to_int(v, at)?;
        if n > 0 {
            std::thread::sleep(std::time::Duration::from_nanos(
                n.saturating_mul(unit) as u64
            ));
        }
        Ok(())
    }

    fn sql_step(&mut self, kind: &Kind) -> Result<(), Fail> {
        let sh = self.sh;
        let k = match kind {
            Kind::Begin { read } => {
                if *read {
                    self.rd.begin()?;
                } else {
                    self.wr.begin()?;
                }
                self.cur = Some(*read);
                return Ok(());
            }
            Kind::Commit | Kind::Rollback => {
                let w = match self.cur.take() {
                    Some(true) => &mut self.rd,
                    _ => &mut self.wr,
                };
                let r = if matches!(kind, Kind::Commit) {
                    w.commit()
                } else {
                    w.rollback()
                };
                return r.map_err(Fail::from);
            }
            Kind::Sql(k) => *k,
            _ => unreachable!("an SQL step"),
        };
        let s = &sh.p.stmts[k];
        self.args.clear();
        for &slot in &s.binds {
            let v = &self.x.vars[slot];
            if !v.set {
                return Err(Fail::Eval(format!(
                    "{}: variable :{} is not set",
                    s.at, sh.p.vars[slot].0
                )));
            }
            self.args.push(v.v.clone());
        }
        let not_prepared = || {
            Fail::Db(
                DbError::Other(format!("{}: statement not prepared for this use", s.at)),
                false,
            )
        };
        let read_st = || sh.read[k].as_ref().ok_or_else(not_prepared);
        let write_st = || sh.write[k].as_ref().ok_or_else(not_prepared);
        let args = &self.args;
        let vars = &mut self.x.vars;
        let mut found = false;
        let into = &s.into;
        let mut on_row = |r: &rusqlite::Row<'_>| -> Result<(), DbError> {
            if found || into.is_empty() {
                return Ok(());
            }
            found = true;
            for (c, &slot) in into.iter().enumerate() {
                vars[slot] = Slot {
                    v: match text_of(r.get_ref(c)?) {
                        None => V::Null,
                        Some(t) => text_value(&t),
                    },
                    set: true,
                };
            }
            Ok(())
        };
        let mut bind = |st: &mut Statement<'_>| bind_args(st, args);
        let query = s.read || !into.is_empty();
        match self.cur {
            Some(true) => self.rd.query(read_st()?, &mut bind, &mut on_row)?,
            Some(false) if query => self.wr.query(write_st()?, &mut bind, &mut on_row)?,
            Some(false) => self.wr.exec(write_st()?, &mut bind)?,
            None if s.read => sh.sess.query(read_st()?, &mut bind, &mut on_row)?,
            None if query => self.wr.query(write_st()?, &mut bind, &mut on_row)?,
            None => self.wr.exec(write_st()?, &mut bind)?,
        }
        if !into.is_empty() && !found {
            return Err(Fail::Missing);
        }
        Ok(())
    }

    /// A table operation; returns its retries.
    fn table(&mut self, op: &TableOp, st: &Stmt) -> (i64, Result<(), Fail>) {
        let sh = self.sh;
        let claims = &sh.tabs.claims[op.table];
        let schema = sh.tabs.schemas[op.table];
        let seed = sh.p.seed;
        if op.kind == TKind::Read {
            let i = pick(op.keys, op.zipf.as_ref(), &mut self.x.rng, claims.visible());
            schema.key(seed, i, &mut self.key);
            let key = &self.key;
            let mut found = false;
            let r = sh.sess.query(
                st,
                &mut |s: &mut Statement<'_>| bind_val(s, 1, key, key.vals[0]),
                &mut |_: &rusqlite::Row<'_>| {
                    found = true;
                    Ok(())
                },
            );
            return match r {
                Err(e) => (0, Err(Fail::Db(e, true))),
                Ok(()) if !found => (0, Err(Fail::Missing)),
                Ok(()) => (0, Ok(())),
            };
        }
        self.idx.resize(op.batch, 0);
        let rng = &mut self.x.rng;
        claims.choose(
            self.slot,
            op.kind == TKind::Insert,
            op.kind == TKind::Upsert,
            &mut self.idx,
            |n| pick(op.keys, op.zipf.as_ref(), rng, n),
        );
        let mut retries = 0i64;
        let r = loop {
            match self.write_once(op, st, schema) {
                Ok(()) => {
                    if let Some(ack) = &sh.env.ack {
                        ack(self.idx[0], self.idx.len() as i64);
                    }
                    break Ok(());
                }
                Err(e) => {
                    if !sh.sess.again(&e, retries) {
                        break Err(Fail::Db(e, true));
                    }
                    retries += 1;
                }
            }
        };
        if op.kind == TKind::Insert {
            claims.release(self.slot);
        }
        (retries, r)
    }

    fn write_once(&mut self, op: &TableOp, st: &Stmt, schema: &Schema) -> Result<(), DbError> {
        if self.idx.len() == 1 && (!self.sh.p.explicit || self.wr.in_tx()) {
            return self.exec_write(op, st, schema, self.idx[0]);
        }
        self.wr.begin()?;
        for k in 0..self.idx.len() {
            if let Err(e) = self.exec_write(op, st, schema, self.idx[k]) {
                let _ = self.wr.rollback();
                return Err(e);
            }
        }
        self.wr.commit()
    }

    /// Writes row i: its values under the seed (an update: under the next
    /// seed, keyed by row i's key).
    fn exec_write(
        &mut self,
        op: &TableOp,
        st: &Stmt,
        schema: &Schema,
        i: i64,
    ) -> Result<(), DbError> {
        let seed = self.sh.p.seed;
        self.row.clear();
        let row_seed = if op.kind == TKind::Update {
            seed.wrapping_add(1)
        } else {
            seed
        };
        schema.gen.row(row_seed, i, &mut self.row);
        schema.key(seed, i, &mut self.key);
        let (row, key) = (&self.row, &self.key);
        self.wr.exec(st, &mut |s: &mut Statement<'_>| {
            let mut j = 1;
            let mut put = |buf: &RowBuf, v: Val| -> rusqlite::Result<()> {
                bind_val(s, j, buf, v)?;
                j += 1;
                Ok(())
            };
            if !op.bind.is_empty() {
                for &k in &op.bind {
                    if k < 0 {
                        put(key, key.vals[0])?;
                    } else {
                        put(row, row.vals[k as usize])?;
                    }
                }
            } else if op.kind == TKind::Update {
                for &k in &op.upd {
                    put(row, row.vals[k])?;
                }
                put(key, key.vals[0])?;
            } else {
                for &v in &row.vals {
                    put(row, v)?;
                }
            }
            Ok(())
        })
    }

    /// scan_verify, paginate_offset and paginate_keyset
    /// (docs/workload-files.md §5); they draw nothing.
    fn native(&mut self, op: &NativeOp, st: &Stmt) -> Result<(), DbError> {
        let sh = self.sh;
        let schema = sh.tabs.schemas[op.table];
        let seed = sh.p.seed;
        let visible = sh.tabs.claims[op.table].visible();
        if op.name == "scan_verify" {
            let mut n = 0i64;
            sh.sess.query(
                st,
                &mut |_: &mut Statement<'_>| Ok(()),
                &mut |r: &rusqlite::Row<'_>| {
                    let rand = r.get_ref(1)?.as_bytes()?;
                    let hash = r.get_ref(2)?.as_bytes()?;
                    if !check_bench(rand, hash) {
                        return Err(DbError::Other(format!(
                            "{} {} {}: hash mismatch: stored hash {} is not the SHA-256 of rand {}",
                            schema.name,
                            schema.key_col(),
                            text_of(r.get_ref(0)?).unwrap_or_default(),
                            String::from_utf8_lossy(hash),
                            String::from_utf8_lossy(rand)
                        )));
                    }
                    n += 1;
                    Ok(())
                },
            )?;
            if n < visible {
                return Err(DbError::Other(format!(
                    "scan_verify read {n} rows of {}, want at least {visible}",
                    schema.name
                )));
            }
            return Ok(());
        }
        let (a, b) = if op.name == "paginate_offset" {
            (op.page, op.depth)
        } else {
            (schema.gen.int(0, seed, op.depth - 1), op.page)
        };
        let (mut first, mut got) = (-1i64, 0i64);
        sh.sess.query(
            st,
            &mut |s: &mut Statement<'_>| {
                s.raw_bind_parameter(1, a)?;
                s.raw_bind_parameter(2, b)
            },
            &mut |r: &rusqlite::Row<'_>| {
                if first < 0 {
                    first = r.get::<_, i64>(0)?;
                }
                got += 1;
                Ok(())
            },
        )?;
        let want = schema.gen.int(0, seed, op.depth);
        if first != want || got != op.page {
            return Err(DbError::Other(format!(
                "{}: the page starts at {} {first} with {got} rows, want {want} with {}",
                op.name,
                schema.key_col(),
                op.page
            )));
        }
        Ok(())
    }
}
