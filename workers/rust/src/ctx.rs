//! The clock (monotonic nanoseconds) and cancellation: the conversation's
//! cancel (a cancel message, the end of input, SIGINT or SIGTERM) and
//! scopes below it that a fatal error stops.

use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicU64, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::Arc;

/// Monotonic time in nanoseconds, on one scale for the whole process (for
/// durations and deadlines within it, never to compare with another
/// process's clock). Safe to call in a signal handler.
///
/// Once calibrate_clock has run on an x86-64 machine whose kernel keeps
/// time by the CPU's time-stamp counter (its clocksource is "tsc", which it
/// chooses only for a counter that runs at a constant rate, never stops and
/// agrees between CPUs), this reads the counter with one instruction and
/// scales it by the rate measured then, as internal/tick does for the Go
/// workers. A clock read through the vDSO costs about three times as much:
/// two of them were 0.9 % of the CPU time of point reads of a few
/// microseconds in perf. Elsewhere, and until then, it reads
/// CLOCK_MONOTONIC (as Rust's Instant and Go's monotonic clock do). The two
/// agree to within the monotonic clock's slew (NTP: at most 500 parts per
/// million), far below a latency histogram's resolution.
#[inline]
pub fn now() -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mult = TSC_MULT.load(Acquire);
        if mult != 0 {
            // SAFETY: rdtsc has no preconditions on x86-64.
            let c = unsafe { core::arch::x86_64::_rdtsc() };
            // Signed: a counter read below c0 (it should never be) gives a
            // small step back, not centuries forward.
            let d = c.wrapping_sub(TSC_C0.load(Relaxed)) as i64 as i128 * mult as i128;
            return TSC_BASE.load(Relaxed) + (d >> 32) as i64;
        }
    }
    monotonic()
}

/// The CPU time the whole process has used, every thread's, user and
/// system, in nanoseconds (CLOCK_PROCESS_CPUTIME_ID).
pub fn process_cpu() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; the process CPU clock always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// CLOCK_MONOTONIC in nanoseconds.
fn monotonic() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// The counter's scale: ns = TSC_BASE + (counter - TSC_C0) × TSC_MULT / 2^32
/// (TSC_MULT 0: now reads CLOCK_MONOTONIC).
static TSC_MULT: AtomicU64 = AtomicU64::new(0);
static TSC_C0: AtomicU64 = AtomicU64::new(0);
static TSC_BASE: AtomicI64 = AtomicI64::new(0);

/// Whether now reads the time-stamp counter.
pub fn clock_is_counter() -> bool {
    TSC_MULT.load(Acquire) != 0
}

/// Whether the kernel keeps time by the time-stamp counter.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn kernel_uses_tsc() -> bool {
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .map(|s| s.trim() == "tsc")
        .unwrap_or(false)
}

/// Measures the time-stamp counter's rate against CLOCK_MONOTONIC over
/// 10 ms, if the kernel keeps time by it, and from then on has now read
/// it. Call it first thing, before any thread starts and before any
/// reading of now is kept: the two scales meet where it measured, and
/// drift apart by the monotonic clock's slew from there.
pub fn calibrate_clock() {
    #[cfg(target_arch = "x86_64")]
    {
        if !kernel_uses_tsc() || clock_is_counter() {
            return;
        }
        // The counter read between two clock readings, several times: the
        // narrowest bracket's middle and its counter reading.
        let pair = || {
            let mut best: Option<(i64, i64, u64)> = None;
            for _ in 0..7 {
                let a = monotonic();
                // SAFETY: as in now.
                let x = unsafe { core::arch::x86_64::_rdtsc() };
                let b = monotonic();
                if best.is_none_or(|(w, _, _)| b - a < w) {
                    best = Some((b - a, a + (b - a) / 2, x));
                }
            }
            best.expect("seven brackets")
        };
        let (w0, t0, c0) = pair();
        std::thread::sleep(std::time::Duration::from_millis(10));
        let (w1, t1, c1) = pair();
        // The rate is off by about the brackets' widths over the 10 ms: a
        // bracket wider than 1 µs (a busy machine, a clock read that is a
        // system call) would make it worse than 1e-4; keep the clock then.
        if c1 <= c0 || t1 <= t0 || w0 > 1_000 || w1 > 1_000 {
            return;
        }
        // Nanoseconds per tick, times 2^32.
        let mult = ((((t1 - t0) as u128) << 32) / (c1 - c0) as u128) as u64;
        TSC_C0.store(c0, Relaxed);
        TSC_BASE.store(t0, Relaxed);
        TSC_MULT.store(mult, Release); // after c0 and base, for now's Acquire
    }
}

static CANCELLED: AtomicBool = AtomicBool::new(false);
static CANCEL_AT: AtomicI64 = AtomicI64::new(0);

/// Cancels the conversation's work (async-signal-safe).
pub fn cancel_all() {
    let _ = CANCEL_AT.compare_exchange(0, now(), Relaxed, Relaxed);
    CANCELLED.store(true, Relaxed);
}

/// Whether the conversation's work was cancelled.
pub fn cancelled() -> bool {
    CANCELLED.load(Relaxed)
}

/// When the conversation's work was cancelled (0 if it was not).
pub fn cancelled_at() -> i64 {
    CANCEL_AT.load(Relaxed)
}

extern "C" fn on_signal(_: libc::c_int) {
    cancel_all();
}

/// SIGINT and SIGTERM cancel, as for the Go worker.
pub fn install_signal_handlers() {
    let handler: extern "C" fn(libc::c_int) = on_signal;
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only does async-signal-safe work (atomics and
        // clock_gettime).
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

struct Node {
    stopped: AtomicBool,
    parent: Ctx,
}

/// A cancellation scope: done when it or any scope above it is stopped.
#[derive(Clone, Default)]
pub struct Ctx(Option<Arc<Node>>);

impl Ctx {
    /// The conversation's scope.
    pub fn root() -> Ctx {
        Ctx(None)
    }

    /// A scope below this one that can be stopped on its own.
    pub fn child(&self) -> Ctx {
        Ctx(Some(Arc::new(Node {
            stopped: AtomicBool::new(false),
            parent: self.clone(),
        })))
    }

    /// Stops this scope (and those below it); the root cancels everything.
    pub fn stop(&self) {
        match &self.0 {
            Some(n) => n.stopped.store(true, Relaxed),
            None => cancel_all(),
        }
    }

    /// Whether the scope is done.
    pub fn done(&self) -> bool {
        let mut c = self;
        loop {
            match &c.0 {
                None => return cancelled(),
                Some(n) => {
                    if n.stopped.load(Relaxed) {
                        return true;
                    }
                    c = &n.parent;
                }
            }
        }
    }
}

/// Gives the calling thread a table of file descriptors of its own, with
/// only standard input, output and error in it (Linux; elsewhere it does
/// nothing). For the threads that only read messages and write events: a
/// thread that runs the load is then alone on the process's table, and the
/// kernel does not take and drop a reference to the file on each of its
/// reads, writes and locks (fdget, as for any table that threads share),
/// which a single-threaded program with the same driver does not pay. The
/// copies closed are this thread's only: the other threads' descriptors,
/// and the locks they hold, stay as they are.
pub fn own_fd_table() {
    #[cfg(target_os = "linux")]
    // SAFETY: unshare and close_range change only the calling thread's
    // descriptor table, which this thread uses for 0, 1 and 2 alone.
    unsafe {
        if libc::unshare(libc::CLONE_FILES) == 0 {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the kernel keeps time by the counter, now reads it after
    /// calibrate_clock; its durations agree with CLOCK_MONOTONIC to 1e-4
    /// over 50 ms, and its readings never go backwards.
    #[test]
    fn clock_agrees_with_monotonic() {
        calibrate_clock();
        assert_eq!(
            clock_is_counter(),
            kernel_uses_tsc() && cfg!(target_arch = "x86_64")
        );
        // A busy machine may stop the test between two readings: the best
        // of five tries.
        let mut worst = Vec::new();
        for _ in 0..5 {
            let (a, m0) = (now(), monotonic());
            let mut last = a;
            while monotonic() - m0 < 50_000_000 {
                let t = now();
                assert!(t >= last, "went back from {last} to {t}");
                last = t;
            }
            let (b, m1) = (now(), monotonic());
            let (d, dm) = ((b - a) as f64, (m1 - m0) as f64);
            if (d - dm).abs() < 1e-4 * dm {
                return;
            }
            worst.push(format!("{d} ns against {dm} ns"));
        }
        panic!("durations disagree: {worst:?}");
    }
}
