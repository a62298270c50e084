//! The scan workload (internal/workload/read.go): read every bench row,
//! re-hash rand and compare with hash, timing the query's return, the
//! first row and the whole scan; and the preload the workloads share.

use crate::ctx::{now, Ctx};
use crate::db::DbError;
use crate::env::{Env, RunError, LOWER, MICROS};
use crate::insert::{create_schema, load, LoadSpec};
use crate::metrics::Recorder;
use crate::schema::{self, Schema, MAX_PARAMS};
use sha2::{Digest, Sha256};
use std::sync::atomic::Ordering::Relaxed;

pub const OPS: [&str; 1] = ["scan"];

pub struct Scan {
    pub rows: i64,
    pub seed: u64,
}

/// Inserts rows [0, rows) of sc as set-up: the session's set-up view
/// (prepared, retried until done), recorded nowhere, not measured.
pub fn preload(
    ctx: &Ctx,
    env: &Env,
    sc: &'static Schema,
    seed: u64,
    rows: i64,
) -> Result<(), String> {
    if rows == 0 {
        return Ok(());
    }
    let setup = env.sess.setup_view();
    let ls = LoadSpec {
        schema: sc,
        seed,
        from: 0,
        to: rows,
        workers: 1,
        batch: 10000,
        rps: 100.min(MAX_PARAMS / sc.gen.len()),
    };
    match load(ctx, env, &setup, &ls, false) {
        Ok(()) => Ok(()),
        Err(RunError::Cancelled) => Err("context canceled".into()),
        Err(RunError::Failed(e)) => Err(e),
    }
}

/// Whether seed 000's reader accepts a bench row: hash is the SHA-256 of
/// the bytes rand encodes, in lowercase hex.
pub fn check_bench(rand: &[u8], hash: &[u8]) -> bool {
    if !rand.len().is_multiple_of(2) || hash.len() != 64 {
        return false;
    }
    let mut h = Sha256::new();
    for pair in rand.chunks_exact(2) {
        let (Some(a), Some(b)) = (hexval(pair[0]), hexval(pair[1])) else {
            return false;
        };
        h.update([a << 4 | b]);
    }
    let sum = h.finalize();
    const D: &[u8; 16] = b"0123456789abcdef";
    sum.iter()
        .zip(hash.chunks_exact(2))
        .all(|(c, w)| w[0] == D[(c >> 4) as usize] && w[1] == D[(c & 15) as usize])
}

fn hexval(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl Scan {
    /// Makes sure the bench table holds exactly rows [0, rows); a table
    /// that already does is reused.
    pub fn setup(&self, ctx: &Ctx, env: &Env) -> Result<(), String> {
        let sc = schema::get("bench").expect("bench schema");
        let db = env.sess.db();
        let exists = db
            .int(&format!(
                "SELECT count(*) FROM sqlite_master WHERE type='table' AND name={}",
                schema::quote(sc.name)
            ))
            .map_err(|e| e.to_string())?;
        if exists == 1 {
            let n = db
                .int(&format!("SELECT count(*) FROM {}", sc.name))
                .map_err(|e| e.to_string())?;
            if n == self.rows {
                env.note(format!("reused the {n} bench rows already in the database"));
                return Ok(());
            }
            env.note(format!(
                "the {} table held {n} rows, not {}: it was dropped and loaded again",
                sc.name, self.rows
            ));
            db.exec(&format!("DROP TABLE {}", sc.name))
                .map_err(|e| e.to_string())?;
        }
        create_schema(&env.sess, sc)?;
        preload(ctx, env, sc, self.seed, self.rows)
    }

    pub fn run(&self, ctx: &Ctx, env: &Env) -> Result<(), RunError> {
        let mut rec = Recorder::new(OPS.len());
        let start = now();
        let (mut returned, mut first) = (0i64, 0i64);
        let mut n: i64 = 0;
        let r = env.sess.db().with_conn(|c| {
            let mut q = c.db().prepare("SELECT ID, rand, hash FROM bench")?;
            returned = now();
            let mut rows = q.raw_query();
            while let Some(row) = rows.next()? {
                if n == 0 {
                    first = now();
                }
                let id: i64 = row.get(0)?;
                let rand = row.get_ref(1)?.as_bytes()?;
                let hash = row.get_ref(2)?.as_bytes()?;
                if !check_bench(rand, hash) {
                    return Err(DbError::Other(format!(
                        "row ID {id}: hash mismatch: stored hash {} is not the SHA-256 of rand {}",
                        String::from_utf8_lossy(hash),
                        String::from_utf8_lossy(rand)
                    )));
                }
                n += 1;
                if n & 0xffff == 0 {
                    env.done.fetch_add(0x10000, Relaxed);
                    if ctx.done() {
                        return Err(DbError::Other(String::new()));
                    }
                }
            }
            Ok(())
        });
        let end = now();
        env.done.store(n, Relaxed);
        if let Err(e) = r {
            if ctx.done() {
                return Err(RunError::Cancelled);
            }
            return Err(RunError::Failed(e.to_string()));
        }
        rec.observe_n(0, n, end - start);
        env.add_recorder(rec);
        if returned != 0 {
            env.figure(
                "query_returned",
                MICROS,
                LOWER,
                (returned - start) as f64 / 1e3,
            );
        }
        if first != 0 {
            env.figure("first_row", MICROS, LOWER, (first - start) as f64 / 1e3);
        }
        if n > 0 {
            env.figure(
                "per_row",
                MICROS,
                LOWER,
                (end - start) as f64 / 1e3 / n as f64,
            );
        }
        if n != self.rows && !env.attached {
            return Err(RunError::Failed(format!(
                "scan read {n} rows, want {}",
                self.rows
            )));
        }
        Ok(())
    }
}
