//! What a workload gets from the worker: the session, progress, figures,
//! notes, the recorders and the bounds of the measured interval.

use crate::ctx::{now, process_cpu};
use crate::db::Session;
use crate::job::Settings;
use crate::metrics::{Live, Recorder};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// A workload-specific figure of the result.
pub struct Figure {
    pub name: &'static str,
    pub unit: &'static str,
    /// "lower", "higher", or "" for a figure that describes the run.
    pub better: &'static str,
    pub value: f64,
}

pub const ROWS: &str = "rows";
pub const OPS_PER_S: &str = "ops/s";
pub const MICROS: &str = "µs";
pub const SECONDS: &str = "s";
pub const CORES: &str = "cores";
pub const LOWER: &str = "lower";
pub const NONE: &str = "";

/// How a run ended early.
#[derive(Debug)]
pub enum RunError {
    /// The conversation cancelled it.
    Cancelled,
    Failed(String),
}

pub type AckFn = Box<dyn Fn(i64, i64) + Send + Sync>;

pub struct Env {
    pub sess: Session,
    pub settings: Settings,
    /// Rows written or read, or operations, so far.
    pub done: AtomicI64,
    figures: Mutex<Vec<Figure>>,
    notes: Mutex<Vec<String>>,
    lives: Mutex<Vec<Arc<Live>>>,
    recorders: Mutex<Vec<Recorder>>,
    /// The measured start (0: not yet), its end (0: when the run returns)
    /// and time inside it that is not the workload's (rows generated).
    start: AtomicI64,
    end: AtomicI64,
    excluded: AtomicI64,
    // The process's CPU time (ctx::process_cpu) and the clock at the
    // measured start and at its end: the process_cpu figure.
    cpu0: AtomicI64,
    cpu0_at: AtomicI64,
    cpu1: AtomicI64,
    cpu1_at: AtomicI64,
    /// Called after every committed write transaction with its first row
    /// index (or key) and its number of rows.
    pub ack: Option<AckFn>,
    /// The database belongs to another litebench process: not set up.
    pub attached: bool,
    /// The job asks for intervals: load workers record live.
    pub intervals: bool,
}

impl Env {
    pub fn new(sess: Session, settings: Settings, attached: bool, intervals: bool) -> Env {
        Env {
            sess,
            settings,
            done: AtomicI64::new(0),
            figures: Mutex::new(Vec::new()),
            notes: Mutex::new(Vec::new()),
            lives: Mutex::new(Vec::new()),
            recorders: Mutex::new(Vec::new()),
            start: AtomicI64::new(0),
            end: AtomicI64::new(0),
            excluded: AtomicI64::new(0),
            cpu0: AtomicI64::new(0),
            cpu0_at: AtomicI64::new(0),
            cpu1: AtomicI64::new(0),
            cpu1_at: AtomicI64::new(0),
            ack: None,
            attached,
            intervals,
        }
    }

    pub fn figure(&self, name: &'static str, unit: &'static str, better: &'static str, value: f64) {
        self.figures.lock().expect("figures").push(Figure {
            name,
            unit,
            better,
            value,
        });
    }

    pub fn take_figures(&self) -> Vec<Figure> {
        std::mem::take(&mut *self.figures.lock().expect("figures"))
    }

    pub fn note(&self, s: String) {
        self.notes.lock().expect("notes").push(s);
    }

    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().expect("notes").clone()
    }

    /// Registers a live recorder's interval buffer with the sampler.
    pub fn add_live(&self, l: Arc<Live>) {
        self.lives.lock().expect("lives").push(l);
    }

    pub fn lives(&self) -> Vec<Arc<Live>> {
        self.lives.lock().expect("lives").clone()
    }

    /// Hands over a worker's recorder at its end, for the final figures,
    /// publishing what its interval series still had pending.
    pub fn add_recorder(&self, mut r: Recorder) {
        r.publish();
        self.recorders.lock().expect("recorders").push(r);
    }

    pub fn take_recorders(&self) -> Vec<Recorder> {
        std::mem::take(&mut *self.recorders.lock().expect("recorders"))
    }

    /// The measured part starts at t (0: not yet, after a warm-up); the
    /// process's CPU time is read there for process_cpu.
    pub fn mark_start(&self, t: i64) {
        self.start.store(t, Relaxed);
        if t != 0 {
            self.cpu0.store(process_cpu(), Relaxed);
            self.cpu0_at.store(now(), Relaxed);
        }
    }

    pub fn started(&self) -> i64 {
        self.start.load(Relaxed)
    }

    /// The measured part ended at t: called once every thread of it is
    /// done, which is where the process's CPU time is read again.
    pub fn set_end(&self, t: i64) {
        self.end.store(t, Relaxed);
        self.cpu1.store(process_cpu(), Relaxed);
        self.cpu1_at.store(now(), Relaxed);
    }

    /// The CPU the whole process used over the measured part, every
    /// thread's, in cores, as the Go worker reports process_cpu (none for
    /// a workload that marks no end: a scan). A warm-up that outlasted an
    /// interrupted run is in it, as it is in that run's elapsed time (the
    /// measured start stays the run's until the warm-up ends).
    pub fn process_cpu(&self) -> Option<f64> {
        let (a, b) = (self.cpu0_at.load(Relaxed), self.cpu1_at.load(Relaxed));
        (a > 0 && b > a)
            .then(|| (self.cpu1.load(Relaxed) - self.cpu0.load(Relaxed)) as f64 / (b - a) as f64)
    }

    pub fn end(&self) -> i64 {
        self.end.load(Relaxed)
    }

    pub fn exclude(&self, ns: i64) {
        self.excluded.fetch_add(ns, Relaxed);
    }

    pub fn excluded(&self) -> i64 {
        self.excluded.load(Relaxed)
    }
}
