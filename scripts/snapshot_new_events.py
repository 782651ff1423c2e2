#!/usr/bin/env python3
"""Checks that two output snapshots (scripts/output_snapshot.sh) differ only by new timeline event
types: every changed timeline line (text or JSONL) is an added event of one of TYPES, and info's
and report's event-type counts gain those types' entries and nothing else; every other output is
identical. LISTING names the differing files (one per line, as `compare` prints them).

    scripts/output_snapshot.sh compare OLD NEW | sed -nE 's|^Files OLD/([^ ]+) and .*|\\1|p' > list
    python3 scripts/snapshot_new_events.py OLD NEW list advertising.start advertising.stop
"""
import sys, json, re, difflib
base, new, listing = sys.argv[1:4]
NEW_TYPES = tuple(sys.argv[4:])
bad = 0; added = {"text": 0, "jsonl": 0}; counts = 0
def strip_counts(o):
    global counts
    if isinstance(o, dict):
        for k in NEW_TYPES:
            if k in o: counts += 1; del o[k]
        for v in o.values(): strip_counts(v)
    elif isinstance(o, list):
        for v in o: strip_counts(v)
    return o
for f in open(listing).read().split():
    a = open(f"{base}/{f}").read(); b = open(f"{new}/{f}").read()
    if ".timeline" in f:
        kind = "jsonl" if "jsonl" in f else "text"
        for line in difflib.ndiff(a.splitlines(), b.splitlines()):
            if line.startswith("- "): bad += 1; print("REMOVED", f, line[:150])
            elif line.startswith("+ "):
                ok = any(f'"type":"{t}"' in line for t in NEW_TYPES) if kind == "jsonl" \
                    else any(f"  {t} " in line for t in NEW_TYPES)
                if ok: added[kind] += 1
                else: bad += 1; print("ADDED", f, line[:150])
    elif ".info_" in f:
        if strip_counts(json.loads(a)) != strip_counts(json.loads(b)): bad += 1; print("INFO", f)
    elif ".report_" in f:
        alt = "|".join(re.escape(t) for t in NEW_TYPES)
        c = re.sub(r'\{"type":"(' + alt + r')","count":\d+\},?', "", b)
        c2 = re.sub(r',\{"type":"(' + alt + r')","count":\d+\}', "", b)
        if c != a and c2 != a: bad += 1; print("REPORT", f)
        else: counts += len(re.findall(r'"type":"(?:' + alt + r')","count"', b))
    else:
        bad += 1; print("OTHER", f)
print(f"new event lines: text {added['text']}, jsonl {added['jsonl']}; event-type counts added: {counts}; "
      f"other differences: {bad}")
sys.exit(0 if bad == 0 else 1)
