\set aid random(1, 10)
SELECT abalance FROM pgbench_accounts WHERE aid = :bid;
