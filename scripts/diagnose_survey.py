#!/usr/bin/env python3
"""Survey of `blecap diagnose` over whole corpora (issue 29: every connection end and failed
attempt gets a verdict; the ones that stay "cause unknown" are listed with why).

For every file under the given paths (walked recursively), runs
`blecap diagnose -f jsonl FILE`, one capture at a time, and prints:

  * how many files were read, how many blecap could not read (counted, by its exit status),
    and how many were damaged (read up to the damage: their verdicts count);
  * per cause class, how many verdicts (connections and attempts apart);
  * every `cause_unknown` verdict: file, connection (or attempt) and frames, the signature's
    context (`missing=…`, `start=unknown`, `attempt=…`, `contradiction=…`) and the text of the
    step that says what is missing.

    python3 scripts/diagnose_survey.py --blecap .build/debug/blecap captures ../shared/captures
    python3 scripts/diagnose_survey.py --json survey.json captures   # also every verdict's line

Files that are plainly no capture (notes, licences, scripts, JSON) are passed over by their
suffix and counted apart, and so is a file whose bytes are those of one already listed (the
shipped corpus repeats captures of the shared one); everything else is handed to blecap, which
tells a capture by its content. Exits 0 unless blecap crashed (a signal, or an exit status other than 0, 2 and 3).
"""
import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

SKIP_SUFFIXES = (".md", ".json", ".txt", ".py", ".yml", ".yaml", ".html", ".sh", ".csv", ".sha256")
EXIT_UNREADABLE = (1, 2, 4, 5)
EXIT_DAMAGED = 3


def files_under(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, names in os.walk(p):
            dirs.sort()
            for n in sorted(names):
                yield os.path.join(root, n)


def diagnose(blecap, path):
    try:
        p = subprocess.run([blecap, "diagnose", "-f", "jsonl", path], capture_output=True, timeout=900)
    except subprocess.TimeoutExpired:
        return path, "timeout", [], "timed out after 900 s"
    err = p.stderr.decode("utf-8", "replace").strip()
    verdicts = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line:
            try:
                verdicts.append(json.loads(line))
            except ValueError:
                return path, "bad_output", [], f"not JSON: {line[:120]}"
    if p.returncode == 0:
        status = "read"
    elif p.returncode == EXIT_DAMAGED:
        status = "damaged"
    elif p.returncode in EXIT_UNREADABLE and not verdicts:
        status = "unreadable"
    else:
        status = f"crashed ({p.returncode})"
    return path, status, verdicts, err.splitlines()[-1] if err else ""


def context(signature):
    """The signature's keys that say why it is unknown."""
    keys = ("missing=", "start=", "attempt=", "contradiction=")
    return " ".join(t for t in signature.split()[1:] if t.startswith(keys)) or "(no context key)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="capture files or folders (walked)")
    ap.add_argument("--blecap", default=".build/debug/blecap")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every verdict (with its file) to this JSON file")
    args = ap.parse_args()

    candidates, skipped, copies, seen = [], 0, 0, set()
    for f in files_under(args.paths):
        if f.lower().endswith(SKIP_SUFFIXES) or os.path.basename(f).startswith("."):
            skipped += 1
            continue
        with open(f, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest in seen:
            copies += 1
            continue
        seen.add(digest)
        candidates.append(f)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda f: diagnose(args.blecap, f), candidates))

    statuses = collections.Counter()
    unreadable = []
    crashed = []
    causes = collections.Counter()
    by_kind = collections.Counter()
    unknown = []
    everything = []
    for path, status, verdicts, err in results:
        statuses[status.split(" ")[0]] += 1
        if status == "unreadable":
            unreadable.append((path, err))
            continue
        if status not in ("read", "damaged"):
            crashed.append((path, status, err))
        for v in verdicts:
            everything.append(v)
            causes[v["cause"]] += 1
            by_kind[v["kind"]] += 1
            if v["cause"] == "cause_unknown":
                why = next((s["text"] for s in v["steps"] if s["what"] in ("missing", "contradiction")), "")
                who = f"connection #{v['connection']}" if v.get("connection") is not None else v["kind"]
                frames = f"frames {v['start_frame']}–{v.get('end_frame', 'end')}"
                unknown.append((v.get("file", path), who, frames, context(v["signature"]), why))

    total = sum(causes.values())
    print(f"files: {len(candidates)} handed to blecap ({skipped} passed over by suffix, {copies} copies of "
          f"files listed already): "
          f"{statuses['read']} read, {statuses['damaged']} damaged (read up to the damage), "
          f"{statuses['unreadable']} not readable as a capture, {len(crashed)} failures")
    print(f"verdicts: {total} ({by_kind['connection']} connections, {by_kind['attempt']} attempts)")
    print()
    print("per cause class:")
    for cause, n in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:6d}  {cause}")
    print()
    print(f"cause_unknown ({len(unknown)}):")
    contexts = collections.Counter(u[3] for u in unknown)
    for c, n in sorted(contexts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:6d}  {c}")
    for f, who, frames, ctx, why in unknown:
        print(f"  {f}  {who}  {frames}  {ctx}")
        if why:
            print(f"      {why}")
    if unreadable:
        print()
        print(f"not readable ({len(unreadable)}):")
        for f, err in unreadable:
            print(f"  {f}: {err[:160]}")
    if crashed:
        print()
        print(f"FAILURES ({len(crashed)}):")
        for f, status, err in crashed:
            print(f"  {f}: {status} {err[:160]}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(everything, out, indent=1, sort_keys=True)
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
