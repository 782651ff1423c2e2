#!/usr/bin/env python3
"""Which real captures `blecap replay` reproduces, and where the others diverge.

For every capture with a connection (by `blecap info --format json`) in the given folders
(default: captures/public and ../shared/captures/public, the same file counted once), runs
`blecap replay --speed S --format json --out FILE` at realtime and at max and prints one row
per connection that did not replay identically (speed, connection, first divergence with the
capture frame and both PDUs, or the reason the report gives why the capture cannot be
reproduced), then a summary. With --tshark, also checks that tshark reads the same ATT PDUs
(bytes) from the capture's replayed connections and from the `--out` file.

    python3 scripts/replay_survey.py --blecap .build/debug/blecap [--tshark] [DIR|FILE ...]

Exit status 0 when every connection replayed identically or says why it cannot, else 1.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def captures(paths):
    seen = set()
    for p in paths:
        files = [p] if os.path.isfile(p) else [os.path.join(p, n) for n in sorted(os.listdir(p))] \
            if os.path.isdir(p) else []
        for f in files:
            name = os.path.basename(f)
            if name.endswith(".md") or name.endswith(".json") or not os.path.isfile(f):
                continue
            digest = hashlib.sha256(open(f, "rb").read()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            yield f


def connections(blecap, path):
    p = subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True)
    try:
        return json.loads(p.stdout).get("connection_count", 0)
    except (ValueError, AttributeError):
        return 0


def replay(blecap, path, speed, out):
    p = subprocess.run([blecap, "replay", "--speed", speed, "--format", "json", "--out", out, path],
                       capture_output=True, text=True, timeout=600)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr.strip()
    except ValueError:
        return p.returncode, None, p.stderr.strip()


def short(pdu):
    if not pdu:
        return "nothing"
    b = pdu.get("bytes", "")
    return f"{pdu.get('direction', '?')[:4]} {pdu.get('opcode_name', '?')} {b[:40]}{'…' if len(b) > 40 else ''}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blecap", default=os.path.join(HERE, "..", ".build", "debug", "blecap"))
    ap.add_argument("--tshark", action="store_true", help="also compare the --out file with tshark (HCI captures)")
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    paths = args.paths or [os.path.join(HERE, "..", "captures", "public"),
                           os.path.join(HERE, "..", "..", "shared", "captures", "public")]
    if args.tshark:
        sys.path.insert(0, HERE)
        import conformance
    total = diverged = explained = files = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in captures(paths):
            if connections(args.blecap, path) == 0:
                continue
            files += 1
            name = os.path.basename(path)
            for speed in ("realtime", "max"):
                out = os.path.join(tmp, f"{speed}.btsnoop")
                rc, doc, err = replay(args.blecap, path, speed, out)
                if doc is None:
                    rows.append((name, speed, "-", f"exit {rc}, no report: {err[:120]}"))
                    diverged += 1
                    continue
                for c in doc["connections"]:
                    total += 1
                    if c["identical"]:
                        continue
                    reason = c.get("unreproducible")
                    if reason:
                        explained += 1
                        rows.append((name, speed, c["connection"],
                                     f"unreproducible ({reason['kind']}): {reason['detail']}"))
                        continue
                    diverged += 1
                    d = c.get("divergence") or {}
                    cap = d.get("captured") or {}
                    rows.append((name, speed, c["connection"],
                                 f"{c['matching']}/{c['captured']} identical; frame {cap.get('frame', '-')}: "
                                 f"captured {short(cap)} | replayed {short(d.get('replayed'))}"))
                if args.tshark and rc in (0, 1) and os.path.exists(out) and not conformance.is_link_layer(name):
                    v_orig, v_rep = conformance.tshark_att_pdus(path), conformance.tshark_att_pdus(out)
                    info = json.loads(subprocess.run([args.blecap, "info", "--format", "json", path],
                                                     capture_output=True, text=True).stdout)
                    handles = {c["handle"] for c in info["connections"]}
                    _, t_orig = conformance.tshark_att(path, handles)
                    v_orig = {k: v for k, v in v_orig.items() if k in t_orig}
                    for pr in conformance.same_sequence("ATT PDU bytes", v_orig, v_rep):
                        rows.append((name, speed, "tshark", pr[:160]))
    for r in rows:
        print(" | ".join(str(x) for x in r))
    print(f"replay survey: {files} captures with connections, {total} connection replays (realtime and max), "
          f"{diverged} diverged, {explained} unreproducible with a reason")
    return 0 if diverged == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
