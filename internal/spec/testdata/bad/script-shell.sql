\set aid random(1, 10)
\shell echo hi
SELECT :aid;
