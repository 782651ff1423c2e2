#!/usr/bin/env python3
"""Validate blecap lint reports with third-party readers.

  validate_sarif.py --schema SCHEMA report.sarif [--junit report.xml]

* SARIF: JSON-schema validation against the OASIS sarif-schema-2.1.0.json (pip `jsonschema`),
  then loading with Microsoft's sarif-tools (pip `sarif-tools`), which must see every result.
* JUnit (optional): loading with junitparser (pip `junitparser`): suites, cases, failures.
Prints one summary line per file; exits 1 on any problem.
"""
import argparse, json, sys


def validate_sarif(path, schema_path):
    import jsonschema
    from sarif import loader
    problems = []
    with open(path) as f:
        doc = json.load(f)
    with open(schema_path) as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    problems += [f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:20]]
    results = [r for run in doc.get("runs", []) for r in run.get("results", [])]
    for r in results:
        frames = r.get("properties", {}).get("frames")
        if not frames or not all(isinstance(x, int) for x in frames):
            problems.append(f"result {r.get('ruleId')}: properties.frames is not an integer array")
        if not r.get("partialFingerprints"):
            problems.append(f"result {r.get('ruleId')}: no partialFingerprints")
    sf = loader.load_sarif_file(path)
    loaded = sf.get_results()
    if len(loaded) != len(results):
        problems.append(f"sarif-tools loaded {len(loaded)} results, the file has {len(results)}")
    rules = {r["id"] for run in doc["runs"] for r in run["tool"]["driver"]["rules"]}
    unknown = {r["ruleId"] for r in results} - rules
    if unknown:
        problems.append(f"results reference rules not in tool.driver.rules: {sorted(unknown)}")
    return problems, f"SARIF valid (schema + sarif-tools), {len(results)} results, {len(rules)} rules"


def validate_junit(path):
    from junitparser import JUnitXml, Failure
    xml = JUnitXml.fromfile(path)
    suites = list(xml) if hasattr(xml, "__iter__") else [xml]
    cases = failures = 0
    for s in suites:
        for c in s:
            cases += 1
            failures += sum(1 for r in c.result if isinstance(r, Failure))
    return [], f"JUnit read by junitparser: {len(suites)} suites, {cases} cases, {failures} failures"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sarif")
    ap.add_argument("--schema", required=True)
    ap.add_argument("--junit")
    args = ap.parse_args()
    bad = False
    for name, (problems, summary) in [("sarif", validate_sarif(args.sarif, args.schema))] + (
            [("junit", validate_junit(args.junit))] if args.junit else []):
        print(("ok   " if not problems else "FAIL ") + summary)
        for p in problems:
            print("     " + p)
        bad |= bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
