'use strict';
// The plain loop the worker's insert is compared with: better-sqlite3 alone,
// a new bench table in WAL with synchronous OFF, one prepared single-row
// INSERT, 1,000-row transactions, the rows (the worker's, seed 1) generated
// before the clock starts. Prints {"rows_per_s": …, "cpu_rows_per_s": …} (per
// second of CPU time).
//
//   node bench/plain-insert.js DIR [ROWS]

const path = require('path');
const fs = require('fs');
const Database = require('better-sqlite3');
const { performance } = require('perf_hooks');
const gen = require('../lib/gen');
const { SCHEMAS } = require('../lib/schemas');

const dir = process.argv[2];
const rows = Number(process.argv[3] || 1000000);
const file = path.join(dir, 'plain-insert.db');

const vals = new Array(rows * 3);
const seed = gen.seedOf(1);
const row = new Array(3);
for (let i = 0; i < rows; i++) {
  SCHEMAS.bench.table.row(seed, i, row);
  vals[3 * i] = row[0];
  vals[3 * i + 1] = row[1];
  vals[3 * i + 2] = row[2];
}

const db = new Database(file);
db.pragma('journal_mode = wal');
db.pragma('synchronous = off');
db.exec('CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)');
const insert = db.prepare('INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)');
const begin = db.prepare('BEGIN');
const commit = db.prepare('COMMIT');

const cpu0 = process.cpuUsage();
const start = performance.now();
for (let i = 0; i < rows; i += 1000) {
  begin.run();
  const end = Math.min(i + 1000, rows);
  for (let j = i; j < end; j++) {
    insert.run(vals[3 * j], vals[3 * j + 1], vals[3 * j + 2]);
  }
  commit.run();
}
const seconds = (performance.now() - start) / 1e3;
const cpu = process.cpuUsage(cpu0);
db.close();
for (const s of ['', '-wal', '-shm']) {
  fs.rmSync(file + s, { force: true });
}
process.stdout.write(
  JSON.stringify({ rows_per_s: rows / seconds, cpu_rows_per_s: rows / ((cpu.user + cpu.system) / 1e6) }) + '\n',
);
