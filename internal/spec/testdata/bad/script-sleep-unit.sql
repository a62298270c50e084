\sleep 10 minutes
SELECT 1;
