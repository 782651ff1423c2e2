#!/usr/bin/env python3
"""Cross-command consistency of connection facts (issue 28).

For every capture given (files, or directories walked), runs `blecap info --format json`,
`timeline --format jsonl`, `gatt --format json`, `lint --format json` and `report`, and checks
that they state the same facts per connection: connections, peers, roles, ATT_MTU (known, or
unknown with its lower bound), end reasons, security and attribute counts. Each command embeds
the timeline's record (`facts`); beyond comparing those, the commands' own fields are checked
against it (info's `mtu`/`peer`/`end_reason`, gatt's database trees, the timeline's events of
each connection, the report's `mtu`/`ended`).

    python3 scripts/facts_consistency.py --blecap .build/release/blecap captures ../shared/captures

Prints one line per capture and exits 1 on any difference. Files blecap does not read as a
capture (notes, licences, unknown formats) and archives with several members are skipped.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SKIP_SUFFIXES = (".md", ".json", ".txt", ".py", ".yml", ".yaml", ".html")


def run(blecap, args):
    p = subprocess.run([blecap] + args, capture_output=True, timeout=600)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def facts_of(blecap, path):
    """The facts each command states for `path`: {command: [facts…]}, or None to skip."""
    status, out, _ = run(blecap, ["info", "--format", "json", path])
    if status not in (0, 3) or not out.strip().startswith("{"):
        return None, "not a single capture"
    info = json.loads(out)
    got = {"info": [c.get("facts") for c in info.get("connections", [])]}
    problems = []
    # info's own fields agree with the record.
    for c in info.get("connections", []):
        f = c.get("facts") or {}
        n = c.get("connection")
        if c.get("peer") != f.get("peer"):
            problems.append(f"info #{n}: peer {c.get('peer')} but facts {f.get('peer')}")
        if c.get("mtu") != f.get("mtu"):
            problems.append(f"info #{n}: mtu {c.get('mtu')} but facts {f.get('mtu')}")
        if c.get("end_reason") != f.get("end_reason"):
            problems.append(f"info #{n}: end_reason {c.get('end_reason')} but facts {f.get('end_reason')}")

    status, out, _ = run(blecap, ["timeline", "--format", "jsonl", path])
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    got["timeline"] = [e.get("facts") for e in events if e.get("type") == "connection.summary"]
    summaries = {f["connection"]: f for f in got["timeline"] if f}
    for e in events:
        n = e.get("connection")
        if n is None or e.get("type") == "connection.summary":
            continue
        f = summaries.get(n)
        if f is None:
            if len(summaries) < 4096:
                problems.append(f"timeline frame {e['frame']}: connection #{n} has no connection.summary")
            continue
        if e.get("type") == "connection.disconnect" and f.get("end_reason") != e.get("reason"):
            problems.append(f"timeline #{n}: disconnect reason {e.get('reason')} but facts {f.get('end_reason')}")
        if e.get("type") == "gatt.write" and not f.get("mtu_known"):
            if "mtu" in e or e.get("exceeds_mtu"):
                problems.append(f"timeline frame {e['frame']}: states mtu {e.get('mtu')} where it is unknown")
            if e.get("mtu_at_least", 0) > f.get("mtu_at_least", 0):
                problems.append(f"timeline frame {e['frame']}: mtu_at_least above the connection's")

    status, out, _ = run(blecap, ["gatt", "--format", "json", path])
    gatt = json.loads(out) if out.strip().startswith("{") else {"connections": []}
    got["gatt"] = [c.get("facts") for c in gatt.get("connections", [])]
    for c in gatt.get("connections", []):
        f = c.get("facts") or {}
        n = c.get("connection")
        for side, key in (("peer", "remote_database"), ("local", "local_database")):
            db = c.get(key, {})
            counts = f.get("attributes", {}).get(side, {})
            for what in ("services", "includes", "characteristics"):
                if len(db.get(what, [])) != counts.get(what):
                    problems.append(
                        f"gatt #{n} {key}: {len(db.get(what, []))} {what} but facts {counts.get(what)}")
            shown = sum(len(ch.get("descriptors", [])) for ch in db.get("characteristics", []))
            if shown > counts.get("descriptors", 0):
                problems.append(f"gatt #{n} {key}: {shown} descriptors but facts {counts.get('descriptors')}")

    status, out, _ = run(blecap, ["lint", "--format", "json", "--fail-on", "never", path])
    lint = json.loads(out) if out.strip().startswith("{") else {"captures": []}
    got["lint"] = [f for cap in lint.get("captures", []) for f in cap.get("connections", [])]

    status, out, _ = run(blecap, ["report", "-o", "-", path])
    models = []
    m = re.search(r'<script id="blecap-data" type="application/json">(.*?)</script>', out, re.S)
    if m:
        models = json.loads(m.group(1))
    report = [c for model in models for c in model.get("connections", [])]
    got["report"] = [c.get("facts") for c in report]
    for c in report:
        f = c.get("facts") or {}
        if c.get("mtu") != f.get("mtu") or c.get("ended") != f.get("ended"):
            problems.append(f"report #{c.get('number')}: mtu {c.get('mtu')}, ended {c.get('ended')} "
                            f"but facts {f.get('mtu')}, {f.get('ended')}")
    return (got, problems), None


def compare(got):
    problems = []
    base = {f["connection"]: f for f in got["info"] if f}
    for command, facts in got.items():
        if command == "info":
            continue
        mine = {f["connection"]: f for f in facts if f}
        # The report draws at most its limit of connections; every one it draws must agree.
        if command != "report" and set(mine) != set(base):
            problems.append(f"{command}: connections {sorted(mine)} but info {sorted(base)}")
        for n in sorted(set(mine) & set(base)):
            if mine[n] != base[n]:
                keys = sorted(k for k in set(mine[n]) | set(base[n]) if mine[n].get(k) != base[n].get(k))
                problems.append(f"{command} #{n}: " + ", ".join(
                    f"{k} {mine[n].get(k)!r} but info {base[n].get(k)!r}" for k in keys))
    return problems


def captures(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for d, dirs, files in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x != "LICENSES")
            for name in sorted(files):
                if not name.endswith(SKIP_SUFFIXES):
                    yield os.path.join(d, name)


def check(blecap, path):
    result, skipped = facts_of(blecap, path)
    if result is None:
        return None, skipped
    got, problems = result
    problems += compare(got)
    return problems, f"{len(got['info'])} connections"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=".build/release/blecap")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    failed = checked = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        files = list(captures(args.paths))
        for path, (problems, summary) in zip(files, pool.map(lambda p: check(args.blecap, p), files)):
            if problems is None:
                continue
            checked += 1
            print(f"{'ok  ' if not problems else 'FAIL'} {path}: {summary}")
            for pr in problems[:20]:
                print(f"       {pr}")
            failed += bool(problems)
    print(f"facts consistency: {checked - failed} consistent, {failed} with differences")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
