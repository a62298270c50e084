'use strict';
// Recorder is one thread's observations per op kind (internal/metrics'
// Recorder): successes, errors by kind, retries, late starts and overruns,
// the service-time histogram and, in open loop, the response-time one. A
// live recorder also feeds the run's time series through its shared
// interval counters (lib/shared.js Live).

const { Hist, Layout, clamp } = require('./hist');

// PUBLISH_EVERY bounds how long noted operations may wait to reach the
// intervals (ns; Recorder.note).
const PUBLISH_EVERY = 1e6;

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
  }
}

class Recorder {
  constructor(ops, live = null) {
    this.ops = ops;
    this.recs = ops.map(() => new OpRec());
    this.live = live;
    // Only the first live.ops kinds feed the intervals (a program's
    // transactions, not their statements).
    this.liveOps = live === null ? 0 : live.ops;
    this.ivLayout = Layout.of(2);
    this.published = 0; // when note last published
  }

  svc(op) {
    const o = this.recs[op];
    if (o.service === null) {
      o.service = new Hist(3);
    }
    return o;
  }

  // observe records n successful operations of kind op that took ns
  // together: one latency sample, n in the count.
  observe(op, n, ns) {
    if (op < this.liveOps) {
      this.live.observe(op, n, this.ivLayout.index(clamp(ns)));
    }
    const o = this.svc(op);
    o.count += n;
    o.service.record(ns);
  }

  // note is observe for a loop that calls publish when it ends (the closed
  // loop): what it records reaches the intervals at the first note at
  // least PUBLISH_EVERY after the last publish (at is the clock's reading,
  // ns), a millisecond late at most while the loop runs (Live.note: one
  // fenced handshake per publish, not per operation).
  note(op, n, ns, at) {
    if (op < this.liveOps) {
      this.live.note(op, n, this.ivLayout.index(clamp(ns)));
      if (at - this.published >= PUBLISH_EVERY) {
        this.live.publish();
        this.published = at;
      }
    }
    const o = this.svc(op);
    o.count += n;
    o.service.record(ns);
  }

  // publish hands what note() recorded to the intervals.
  publish() {
    if (this.liveOps !== 0) {
      this.live.publish();
    }
  }

  // observeScheduled records an open-loop operation: service time from its
  // actual start, response time from its scheduled start.
  observeScheduled(op, service, response, late) {
    if (op < this.liveOps) {
      this.live.observe(op, 1, this.ivLayout.index(clamp(response)));
    }
    const o = this.svc(op);
    o.count++;
    o.service.record(service);
    if (o.response === null) {
      o.response = new Hist(3);
    }
    o.response.record(response);
    if (late) {
      o.late++;
    }
  }

  // observeOverrun records an operation that ended after the measured
  // window: in the latency, not in the count.
  observeOverrun(op, ns) {
    const o = this.svc(op);
    o.overrun++;
    o.service.record(ns);
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
  // histograms as counts arrays (transferable).
  export() {
    return this.recs.map((o) => ({
      count: o.count,
      errs: o.errs,
      retries: o.retries,
      late: o.late,
      overrun: o.overrun,
      service: o.service && o.service.counts,
      response: o.response && o.response.counts,
    }));
  }
}

// transferables lists the buffers of exported recorders.
function transferables(exported) {
  const out = [];
  for (const ops of exported) {
    for (const o of ops) {
      for (const c of [o.service, o.response]) {
        if (c) {
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
