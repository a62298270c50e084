//! Plain loops with rusqlite, to measure what the worker's harness costs:
//! a 1M-row insert (prepared, 1000-row transactions, WAL, synchronous=OFF,
//! one row per statement) and 10 s of single-thread point reads by
//! uniform random id, written as a Rust programmer would write them; and
//! the same two jobs through the worker, over the protocol.
//!
//!   litebench-rust-bench insert DIR            plain insert: rows/s
//!   litebench-rust-bench read DIR              plain reads: ops/s
//!   litebench-rust-bench worker-insert DIR BIN the worker's insert: rows/s
//!   litebench-rust-bench worker-read DIR BIN   the worker's reads: ops/s
//!
//! Each prints two rates: per second of wall time, and per second of CPU
//! time of the process doing the work (for the worker, over its measured
//! part, as its process_cpu figure gives it; for an insert, the inserting
//! share of it, see insert_cpu), which a busy machine disturbs much less.
//!
//! ROWS (default 1000000), READ_ROWS (100000) and SECONDS (10) change the
//! sizes; READS, when set, runs that many reads instead of SECONDS of them
//! (bench/callgrind.sh counts instructions per read so). Both sides
//! generate the same rows with the worker's generators and leave the
//! generation time out, as the worker does.

#[allow(dead_code)]
#[path = "../src/gen.rs"]
mod gen;

use gen::{KeyGen, KeyKind, RowBuf, Table};
use rusqlite::Connection;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SEED: u64 = 1;
const BATCH: usize = 1000;

/// CPU time of this process so far, in seconds.
fn cpu_now() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// CPU time of process pid so far (user and system), in seconds.
fn cpu_of(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the worker's stat");
    // The fields after the command name (which ends with ')'): utime and
    // stime are the 12th and 13th, in clock ticks.
    let rest = &stat[stat.rfind(')').expect("a command name") + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks = f[11].parse::<f64>().expect("utime") + f[12].parse::<f64>().expect("stime");
    // SAFETY: sysconf has no preconditions.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// The CPU time of the inserting part of a load that took wall seconds
/// and cpu seconds of CPU, inserting for `inserting` of them and generating
/// rows the rest: the CPU time in the same proportion. Generation's wall
/// time is no measure of its CPU time on a busy machine (a process waiting
/// for a CPU while generating would have more subtracted than it spent),
/// and the worker reports generation as wall time only; the proportion
/// treats both sides alike.
fn insert_cpu(cpu: f64, inserting: f64, wall: f64) -> f64 {
    cpu * inserting / wall
}

/// A rate per second of wall time and per second of CPU time.
struct Rates(f64, f64);

fn env_num(name: &str, def: i64) -> i64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(def)
}

/// The bench table's generators (ID, rand, hash), as the worker's schema.
fn bench_table() -> Table {
    Table::new(vec![
        ("ID", gen::Gen::Seq { start: 0 }),
        (
            "rand",
            gen::Gen::Hex {
                bytes: 8,
                stream: 0,
            },
        ),
        (
            "hash",
            gen::Gen::Sha256Of {
                src: 1,
                decode_hex: true,
            },
        ),
    ])
}

fn open(path: &str) -> Connection {
    let c = Connection::open(path).expect("open");
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF")
        .expect("pragmas");
    c
}

/// Inserts rows [0, rows) in 1000-row transactions; returns the time spent
/// generating rows.
fn load(c: &Connection, rows: i64) -> Duration {
    c.execute_batch("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)")
        .expect("create");
    let t = bench_table();
    let mut stmt = c
        .prepare("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)")
        .expect("prepare");
    let mut buf = RowBuf::default();
    let mut generating = Duration::ZERO;
    let mut start = 0i64;
    while start < rows {
        let n = (BATCH as i64).min(rows - start);
        let g = Instant::now();
        buf.clear();
        for i in start..start + n {
            t.row(SEED, i, &mut buf);
        }
        generating += g.elapsed();
        c.execute_batch("BEGIN").expect("begin");
        for r in buf.vals.chunks_exact(3) {
            let gen::Val::Int(id) = r[0] else {
                unreachable!()
            };
            stmt.execute((id, buf.str_of(r[1]), buf.str_of(r[2])))
                .expect("insert");
        }
        c.execute_batch("COMMIT").expect("commit");
        start += n;
    }
    generating
}

fn plain_insert(dir: &str) -> Rates {
    let rows = env_num("ROWS", 1_000_000);
    let c = open(&format!("{dir}/plain-insert.db"));
    let t0 = Instant::now();
    let c0 = cpu_now();
    let generating = load(&c, rows);
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_now() - c0);
    let inserting = wall - generating.as_secs_f64();
    Rates(
        rows as f64 / inserting,
        rows as f64 / insert_cpu(cpu, inserting, wall),
    )
}

fn plain_read(dir: &str) -> Rates {
    let rows = env_num("READ_ROWS", 100_000);
    let secs = env_num("SECONDS", 10);
    let reads = env_num("READS", 0);
    let c = open(&format!("{dir}/plain-read.db"));
    load(&c, rows);
    let mut stmt = c
        .prepare("SELECT ID,rand,hash FROM bench WHERE ID = ?")
        .expect("prepare");
    let mut keys = KeyGen::new(KeyKind::Uniform, None, SEED, 0);
    let mut id = -1i64;
    let (mut rand, mut hash) = (Vec::new(), Vec::new());
    let mut n = 0i64;
    let t0 = Instant::now();
    let c0 = cpu_now();
    let end = t0 + Duration::from_secs(secs as u64);
    loop {
        let key = keys.next_key(rows);
        // Every row of the result, as the worker (and the Go worker) read
        // it: the one row, then the end.
        let mut found = stmt.query([key]).expect("query");
        while let Some(row) = found.next().expect("step") {
            id = row.get(0).expect("ID");
            rand.clear();
            rand.extend_from_slice(row.get_ref(1).unwrap().as_bytes().unwrap());
            hash.clear();
            hash.extend_from_slice(row.get_ref(2).unwrap().as_bytes().unwrap());
        }
        n += 1;
        if n == reads || (n % 256 == 0 && reads == 0 && Instant::now() >= end) {
            break;
        }
    }
    assert!(
        id >= 0 && rand.len() == 16 && hash.len() == 64,
        "rows were read"
    );
    let wall = t0.elapsed().as_secs_f64();
    Rates(n as f64 / wall, n as f64 / (cpu_now() - c0))
}

/// Runs one job through the worker and returns its final event and the
/// worker's CPU time from set-up done to the final event.
fn through_worker(bin: &str, job: Value) -> (Value, f64) {
    let mut p = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the worker");
    let pid = p.id();
    let mut input = p.stdin.take().expect("stdin");
    let mut out = BufReader::new(p.stdout.take().expect("stdout"));
    let mut next = |want: &str| -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            if out.read_line(&mut line).expect("read") == 0 {
                panic!("the worker ended before {want}");
            }
            let ev: Value = serde_json::from_str(&line).expect("an event");
            match ev["t"].as_str() {
                Some(t) if t == want => return ev,
                Some("error") => panic!("worker: {}", ev["error"]),
                _ => {}
            }
        }
    };
    for (msg, want) in [
        (json!({"t": "hello", "protocol": 1}), "hello"),
        (json!({"t": "setup", "job": job}), "setup_done"),
    ] {
        writeln!(input, "{msg}").expect("write");
        next(want);
    }
    let c0 = cpu_of(pid);
    writeln!(input, "{}", json!({"t": "run"})).expect("write");
    let fin = next("final");
    let cpu = cpu_of(pid) - c0;
    writeln!(input, "{}", json!({"t": "close"})).expect("write");
    drop(input);
    p.wait().expect("wait");
    assert_eq!(fin["status"], "ok", "{fin}");
    (fin, cpu)
}

/// The worker's rates: done per second of its elapsed time, and per
/// second of its CPU time (its inserting share, when it generated rows, as
/// the plain side counts its own). The CPU time is the measured part's,
/// which the worker reports as process_cpu (cores over the measured part,
/// its set-up of threads, row counts and final histograms left out, as the
/// rate leaves them out); cpu, the process's from the run message to the
/// final event, stands in for a build that does not report it.
fn worker_rates(fin: &Value, cpu: f64) -> Rates {
    let done = fin["done"].as_f64().unwrap();
    let metric = |name: &str| {
        fin["metrics"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["name"] == name))
            .and_then(|m| m["value"].as_f64())
    };
    let generate = metric("generate").unwrap_or(0.0);
    let elapsed = fin["elapsed_s"].as_f64().unwrap();
    // process_cpu × (elapsed + generate) is the measured part's CPU time;
    // its inserting share is process_cpu × elapsed.
    let cpu = match metric("process_cpu") {
        Some(cores) => cores * elapsed,
        None => insert_cpu(cpu, elapsed, elapsed + generate),
    };
    Rates(done / elapsed, done / cpu)
}

fn settings() -> Value {
    json!({"journal": "wal", "sync": "off", "prepared": "true", "batch": BATCH.to_string(), "rows-per-stmt": "1"})
}

/// The worker reports intervals every second, as litebench's runner asks
/// by default: what it costs is part of the harness measured.
const INTERVAL_NS: i64 = 1_000_000_000;

fn worker_insert(dir: &str, bin: &str) -> Rates {
    let rows = env_num("ROWS", 1_000_000);
    let (fin, cpu) = through_worker(
        bin,
        json!({"workload": "insert", "path": format!("{dir}/worker-insert.db"), "interval_ns": INTERVAL_NS,
               "params": {"rows": rows.to_string(), "schema": "bench", "seed": SEED.to_string()},
               "settings": settings()}),
    );
    worker_rates(&fin, cpu)
}

fn worker_read(dir: &str, bin: &str) -> Rates {
    let rows = env_num("READ_ROWS", 100_000);
    let secs = env_num("SECONDS", 10);
    let reads = env_num("READS", 0);
    let mut s = settings();
    s["batch"] = "1".into();
    let mut params = json!({"rows": rows.to_string(), "duration": format!("{secs}s"), "workers": "1",
                            "keys": "uniform", "schema": "bench", "seed": SEED.to_string()});
    if reads > 0 {
        params["count"] = reads.to_string().into();
    }
    let (fin, cpu) = through_worker(
        bin,
        json!({"workload": "read", "path": format!("{dir}/worker-read.db"), "interval_ns": INTERVAL_NS,
               "params": params, "settings": s}),
    );
    worker_rates(&fin, cpu)
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| a.get(i).map(String::as_str).unwrap_or("");
    let v = match (arg(0), a.len()) {
        ("insert", 2) => plain_insert(arg(1)),
        ("read", 2) => plain_read(arg(1)),
        ("worker-insert", 3) => worker_insert(arg(1), arg(2)),
        ("worker-read", 3) => worker_read(arg(1), arg(2)),
        _ => {
            eprintln!("usage: litebench-rust-bench insert|read DIR, or worker-insert|worker-read DIR WORKER");
            std::process::exit(2);
        }
    };
    println!("{:.0} {:.0}", v.0, v.1);
}
