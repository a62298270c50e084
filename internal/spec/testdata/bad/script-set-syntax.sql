\set aid random(1, 10
SELECT :aid;
