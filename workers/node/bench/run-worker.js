'use strict';
// Runs one job through the worker (the protocol, as litebench would) and
// prints its throughput: {"rows_per_s": …, "cpu_rows_per_s": …} for
// insert, {"ops_per_s": …, "cpu_ops_per_s": …} otherwise: done over
// elapsed_s of the final event, and done over the CPU time the worker's
// process used over that measured part (its process_cpu figure, less the
// share of the rows' generation, which the plain loop does before its
// clock starts), a figure other work on a shared machine disturbs far
// less. With STEADY set, a read's CPU figure is its steady part alone: the operations its
// interval reports counted after the first, up to the last whole one, over
// the CPU time used between those reports (plain-read.js measures its own
// from its first whole second to its last).
//
//   node bench/run-worker.js DIR insert ROWS
//   node bench/run-worker.js DIR read ROWS SECONDS

const path = require('path');
const fs = require('fs');
const readline = require('readline');
const { spawn } = require('child_process');

const [dir, workload, rows, seconds] = process.argv.slice(2);
const file = path.join(dir, `worker-${workload}.db`);
const job = {
  run_id: 'bench',
  workload,
  target: 'node-better-sqlite3',
  path: file,
  // Intervals every second, as litebench's runner asks by default: what
  // they cost is part of the harness measured.
  interval_ns: 1e9,
  params: workload === 'insert' ? { rows } : { rows, duration: `${seconds}s`, workers: '1', keys: 'uniform' },
  settings: {
    journal: 'wal',
    sync: 'off',
    prepared: 'true',
    'rows-per-stmt': '1',
    batch: workload === 'insert' ? '1000' : '1',
  },
};
const child = spawn(process.execPath, [path.join(__dirname, '..', 'worker.js')], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
const steady = []; // {done, cpu} at each interval report

// cpuSeconds is the CPU time (user and system) process pid has used, from
// /proc (clock ticks of 10 ms).
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
readline.createInterface({ input: child.stdout }).on('line', (line) => {
  const ev = JSON.parse(line);
  if (ev.t === 'error') {
    throw new Error(ev.error);
  }
  if (ev.t === 'interval') {
    const done = (ev.ops || []).reduce((s, o) => s + o.n, 0);
    const cpu = cpuSeconds(child.pid);
    steady.push({ done, cpu });
  }
  if (ev.t === 'setup_done') {
    send({ t: 'run' });
  }
  if (ev.t === 'final') {
    if (ev.status !== 'ok') {
      throw new Error(`final ${ev.status}: ${ev.error}`);
    }
    send({ t: 'close' });
    child.stdin.end();
    for (const s of ['', '-wal', '-shm']) {
      fs.rmSync(file + s, { force: true });
    }
    // The worker reports the CPU time its process used over the measured
    // part (process_cpu, in cores: every thread's, from the measured start
    // to its end), the part its rate counts: not the thread start, the
    // row counts or the final histograms around it. It leaves the rows'
    // generation (and a recording done off the clock) out of elapsed_s and
    // reports them as wall time; the CPU time of the rest is the measured
    // part's in the same proportion, process_cpu × elapsed_s: a wall time
    // is no measure of CPU time when the process is stopped or waits for a
    // CPU (compare.sh's INTERLEAVE stops it half the time), and the
    // proportion treats both parts alike.
    const pc = (ev.metrics || []).find((m) => m.name === 'process_cpu');
    if (!pc) {
      throw new Error('the final event has no process_cpu');
    }
    const cpu = pc.value * ev.elapsed_s;
    const key = workload === 'insert' ? 'rows_per_s' : 'ops_per_s';
    let perCPU = ev.done / cpu;
    if (process.env.STEADY && workload !== 'insert' && steady.length > 2) {
      // The intervals after the first, but for the last, partial one: the
      // loop's steady state, its start (threads, compilation) and its end
      // (counts) left out.
      const after = steady.slice(1, -1);
      perCPU = after.reduce((s, x) => s + x.done, 0) / (after[after.length - 1].cpu - steady[0].cpu);
    }
    process.stdout.write(JSON.stringify({ [key]: ev.done / ev.elapsed_s, [`cpu_${key}`]: perCPU }) + '\n');
  }
});
send({ t: 'hello', protocol: 1 });
send({ t: 'setup', job });
