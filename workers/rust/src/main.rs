//! litebench's worker for rusqlite (bundled SQLite): it serves the worker
//! protocol (docs/worker-protocol.md) on standard input and output, running
//! the insert, scan, read, write and mixed workloads with worker threads on
//! the same deterministic data as the Go worker, timing its own operations
//! and reporting HdrHistograms.

mod ctx;
mod db;
mod env;
mod expr;
mod gen;
mod insert;
mod job;
mod loadgen;
mod metrics;
mod ops;
mod own;
mod program;
mod proto;
mod scan;
mod schema;
mod worker;

#[cfg(test)]
mod program_test;
#[cfg(test)]
mod vectors_test;

use proto::Out;
use serde_json::{json, Value};
use std::io::BufRead;
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::time::Duration;

/// The protocol version this worker speaks.
const PROTOCOL: i64 = 1;

const HELP: &str = "NAME
    litebench-worker-rust - litebench's rust-rusqlite worker

SYNOPSIS
    litebench-worker-rust [--version | --describe | --pragmas SETTINGS]

DESCRIPTION
    Serves the litebench worker protocol (docs/worker-protocol.md) on
    standard input and output with rusqlite and its bundled SQLite. It ends
    at \"close\", at the end of its input, or on SIGINT/SIGTERM (a run in
    progress ends as interrupted). --version prints its version;
    --describe prints the workloads' parameters and setting defaults as
    JSON; --pragmas prints the pragmas it runs on every connection for the
    settings given as a JSON object.
";

fn version() -> String {
    format!(
        "{} (rusqlite {}, SQLite {})",
        env!("CARGO_PKG_VERSION"),
        env!("LB_RUSQLITE_VERSION"),
        rusqlite::version()
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("--version") => {
            println!("litebench-worker-rust {}", version());
            return;
        }
        Some("--describe") => {
            println!("{}", worker::describe());
            return;
        }
        Some("--pragmas") => {
            // The pragmas run on every connection for settings given as a
            // JSON object (for the conformance test).
            let m: std::collections::BTreeMap<String, String> =
                match serde_json::from_str(args.get(1).map(String::as_str).unwrap_or("{}")) {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("litebench-worker-rust: --pragmas: {e}");
                        std::process::exit(2);
                    }
                };
            match job::Settings::resolve(&[], &m) {
                Ok(s) => println!("{}", json!(s.pragmas())),
                Err(e) => {
                    eprintln!("litebench-worker-rust: {e}");
                    std::process::exit(2);
                }
            }
            return;
        }
        Some("--help" | "-h" | "help") => {
            print!("{HELP}");
            return;
        }
        Some(a) => {
            eprintln!("litebench-worker-rust: unknown argument {a:?}: it takes none (it reads JSON lines on standard input); see --help");
            std::process::exit(2);
        }
    }
    ctx::calibrate_clock(); // before any thread, and any reading kept
    ctx::install_signal_handlers();
    let out = Out::new();
    let code = serve(&out);
    std::process::exit(code);
}

/// Reads messages on a thread of its own, so that a cancel is seen while a
/// set-up or run is in progress; a message is handed over only when the
/// conversation takes it, as the Go worker does.
fn serve(out: &Out) -> i32 {
    let (tx, rx) = sync_channel::<Value>(0);
    let errs = out.clone();
    std::thread::spawn(move || {
        ctx::own_fd_table();
        let mut stdin = std::io::stdin().lock();
        let mut buf = String::new();
        loop {
            buf.clear();
            match stdin.read_line(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    errs.error(&format!("worker protocol: {e}"));
                    break;
                }
            }
            let line = buf.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                continue;
            }
            let shown: String = line.chars().take(80).collect();
            let ev: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    errs.error(&format!("worker protocol: bad message {shown:?}: {e}"));
                    break;
                }
            };
            match ev.get("t").and_then(Value::as_str).unwrap_or("") {
                "" => {
                    errs.error(&format!(
                        "worker protocol: message without \"t\": {shown:?}"
                    ));
                    break;
                }
                "cancel" => ctx::cancel_all(),
                "close" if ctx::cancelled() => break,
                _ => {
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            }
        }
        ctx::cancel_all(); // input gone: the controller is gone
    });
    let ctx = ctx::Ctx::root();
    let mut job: Option<worker::Prepared> = None;
    let fail = |msg: &str| {
        out.error(msg);
        1
    };
    let code = loop {
        let ev = loop {
            if ctx::cancelled() {
                break None;
            }
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(ev) => break Some(ev),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break None,
            }
        };
        let Some(ev) = ev else {
            break 0;
        };
        match ev.get("t").and_then(Value::as_str).unwrap_or("") {
            "hello" => {
                let p = ev.get("protocol").and_then(Value::as_i64).unwrap_or(0);
                if p != PROTOCOL {
                    break fail(&format!(
                        "worker protocol {p} asked, this worker speaks {PROTOCOL}"
                    ));
                }
                out.send(&json!({
                    "t": "hello",
                    "protocol": PROTOCOL,
                    "lang": format!("rust {}", env!("LB_RUSTC_VERSION")),
                    "version": version(),
                    "driver": "rusqlite",
                    "driver_version": env!("LB_RUSQLITE_VERSION"),
                    "caps": ["closed_loop", "open_loop", "intervals", "acks", "digest", "in_memory", "program"],
                }));
            }
            "setup" => {
                let Some(j) = ev.get("job").filter(|j| j.is_object()) else {
                    break fail("setup without a job");
                };
                if job.is_some() {
                    break fail("worker: setup twice");
                }
                match worker::setup(&ctx, j) {
                    Ok((p, done)) => {
                        out.send(&done);
                        job = Some(p);
                    }
                    Err(e) => break fail(&e),
                }
            }
            "run" => {
                let Some(p) = job.as_mut() else {
                    break fail("worker: run before setup");
                };
                let fin = p.run(&ctx, out);
                out.send(&fin);
            }
            "close" => break 0,
            t => break fail(&format!("unexpected message {t:?}")),
        }
    };
    if let Some(p) = &job {
        p.close();
    }
    code
}
