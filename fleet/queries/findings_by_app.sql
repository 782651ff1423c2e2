-- Rule findings by the app packages the bug report names (a capture naming several packages
-- counts for each: the capture cannot tell which app made the call).
SELECT app.package AS app_package,
       f.rule,
       f.slug,
       count(*) AS findings,
       count(DISTINCT f.capture_id) AS captures
FROM {finding} f
JOIN {capture} c USING (capture_id)
CROSS JOIN unnest(coalesce(c.app_packages, ['(not named)'])) AS app(package)
WHERE NOT f.baselined
GROUP BY ALL
ORDER BY findings DESC, app_package, f.rule
LIMIT 100;
