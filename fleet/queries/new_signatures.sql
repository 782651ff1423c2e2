-- Signatures first seen on or after {since}: new failures this week.
SELECT v.signature,
       min(v.day) AS first_day,
       count(*) AS verdicts,
       count(DISTINCT v.capture_id) AS captures,
       count(DISTINCT v.peer) AS devices
FROM {verdict} v
WHERE v.cause NOT IN {normal_ends}
GROUP BY v.signature
HAVING min(v.day) >= '{since}'
ORDER BY first_day DESC, verdicts DESC, v.signature;
