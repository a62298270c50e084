'use strict';
// Recorder is one thread's observations per op kind (internal/metrics'
// Recorder): successes, errors by kind, retries, late starts and overruns,
// the service-time histogram and, in open loop, the response-time one. A
// live recorder also feeds the run's time series: the histogram of the
// latency the intervals report (service time in a closed loop, response
// time in an open one) lives in the thread's shared interval source
// (lib/shared.js Live), which the main thread reads, so recording an
// operation costs the same with or without intervals.

const { Hist } = require('./hist');

const ERROR_KINDS = ['busy', 'locked', 'constraint', 'interrupted', 'missing', 'mismatch', 'other'];

class OpRec {
  constructor() {
    this.count = 0;
    this.errs = new Array(ERROR_KINDS.length).fill(0);
    this.retries = 0;
    this.late = 0;
    this.overrun = 0;
    this.service = null;
    this.response = null;
    // Overruns' latencies: in the service time, kept apart so that the
    // intervals (which read the shared service histogram) do not count them.
    this.over = null;
  }
}

class Recorder {
  // open: an open loop's recorder, whose intervals report the response
  // time (a closed loop's report the service time).
  constructor(ops, live = null, open = false) {
    this.ops = ops;
    this.recs = ops.map(() => new OpRec());
    this.live = live;
    this.open = open;
    // Only the first live.ops kinds feed the intervals (a program's
    // transactions, not their statements).
    this.liveOps = live === null ? 0 : live.ops;
  }

  // hist returns a new run histogram for op: the shared interval source's
  // when op feeds the intervals and the histogram is the one they report.
  hist(op, reported) {
    return reported && op < this.liveOps ? new Hist(3, this.live.counts(op)) : new Hist(3);
  }

  svc(op) {
    const o = this.recs[op];
    if (o.service === null) {
      o.service = this.hist(op, !this.open);
    }
    return o;
  }

  // observe records n successful operations of kind op that took ns
  // together: one latency sample, n in the count (n is 1 for the kinds that
  // feed the intervals, which count samples).
  observe(op, n, ns) {
    const o = this.svc(op);
    o.count += n;
    o.service.record(ns);
  }

  // observeScheduled records an open-loop operation: service time from its
  // actual start, response time from its scheduled start (the latency its
  // intervals report).
  observeScheduled(op, service, response, late) {
    const o = this.svc(op);
    if (o.response === null) {
      o.response = this.hist(op, this.open);
    }
    o.count++;
    o.service.record(service);
    o.response.record(response);
    if (late) {
      o.late++;
    }
  }

  // observeOverrun records an operation that ended after the measured
  // window: in the latency, not in the count (nor in the intervals).
  observeOverrun(op, ns) {
    const o = this.recs[op];
    if (o.over === null) {
      o.over = new Hist(3);
    }
    o.overrun++;
    o.over.record(ns);
  }

  error(op, kind) {
    if (op < this.liveOps) {
      this.live.error(op);
    }
    let k = ERROR_KINDS.indexOf(kind);
    if (k < 0) {
      k = ERROR_KINDS.length - 1;
    }
    this.recs[op].errs[k]++;
  }

  retry(op, n = 1) {
    this.recs[op].retries += n;
  }

  // export is what a thread sends the main thread: plain data, the
  // histograms as counts arrays (transferable, but for those in shared
  // memory, which the main thread sees as they are).
  export() {
    return this.recs.map((o) => ({
      count: o.count,
      errs: o.errs,
      retries: o.retries,
      late: o.late,
      overrun: o.overrun,
      service: o.service && o.service.counts,
      response: o.response && o.response.counts,
      over: o.over && o.over.counts,
    }));
  }
}

// transferables lists the buffers of exported recorders that may be
// transferred.
function transferables(exported) {
  const out = [];
  for (const ops of exported) {
    for (const o of ops) {
      for (const c of [o.service, o.response, o.over]) {
        if (c && !(c.buffer instanceof SharedArrayBuffer)) {
          out.push(c.buffer);
        }
      }
    }
  }
  return out;
}

// merge combines exported recorders into the final event's ops (as
// internal/worker ToOps writes them), in the order of ops; kinds that saw
// no operation and no error are left out. of, when given, names each
// kind's transaction ("" for none).
function merge(ops, exported, of = null) {
  const out = [];
  ops.forEach((name, i) => {
    const errs = new Array(ERROR_KINDS.length).fill(0);
    let count = 0;
    let retries = 0;
    let late = 0;
    let overrun = 0;
    let seen = false;
    const service = new Hist(3);
    let response = null;
    for (const rec of exported) {
      const o = rec[i];
      count += o.count;
      retries += o.retries;
      late += o.late;
      overrun += o.overrun;
      o.errs.forEach((n, k) => {
        if (n > 0) {
          errs[k] += n;
          seen = true;
        }
      });
      if (o.service) {
        seen = true;
        service.addCounts(o.service);
      }
      if (o.over) {
        seen = true;
        service.addCounts(o.over);
      }
      if (o.response) {
        response = response || new Hist(3);
        response.addCounts(o.response);
      }
    }
    if (!seen && count === 0) {
      return;
    }
    const op = { name, count };
    if (of !== null && of[i]) {
      op.of = of[i];
    }
    const e = {};
    errs.forEach((n, k) => {
      if (n > 0) {
        e[ERROR_KINDS[k]] = n;
      }
    });
    if (Object.keys(e).length > 0) {
      op.errors = e;
    }
    if (retries) {
      op.retries = retries;
    }
    if (late) {
      op.late = late;
    }
    if (overrun) {
      op.overrun = overrun;
    }
    op.service = service.summary();
    if (response) {
      op.response = response.summary();
    }
    const h = service.encode();
    if (h) {
      op.hist = h;
    }
    if (response) {
      const rh = response.encode();
      if (rh) {
        op.resp_hist = rh;
      }
    }
    out.push(op);
  });
  return out;
}

module.exports = { Recorder, merge, transferables, ERROR_KINDS };
