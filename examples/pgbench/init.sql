-- pgbench's tables, loaded with SQL: run once before the measured part,
-- with :scale (from -D scale=N, default 1) substituted as text.
CREATE TABLE pgbench_branches (bid INTEGER PRIMARY KEY, bbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_tellers (tid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, tbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_accounts (aid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, abalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TEXT, filler TEXT);

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :scale)
  INSERT INTO pgbench_branches SELECT i, 0, NULL FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10 * :scale)
  INSERT INTO pgbench_tellers SELECT i, (i - 1) / 10 + 1, 0, NULL FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000 * :scale)
  INSERT INTO pgbench_accounts SELECT i, (i - 1) / 100000 + 1, 0, '' FROM n;
