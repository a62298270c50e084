\if :x = 1
SELECT 1;
\endif
