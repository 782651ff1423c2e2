-- Top failure signatures: how many verdicts carry each, in how many captures, and on how many
-- devices (distinct peer pseudonyms: the product units that met the failure).
-- Normal ends (a link still up, or closed on purpose by either side) are not failures: see
-- summary.NORMAL_ENDS.
SELECT v.signature,
       count(*) AS verdicts,
       count(DISTINCT v.capture_id) AS captures,
       count(DISTINCT v.peer) AS devices,
       min(v.day) AS first_day,
       max(v.day) AS last_day
FROM {verdict} v
WHERE v.cause NOT IN {normal_ends}
GROUP BY v.signature
ORDER BY verdicts DESC, devices DESC, v.signature
LIMIT 50;
