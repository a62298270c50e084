//! The load engine (internal/loadgen): closed loop (a fixed set of worker
//! threads, each starting its next operation when the last one ends) or
//! open loop (operations scheduled at a rate whatever the target does,
//! handed to up to max-inflight executor threads started as they are
//! needed, response time measured from the schedule). Warm-up runs first,
//! unrecorded; the measured part ends at a duration or a count.

use crate::ctx::{cancelled_at, now, Ctx};
use crate::env::{Env, RunError};
use crate::gen::{arrival_u, schedule, Arrivals};
use crate::metrics::{new_interval_hist, Hist, Recorder};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, Ordering};
use std::sync::{Barrier, Condvar, Mutex, Once};
use std::time::Duration;

const MS: i64 = 1_000_000;

/// How one operation failed.
pub enum OpError {
    /// Counted under this error kind (metrics::ERROR_KINDS); the run goes on.
    Counted(usize),
    /// Ends the run.
    Fatal(String),
}

/// Runs operations for one worker, on one thread.
pub trait Executor {
    /// Runs one operation of kind op; returns how many times it was
    /// retried and how it ended. rec is where the operation goes: an
    /// executor records there the results of its parts (ops of their own).
    fn run_op(&mut self, op: usize, rec: &mut Recorder) -> (i64, Result<(), OpError>);
}

/// The role of a closed-loop worker that chooses each operation (seq =
/// worker × 2^40, +1, …) as the open loop does.
pub const ROLE_CHOOSE: usize = usize::MAX;

pub struct Config {
    pub ops: usize,
    /// Closed loop: one worker per entry, running that op kind (or
    /// ROLE_CHOOSE).
    pub roles: Vec<usize>,
    /// Open loop when > 0: operations per second in total.
    pub rate: f64,
    pub arrivals: Arrivals,
    pub max_inflight: usize,
    pub duration: i64,
    pub warmup: i64,
    pub count: i64,
    pub seed: u64,
}

/// What the engine did.
pub struct Stats {
    /// The measured part's bounds (0 when a fatal error ended the run).
    pub start: i64,
    pub end: i64,
    /// Operations started in the measured part.
    pub issued: i64,
    pub executors: usize,
    /// Open loop: how late each measured operation started.
    pub lag: Option<Hist>,
}

/// The switch from warm-up to measurement.
struct Phase {
    once: Once,
    measured: AtomicBool,
    start: AtomicI64,
    deadline: AtomicI64,
}

impl Phase {
    fn new() -> Phase {
        Phase {
            once: Once::new(),
            measured: AtomicBool::new(false),
            start: AtomicI64::new(0),
            deadline: AtomicI64::new(0),
        }
    }

    fn begin(&self, t: i64, cfg: &Config, env: &Env) {
        self.once.call_once(|| {
            self.start.store(t, Ordering::Relaxed);
            if cfg.duration > 0 {
                self.deadline.store(t + cfg.duration, Ordering::Relaxed);
            }
            env.done.store(0, Ordering::Relaxed);
            env.mark_start(t);
            self.measured.store(true, Ordering::Release);
        });
    }

    fn measured(&self) -> bool {
        self.measured.load(Ordering::Acquire)
    }
}

/// What the threads of one run share.
struct Run<'a> {
    cfg: &'a Config,
    env: &'a Env,
    /// The caller's scope, and the run's (stopped by a fatal error too).
    parent: &'a Ctx,
    ctx: Ctx,
    fatal: Mutex<Option<String>>,
    ph: Phase,
}

impl Run<'_> {
    fn stop(&self, e: String) {
        let mut f = self.fatal.lock().expect("fatal lock");
        if f.is_none() {
            *f = Some(e);
            self.ctx.stop();
        }
    }

    /// A recorder that counts (registered with the run; live when the job
    /// asks for intervals).
    fn recorder(&self) -> Recorder {
        if !self.env.intervals {
            return Recorder::new(self.cfg.ops);
        }
        let (r, live) = Recorder::new_live(self.cfg.ops);
        self.env.add_live(live);
        r
    }

    /// Counts a finished operation's retries and error; whether it
    /// succeeded.
    fn record(&self, rec: &mut Recorder, op: usize, retries: i64, r: Result<(), OpError>) -> bool {
        if retries != 0 {
            rec.retry_n(op, retries);
        }
        match r {
            Ok(()) => true,
            Err(OpError::Fatal(e)) => {
                self.stop(e);
                false
            }
            Err(OpError::Counted(kind)) => {
                rec.error(op, kind);
                false
            }
        }
    }

    /// The end of the measured part for threads that stopped at stop_at:
    /// the time the caller cancelled, if earlier.
    fn end(&self, stop_at: i64) -> i64 {
        if !self.parent.done() {
            return stop_at;
        }
        match cancelled_at() {
            c if c > 0 && c < stop_at => c,
            _ => stop_at,
        }
    }

    fn finish(&self, mut st: Stats) -> (Stats, Result<(), RunError>) {
        if let Some(e) = self.fatal.lock().expect("fatal lock").take() {
            return (
                Stats {
                    start: 0,
                    end: 0,
                    issued: 0,
                    executors: 0,
                    lag: None,
                },
                Err(RunError::Failed(e)),
            );
        }
        st.start = self.ph.start.load(Ordering::Relaxed);
        let r = if self.ctx.done() {
            Err(RunError::Cancelled)
        } else {
            Ok(())
        };
        (st, r)
    }
}

/// Counts one worker's finished measured operations into env.done in
/// batches (every 256 operations or 10 ms).
struct Tally<'a> {
    env: &'a Env,
    n: i64,
    last: i64,
}

impl Tally<'_> {
    fn add(&mut self, t: i64) {
        self.n += 1;
        if self.n >= 256 || t - self.last >= 10 * MS {
            self.flush();
            self.last = t;
        }
    }

    fn flush(&mut self) {
        self.env.done.fetch_add(self.n, Ordering::Relaxed);
        self.n = 0;
    }
}

/// Hands out the operations of a counted closed-loop run a block at a
/// time (about 1 ms of a worker's operations, at most 64), shrinking as
/// the count runs out.
struct Quota {
    left: AtomicI64,
    workers: i64,
}

impl Quota {
    fn claim(&self, last: i64) -> i64 {
        let n = if last > 0 {
            (MS / last).clamp(1, 64)
        } else {
            1
        };
        loop {
            let left = self.left.load(Ordering::SeqCst);
            if left <= 0 {
                return 0;
            }
            let k = n.min(left / (4 * self.workers)).max(1);
            if self
                .left
                .compare_exchange(left, left - k, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return k;
            }
        }
    }
}

pub type NewExecutor<'e> = dyn Fn(usize) -> Result<Box<dyn Executor + 'e>, String> + Sync + 'e;

/// Drives the load until the duration or count is reached, ctx is done, or
/// an executor fails fatally.
pub fn run<'e>(
    ctx: &Ctx,
    env: &Env,
    cfg: &Config,
    choose: &(dyn Fn(u64) -> usize + Sync),
    new_executor: &NewExecutor<'e>,
) -> (Stats, Result<(), RunError>) {
    let r = Run {
        cfg,
        env,
        parent: ctx,
        ctx: ctx.child(),
        fatal: Mutex::new(None),
        ph: Phase::new(),
    };
    if cfg.rate > 0.0 {
        run_open(&r, choose, new_executor)
    } else {
        run_closed(&r, choose, new_executor)
    }
}

fn run_closed<'e>(
    r: &Run,
    choose: &(dyn Fn(u64) -> usize + Sync),
    new_executor: &NewExecutor<'e>,
) -> (Stats, Result<(), RunError>) {
    let cfg = r.cfg;
    let q = Quota {
        left: AtomicI64::new(cfg.count),
        workers: cfg.roles.len() as i64,
    };
    if cfg.roles.len() == 1 {
        return run_closed_here(r, choose, new_executor, &q);
    }
    // Threads take longer to start than goroutines: the workers make their
    // executors, then all start together once the clock is set, so that
    // the first ones started do not run alone.
    let ready = Barrier::new(cfg.roles.len() + 1);
    let go = Barrier::new(cfg.roles.len() + 1);
    let warm_end = AtomicI64::new(0);
    let issued: i64 = std::thread::scope(|s| {
        let hs: Vec<_> = cfg
            .roles
            .iter()
            .enumerate()
            .map(|(w, &role)| {
                let (q, ready, go, warm_end) = (&q, &ready, &go, &warm_end);
                s.spawn(move || {
                    let ex = new_executor(w);
                    ready.wait();
                    go.wait();
                    match ex {
                        Ok(ex) => {
                            let pick = Pick {
                                role,
                                choose,
                                seq: (w as u64) << 40,
                            };
                            work(r, ex, pick, warm_end.load(Ordering::Relaxed), q)
                        }
                        Err(e) => {
                            r.stop(format!("worker {w}: {e}"));
                            0
                        }
                    }
                })
            })
            .collect();
        ready.wait();
        let t0 = now();
        warm_end.store(t0 + cfg.warmup, Ordering::Relaxed);
        if cfg.warmup <= 0 {
            r.ph.begin(t0, cfg, r.env);
        }
        go.wait();
        hs.into_iter()
            .map(|h| h.join().expect("load worker panicked"))
            .sum()
    });
    closed_stats(r, issued)
}

/// A closed loop of one worker, run on the calling thread: no thread to
/// start, and the thread running the load stays the only one using the
/// process's file descriptors (see ctx::own_fd_table).
fn run_closed_here<'e>(
    r: &Run,
    choose: &(dyn Fn(u64) -> usize + Sync),
    new_executor: &NewExecutor<'e>,
    q: &Quota,
) -> (Stats, Result<(), RunError>) {
    let cfg = r.cfg;
    let ex = new_executor(0);
    let t0 = now();
    if cfg.warmup <= 0 {
        r.ph.begin(t0, cfg, r.env);
    }
    let issued = match ex {
        Ok(ex) => {
            let pick = Pick {
                role: cfg.roles[0],
                choose,
                seq: 0,
            };
            work(r, ex, pick, t0 + cfg.warmup, q)
        }
        Err(e) => {
            r.stop(format!("worker 0: {e}"));
            0
        }
    };
    closed_stats(r, issued)
}

/// How a closed loop that started `issued` measured operations went.
fn closed_stats(r: &Run, issued: i64) -> (Stats, Result<(), RunError>) {
    let cfg = r.cfg;
    let mut end = r.end(now());
    if !r.ph.measured() {
        r.ph.begin(end, cfg, r.env); // the warm-up outlasted the run
    }
    let deadline = r.ph.deadline.load(Ordering::Relaxed);
    if cfg.duration > 0 && end > deadline {
        end = deadline; // the window; later completions are overruns
    }
    r.finish(Stats {
        start: 0,
        end,
        issued,
        executors: cfg.roles.len(),
        lag: None,
    })
}

/// The kind of a closed-loop worker's next operation: its role, or the
/// choice for its next sequence number.
struct Pick<'c> {
    role: usize,
    choose: &'c (dyn Fn(u64) -> usize + Sync),
    seq: u64,
}

impl Pick<'_> {
    fn next(&mut self) -> usize {
        if self.role != ROLE_CHOOSE {
            return self.role;
        }
        let op = (self.choose)(self.seq);
        self.seq += 1;
        op
    }
}

/// A closed-loop worker: runs operations of its kind until the run ends;
/// returns how many measured ones it started.
fn work(r: &Run, mut ex: Box<dyn Executor + '_>, mut pick: Pick, warm_end: i64, q: &Quota) -> i64 {
    let cfg = r.cfg;
    let mut measuring = r.ph.measured();
    let mut rec = if measuring {
        r.recorder()
    } else {
        Recorder::new(cfg.ops) // warm-up: not registered
    };
    let mut done = Tally {
        env: r.env,
        n: 0,
        last: 0,
    };
    let mut issued = 0i64;
    let mut own = 0i64;
    let mut took = 0i64;
    while !r.ctx.done() {
        let start = now();
        if !measuring {
            if !r.ph.measured() && start >= warm_end {
                r.ph.begin(start, cfg, r.env);
            }
            if r.ph.measured() {
                measuring = true;
                rec = r.recorder();
            }
        }
        if measuring {
            if cfg.duration > 0 && start >= r.ph.deadline.load(Ordering::Relaxed) {
                break;
            }
            if cfg.count > 0 {
                if own == 0 {
                    own = q.claim(took);
                    if own == 0 {
                        break;
                    }
                }
                own -= 1;
            }
            issued += 1;
        }
        let op = pick.next();
        let (retries, res) = ex.run_op(op, &mut rec);
        let end = now();
        took = end - start;
        if r.ctx.done() {
            break; // ended after the cancel: not counted
        }
        if !r.record(&mut rec, op, retries, res) {
            continue;
        }
        if measuring && cfg.duration > 0 && end > r.ph.deadline.load(Ordering::Relaxed) {
            // Finished after the window closed: its latency counts, it
            // does not count towards the rate.
            rec.observe_overrun(op, took);
            continue;
        }
        rec.observe(op, took);
        if measuring {
            done.add(end);
        }
    }
    done.flush();
    if measuring {
        r.env.add_recorder(rec);
    }
    issued
}

#[derive(Clone, Copy)]
struct Ticket {
    seq: u64,
    due: i64,
}

/// The tickets waiting for a free executor.
struct Queue {
    st: Mutex<QState>,
    not_empty: Condvar,
    not_full: Condvar,
}

struct QState {
    items: VecDeque<Ticket>,
    closed: bool,
    receivers_waiting: usize,
    sender_waiting: bool,
}

const QUEUE_CAP: usize = 1024;

impl Queue {
    /// Queues t; false when ctx ended first.
    fn push(&self, t: Ticket, ctx: &Ctx) -> bool {
        let mut st = self.st.lock().expect("queue lock");
        while st.items.len() >= QUEUE_CAP {
            if ctx.done() {
                return false;
            }
            st.sender_waiting = true;
            st = self
                .not_full
                .wait_timeout(st, Duration::from_millis(10))
                .expect("queue lock")
                .0;
            st.sender_waiting = false;
        }
        st.items.push_back(t);
        let wake = st.receivers_waiting > 0;
        drop(st);
        if wake {
            self.not_empty.notify_one();
        }
        true
    }

    fn pop(&self) -> Option<Ticket> {
        let mut st = self.st.lock().expect("queue lock");
        loop {
            if let Some(t) = st.items.pop_front() {
                if st.sender_waiting {
                    self.not_full.notify_one();
                }
                return Some(t);
            }
            if st.closed {
                return None;
            }
            st.receivers_waiting += 1;
            st = self.not_empty.wait(st).expect("queue lock");
            st.receivers_waiting -= 1;
        }
    }

    fn close(&self) {
        self.st.lock().expect("queue lock").closed = true;
        self.not_empty.notify_all();
    }
}

/// What the dispatcher does while an operation is not yet due.
enum Wait {
    Issue,
    /// Sleep, interruptibly, far from the due time.
    Park(i64),
    /// Sleep the thread (tens of microseconds accurate).
    Sleep(i64),
    /// Yield and look again (the last 150 µs).
    Spin,
}

const TIMER_GUARD: i64 = 2 * MS;
const SPIN_WINDOW: i64 = 150_000;

fn wait_for(now: i64, due: i64) -> Wait {
    let rem = due - now;
    if rem <= 0 {
        Wait::Issue
    } else if rem > TIMER_GUARD + SPIN_WINDOW + MS {
        Wait::Park(rem - TIMER_GUARD)
    } else if rem > SPIN_WINDOW {
        Wait::Sleep(rem - SPIN_WINDOW)
    } else {
        Wait::Spin
    }
}

fn run_open<'e>(
    r: &Run,
    choose: &(dyn Fn(u64) -> usize + Sync),
    new_executor: &NewExecutor<'e>,
) -> (Stats, Result<(), RunError>) {
    let cfg = r.cfg;
    let q = Queue {
        st: Mutex::new(QState {
            items: VecDeque::new(),
            closed: false,
            receivers_waiting: 0,
            sender_waiting: false,
        }),
        not_empty: Condvar::new(),
        not_full: Condvar::new(),
    };
    let idle = AtomicI32::new(0);
    let dropped = AtomicI64::new(0);
    let lag = Mutex::new(new_interval_hist());
    let warm = cfg.warmup;
    // The start of the schedule, set before the first ticket is queued.
    let t0 = AtomicI64::new(0);
    let first_ready = Barrier::new(2);
    let (issued, spawned) = std::thread::scope(|s| {
        let mut spawned = 0usize;
        let spawn = |w: usize| {
            idle.fetch_add(1, Ordering::SeqCst);
            let first_ready = &first_ready;
            let (q, idle, dropped, lag, t0) = (&q, &idle, &dropped, &lag, &t0);
            s.spawn(move || {
                let ex = new_executor(w);
                if w == 0 {
                    first_ready.wait();
                }
                let mut ex = match ex {
                    Ok(ex) => ex,
                    Err(e) => {
                        r.stop(format!("executor {w}: {e}"));
                        while q.pop().is_some() {} // keep the dispatcher from blocking
                        return;
                    }
                };
                let mut warm_rec = Recorder::new(cfg.ops);
                let mut rec: Option<Recorder> = None;
                let mut my_lag = new_interval_hist();
                let mut done = Tally {
                    env: r.env,
                    n: 0,
                    last: 0,
                };
                let mut my_dropped = 0i64;
                while let Some(t) = q.pop() {
                    let measured = t.due >= warm;
                    if r.ctx.done() {
                        if measured {
                            my_dropped += 1; // stopped: what is still queued is not started
                        }
                        continue;
                    }
                    idle.fetch_sub(1, Ordering::SeqCst);
                    let base = t0.load(Ordering::Acquire);
                    let start = now();
                    let late = start - base - t.due;
                    let into = if measured {
                        my_lag.saturating_record(late.max(1) as u64);
                        rec.get_or_insert_with(|| r.recorder())
                    } else {
                        &mut warm_rec
                    };
                    let op = choose(t.seq);
                    let (retries, res) = ex.run_op(op, into);
                    let end = now();
                    // An operation that ended after the cancel is not counted.
                    if !r.ctx.done() && r.record(into, op, retries, res) {
                        into.observe_scheduled(op, end - start, end - base - t.due, late > MS);
                        if measured {
                            done.add(end);
                        }
                    }
                    idle.fetch_add(1, Ordering::SeqCst);
                }
                done.flush();
                dropped.fetch_add(my_dropped, Ordering::Relaxed);
                let _ = lag.lock().expect("lag lock").add(&my_lag);
                if let Some(rec) = rec {
                    r.env.add_recorder(rec);
                }
            });
        };
        spawn(spawned);
        spawned += 1;
        // A thread takes longer to start than a goroutine: the schedule
        // starts once the first executor is ready.
        first_ready.wait();
        let base = now();
        t0.store(base, Ordering::Release);
        if warm <= 0 {
            r.ph.begin(base, cfg, r.env);
        }
        let mut issued = 0i64;
        let mut prev = 0i64;
        let end = warm + cfg.duration;
        let mut seq: i64 = 0;
        'dispatch: loop {
            let due = schedule(cfg.arrivals, cfg.rate, seq, prev, arrival_u(cfg.seed, seq));
            prev = due;
            if cfg.duration > 0 && due >= end {
                break;
            }
            if cfg.count > 0 && due >= warm && issued >= cfg.count {
                break;
            }
            loop {
                if r.ctx.done() {
                    break 'dispatch;
                }
                match wait_for(now() - base, due) {
                    Wait::Issue => break,
                    Wait::Spin => std::thread::yield_now(),
                    Wait::Sleep(d) => std::thread::sleep(Duration::from_nanos(d as u64)),
                    Wait::Park(d) => {
                        // Sleep in slices, to notice a cancel.
                        let until = now() + d;
                        while !r.ctx.done() {
                            let left = until - now();
                            if left <= 0 {
                                break;
                            }
                            std::thread::sleep(Duration::from_nanos(left.min(20 * MS) as u64));
                        }
                    }
                }
            }
            if due >= warm {
                if !r.ph.measured() {
                    r.ph.begin(base + warm, cfg, r.env);
                }
                issued += 1;
            }
            if idle.load(Ordering::SeqCst) <= 0 && spawned < cfg.max_inflight {
                spawn(spawned);
                spawned += 1;
            }
            if !q.push(
                Ticket {
                    seq: seq as u64,
                    due,
                },
                &r.ctx,
            ) {
                break;
            }
            seq += 1;
        }
        q.close();
        (issued, spawned)
    });
    let stop_at = r.end(now());
    if !r.ph.measured() {
        r.ph.begin(stop_at, cfg, r.env);
    }
    r.finish(Stats {
        start: 0,
        end: stop_at,
        issued: issued - dropped.load(Ordering::Relaxed),
        executors: spawned,
        lag: Some(lag.into_inner().expect("lag lock")),
    })
}
