-- Which phone model and OS build each failure hits (null where the archive did not name them).
SELECT v.signature,
       c.device_model,
       coalesce(c.android_build_fingerprint, c.ios_version) AS os_build,
       count(*) AS verdicts,
       count(DISTINCT v.capture_id) AS captures
FROM {verdict} v
JOIN {capture} c USING (capture_id)
WHERE v.cause NOT IN {normal_ends}
GROUP BY ALL
ORDER BY verdicts DESC, v.signature, c.device_model NULLS LAST, os_build NULLS LAST
LIMIT 100;
