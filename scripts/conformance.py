#!/usr/bin/env python3
"""Conformance suite: blecap against tshark (the decode oracle) over ../shared/captures.

For every capture under ../shared/captures/{bumble,public,formats}:
  * HCI captures: blecap's ATT opcode must equal tshark's on every frame, and so must the
    attribute handle for the PDUs that carry exactly one (Error Response, Read/Read Blob/Write
    requests, Prepare Write request and response, Write/Signed Write Command, Notification,
    Indication). Responses are not compared: tshark infers their handle from its own request
    matching, which pairs across connections (see two_peripherals_concurrent in the bumble
    README).
  * Over-the-air (link-layer) captures must be refused with the "not supported yet" error, the
    Frontline .cfa with "unknown capture format", both with exit code 2.
  * Damaged copies (truncated, garbage appended) must decode their valid prefix, name the byte
    offset of the damage and exit 3.
  * Lint (one check over all of bumble/ + public/): the SARIF report validates against
    ../shared/schemas/sarif-schema-2.1.0.json and loads in sarif-tools, the JUnit report loads in
    junitparser (scripts/validate_sarif.py); exit codes 1 (findings), 0 (clean capture or
    --fail-on never), 2 (missing input).
  * Replay: `blecap replay --out` of every HCI capture exits 0 (the replayed ATT exchange equals
    the captured one) and tshark reads the replayed file as the same exchange: the same ATT
    opcodes and handles, in the same order.
  * Simulator export: one simulated session (BLESimulatorBench --export, built next to blecap)
    decodes in tshark with the same ATT opcodes and handles as in blecap, and blecap's timeline of
    it has the session's 100 notifications.
  * Report script: `node --check` of Sources/BLEReport/Resources/report.js and of the script a
    built page carries, which must equal the file (skipped with a note when node is absent).
  * Report (browser): `blecap report` of every HCI capture opens in headless Chromium (Debian
    package `chromium`) with its script finished (`data-ready="1"`), no script error and no
    console message; for long_notify_stream.central and oversized_and_unchecked_writes.central
    the DOM must also show lint's findings count, info's connection count and every chart, and
    a screenshot is taken (--screenshots DIR keeps them, e.g. docs/).
Prints one line per file and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HANDLE_OPCODES = {0x01, 0x0A, 0x0C, 0x12, 0x16, 0x17, 0x52, 0xD2, 0x1B, 0x1D}
LINK_LAYER_PREFIXES = ("pcap-lell256", "pcapng-lell256", "pcap-nordic272", "pcap-ppi192")
EXIT_DAMAGED = 3
EXIT_UNREADABLE = 2


def tshark_att(path):
    out = subprocess.run(
        ["tshark", "-r", path, "-T", "fields", "-E", "separator=|",
         "-e", "frame.number", "-e", "btatt.opcode", "-e", "btatt.handle"],
        capture_output=True, text=True, check=True).stdout
    frames = {}
    total = 0
    for line in out.splitlines():
        num, op, handle = (line.split("|") + ["", ""])[:3]
        total += 1
        if op:
            ops = [int(x, 16) for x in op.split(",")]
            handles = [int(x, 16) for x in handle.split(",")] if handle else []
            frames[int(num)] = (ops[-1], handles)
    return total, frames


def blecap_att(blecap, path):
    p = subprocess.run([blecap, "packets", "--format", "jsonl", path], capture_output=True, text=True)
    frames = {}
    total = 0
    for line in p.stdout.splitlines():
        obj = json.loads(line)
        total += 1
        att = obj.get("att")
        if att is not None:
            frames[obj["frame"]] = (att["opcode"], att.get("handle"))
    return p.returncode, total, frames, p.stderr


def check_hci(blecap, path):
    t_total, t = tshark_att(path)
    rc, b_total, b, err = blecap_att(blecap, path)
    problems = []
    if rc != 0:
        problems.append(f"blecap exited {rc}: {err.strip()[:200]}")
    if b_total != t_total:
        problems.append(f"frame count blecap {b_total} vs tshark {t_total}")
    handles_compared = 0
    for frame in sorted(set(t) | set(b)):
        if frame not in b:
            problems.append(f"frame {frame}: tshark ATT opcode 0x{t[frame][0]:02x}, blecap none")
            continue
        if frame not in t:
            problems.append(f"frame {frame}: blecap ATT opcode 0x{b[frame][0]:02x}, tshark none")
            continue
        (top, thandles), (bop, bhandle) = t[frame], b[frame]
        if top != bop:
            problems.append(f"frame {frame}: opcode tshark 0x{top:02x} blecap 0x{bop:02x}")
            continue
        if top in HANDLE_OPCODES and len(thandles) == 1:
            handles_compared += 1
            if thandles[0] != bhandle:
                problems.append(f"frame {frame}: handle tshark 0x{thandles[0]:04x} blecap {bhandle}")
    return problems, f"{t_total} frames, {len(t)} ATT opcodes, {handles_compared} handles"


def check_replay(blecap, path, tmp):
    """`blecap replay --out` reproduces the captured ATT exchange (exit 0) and tshark reads the
    replayed file as the same exchange: the same ATT opcodes and handles in the same order."""
    out = os.path.join(tmp, "replayed.btsnoop")
    p = subprocess.run([blecap, "replay", "--format", "json", "--out", out, path], capture_output=True, text=True)
    problems = []
    if p.returncode != 0:
        return [f"blecap replay exit {p.returncode}: {p.stderr.strip()[:200]} {p.stdout[-300:]}"], "replay failed"
    doc = json.loads(p.stdout)
    conns = doc["connections"]
    captured = sum(c["captured"] for c in conns)
    _, t_orig = tshark_att(path)
    _, t_rep = tshark_att(out)
    a = [t_orig[k] for k in sorted(t_orig)]
    b = [t_rep[k] for k in sorted(t_rep)]
    if len(a) != len(b):
        problems.append(f"tshark ATT frames: capture {len(a)}, replayed file {len(b)}")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            problems.append(f"ATT PDU {i + 1}: tshark on capture {x}, on replayed file {y}")
            break
    summary = f"{len(conns)} connections, {captured} ATT PDUs identical; tshark {len(b)} ATT frames in the replayed file"
    return problems, summary


def check_simulator_export(blecap, tmp):
    """A simulated session (BLESimulatorBench --export: scan, connect, discover, subscribe, 100
    notifications, disconnect) exported as btsnoop: tshark decodes every ATT PDU as blecap does,
    and blecap's timeline of the file has the session's 100 notifications."""
    bench = os.path.join(os.path.dirname(blecap), "BLESimulatorBench")
    if not os.path.exists(bench):
        return [f"{bench} not built"], "not run"
    out = os.path.join(tmp, "simulated.btsnoop")
    p = subprocess.run([bench, "--export", out], capture_output=True, text=True)
    if p.returncode != 0:
        return [f"BLESimulatorBench --export exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()[:200]}"], "failed"
    problems, summary = check_hci(blecap, out)
    _, t = tshark_att(out)
    if not t:
        problems.append("tshark found no ATT PDU")
    tl = subprocess.run([blecap, "timeline", "--format", "jsonl", out], capture_output=True, text=True)
    notifications = sum(1 for line in tl.stdout.splitlines() if json.loads(line).get("type") == "gatt.notification")
    if notifications != 100:
        problems.append(f"timeline has {notifications} notifications, the session sent 100")
    return problems, f"{summary}; {notifications} notifications in the timeline"


def check_refused(blecap, path, expected_text):
    p = subprocess.run([blecap, "packets", path], capture_output=True, text=True)
    problems = []
    if p.returncode != EXIT_UNREADABLE:
        problems.append(f"exit {p.returncode}, expected {EXIT_UNREADABLE}")
    if expected_text not in p.stderr:
        problems.append(f"stderr lacks '{expected_text}': {p.stderr.strip()[:200]}")
    return problems, f"refused: {p.stderr.strip()[:90]}"


def check_damaged(blecap, path, tmp):
    """Truncate mid-record and append garbage: valid prefix decoded, offset named, exit 3."""
    data = open(path, "rb").read()
    problems = []
    cases = {"truncated": data[: len(data) - 3], "garbage": data + b"\xff" * 7}
    for name, blob in cases.items():
        damaged = os.path.join(tmp, f"{name}-{os.path.basename(path)}")
        with open(damaged, "wb") as f:
            f.write(blob)
        p = subprocess.run([blecap, "packets", "--format", "jsonl", damaged], capture_output=True, text=True)
        if p.returncode != EXIT_DAMAGED:
            problems.append(f"{name}: exit {p.returncode}, expected {EXIT_DAMAGED}")
        if "offset" not in p.stderr:
            problems.append(f"{name}: stderr does not name the offset: {p.stderr.strip()[:200]}")
        if not p.stdout.strip():
            problems.append(f"{name}: no valid prefix decoded")
    return problems, "truncated + garbage: exit 3, offset named"


def check_lint(blecap, root, tmp, shared):
    problems = []
    sarif, junit = os.path.join(tmp, "lint.sarif"), os.path.join(tmp, "lint.xml")
    dirs = [os.path.join(root, "bumble"), os.path.join(root, "public")]
    for fmt, out in (("sarif", sarif), ("junit", junit)):
        p = subprocess.run([blecap, "lint", "--format", fmt, "--output", out] + dirs, capture_output=True, text=True)
        if p.returncode != 1:
            problems.append(f"lint --format {fmt}: exit {p.returncode}, expected 1 (findings): {p.stderr.strip()[-200:]}")
    clean = os.path.join(root, "bumble", "clean_heart_rate.central.btsnoop")
    oversized = os.path.join(root, "bumble", "oversized_and_unchecked_writes.central.btsnoop")
    for args, expected in (([clean], 0), ([oversized], 1), (["--fail-on", "never", oversized], 0),
                           ([os.path.join(tmp, "missing.btsnoop")], EXIT_UNREADABLE)):
        p = subprocess.run([blecap, "lint"] + args, capture_output=True, text=True)
        if p.returncode != expected:
            problems.append(f"lint {' '.join(args)}: exit {p.returncode}, expected {expected}")
    validator = os.path.join(os.path.dirname(__file__), "validate_sarif.py")
    schema = os.path.join(shared, "schemas", "sarif-schema-2.1.0.json")
    p = subprocess.run([sys.executable, validator, sarif, "--schema", schema, "--junit", junit],
                       capture_output=True, text=True)
    if p.returncode != 0:
        problems += [l for l in (p.stdout + p.stderr).splitlines() if l.strip()][:20]
    summary = "; ".join(l[5:] for l in p.stdout.splitlines() if l.startswith("ok"))
    return problems, summary or "lint reports"


CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
REPORT_CHARTS = ("overview", "timeline", "throughput", "latency", "rssi", "parameters")
REPORT_DETAILED = ("long_notify_stream.central.btsnoop", "oversized_and_unchecked_writes.central.btsnoop")


def check_report(blecap, path, tmp, screenshots):
    """blecap report PATH, opened in headless Chromium: script done, no errors, right counts."""
    name = os.path.basename(path)
    page = os.path.join(tmp, name + ".html")
    p = subprocess.run([blecap, "report", "-o", page, path], capture_output=True, text=True)
    problems = []
    if p.returncode not in (0, EXIT_DAMAGED) or not os.path.exists(page):
        return [f"report exited {p.returncode}: {p.stderr.strip()[:200]}"], "no page"
    size = os.path.getsize(page)
    url = "file://" + os.path.abspath(page)
    d = subprocess.run(CHROMIUM + ["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", url],
                       capture_output=True, text=True, timeout=120)
    dom = d.stdout
    body = re.search(r"<body[^>]*>", dom)
    body = body.group(0) if body else ""
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body))
    if attrs.get("data-ready") != "1":
        problems.append(f"page script did not finish: {body[:200]}")
    if "data-error" in attrs:
        problems.append(f"page script error: {attrs['data-error'][:200]}")
    console = [l for l in d.stderr.splitlines() if ":CONSOLE" in l]
    problems += [f"console: {l.strip()[:200]}" for l in console[:5]]
    summary = f"{size // 1024} KiB page, {attrs.get('data-charts', '?')} charts"
    if name in REPORT_DETAILED:
        lint = json.loads(subprocess.run([blecap, "lint", "--format", "json", path], capture_output=True, text=True).stdout)
        want_findings = sum(len(c["findings"]) for c in lint["captures"])
        info = json.loads(subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True).stdout)
        want_connections = info["connection_count"]
        findings = len(re.findall(r'<li class="finding ', dom))
        connections = len(re.findall(r'<details class="conn" id="[^"]*" data-connection=', dom))
        if attrs.get("data-findings") != str(want_findings) or findings != want_findings:
            problems.append(f"findings in DOM {findings} (data-findings {attrs.get('data-findings')}), lint {want_findings}")
        if attrs.get("data-connections") != str(want_connections) or connections != want_connections:
            problems.append(f"connections in DOM {connections} (data-connections {attrs.get('data-connections')}), info {want_connections}")
        for chart in REPORT_CHARTS + ("sequence",):
            if f'data-chart="{chart}"' not in dom:
                problems.append(f"chart {chart} missing")
        shot = os.path.join(screenshots or tmp, "report-" + name.replace(".central.btsnoop", "") + ".png")
        subprocess.run(CHROMIUM + [f"--screenshot={shot}", "--window-size=1400,1000", url],
                       capture_output=True, text=True, timeout=120)
        if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
            problems.append(f"no screenshot at {shot}")
        summary += f", {findings} findings = lint, {connections} connections = info, screenshot"
    return problems, summary


REPORT_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "BLEReport", "Resources", "report.js")


def check_report_script(blecap, sample, tmp):
    """`node --check` of the report's script: the source file and the copy a built page carries."""
    node = shutil.which("node")
    if node is None:
        return [], "skipped: node not installed"
    problems = []
    p = subprocess.run([node, "--check", REPORT_JS], capture_output=True, text=True)
    if p.returncode != 0:
        problems.append(f"node --check {os.path.relpath(REPORT_JS)}: {p.stderr.strip()[-400:]}")
    page = os.path.join(tmp, "script-check.html")
    r = subprocess.run([blecap, "report", "-o", page, sample], capture_output=True, text=True)
    scripts = re.findall(r"<script>\n(.*?)</script>", open(page, encoding="utf-8").read(), re.S) if os.path.exists(page) else []
    if r.returncode not in (0, EXIT_DAMAGED) or len(scripts) != 1:
        problems.append(f"report {sample}: exit {r.returncode}, {len(scripts)} inline scripts (expected 1)")
    else:
        embedded = os.path.join(tmp, "embedded-report.js")
        with open(embedded, "w", encoding="utf-8") as f:
            f.write(scripts[0])
        p = subprocess.run([node, "--check", embedded], capture_output=True, text=True)
        if p.returncode != 0:
            problems.append(f"node --check of the page's script: {p.stderr.strip()[-400:]}")
        with open(REPORT_JS, encoding="utf-8") as f:
            if f.read().rstrip("\n") != scripts[0]:
                problems.append("the page's script differs from Sources/BLEReport/Resources/report.js")
    return problems, f"node {subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()}: report.js and the page's copy parse"


def hci_captures(root):
    """(folder, name, path) of every HCI capture (not link-layer, not unknown) under root."""
    for folder in ("bumble", "formats", "public"):
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith(".md") or name.startswith(LINK_LAYER_PREFIXES) or name.startswith("unknown-"):
                continue
            yield folder, name, os.path.join(d, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=".build/release/blecap")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--screenshots", help="keep the report screenshots in this folder (e.g. docs)")
    args = ap.parse_args()
    root = os.path.join(args.shared, "captures")
    if not os.path.isdir(root):
        print(f"conformance: no captures at {root}", file=sys.stderr)
        return 1
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for folder in ("bumble", "formats", "public"):
            d = os.path.join(root, folder)
            for name in sorted(os.listdir(d)):
                if name.endswith(".md"):
                    continue
                path = os.path.join(d, name)
                if name.startswith(LINK_LAYER_PREFIXES):
                    problems, summary = check_refused(args.blecap, path, "link-layer capture")
                elif name.startswith("unknown-"):
                    problems, summary = check_refused(args.blecap, path, "unknown capture format")
                else:
                    problems, summary = check_hci(args.blecap, path)
                    if folder == "formats":
                        p2, s2 = check_damaged(args.blecap, path, tmp)
                        problems += p2
                        summary += "; " + s2
                status = "ok  " if not problems else "FAIL"
                print(f"{status} {folder}/{name}: {summary}")
                for pr in problems[:20]:
                    print(f"       {pr}")
                if len(problems) > 20:
                    print(f"       … {len(problems) - 20} more")
                if problems:
                    failed += 1
                else:
                    passed += 1
        counts = [0, 0]  # passed, failed

        def record(label, problems, summary):
            counts[0 if not problems else 1] += 1
            print(f"{'ok  ' if not problems else 'FAIL'} {label}: {summary}")
            for pr in problems[:20]:
                print(f"       {pr}")
        for folder, name, path in hci_captures(root):
            record(f"replay {folder}/{name}", *check_replay(args.blecap, path, tmp))
        record("simulator export", *check_simulator_export(args.blecap, tmp))
        record("lint", *check_lint(args.blecap, root, tmp, args.shared))
        sample = os.path.join(root, "bumble", "clean_heart_rate.central.btsnoop")
        problems, summary = check_report_script(args.blecap, sample, tmp)
        if summary.startswith("skipped"):
            print(f"note report script: {summary}")
        else:
            record("report script", problems, summary)
        for folder, name, path in hci_captures(root):
            if shutil.which("chromium") is None:
                record(f"report {folder}/{name}", ["chromium not installed (apt-get install chromium)"], "not run")
            else:
                record(f"report {folder}/{name}", *check_report(args.blecap, path, tmp, args.screenshots))
        passed += counts[0]
        failed += counts[1]
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
