'use strict';
// The clock: monotonic nanoseconds, as a Number, on one scale in every
// thread of the process. performance.now() is the cheapest monotonic clock
// Node has (no BigInt, no array), but each worker thread counts it from its
// own start; calibrate() ties this thread's performance.now() to the
// process-wide hrtime once, so that times taken in different threads (an
// open-loop schedule and the operations run on it) compare.

const { performance } = require('perf_hooks');

let offset = 0;

// calibrate sets this thread's offset: now() is then hrtime minus base
// (a BigInt of hrtime nanoseconds every thread shares), in nanoseconds.
function calibrate(base) {
  let best = Infinity;
  for (let k = 0; k < 15; k++) {
    const a = process.hrtime.bigint();
    const p = performance.now();
    const b = process.hrtime.bigint();
    const gap = Number(b - a);
    if (gap < best) {
      best = gap;
      offset = Number(a - base) + gap / 2 - p * 1e6;
    }
  }
}

// now is the time in nanoseconds.
function now() {
  return performance.now() * 1e6 + offset;
}

// cpu is the CPU time the whole process has used, every thread's, in
// nanoseconds (getrusage: user and system).
function cpu() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
}

module.exports = { calibrate, now, cpu };
