//! The protocol's output: one JSON object per line on standard output,
//! each flushed as it is written, from any thread.

use serde_json::Value;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Standard output, shared by the threads that send events.
#[derive(Clone)]
pub struct Out(Arc<Mutex<std::io::Stdout>>);

impl Out {
    pub fn new() -> Out {
        Out(Arc::new(Mutex::new(std::io::stdout())))
    }

    /// Writes one event and flushes it.
    pub fn send(&self, ev: &Value) {
        let mut line = serde_json::to_vec(ev).expect("events serialise");
        line.push(b'\n');
        let mut o = self.0.lock().expect("stdout lock");
        let _ = o.write_all(&line);
        let _ = o.flush();
    }

    /// A fatal problem: the conversation is over.
    pub fn error(&self, msg: &str) {
        self.send(&serde_json::json!({"t": "error", "error": one_line(msg)}));
    }
}

/// msg on one line (errors are one line).
pub fn one_line(msg: &str) -> String {
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}
