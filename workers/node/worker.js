#!/usr/bin/env node
'use strict';
// litebench's worker for the node-better-sqlite3 target: the worker
// protocol (docs/worker-protocol.md) on standard input and output.
//
//   node workers/node/worker.js           serve the protocol
//   node workers/node/worker.js --check   print the runtime, driver and
//                                         SQLite versions as one JSON line
//                                         (exit 0 when the build works)

if (process.argv.includes('--check')) {
  const Database = require('better-sqlite3');
  const db = new Database(':memory:');
  const sqlite = db.prepare('select sqlite_version()').pluck().get();
  db.close();
  process.stdout.write(
    JSON.stringify({
      target: 'node-better-sqlite3',
      lang: `node ${process.versions.node}`,
      driver: `better-sqlite3 ${require('better-sqlite3/package.json').version}`,
      sqlite,
    }) + '\n',
  );
} else if (process.argv.length > 2) {
  process.stderr.write('usage: worker.js [--check] (the worker protocol is read on standard input)\n');
  process.exit(2);
} else {
  require('./lib/main').main();
}
