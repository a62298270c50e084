'use strict';
// The plain loop the worker's point reads are compared with: better-sqlite3
// alone, one prepared SELECT by primary key at uniformly random ids on one
// thread for a duration, over a bench table loaded beforehand (WAL,
// synchronous OFF). Prints {"ops_per_s": …, "cpu_ops_per_s": …} (per second
// of CPU time; with STEADY set, of the CPU time from the first whole second
// to the last, as run-worker.js takes the worker's).
//
//   node bench/plain-read.js DIR [ROWS] [SECONDS]

const path = require('path');
const fs = require('fs');
const Database = require('better-sqlite3');
const { performance } = require('perf_hooks');
const gen = require('../lib/gen');
const { SCHEMAS } = require('../lib/schemas');

const dir = process.argv[2];
const rows = Number(process.argv[3] || 100000);
const seconds = Number(process.argv[4] || 10);
const file = path.join(dir, 'plain-read.db');

const db = new Database(file);
db.pragma('journal_mode = wal');
db.pragma('synchronous = off');
db.exec('CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)');
const insert = db.prepare('INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)');
const seed = gen.seedOf(1);
const row = new Array(3);
db.transaction(() => {
  for (let i = 0; i < rows; i++) {
    SCHEMAS.bench.table.row(seed, i, row);
    insert.run(row[0], row[1], row[2]);
  }
})();

const select = db.prepare('SELECT ID,rand,hash FROM bench WHERE ID = ?');
const cpu0 = process.cpuUsage();
const start = performance.now();
const until = start + seconds * 1e3;
let n = 0;
let t = start;
// The steady part: from the first whole second to the last, as the worker's
// interval reports delimit its own (run-worker.js, STEADY).
let mark = start + 1e3;
let first = null;
let last = null;
while (t < until) {
  for (let k = 0; k < 256; k++) {
    if (select.get(Math.floor(Math.random() * rows)) === undefined) {
      throw new Error('row not found');
    }
  }
  n += 256;
  t = performance.now();
  if (t >= mark) {
    last = { n, cpu: process.cpuUsage() };
    first = first || last;
    mark += 1e3;
  }
}
const elapsed = (t - start) / 1e3;
const cpu = process.cpuUsage(cpu0);
db.close();
for (const s of ['', '-wal', '-shm']) {
  fs.rmSync(file + s, { force: true });
}
let perCPU = n / ((cpu.user + cpu.system) / 1e6);
if (process.env.STEADY && first !== last) {
  const used = last.cpu.user + last.cpu.system - first.cpu.user - first.cpu.system;
  perCPU = (last.n - first.n) / (used / 1e6);
}
process.stdout.write(JSON.stringify({ ops_per_s: n / elapsed, cpu_ops_per_s: perCPU }) + '\n');
