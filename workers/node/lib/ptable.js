'use strict';
// A workload program's table (docs/workload-program.md, tables[]): its
// columns' generators, its DDL, the SQL that loads it and the keys of its
// rows. Integer columns are BigInts, so that better-sqlite3 binds them as
// integers whatever the column's declared type.

const gen = require('./gen');
const { insertSQL } = require('./schemas');

class ProgTable {
  constructor(t, seed) {
    this.name = t.name;
    this.rows = Number(t.rows || 0);
    this.create = t.create || [];
    const cols = t.columns || [];
    this.columns = cols.map((c) => c.name);
    this.keyCol = this.columns[0];
    this.text = cols.map((c) => c.type === 'text');
    this.intKey = !this.text[0];
    this.update = t.update || [];
    this.seed = seed;
    try {
      this.gen = new gen.Table(cols.map((c) => ({ name: c.name, kind: c.kind, args: c.args })));
    } catch (e) {
      throw new Error(`table ${t.name}: ${e.message}`);
    }
    this.zipfs = new Map();
    this.claims = null; // set for a run: rows that exist and claimed
    // The Inserter's view of a schema.
    this.table = { row: (s, i, out) => this.row(s, i, out) };
  }

  // row writes row i's values under seed into out.
  row(seed, i, out) {
    this.gen.row(seed, i, out);
    for (let k = 0; k < out.length; k++) {
      if (!this.text[k] && typeof out[k] === 'number') {
        out[k] = BigInt(out[k]);
      }
    }
    return out;
  }

  // key is row i's key under seed.
  key(seed, i) {
    const v = this.gen.value(0, seed, i);
    return typeof v === 'number' ? BigInt(v) : v;
  }

  // keyValue is row i's key under the program's seed.
  keyValue(i) {
    return this.key(this.seed, i);
  }

  // visible is how many rows exist now.
  visible() {
    return this.claims === null ? this.rows : this.claims.visible();
  }

  // zipf is the zipfian of theta prepared for the rows loaded.
  zipf(theta) {
    let z = this.zipfs.get(theta);
    if (z === undefined) {
      z = new gen.Zipf(Math.max(this.rows, 1), theta);
      this.zipfs.set(theta, z);
    }
    return z;
  }

  insertSQL(k) {
    return insertSQL(this.name, this.columns, k);
  }
}

module.exports = { ProgTable };
