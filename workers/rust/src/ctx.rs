//! The clock (monotonic nanoseconds) and cancellation: the conversation's
//! cancel (a cancel message, the end of input, SIGINT or SIGTERM) and
//! scopes below it that a fatal error stops.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};
use std::sync::Arc;

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC, as Rust's Instant and
/// Go's monotonic clock read it). Safe to call in a signal handler.
pub fn now() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
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
