\set aid random(1, 10)
\sleep 1 ms
