-- pgbench's tables, loaded with SQL: run once before the measured part,
-- with :scale (from -D scale=N, default 1) substituted as text. The same
-- text runs on SQLite, PostgreSQL and MariaDB: the rows come from a
-- recursive CTE of ten digits cross-joined (no recursion deeper than
-- :scale, which MariaDB's max_recursive_iterations allows), written
-- after INSERT INTO as MariaDB requires.
CREATE TABLE pgbench_branches (bid INTEGER PRIMARY KEY, bbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_tellers (tid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, tbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_accounts (aid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, abalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TEXT, filler TEXT);

INSERT INTO pgbench_branches
  WITH RECURSIVE s(b) AS (SELECT 1 UNION ALL SELECT b + 1 FROM s WHERE b < :scale)
  SELECT b, 0, NULL FROM s;
INSERT INTO pgbench_tellers
  WITH RECURSIVE s(b) AS (SELECT 1 UNION ALL SELECT b + 1 FROM s WHERE b < :scale),
    d(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM d WHERE x < 9)
  SELECT (b - 1) * 10 + x + 1, b, 0, NULL FROM s, d;
INSERT INTO pgbench_accounts
  WITH RECURSIVE s(b) AS (SELECT 1 UNION ALL SELECT b + 1 FROM s WHERE b < :scale),
    d(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM d WHERE x < 9)
  SELECT (s.b - 1) * 100000 + d1.x * 10000 + d2.x * 1000 + d3.x * 100 + d4.x * 10 + d5.x + 1, s.b, 0, ''
  FROM s, d d1, d d2, d d3, d d4, d d5;
