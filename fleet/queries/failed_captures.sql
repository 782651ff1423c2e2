-- Captures that could not be analysed (wholly or in part) and why.
SELECT e.class, e.stage, e."limit", e.cause,
       count(*) AS errors,
       count(DISTINCT e.sha256) AS inputs
FROM {error} e
GROUP BY ALL
ORDER BY errors DESC, e.class, e.cause
LIMIT 100;
