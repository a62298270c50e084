'use strict';
// Jobs read as the Go worker reads them: defaults, canonical forms, the
// pragmas' order, and the refusals of what better-sqlite3 cannot honour.

const test = require('node:test');
const assert = require('node:assert/strict');
const { resolve, parseCount, parseDuration, JobError } = require('../lib/settings');

test('counts and durations as Go parses them', () => {
  assert.equal(parseCount('10k'), 10000n);
  assert.equal(parseCount('1m'), 1000000n);
  assert.equal(parseCount('64KB'), 65536n);
  assert.equal(parseCount('1_000'), 1000n);
  assert.equal(parseCount('1.5k'), null);
  assert.equal(parseDuration('10s'), 10e9);
  assert.equal(parseDuration('1m30s'), 90e9);
  assert.equal(parseDuration('500ms'), 500e6);
  assert.equal(parseDuration('1.5h'), 5400e9);
  assert.equal(parseDuration('0'), 0);
  assert.ok(Number.isNaN(parseDuration('10')));
  assert.ok(Number.isNaN(parseDuration('s')));
});

test('defaults, workload setting defaults and the pragmas', () => {
  const p = resolve({
    workload: 'read',
    target: 'node-better-sqlite3',
    path: 'x.db',
    settings: { journal: 'WAL', sync: '0', 'page-size': '8kb' },
  });
  assert.equal(p.settings.batch, '1'); // read's own default
  assert.equal(p.settings.journal, 'wal');
  assert.equal(p.w.rows, 10000);
  assert.equal(p.w.duration, 10e9);
  assert.equal(p.w.readers, 1);
  assert.deepEqual(p.pragmas, [
    'PRAGMA page_size = 8192',
    'PRAGMA busy_timeout = 5000',
    'PRAGMA journal_mode = wal',
    'PRAGMA synchronous = off',
  ]);
  assert.equal(resolve({ workload: 'insert', settings: {} }).settings.batch, '1000');
});

test('bad input and refusals are one line naming the setting', () => {
  const cases = [
    [{ workload: 'insert', settings: { batch: '0' } }, /--batch "0": must be at least 1/],
    [{ workload: 'insert', params: { rows: 'x' } }, /--rows "x"/],
    [{ workload: 'read', params: { keys: 'hot' } }, /--keys "hot"/],
    [{ workload: 'read', params: { workers: '4' }, settings: { pool: '2' } }, /--pool 2 with --workers 4/],
    [{ workload: 'mixed', params: { rate: '10', 'max-inflight': '8' }, settings: { pool: '4' } }, /--max-inflight 8/],
    [
      { workload: 'mixed', params: { writers: '2' }, settings: { writer: 'single' } },
      /--writer single with 2 writing threads/,
    ],
    [{ workload: 'insert', settings: { 'in-memory': 'true', journal: 'wal' } }, /--journal wal needs a file/],
    [
      { workload: 'insert', params: { workers: '2' }, settings: { 'in-memory': 'true' } },
      /--in-memory with 2 connections/,
    ],
    [{ workload: 'insert', settings: { 'rows-per-stmt': '20000' } }, /--rows-per-stmt 20000/],
    [{ workload: 'insert', target: 'mattn' }, /target "mattn"/],
  ];
  for (const [job, re] of cases) {
    assert.throws(
      () => resolve(job),
      (e) => e instanceof JobError && re.test(e.message) && !e.message.includes('\n'),
      JSON.stringify(job),
    );
  }
  // Honoured: a pool as large as the threads, one single writer.
  resolve({ workload: 'read', params: { workers: '4' }, settings: { pool: '4' } });
  resolve({ workload: 'mixed', params: { readers: '3', writers: '1' }, settings: { writer: 'single' } });
});
