//! Latencies and counts per op kind (internal/metrics): one recorder per
//! worker thread, owned by it, allocation-free after the first value of
//! each kind; live recorders also feed the interval series, holding their
//! interval counts in their own memory and handing them over, about once a
//! millisecond, to buffers the sampler swaps (a WriterReaderPhaser: the
//! worker never waits). Summaries are computed as hdrhistogram-go computes
//! them.

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde_json::{Map, Value};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

/// Nanoseconds from 1 ns to 10 minutes.
pub const LOWEST: u64 = 1;
pub const HIGHEST: u64 = 600_000_000_000;

pub type Hist = Histogram<u64>;

/// A full-run histogram: 3 significant figures.
pub fn new_hist() -> Hist {
    Histogram::new_with_bounds(LOWEST, HIGHEST, 3).expect("valid histogram bounds")
}

/// An interval histogram: 2 significant figures.
pub fn new_interval_hist() -> Hist {
    Histogram::new_with_bounds(LOWEST, HIGHEST, 2).expect("valid histogram bounds")
}

pub fn clamp(ns: i64) -> u64 {
    (ns.max(LOWEST as i64) as u64).min(HIGHEST)
}

/// Error kinds counted per op kind, in the Go worker's order.
pub const ERROR_KINDS: [&str; 7] = [
    "busy",
    "locked",
    "constraint",
    "interrupted",
    "missing",
    "mismatch",
    "other",
];

/// The index of an error kind; unknown names count as "other".
pub fn err_kind(name: &str) -> usize {
    ERROR_KINDS
        .iter()
        .position(|k| *k == name)
        .unwrap_or(ERROR_KINDS.len() - 1)
}

/// The counts of a histogram with unit 1 ns and 2^SUB_MAG sub-buckets
/// (new_hist's layout with 11, new_interval_hist's with 8), recorded with
/// less work than Histogram::record: the bucket index computed as
/// hdrhistogram computes it for these bounds and its count incremented,
/// nothing else. add_to records each count at its bucket's lowest value,
/// which gives the same counts, and so the same min, max, mean,
/// percentiles and encoding, as recording every value.
struct Counts<const SUB_MAG: u32>(Vec<u64>);

/// A full-run histogram's counts (3 significant figures: 2048 sub-buckets).
type RunCounts = Counts<11>;
/// An interval histogram's counts (2 significant figures: 256).
type IntervalCounts = Counts<8>;

impl<const SUB_MAG: u32> Counts<SUB_MAG> {
    const HALF_MAG: u32 = SUB_MAG - 1;

    /// Counts for the histogram h's layout (which must have SUB_MAG).
    fn like(h: Hist) -> Self {
        Counts(vec![0; h.distinct_values()])
    }

    /// The index of a value in [LOWEST, HIGHEST].
    #[inline]
    fn index(v: u64) -> usize {
        let bucket = (64 - SUB_MAG) - (v | ((1 << SUB_MAG) - 1)).leading_zeros();
        ((bucket as usize) << Self::HALF_MAG) + (v >> bucket) as usize
    }

    /// Records one value in [LOWEST, HIGHEST].
    #[inline]
    fn record(&mut self, v: u64) {
        self.0[Self::index(v)] += 1;
    }

    /// The lowest value of bucket index idx.
    fn value_at(idx: usize) -> u64 {
        let bucket = (idx >> Self::HALF_MAG) as i64 - 1;
        let sub = (idx & ((1 << Self::HALF_MAG) - 1)) as u64 + (1 << Self::HALF_MAG);
        if bucket < 0 {
            sub - (1 << Self::HALF_MAG)
        } else {
            sub << bucket
        }
    }

    fn add_to(&self, h: &mut Hist) {
        for (i, &n) in self.0.iter().enumerate() {
            if n > 0 {
                h.record_n(Self::value_at(i), n)
                    .expect("a value of the histogram's range");
            }
        }
    }
}

/// What a live recorder's worker saw of one op kind since it last
/// published: counted in its own memory, handed to the sampler's buffers
/// in one step (Recorder::publish).
struct Pending {
    count: i64,
    errs: i64,
    /// Allocated at the first value.
    counts: Option<IntervalCounts>,
    /// The indexes of counts that are not zero, each once.
    touched: Vec<usize>,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            count: 0,
            errs: 0,
            counts: None,
            touched: Vec::new(),
        }
    }

    #[inline]
    fn record(&mut self, v: u64) {
        let touched = &mut self.touched;
        let counts = self.counts.get_or_insert_with(|| {
            let c = IntervalCounts::like(new_interval_hist());
            *touched = Vec::with_capacity(c.0.len()); // never grows after
            c
        });
        let i = IntervalCounts::index(v);
        if counts.0[i] == 0 {
            touched.push(i);
        }
        counts.0[i] += 1;
    }

    /// Adds what is pending to iv and clears it.
    fn move_to(&mut self, iv: &mut IntervalRec) {
        iv.count += self.count;
        iv.errs += self.errs;
        self.count = 0;
        self.errs = 0;
        let Some(counts) = &mut self.counts else {
            return;
        };
        if self.touched.is_empty() {
            return;
        }
        let h = iv.hist.get_or_insert_with(new_interval_hist);
        for &i in &self.touched {
            let n = std::mem::take(&mut counts.0[i]);
            h.record_n(IntervalCounts::value_at(i), n)
                .expect("a value of the histogram's range");
        }
        self.touched.clear();
    }
}

#[derive(Default)]
struct OpRec {
    service: Option<RunCounts>,
    response: Option<Hist>,
    count: i64,
    errs: [i64; ERROR_KINDS.len()],
    retries: i64,
    late: i64,
    overrun: i64,
}

impl OpRec {
    #[inline]
    fn service(&mut self) -> &mut RunCounts {
        self.service
            .get_or_insert_with(|| RunCounts::like(new_hist()))
    }
}

#[derive(Default)]
struct IntervalRec {
    count: i64,
    errs: i64,
    hist: Option<Hist>,
}

/// HdrHistogram's WriterReaderPhaser: a writer brackets each observation
/// with enter and exit, which never wait; flip, called by the reader after
/// it swapped the buffer writers use, returns once every writer that
/// entered before it has exited. The sign of start says the phase; exits
/// are counted per phase.
struct Phaser {
    start: AtomicI64,
    even_end: AtomicI64,
    odd_end: AtomicI64,
}

impl Phaser {
    fn enter(&self) -> i64 {
        self.start.fetch_add(1, SeqCst)
    }

    fn exit(&self, at: i64) {
        if at < 0 {
            self.odd_end.fetch_add(1, SeqCst);
        } else {
            self.even_end.fetch_add(1, SeqCst);
        }
    }

    /// Starts the next phase and waits for the writers of the last one.
    /// One reader at a time.
    fn flip(&self) {
        let next_even = self.start.load(SeqCst) < 0;
        let (first, end, ended) = if next_even {
            (0, &self.even_end, &self.odd_end)
        } else {
            (i64::MIN, &self.odd_end, &self.even_end)
        };
        end.store(first, SeqCst);
        let last = self.start.swap(first, SeqCst);
        while ended.load(SeqCst) != last {
            std::thread::yield_now(); // a writer is inside one observation
        }
    }
}

/// A live recorder's interval buffers: its worker records into the active
/// one without a lock; the sampler swaps them and reads the other once the
/// phaser says no observation still uses it.
pub struct Live {
    ph: Phaser,
    bufs: [UnsafeCell<Vec<IntervalRec>>; 2],
    active: AtomicUsize,
    /// The sampler's side: one swap at a time.
    read: Mutex<()>,
}

// SAFETY: the buffer a worker writes (active) is written only between
// the phaser's enter and exit by the one worker that owns the recorder;
// the sampler reads the other buffer only after flip has waited out every
// observation that could still hold it.
unsafe impl Sync for Live {}

impl Live {
    fn new(ops: usize) -> Live {
        let buf = || UnsafeCell::new((0..ops).map(|_| IntervalRec::default()).collect());
        Live {
            ph: Phaser {
                start: AtomicI64::new(0),
                even_end: AtomicI64::new(0),
                odd_end: AtomicI64::new(i64::MIN),
            },
            bufs: [buf(), buf()],
            active: AtomicUsize::new(0),
            read: Mutex::new(()),
        }
    }

    /// Runs f on the active intervals (the recorder's worker only).
    fn with(&self, f: impl FnOnce(&mut [IntervalRec])) {
        let at = self.ph.enter();
        let k = self.active.load(SeqCst);
        // SAFETY: see Sync: between enter and exit, buffer k is this
        // worker's alone.
        let buf = unsafe { &mut *self.bufs[k].get() };
        f(buf);
        self.ph.exit(at);
    }

    /// Swaps the buffers and hands the one swapped out to f (the sampler).
    fn take(&self, f: impl FnOnce(&mut Vec<IntervalRec>)) {
        let _g = self.read.lock().expect("interval lock");
        let old = self.active.load(SeqCst);
        self.active.store(1 - old, SeqCst);
        self.ph.flip();
        // SAFETY: no writer uses buffer old any more (flip waited), and
        // the read lock keeps other samplers out.
        f(unsafe { &mut *self.bufs[old].get() });
    }
}

/// One worker's observations.
pub struct Recorder {
    recs: Vec<OpRec>,
    live: Option<Arc<Live>>,
    /// A live recorder's observations not yet published, per op kind.
    pending: Vec<Pending>,
    /// The sum of the latencies observed since the last publish: in a
    /// closed loop, about the time since then.
    pending_ns: i64,
    /// The latest single operations, not yet in the counts: their op kinds
    /// and latencies (see observe_n).
    recent_ops: [u32; RECENT],
    recent_ns: [u64; RECENT],
    recent: usize,
}

/// How long a closed loop's observations may wait before they are
/// published, as a sum of their latencies: about this late in the
/// interval series (more if the worker waits between operations), and two
/// sequentially consistent atomic operations a millisecond instead of two
/// an operation.
const PUBLISH_NS: i64 = 1_000_000;

/// How many single operations wait to be counted together.
const RECENT: usize = 64;

impl Recorder {
    pub fn new(ops: usize) -> Recorder {
        assert!(ops <= u32::MAX as usize, "op kinds fit a u32");
        Recorder {
            recs: (0..ops).map(|_| OpRec::default()).collect(),
            live: None,
            pending: Vec::new(),
            pending_ns: 0,
            recent_ops: [0; RECENT],
            recent_ns: [0; RECENT],
            recent: 0,
        }
    }

    /// A recorder that also feeds the interval series; the sampler reads
    /// the returned handle.
    pub fn new_live(ops: usize) -> (Recorder, Arc<Live>) {
        let live = Arc::new(Live::new(ops));
        let mut r = Recorder::new(ops);
        r.live = Some(live.clone());
        r.pending = (0..ops).map(|_| Pending::new()).collect();
        (r, live)
    }

    /// Counts n operations that took v in the op kind's counts, and in
    /// its pending interval when the recorder is live.
    #[inline]
    fn count(&mut self, op: usize, n: i64, v: u64) {
        let o = &mut self.recs[op];
        o.count += n;
        o.service().record(v);
        if self.live.is_some() {
            let p = &mut self.pending[op];
            p.count += n;
            p.record(v);
        }
    }

    /// Counts the recent operations.
    fn count_recent(&mut self) {
        for i in 0..std::mem::take(&mut self.recent) {
            self.count(self.recent_ops[i] as usize, 1, self.recent_ns[i]);
        }
    }

    /// Counts what waits, and hands a live recorder's pending interval
    /// counts to the sampler's buffers. A recorder's owner calls it at its
    /// end (Env::add_recorder does; merge does too).
    pub fn publish(&mut self) {
        self.count_recent();
        let Some(l) = &self.live else {
            return;
        };
        self.pending_ns = 0;
        let pending = &mut self.pending;
        l.with(|buf| {
            for (p, iv) in pending.iter_mut().zip(buf.iter_mut()) {
                p.move_to(iv);
            }
        });
    }

    #[inline]
    pub fn observe(&mut self, op: usize, ns: i64) {
        self.observe_n(op, 1, ns)
    }

    /// n operations (rows of one statement) that together took ns: one
    /// latency sample, n in the count.
    ///
    /// A single operation waits with the others of the last RECENT, and
    /// they are counted together: one at a time, each count is a miss in
    /// caches that the measured work (SQLite's pages, the kernel's copies)
    /// has filled with its own data, and each miss waits for the last;
    /// counted together, they overlap. A live recorder publishes once the
    /// latencies since its last publish add up to PUBLISH_NS.
    #[inline]
    pub fn observe_n(&mut self, op: usize, n: i64, ns: i64) {
        let v = clamp(ns);
        if n == 1 {
            if self.recent == RECENT {
                self.count_recent();
            }
            self.recent_ops[self.recent] = op as u32;
            self.recent_ns[self.recent] = v;
            self.recent += 1;
        } else {
            self.count(op, n, v);
        }
        if self.live.is_some() {
            self.pending_ns += v as i64;
            if self.pending_ns >= PUBLISH_NS {
                self.publish();
            }
        }
    }

    /// An open-loop operation: service time from its start, response time
    /// from its schedule. Published at once: an open loop's worker may
    /// wait for its next operation.
    pub fn observe_scheduled(&mut self, op: usize, service: i64, response: i64, late: bool) {
        let o = &mut self.recs[op];
        o.service().record(clamp(service));
        o.response
            .get_or_insert_with(new_hist)
            .saturating_record(clamp(response));
        if late {
            o.late += 1;
        }
        o.count += 1;
        if self.live.is_some() {
            let p = &mut self.pending[op];
            p.count += 1;
            p.record(clamp(response));
            self.publish();
        }
    }

    /// An operation that ended after the measured window closed: in the
    /// latency, not in the count.
    pub fn observe_overrun(&mut self, op: usize, ns: i64) {
        let o = &mut self.recs[op];
        o.overrun += 1;
        o.service().record(clamp(ns));
    }

    /// Published at once, with what was pending.
    pub fn error(&mut self, op: usize, kind: usize) {
        self.recs[op].errs[kind] += 1;
        if self.live.is_some() {
            self.pending[op].errs += 1;
            self.publish();
        }
    }

    pub fn retry_n(&mut self, op: usize, n: i64) {
        self.recs[op].retries += n;
    }
}

/// One op kind's interval, merged over workers.
pub struct Sample {
    pub count: i64,
    pub errors: i64,
    pub hist: Hist,
}

/// Takes what the live recorders saw since the last call.
pub fn take_interval(ops: usize, lives: &[Arc<Live>]) -> Vec<Sample> {
    let mut out: Vec<Sample> = (0..ops)
        .map(|_| Sample {
            count: 0,
            errors: 0,
            hist: new_interval_hist(),
        })
        .collect();
    for l in lives {
        l.take(|cur| {
            for (i, iv) in cur.iter_mut().enumerate() {
                out[i].count += iv.count;
                out[i].errors += iv.errs;
                if let Some(h) = &mut iv.hist {
                    if !h.is_empty() {
                        let _ = out[i].hist.add(&*h);
                        h.reset();
                    }
                }
                iv.count = 0;
                iv.errs = 0;
            }
        });
    }
    out
}

/// The merged result of one op kind.
pub struct Op {
    pub name: &'static str,
    pub count: i64,
    pub errors: Vec<(&'static str, i64)>,
    pub retries: i64,
    pub late: i64,
    pub overrun: i64,
    pub service: Hist,
    pub response: Option<Hist>,
}

/// Merges recorders into one Op per kind that saw anything, in op order.
pub fn merge(ops: &[&'static str], recs: &mut [Recorder]) -> Vec<Op> {
    for r in recs.iter_mut() {
        r.publish();
    }
    let mut out = Vec::new();
    for (i, name) in ops.iter().enumerate() {
        let mut op = Op {
            name,
            count: 0,
            errors: Vec::new(),
            retries: 0,
            late: 0,
            overrun: 0,
            service: new_hist(),
            response: None,
        };
        let mut errs = [0i64; ERROR_KINDS.len()];
        let mut seen = false;
        for r in recs.iter() {
            let o = &r.recs[i];
            op.count += o.count;
            op.retries += o.retries;
            op.late += o.late;
            op.overrun += o.overrun;
            for (k, n) in o.errs.iter().enumerate() {
                if *n > 0 {
                    errs[k] += n;
                    seen = true;
                }
            }
            if let Some(c) = &o.service {
                seen = true;
                c.add_to(&mut op.service);
            }
            if let Some(h) = &o.response {
                let _ = op.response.get_or_insert_with(new_hist).add(h);
            }
        }
        op.errors = ERROR_KINDS
            .iter()
            .zip(errs)
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| (*k, n))
            .collect();
        if seen || op.count > 0 {
            out.push(op);
        }
    }
    out
}

/// Percentiles reported everywhere, with their JSON keys.
pub const PERCENTILES: [(f64, &str); 7] = [
    (50.0, "p50"),
    (75.0, "p75"),
    (90.0, "p90"),
    (95.0, "p95"),
    (99.0, "p99"),
    (99.9, "p999"),
    (99.99, "p9999"),
];

pub fn round3(f: f64) -> f64 {
    (f * 1000.0).round() / 1000.0
}

/// hdrhistogram-go's ValueAtQuantile(p): the highest value equivalent to
/// the bucket where the count reaches int64(p/100·total + 0.5), clamped to
/// [1, total].
pub fn value_at_percentile(h: &Hist, p: f64) -> u64 {
    let total = h.len();
    if total == 0 {
        return 0;
    }
    let rank = (p.min(100.0) / 100.0) * total as f64 + 0.5;
    // NaN, negative percentiles and ranks below the first sample: 1.
    let rank = if rank.is_nan() || rank < 1.0 {
        1
    } else if rank >= total as f64 {
        total
    } else {
        rank as u64
    };
    let mut seen = 0u64;
    for v in h.iter_recorded() {
        seen += v.count_at_value();
        if seen >= rank {
            return v.value_iterated_to();
        }
    }
    h.highest_equivalent(h.max())
}

/// A latency summary in microseconds, as internal/metrics.Summarise and the
/// Go worker render it: count, min, mean, max and the percentiles, each
/// rounded to 3 decimals (only the first four, zero, when h is empty).
pub fn summarise(h: &Hist) -> Map<String, Value> {
    let mut m = Map::new();
    let total = h.len();
    let us = |v: u64| round3(v as f64 / 1e3);
    let (mut min, mut max, mut mean) = (0u64, 0u64, 0f64);
    if total > 0 {
        let mut first = true;
        for v in h.iter_recorded() {
            let top = v.value_iterated_to();
            if first {
                min = h.lowest_equivalent(top);
                first = false;
            }
            max = top;
            mean += v.count_at_value() as f64 * h.median_equivalent(top) as f64 / total as f64;
        }
    }
    m.insert("count".into(), Value::from(total as f64));
    m.insert(
        "min".into(),
        Value::from(if total > 0 { us(min) } else { 0.0 }),
    );
    m.insert("mean".into(), Value::from(round3(mean / 1e3)));
    m.insert(
        "max".into(),
        Value::from(if total > 0 { us(max) } else { 0.0 }),
    );
    if total > 0 {
        for (p, key) in PERCENTILES {
            m.insert(key.into(), Value::from(us(value_at_percentile(h, p))));
        }
    }
    m
}

/// HdrHistogram's V2 compressed encoding in base64; "" when h is empty.
pub fn encode(h: &Hist) -> String {
    if h.is_empty() {
        return String::new();
    }
    let mut buf = Vec::new();
    if V2DeflateSerializer::new().serialize(h, &mut buf).is_err() {
        return String::new();
    }
    base64::engine::general_purpose::STANDARD.encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next of a xorshift64 sequence (test values).
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// A recorder's counts give the histogram that recording every value
    /// gives: the same counts, min, max, mean, percentiles and encoding.
    #[test]
    fn counts_record_as_the_histogram() {
        let mut rec = Recorder::new(1);
        let mut want = new_hist();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut values = vec![
            0,
            1,
            2,
            2047,
            2048,
            2049,
            4095,
            4096,
            1 << 40,
            HIGHEST as i64,
            i64::MAX,
        ];
        for _ in 0..100_000 {
            let x = xorshift(&mut x);
            values.push((x >> (x % 40 + 24)) as i64);
        }
        for &v in &values {
            rec.observe(0, v);
            want.saturating_record(clamp(v));
        }
        let got = &merge(&["op"], &mut [rec])[0].service;
        assert_eq!(got.len(), want.len());
        assert_eq!((got.min_nz(), got.max()), (want.min_nz(), want.max()));
        assert_eq!(got.mean(), want.mean());
        for (a, b) in got.iter_recorded().zip(want.iter_recorded()) {
            assert_eq!(
                (a.value_iterated_to(), a.count_at_value()),
                (b.value_iterated_to(), b.count_at_value())
            );
        }
        for p in [50.0, 99.0, 99.99] {
            assert_eq!(value_at_percentile(got, p), value_at_percentile(&want, p));
        }
        assert_eq!(encode(got), encode(&want));
    }

    /// A worker records while the sampler takes intervals: every
    /// observation lands in exactly one interval.
    #[test]
    fn live_intervals_lose_nothing() {
        const N: i64 = 200_000;
        let (mut rec, live) = Recorder::new_live(2);
        let done = std::sync::atomic::AtomicBool::new(false);
        let (mut count, mut errors, mut samples) = (0i64, 0i64, 0u64);
        std::thread::scope(|s| {
            s.spawn(|| {
                for k in 0..N {
                    rec.observe((k % 2) as usize, 1000 + k);
                    if k % 100 == 0 {
                        rec.error(1, 0);
                    }
                }
                rec.publish();
                done.store(true, SeqCst);
            });
            loop {
                let last = done.load(SeqCst);
                for x in take_interval(2, std::slice::from_ref(&live)) {
                    count += x.count;
                    errors += x.errors;
                    samples += x.hist.len();
                }
                if last {
                    break;
                }
            }
        });
        assert_eq!(count, N);
        assert_eq!(samples, N as u64);
        assert_eq!(errors, N / 100);
    }

    /// A closed loop's observations wait in the recorder until their
    /// latencies add up to a millisecond, or until an error or the
    /// recorder's end; the intervals they make are those recording each
    /// value gives.
    #[test]
    fn live_observations_are_published_in_batches() {
        let (mut rec, live) = Recorder::new_live(2);
        let take = || take_interval(2, std::slice::from_ref(&live));
        let mut want = new_interval_hist();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut values = vec![
            0,
            1,
            255,
            256,
            257,
            511,
            512,
            1 << 33,
            HIGHEST as i64,
            i64::MAX,
        ];
        for _ in 0..10_000 {
            values.push((xorshift(&mut x) % 90) as i64); // under PUBLISH_NS together
        }
        for &v in &values[..4] {
            rec.observe(0, v);
            want.saturating_record(clamp(v));
        }
        let none = take();
        assert_eq!(
            (none[0].count, none[0].hist.len()),
            (0, 0),
            "published early"
        );
        for &v in &values[4..] {
            rec.observe(0, v); // 1 << 33 ns passes PUBLISH_NS
            want.saturating_record(clamp(v));
        }
        let got = take();
        assert!(got[0].count > 0 && got[0].count < values.len() as i64);
        rec.observe_n(1, 7, 10);
        rec.error(1, 0); // publishes everything pending
        let rest = take();
        assert_eq!(got[0].count + rest[0].count, values.len() as i64);
        assert_eq!(
            (rest[1].count, rest[1].errors, rest[1].hist.len()),
            (7, 1, 1)
        );
        let mut h = got[0].hist.clone();
        h.add(&rest[0].hist).unwrap();
        assert_eq!(encode(&h), encode(&want));
        assert_eq!(
            (h.min_nz(), h.max(), h.mean()),
            (want.min_nz(), want.max(), want.mean())
        );
        rec.observe(0, 5);
        assert_eq!(take()[0].count, 0);
        rec.publish();
        assert_eq!(take()[0].count, 1);
    }

    #[test]
    fn go_percentiles() {
        let mut h = new_hist();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        // rank int64(0.5·1000 + 0.5) = 500: the bucket holding 500,000 ns.
        assert_eq!(value_at_percentile(&h, 50.0), h.highest_equivalent(500_000));
        assert_eq!(
            value_at_percentile(&h, 99.99),
            h.highest_equivalent(1_000_000)
        );
        let s = summarise(&h);
        assert_eq!(s["count"], Value::from(1000.0));
        assert_eq!(s["min"], Value::from(1.0));
        assert!(s.contains_key("p9999"));
        assert_eq!(summarise(&new_hist()).len(), 4);
        assert_eq!(encode(&new_hist()), "");
        assert!(encode(&h).starts_with("HISTF"));
    }
}
