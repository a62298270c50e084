//! The insert workload and the loader the others preload with
//! (internal/workload/insert.go): rows [from, to) split among worker
//! threads, --batch rows per transaction, --rows-per-stmt rows per INSERT,
//! busy batches retried per the policy, every statement timed.

use crate::ctx::{now, Ctx};
use crate::db::{classify, DbError, Session, Stmt, Writer};
use crate::env::{Env, RunError, LOWER, SECONDS};
use crate::gen::{RowBuf, Val};
use crate::metrics::{err_kind, Recorder};
use crate::schema::Schema;
use rusqlite::Statement;
use std::collections::HashMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

pub const OPS: [&str; 3] = ["insert", "begin", "commit"];
const OP_INSERT: usize = 0;
const OP_BEGIN: usize = 1;
const OP_COMMIT: usize = 2;

/// Rows generated at a time (in whole batches: a batch's rows are
/// generated together).
const CHUNK_ROWS: usize = 1024;

pub struct Insert {
    pub schema: &'static Schema,
    pub rows: i64,
    pub workers: usize,
    pub seed: u64,
    pub vacuum: bool,
}

impl Insert {
    pub fn setup(&self, env: &Env) -> Result<(), String> {
        create_schema(&env.sess, self.schema)
    }

    pub fn run(&self, ctx: &Ctx, env: &Env) -> Result<(), RunError> {
        let r = load(
            ctx,
            env,
            &env.sess,
            &LoadSpec {
                schema: self.schema,
                seed: self.seed,
                from: 0,
                to: self.rows,
                workers: self.workers,
                batch: env.settings.int("batch") as usize,
                rps: env.settings.int("rows-per-stmt") as usize,
            },
            true,
        );
        env.set_end(now());
        r?;
        if self.vacuum {
            let t = now();
            env.sess
                .db()
                .exec("VACUUM")
                .map_err(|e| RunError::Failed(format!("vacuum: {e}")))?;
            env.figure("vacuum", SECONDS, LOWER, (now() - t) as f64 / 1e9);
        }
        Ok(())
    }
}

/// Creates sc's table and indexes.
pub fn create_schema(sess: &Session, sc: &Schema) -> Result<(), String> {
    for q in &sc.ddl {
        sess.db()
            .exec(q)
            .map_err(|e| format!("create {}: {e}", sc.name))?;
    }
    Ok(())
}

/// What load inserts and how.
pub struct LoadSpec {
    pub schema: &'static Schema,
    pub seed: u64,
    pub from: i64,
    pub to: i64,
    pub workers: usize,
    pub batch: usize,
    pub rps: usize,
}

/// Inserts rows [from, to) with ls.workers threads through sess. With
/// record, the workers' recorders and the time spent generating rows inline
/// (one worker) go to env; otherwise (a preload) nothing is recorded.
/// Busy, locked and constraint errors are counted; the first error that
/// makes the run meaningless is returned.
pub fn load(
    ctx: &Ctx,
    env: &Env,
    sess: &Session,
    ls: &LoadSpec,
    record: bool,
) -> Result<(), RunError> {
    let workers = ls.workers.max(1);
    let rps = ls.rps.max(1);
    // A transaction holds at least one whole statement.
    let batch = ls.batch.max(rps);
    let total = ls.to - ls.from;
    let ctx = ctx.child();
    // Worker i: its rows, its result, recorder and excluded time.
    let worker = |i: usize| {
        let from = ls.from + total * i as i64 / workers as i64;
        let to = ls.from + total * (i as i64 + 1) / workers as i64;
        let mut ins = Inserter {
            env,
            sess,
            w: sess.writer(),
            schema: ls.schema,
            rps,
            rec: Recorder::new(OPS.len()),
            stmts: HashMap::new(),
            hot: None,
        };
        let r = ins.run(&ctx, ls.seed, from, to, batch, workers == 1);
        ins.close();
        if matches!(r.0, Err(RunError::Failed(_))) {
            ctx.stop(); // one failed worker ends the load
        }
        (r.0, ins.rec, r.1)
    };
    // One worker runs on the calling thread (see loadgen::run_closed_here).
    let results: Vec<(Result<(), RunError>, Recorder, i64)> = if workers == 1 {
        vec![worker(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|i| {
                    let worker = &worker;
                    s.spawn(move || worker(i))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("insert worker panicked"))
                .collect()
        })
    };
    let mut first_err = None;
    let mut cancelled = false;
    for (r, rec, excluded) in results {
        if record {
            if workers == 1 {
                env.exclude(excluded);
            }
            env.add_recorder(rec);
        }
        match r {
            Err(RunError::Failed(e)) if first_err.is_none() => first_err = Some(e),
            Err(RunError::Cancelled) => cancelled = true,
            _ => {}
        }
    }
    if let Some(e) = first_err {
        return Err(RunError::Failed(e));
    }
    if cancelled {
        return Err(RunError::Cancelled);
    }
    Ok(())
}

/// Rows handed out a chunk at a time: generated inline (timed, so that the
/// time can be left out of the measure) or ahead on another thread.
struct Chunk {
    start: i64,
    rows: usize,
    buf: RowBuf,
}

enum Source {
    Inline {
        cur: Chunk,
        generated: i64,
    },
    Ahead {
        rx: Receiver<Chunk>,
        free: SyncSender<RowBuf>,
        cur: Option<Chunk>,
    },
}

fn fill(schema: &Schema, seed: u64, c: &mut Chunk, start: i64, rows: usize) {
    c.buf.clear();
    c.start = start;
    c.rows = rows;
    for r in 0..rows {
        schema.gen.row(seed, start + r as i64, &mut c.buf);
    }
}

impl Source {
    /// The chunk holding rows [i, i+n): chunks are whole batches, so a
    /// transaction's rows are always in one.
    /// None: the generator stopped (the load is being cancelled).
    fn rows(
        &mut self,
        schema: &Schema,
        seed: u64,
        i: i64,
        n: usize,
        chunk_rows: usize,
        end: i64,
    ) -> Option<&Chunk> {
        let holds = |c: &Chunk| i >= c.start && i + n as i64 <= c.start + c.rows as i64;
        match self {
            Source::Inline { cur, generated } => {
                if !holds(cur) {
                    let t = now();
                    let rows = n.max(chunk_rows.min((end - i) as usize));
                    fill(schema, seed, cur, i, rows);
                    *generated += now() - t;
                }
                Some(cur)
            }
            Source::Ahead { rx, free, cur } => {
                while !cur.as_ref().is_some_and(holds) {
                    if let Some(c) = cur.take() {
                        let _ = free.try_send(c.buf);
                    }
                    *cur = Some(rx.recv().ok()?);
                }
                cur.as_ref()
            }
        }
    }
}

/// Generates consecutive chunks of [from, to) ahead of the inserts.
#[allow(clippy::too_many_arguments)]
fn generate_ahead(
    ctx: &Ctx,
    schema: &Schema,
    seed: u64,
    from: i64,
    to: i64,
    chunk_rows: usize,
    tx: SyncSender<Chunk>,
    free: Receiver<RowBuf>,
) {
    let mut spare = 6;
    let mut i = from;
    while i < to && !ctx.done() {
        let buf = if spare > 0 {
            spare -= 1;
            RowBuf::default()
        } else {
            match free.recv() {
                Ok(b) => b,
                Err(_) => return,
            }
        };
        let rows = chunk_rows.min((to - i) as usize);
        let mut c = Chunk {
            start: 0,
            rows: 0,
            buf,
        };
        fill(schema, seed, &mut c, i, rows);
        if tx.send(c).is_err() {
            return;
        }
        i += rows as i64;
    }
}

struct Inserter<'a> {
    env: &'a Env,
    sess: &'a Session,
    w: Writer<'a>,
    schema: &'static Schema,
    rps: usize,
    rec: Recorder,
    /// Statements by rows per statement, the last used first.
    stmts: HashMap<usize, Stmt>,
    hot: Option<(usize, Stmt)>,
}

/// Binds rows [r0, r0+k) of buf, column after column.
fn bind_rows(
    st: &mut Statement<'_>,
    buf: &RowBuf,
    ncols: usize,
    r0: usize,
    k: usize,
) -> rusqlite::Result<()> {
    let vals = &buf.vals[r0 * ncols..(r0 + k) * ncols];
    for (j, v) in vals.iter().enumerate() {
        match *v {
            Val::Int(x) => st.raw_bind_parameter(j + 1, x)?,
            t @ Val::Text(..) => st.raw_bind_parameter(j + 1, buf.str_of(t))?,
        }
    }
    Ok(())
}

impl<'a> Inserter<'a> {
    /// Returns the worker's outcome and the time spent generating inline.
    fn run(
        &mut self,
        ctx: &Ctx,
        seed: u64,
        from: i64,
        to: i64,
        batch: usize,
        inline: bool,
    ) -> (Result<(), RunError>, i64) {
        // Whole batches, about CHUNK_ROWS rows (a batch alone when larger).
        let chunk_rows = batch * (CHUNK_ROWS / batch).max(1);
        let schema = self.schema;
        if inline {
            let mut src = Source::Inline {
                cur: Chunk {
                    start: 0,
                    rows: 0,
                    buf: RowBuf::default(),
                },
                generated: 0,
            };
            let r = self.each_batch(ctx, &mut src, seed, from, to, batch, chunk_rows);
            let Source::Inline { generated, .. } = src else {
                unreachable!()
            };
            return (r, generated);
        }
        let gctx = ctx.child();
        let (tx, rx) = sync_channel(4);
        let (free_tx, free_rx) = sync_channel(6);
        let r = std::thread::scope(|s| {
            let g = gctx.clone();
            s.spawn(move || generate_ahead(&g, schema, seed, from, to, chunk_rows, tx, free_rx));
            let mut src = Source::Ahead {
                rx,
                free: free_tx,
                cur: None,
            };
            let r = self.each_batch(ctx, &mut src, seed, from, to, batch, chunk_rows);
            gctx.stop();
            drop(src); // ends the generator's sends and receives
            r
        });
        (r, 0)
    }

    #[allow(clippy::too_many_arguments)]
    fn each_batch(
        &mut self,
        ctx: &Ctx,
        src: &mut Source,
        seed: u64,
        from: i64,
        to: i64,
        batch: usize,
        chunk_rows: usize,
    ) -> Result<(), RunError> {
        let mut start = from;
        while start < to {
            if ctx.done() {
                return Err(RunError::Cancelled);
            }
            let n = (batch as i64).min(to - start) as usize;
            let Some(chunk) = src.rows(self.schema, seed, start, n, chunk_rows, to) else {
                return Err(RunError::Cancelled);
            };
            let r0 = (start - chunk.start) as usize;
            let mut attempt = 0i64;
            loop {
                match self.tx(&chunk.buf, r0, n) {
                    Ok(()) => {
                        self.env
                            .done
                            .fetch_add(n as i64, std::sync::atomic::Ordering::Relaxed);
                        if let Some(ack) = &self.env.ack {
                            ack(start, n as i64);
                        }
                        break;
                    }
                    Err(e) => {
                        if ctx.done() {
                            return Err(RunError::Cancelled);
                        }
                        if self.sess.again(&e, attempt) {
                            self.rec.retry_n(OP_INSERT, 1);
                            attempt += 1;
                            continue;
                        }
                        let class = classify(&e);
                        self.rec.error(OP_INSERT, err_kind(class.name()));
                        if class.fatal() {
                            return Err(RunError::Failed(format!(
                                "insert rows {}-{}: {e}",
                                start,
                                start + n as i64 - 1
                            )));
                        }
                        break; // the batch is lost and counted; the run goes on
                    }
                }
            }
            start += n as i64;
        }
        Ok(())
    }

    /// Finalizes the worker's statements, as the Go inserter closes them.
    fn close(&mut self) {
        for st in self
            .stmts
            .values()
            .chain(self.hot.as_ref().map(|(_, st)| st))
        {
            st.close();
        }
    }

    /// The statement inserting k rows, prepared (or not) the first time.
    fn stmt(&mut self, k: usize) -> Result<(), DbError> {
        if self.hot.as_ref().is_some_and(|(hk, _)| *hk == k) {
            return Ok(());
        }
        let st = match self.stmts.remove(&k) {
            Some(st) => st,
            None => self.sess.prepare(&self.schema.insert_sql(k), true)?,
        };
        if let Some((hk, old)) = self.hot.replace((k, st)) {
            self.stmts.insert(hk, old);
        }
        Ok(())
    }

    /// Inserts rows [r0, r0+k) of buf in one statement, in the open
    /// transaction if there is one.
    fn exec(&mut self, buf: &RowBuf, r0: usize, k: usize) -> Result<(), DbError> {
        self.stmt(k)?;
        let ncols = self.schema.gen.len();
        let (_, st) = self.hot.as_ref().expect("statement just readied");
        self.w.exec(st, &mut |s: &mut Statement<'_>| {
            bind_rows(s, buf, ncols, r0, k)
        })
    }

    /// Inserts n rows from row r0 of buf in one transaction (or one
    /// autocommit statement when the batch is a single statement).
    fn tx(&mut self, buf: &RowBuf, r0: usize, n: usize) -> Result<(), DbError> {
        let rps = self.rps;
        let mut prev = now();
        if n <= rps {
            self.exec(buf, r0, n)?;
            self.rec.observe_n(OP_INSERT, n as i64, now() - prev);
            return Ok(());
        }
        // Prepare before BEGIN: with --pool 1 the transaction holds the
        // only connection, and preparing on the pool would wait for it.
        for k in [n % rps, rps] {
            if k > 0 {
                self.stmt(k)?;
            }
        }
        self.w.begin()?;
        let t = now();
        self.rec.observe(OP_BEGIN, t - prev);
        prev = t;
        let mut off = 0;
        // The whole statements on the transaction's prepared statement,
        // taken once; the rest (and ad hoc statements) through exec.
        let ncols = self.schema.gen.len();
        let fast = match &self.hot {
            Some((k, st)) if *k == rps => self.w.tx_stmt(st),
            _ => Ok(None),
        };
        let r = fast.and_then(|st| {
            let Some(st) = st else { return Ok(()) };
            while n - off >= rps {
                bind_rows(st, buf, ncols, r0 + off, rps)?;
                st.raw_execute()?;
                let t = now();
                self.rec.observe_n(OP_INSERT, rps as i64, t - prev);
                prev = t;
                off += rps;
            }
            Ok(())
        });
        if let Err(e) = r {
            let _ = self.w.rollback();
            return Err(e);
        }
        while off < n {
            let k = rps.min(n - off);
            if let Err(e) = self.exec(buf, r0 + off, k) {
                let _ = self.w.rollback();
                return Err(e);
            }
            let t = now();
            self.rec.observe_n(OP_INSERT, k as i64, t - prev);
            prev = t;
            off += k;
        }
        self.w.commit()?;
        self.rec.observe(OP_COMMIT, now() - prev);
        Ok(())
    }
}
