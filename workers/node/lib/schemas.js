'use strict';
// The built-in schemas (internal/workload/data.go) and the SQL SQLite's
// dialect renders for them (internal/dialect): the same table definitions,
// inserts, updates, upserts and point reads as the Go worker runs.

const { Table } = require('./gen');

const T0 = '2024-01-01T00:00:00Z';
const NAMES = [
  'Ada',
  'Alan',
  'Barbara',
  'Claude',
  'Donald',
  'Edsger',
  'Frances',
  'Grace',
  'John',
  'Ken',
  'Leslie',
  'Margaret',
  'Niklaus',
  'Radia',
  'Tony',
  'Barbara',
];

// Column types as the dialect spells them: int (a plain integer; as the
// primary key, not the rowid), INTEGER (the rowid when it is the key), TEXT,
// BLOB.
function schema(name, ddlCols, indexes, update, gens) {
  const table = new Table(gens);
  const columns = gens.map((g) => g.name);
  const create = [
    `CREATE TABLE ${name}(` +
      ddlCols
        .map(
          (c) =>
            c.name +
            ' ' +
            c.type +
            (c.pk ? ' PRIMARY KEY' : '') +
            (c.notNull ? ' NOT NULL' : '') +
            (c.unique ? ' UNIQUE' : ''),
        )
        .join(', ') +
      ')',
  ];
  for (const ix of indexes) {
    create.push(`CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX ${ix.name} ON ${name}(${ix.columns.join(',')})`);
  }
  const key = columns[0];
  const updIdx = update.map((c) => columns.indexOf(c));
  return {
    name,
    table,
    columns,
    keyCol: key,
    update,
    updIdx,
    create,
    objects: [name, ...indexes.map((ix) => ix.name)],
    intKey: !table.text[0],
    // key returns row i's primary key without generating the row.
    key: (seed, i) => table.value(0, seed, i),
    insertSQL: (rows) => insertSQL(name, columns, rows),
    updateSQL: () => `UPDATE ${name} SET ${update.map((c) => c + ' = ?').join(', ')} WHERE ${key} = ?`,
    upsertSQL: () =>
      insertSQL(name, columns, 1) +
      ` ON CONFLICT(${key}) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    selectSQL: () => `SELECT ${columns.join(',')} FROM ${name} WHERE ${key} = ?`,
  };
}

function insertSQL(table, cols, rows) {
  const one = '(' + cols.map(() => '?').join(',') + ')';
  return `INSERT INTO ${table}(${cols.join(',')}) VALUES ` + new Array(rows).fill(one).join(',');
}

const col = (name, type, o = {}) => ({ name, type, ...o });
const g = (name, kind, args = {}) => ({ name, kind, args });

const SCHEMAS = {
  bench: schema(
    'bench',
    [col('ID', 'int', { pk: true }), col('rand', 'TEXT'), col('hash', 'TEXT')],
    [],
    ['rand', 'hash'],
    [
      g('ID', 'seq', { start: 0 }),
      g('rand', 'hex', { bytes: 8 }),
      g('hash', 'sha256_of', { column: 'rand', decode_hex: true }),
    ],
  ),
  users: schema(
    'users',
    [
      col('id', 'BLOB', { pk: true, notNull: true }),
      col('created_at', 'TEXT', { notNull: true }),
      col('username', 'TEXT', { notNull: true }),
    ],
    [{ name: 'idx_users_on_id', columns: ['id'], unique: true }],
    ['created_at', 'username'],
    [
      g('id', 'uuid4'),
      g('created_at', 'timestamp', { start: T0, step_ns: 1000000, format: 'rfc3339nano' }),
      g('username', 'const', { value: 'Someone' }),
    ],
  ),
  account: schema(
    'account',
    [
      col('id', 'INTEGER', { pk: true }),
      col('email', 'TEXT', { notNull: true, unique: true }),
      col('name', 'TEXT', { notNull: true }),
      col('description', 'TEXT'),
      col('created_at', 'INTEGER', { notNull: true }),
      col('version', 'INTEGER'),
    ],
    [{ name: 'account_name', columns: ['name'] }],
    ['name', 'description'],
    [
      g('id', 'seq', { start: 1 }),
      g('email', 'seq_text', { prefix: 'user', start: 1, suffix: '@example.com' }),
      g('name', 'choice', { list: NAMES, count: 2, sep: ' ' }),
      g('description', 'text', { min: 64, max: 127 }),
      g('created_at', 'timestamp', { start: T0, step_ns: 1000000, format: 'unix_ms' }),
      g('version', 'const_int', { value: 1 }),
    ],
  ),
  foo: schema(
    'foo',
    [col('id', 'INTEGER', { pk: true, notNull: true }), col('name', 'TEXT')],
    [],
    ['name'],
    [g('id', 'seq', { start: 1 }), g('name', 'letters', { len: 30 })],
  ),
  pages: schema(
    'pages',
    [col('id', 'INTEGER', { pk: true }), col('body', 'TEXT')],
    [],
    ['body'],
    [g('id', 'seq', { start: 1 }), g('body', 'text', { min: 5400, max: 5400 })],
  ),
};

// BENCH_OBJECTS are the tables and indexes litebench's workloads create: a
// bench database holding anything else holds someone's work.
const BENCH_OBJECTS = new Set(Object.values(SCHEMAS).flatMap((s) => s.objects.map((o) => o.toLowerCase())));

// MAX_VARIABLES is SQLite's bound-parameter limit since 3.32, which rows
// per statement are checked against.
const MAX_VARIABLES = 32766;

module.exports = { SCHEMAS, BENCH_OBJECTS, MAX_VARIABLES, insertSQL };
