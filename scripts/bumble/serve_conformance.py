#!/usr/bin/env python3
"""`blecap serve` against an unmodified Bumble host: for a Bumble central capture, serve it
on a loopback TCP port, run scripts/bumble/central_app.py (which knows nothing of blecap) for
every captured connection, and compare what the app observed with the capture: the GATT
database, the values of the reads the capture made, the notification and indication values
in captured order.

    python3 scripts/bumble/serve_conformance.py --blecap .build/debug/blecap captures/bumble/*.central.btsnoop

scripts/conformance.py runs `check_serve` for every Bumble central capture. Bumble comes from
a virtual environment under .build/bumble-venv (created on first use: pip install bumble==0.0.236),
or from the one BLECAP_BUMBLE_VENV names (used as it is, never installed into).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(REPO, ".build", "bumble-venv")
BUMBLE = "bumble==0.0.236"
APP = os.path.join(HERE, "central_app.py")


def bumble_python():
    """The venv's python with Bumble installed (created and installed when missing)."""
    given = os.environ.get("BLECAP_BUMBLE_VENV")
    if given:
        return os.path.join(given, "bin", "python")
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    probe = subprocess.run([python, "-c", "import bumble"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", BUMBLE], check=True)
    return python


def jsonl(blecap, *args):
    out = subprocess.run([blecap, *args], capture_output=True, text=True, timeout=120).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def value(e):
    """A timeline event's value: its hex, or (length, first 64 octets) where the timeline cut it."""
    if e.get("value_truncated"):
        return (e.get("length"), e.get("value", ""))
    return e.get("value", "")


def like(seen, captured_value):
    """Whether the app's hex value is the captured one (or has its length and first octets)."""
    if isinstance(captured_value, tuple):
        return isinstance(seen, str) and len(seen) // 2 == captured_value[0] and seen.startswith(captured_value[1])
    return seen == captured_value


def uuid(u):
    return u.replace("-", "").upper()


def captured(blecap, path, peripheral_side=False):
    """Per captured connection (the capture's host central): peer, MTU, database, reads,
    notifications, how long the notifications took. With `peripheral_side`, the connections
    whose host was the peripheral instead (a capture recorded on the peripheral), seen from
    their central: the host's own database, the requests it received, the notifications it
    sent, and as peer the address it advertised from (its `advertising.start` in force)."""
    gatt = json.loads(subprocess.run([blecap, "gatt", path, "--format", "json"], capture_output=True,
                                     text=True, timeout=120).stdout or "{}")
    side = "peripheral" if peripheral_side else "central"
    # The central's PDUs and the peripheral's, as the capture's host saw them.
    central, server = ("received", "sent") if peripheral_side else ("sent", "received")
    connections = {}
    for c in gatt.get("connections", []):
        if c.get("role") != side:
            continue
        db = c["local_database" if peripheral_side else "remote_database"]
        connections[c["connection"]] = {
            "side": side,
            "peer": None if peripheral_side else c.get("peer"), "mtu": None, "reads": {}, "notifications": [],
            "subscribed_at": None,
            "last_value_at": None, "end": None, "services": [
                (uuid(s["uuid"]), s["start_handle"], s["end_handle"]) for s in db["services"]],
            "characteristics": [(uuid(ch["uuid"]), ch["value_handle"], ch["properties"])
                                for ch in db["characteristics"]],
            "descriptors": sorted((uuid(d["uuid"]), d["handle"]) for ch in db["characteristics"]
                                  for d in ch["descriptors"]),
        }
    advertised = None
    public = None
    for e in jsonl(blecap, "timeline", path, "--format", "jsonl"):
        t = e.get("type")
        if t == "controller.init_complete" and e.get("public_address"):
            public = e["public_address"]
        if t == "advertising.start" and e.get("outcome") in (None, "success"):
            own = e.get("own_address_type")
            advertised = e.get("random_address") if own in (1, 3) and e.get("random_address") else public
        c = connections.get(e.get("connection"))
        if c is None:
            continue
        if t == "connection.complete" and peripheral_side:
            c["peer"] = advertised
        if t == "gatt.mtu" and e.get("direction") == central and c["mtu"] is None:
            c["mtu"] = e.get("client_rx_mtu")
        elif t == "gatt.read" and e.get("direction") == central:
            h = e.get("handle")
            if h is not None and h not in c["reads"]:
                c["reads"][h] = value(e) if e.get("outcome") == "success" else {"error": e.get("error")}
        elif t == "connection.disconnect":
            # From the central's view: the peripheral host's own end is the central's peer's.
            s = e.get("side")
            if peripheral_side:
                s = {"local": "remote", "remote": "local"}.get(s, s)
            c["end"] = (s, e.get("reason"))
        elif t == "gatt.subscribe" and c["subscribed_at"] is None:
            c["subscribed_at"] = e["elapsed"]
        elif t in ("gatt.notification", "gatt.indication") and e.get("direction") == server:
            c["notifications"].append((e["handle"], value(e)))
            c["last_value_at"] = e["elapsed"]
    return [connections[k] for k in sorted(connections)]


def compare(expected, seen):
    """Problems where the app's observations differ from the captured connection's."""
    problems = []
    side, reason = expected["end"] or (None, None)
    if side in ("remote", "link_loss"):
        # The captured peripheral ended the link (or it was lost): the app must see that,
        # with the captured reason; what it observed before is not the whole session.
        if seen.get("disconnected_by_peer") != reason:
            return [f"the peer ended the captured link ({reason:#04x}); the app saw {seen.get('disconnected_by_peer')}"]
        return []
    if "error" in seen and not seen.get("services"):
        return [f"app: {seen['error']}"]
    services = [(uuid(s["uuid"]), s["start_handle"], s["end_handle"]) for s in seen.get("services", [])]
    if services != expected["services"]:
        problems.append(f"services {services} != captured {expected['services']}")
    chars = [(uuid(c["uuid"]), c["value_handle"], c["properties"]) for s in seen.get("services", [])
             for c in s["characteristics"]]
    if chars != expected["characteristics"]:
        problems.append(f"characteristics {chars} != captured {expected['characteristics']}")
    descriptors = sorted((uuid(d["uuid"]), d["handle"]) for s in seen.get("services", []) for c in s["characteristics"]
                         for d in c["descriptors"])
    if descriptors != expected["descriptors"]:
        problems.append(f"descriptors {descriptors} != captured {expected['descriptors']}")
    reads = seen.get("reads", {})
    readable = {c[1] for c in expected["characteristics"] if c[2] & 0x02}
    for h, v in expected["reads"].items():
        if h in readable and not like(reads.get(str(h)), v):
            problems.append(f"read {h:#06x}: {reads.get(str(h))} != captured {v}")
    subscribed = {c[1] for c in expected["characteristics"] if c[2] & 0x30}
    want = [n for n in expected["notifications"] if n[0] in subscribed]
    got = [(n["handle"], n["value"]) for n in seen.get("notifications", [])]
    for h in sorted({n[0] for n in want} | {n[0] for n in got}):
        a = [v for hh, v in want if hh == h]
        b = [v for hh, v in got if hh == h]
        if len(a) != len(b) or not all(like(y, x) for x, y in zip(a, b)):
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if not like(y, x)), min(len(a), len(b)))
            problems.append(f"values of {h:#06x}: {len(b)} seen, {len(a)} captured, first difference at {first}")
    return problems


def check_security(sessions, security, out_path):
    """Problems with pairing and encryption as the app asked for them (--security per session):
    "pair" must pair (Bumble's pair(), answered with LE legacy Just Works), encrypt, and
    encrypt again with the distributed LTK (Encryption Key Refresh Complete on the encrypted
    link); "encrypt" (a later connection) must start encryption with that LTK. tshark must
    find the same in the --out file: the legacy pairing's SMP PDUs, LE Start Encryption,
    Encryption Change and Encryption Key Refresh Complete."""
    problems = []
    for i, s in enumerate(sessions):
        want = security[min(i, len(security) - 1)]
        if want == "pair":
            if s.get("paired") is not True or s.get("encrypted_after_pairing") is not True:
                problems.append(f"session {i + 1}: paired {s.get('paired')}, encrypted {s.get('encrypted_after_pairing')}")
            if s.get("encrypted_with_ltk") != "key refresh":
                problems.append(f"session {i + 1}: re-encryption with the LTK: {s.get('encrypted_with_ltk')}")
        elif want == "encrypt" and s.get("encrypted_with_ltk") != "encryption change":
            problems.append(f"session {i + 1}: encryption with the stored LTK: {s.get('encrypted_with_ltk')}")
    fields = subprocess.run(["tshark", "-r", out_path, "-T", "fields", "-e", "btsmp.opcode", "-e", "bthci_evt.code",
                             "-e", "bthci_cmd.opcode"], capture_output=True, text=True).stdout.split("\n")
    smp = [int(f.split("\t")[0], 0) for f in fields if f and f.split("\t")[0]]
    events = [int(f.split("\t")[1], 0) for f in fields if f.count("\t") >= 1 and f.split("\t")[1]]
    commands = [int(f.split("\t")[2], 0) for f in fields if f.count("\t") >= 2 and f.split("\t")[2]]
    pairs = security.count("pair")
    expected_smp = {1: pairs, 2: pairs, 3: 2 * pairs, 4: 2 * pairs, 6: pairs}  # Request … Encryption Information
    for code, n in expected_smp.items():
        if smp.count(code) < n:
            problems.append(f"--out: tshark finds {smp.count(code)} SMP PDUs of opcode {code:#04x}, expected {n}")
    if 0x0C in smp or 0x0D in smp:
        problems.append("--out: LE Secure Connections PDUs on a legacy pairing")
    if events.count(0x08) < len(security) or events.count(0x30) < pairs or commands.count(0x2019) < len(security) + pairs:
        problems.append(f"--out: {events.count(0x08)} Encryption Change, {events.count(0x30)} Key Refresh Complete, "
                        f"{commands.count(0x2019)} LE Enable Encryption")
    return problems, (f"SMP {len(smp)} PDUs, {commands.count(0x2019)} LE Enable Encryption, "
                      f"{events.count(0x08)} Encryption Change, {events.count(0x30)} Key Refresh Complete (tshark)")


def check_serve(blecap, path, tmp, speed="max", security=None):
    """(problems, summary) for one capture served to the Bumble app (with `security`, one
    --security value per session: pairing and encryption checked too)."""
    # Recorded on the central: its peripherals; else the peripheral that recorded it.
    expected = captured(blecap, path) or captured(blecap, path, peripheral_side=True)
    if not expected:
        return [], "no connection"
    python = bumble_python()
    out_path = os.path.join(tmp, os.path.basename(path) + ".served.btsnoop")
    serve = subprocess.Popen(
        [blecap, "serve", path, "--transport", "tcp-server:127.0.0.1:0", "--format", "json", "--speed", speed,
         "--linger", "1", "--timeout", "300", "--accept-timeout", "30", "--out", out_path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = None
    deadline = time.time() + 30
    while port is None and time.time() < deadline:
        line = serve.stderr.readline()
        m = re.search(r"tcp-client:127\.0\.0\.1:(\d+)", line)
        if m:
            port = m.group(1)
    if port is None:
        serve.kill()
        return [f"blecap serve did not listen: {serve.stderr.read()}"], "not run"
    args = [python, APP, "--transport", f"tcp-client:127.0.0.1:{port}"]
    for c in expected:
        duration = 3.0
        if c["subscribed_at"] is not None and c["last_value_at"] is not None:
            duration = c["last_value_at"] - c["subscribed_at"] + 3.0
        args += ["--address", c["peer"], "--mtu", str(c["mtu"] or 247), "--duration", f"{duration:.1f}",
                 "--count", str(len(c["notifications"]) or 0)]
    for value in security or []:
        args += ["--security", value]
    started = time.time()
    app = subprocess.run(args, capture_output=True, text=True, timeout=600)
    elapsed = time.time() - started
    try:
        report_text, errors = serve.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        serve.kill()
        report_text, errors = serve.communicate()
    problems = []
    try:
        sessions = json.loads(app.stdout.strip().splitlines()[-1])["sessions"]
    except (ValueError, IndexError, KeyError):
        return [f"app printed no observations: {app.stdout[-300:]} {app.stderr[-600:]}"], "not run"
    for i, (c, s) in enumerate(zip(expected, sessions)):
        problems += [f"connection {i + 1}: {p}" for p in compare(c, s)]
    try:
        report = json.loads(report_text)
        ops = [o["verdict"] for conn in report["operations"] for o in conn]
        op_summary = ", ".join(f"{ops.count(v)} {v}" for v in ("same", "reordered", "different_value", "missing", "extra"))
    except ValueError:
        problems.append(f"serve report is not JSON: {report_text[:200]} {errors[-300:]}")
        op_summary = "no report"
    # What crossed the virtual HCI decodes in tshark without malformed frames, except for
    # notification values that tshark finds malformed in the capture itself (they are the
    # captured peripheral's bytes, e.g. a Heart Rate Measurement too short for its flags).
    if os.path.exists(out_path):
        def malformed(p):
            return subprocess.run(["tshark", "-r", p, "-Y", "_ws.malformed"], capture_output=True,
                                  text=True).stdout.strip().splitlines()
        captured_bad = [ln for ln in malformed(path) if "Handle Value" in ln]
        for line in malformed(out_path):
            if "Handle Value" not in line or not captured_bad:
                problems.append(f"--out: tshark finds a malformed frame: {line.strip()}")
        # ... and lints without error-level findings.
        lint = subprocess.run([blecap, "lint", out_path, "--fail-on", "error"], capture_output=True, text=True)
        if lint.returncode != 0:
            problems.append(f"--out: blecap lint exits {lint.returncode}: {lint.stdout.strip()[-300:]}")
    else:
        problems.append("--out was not written")
    values = sum(len(s.get("notifications", [])) for s in sessions)
    secured = ""
    if security and os.path.exists(out_path):
        more, secured = check_security(sessions, security, out_path)
        problems += more
        secured = "; " + secured
    return problems, (f"{len(sessions)} session(s), {values} notification values, app {elapsed:.1f} s at {speed}; "
                      f"the host's ATT PDUs against the captured host's: {op_summary}{secured}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blecap", default=os.path.join(REPO, ".build", "debug", "blecap"))
    ap.add_argument("--speed", default="max")
    ap.add_argument("captures", nargs="+")
    args = ap.parse_args()
    import tempfile
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.captures:
            check = check_serve_central if ".peripheral" in os.path.basename(path) else check_serve
            problems, summary = check(args.blecap, path, tmp, args.speed)
            print(f"{'ok  ' if not problems else 'FAIL'} serve {os.path.basename(path)}: {summary}")
            for p in problems[:20]:
                print(f"       {p}")
            failed += bool(problems)
    print(f"serve: {len(args.captures) - failed} matched, {failed} failed")
    return 1 if failed else 0



PERIPHERAL_APP = os.path.join(HERE, "peripheral_app.py")


def captured_central(blecap, path, side="peripheral"):
    """Per captured connection whose host was `side`: the peripheral's database (without the
    GAP and GATT services Bumble adds itself) with the values it read out, and the captured
    central's successful operations in order. Recorded on the peripheral (`side` peripheral),
    the database is the host's own and the central's requests are what the host received;
    recorded on the central, the database is the peer's and the requests what the host sent."""
    gatt = json.loads(subprocess.run([blecap, "gatt", path, "--format", "json"], capture_output=True,
                                     text=True, timeout=120).stdout or "{}")
    connections = {}
    for c in gatt.get("connections", []):
        if c.get("role") != side:
            continue
        db = c["local_database" if side == "peripheral" else "remote_database"]
        cccd_value = {d["handle"]: ch["value_handle"] for ch in db["characteristics"] for d in ch["descriptors"]
                      if uuid(d["uuid"]) == "2902"}
        connections[c["connection"]] = {"db": db, "cccd": cccd_value, "operations": [], "values": {},
                                         "peer": c.get("peer")}
    requests = "received" if side == "peripheral" else "sent"
    prepared = {}
    for e in jsonl(blecap, "timeline", path, "--format", "jsonl"):
        c = connections.get(e.get("connection"))
        if c is None or e.get("direction") != requests or e.get("outcome") not in ("success", None):
            continue
        t, variant = e.get("type"), e.get("variant")
        # Bumble's own GAP and GATT services answer by themselves: the app never sees those.
        bumble_own = any(uuid(sv["uuid"]) in ("1800", "1801") and sv["start_handle"] <= (e.get("handle") or 0)
                         <= sv["end_handle"] for sv in c["db"]["services"])
        if t == "gatt.read" and variant == "read" and e.get("outcome") == "success" and not bumble_own:
            c["operations"].append(("read", e["handle"]))
            c["values"].setdefault(e["handle"], e.get("value", ""))
        elif t == "gatt.write" and variant == "prepare":
            prepared.setdefault((e["connection"], e["handle"]), []).append(e.get("value", ""))
        elif t == "gatt.write" and variant == "execute":
            # A long write reaches the server as one write of the whole value.
            for (conn, h), parts in list(prepared.items()):
                if conn == e["connection"]:
                    c["operations"].append(("write", h, "".join(parts)))
                    del prepared[(conn, h)]
        elif t == "gatt.write" and e.get("handle") not in c["cccd"] and not bumble_own and e.get("handle"):
            # A CCCD the captured central wrote without discovering it: the app sees a subscription.
            notifying = {ch["value_handle"] for ch in c["db"]["characteristics"] if ch["properties"] & 0x30}
            values = {ch["value_handle"] for ch in c["db"]["characteristics"]}
            if e["handle"] - 1 in notifying and e.get("value") in ("0100", "0200", "0300"):
                c["operations"].append(("subscribe", e["handle"] - 1))
            elif e["handle"] in values:
                c["operations"].append(("write", e["handle"], e.get("value", "")))
            # else: a declaration or descriptor: the server answers it itself (the app never sees it)
        elif t == "gatt.subscribe" and e.get("outcome") == "success" and not bumble_own:
            c["operations"].append(("subscribe", c["cccd"].get(e["handle"], e["handle"])))
    out = []
    for k in sorted(connections):
        c = connections[k]
        services = []
        for s in c["db"]["services"]:
            if uuid(s["uuid"]) in ("1800", "1801"):
                continue
            chars = [ch for ch in c["db"]["characteristics"] if ch["service_start_handle"] == s["start_handle"]]
            services.append({"uuid": s["uuid"], "primary": s["primary"], "characteristics": [
                {"uuid": ch["uuid"], "properties": ch["properties"], "value_handle": ch["value_handle"],
                 "value": c["values"].get(ch["value_handle"], "") if isinstance(c["values"].get(ch["value_handle"], ""), str) else "",
                 "descriptors": [{"uuid": d["uuid"]} for d in ch["descriptors"] if uuid(d["uuid"]) != "2902"]}
                for ch in chars]})
        out.append({"connection": k, "services": services, "operations": c["operations"], "peer": c["peer"]})
    return out


def check_serve_advertising(blecap, path, tmp):
    """(problems, summary): the capture's advertisers as an unmodified Bumble scanner sees
    them on blecap serve's air, against the event types tshark reads from the capture's own LE
    Advertising Reports (connectable, scannable, legacy; a scan response exactly from the
    scannable ones), then a connection attempt to each non-connectable advertiser (it must
    never come up, and the report must say why) and to the captured peripheral (it must)."""
    rows = subprocess.run(["tshark", "-r", path, "-Y", "bthci_evt.le_meta_subevent == 0x02", "-T", "fields", "-e",
                           "bthci_evt.bd_addr", "-e", "bthci_evt.le_advts_event_type"],
                          capture_output=True, text=True).stdout.splitlines()
    last = {}
    for r in rows:
        addresses, types = (r.split("\t") + [""])[:2]
        for a, t in zip(addresses.split(","), types.split(",")):
            if a and t and int(t, 0) != 4:
                last[a.upper()] = int(t, 0)
    expected = {a: [True, t in (0, 1), t in (0, 2), t == 1] for a, t in last.items() if t != 1}
    if not expected:
        return [], "no legacy advertising reports"
    peers = [c["peer"] for c in captured(blecap, path)]
    silent = sorted(a for a, k in expected.items() if not k[1])
    python = bumble_python()
    serve = subprocess.Popen([blecap, "serve", path, "--transport", "tcp-server:127.0.0.1:0", "--format", "json",
                              "--speed", "max", "--linger", "1", "--timeout", "120", "--accept-timeout", "30"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = None
    deadline = time.time() + 30
    while port is None and time.time() < deadline:
        m = re.search(r"tcp-client:127\.0\.0\.1:(\d+)", serve.stderr.readline())
        port = m.group(1) if m else None
    if port is None:
        serve.kill()
        return ["blecap serve did not listen"], "not run"
    types = {e["peer"]: e.get("peer_address_type", 0) for e in jsonl(blecap, "timeline", path, "--format", "jsonl")
             if e["type"] == "advertisement"}
    tries = [f"{a}/random" if types.get(a, 0) & 1 else a for a in silent[:1] + peers[:1]]
    args = [python, APP, "--transport", f"tcp-client:127.0.0.1:{port}", "--scan-only", "4", "--connect-timeout", "3"]
    for t in tries:
        args += ["--try-connect", t]
    app = subprocess.run(args, capture_output=True, text=True, timeout=120)
    try:
        report = json.loads(serve.communicate(timeout=60)[0])
    except (ValueError, subprocess.TimeoutExpired):
        serve.kill()
        report = {}
    try:
        seen = json.loads(app.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return [f"app printed nothing: {app.stderr[-400:]}"], "not run"
    problems = []
    for a, kind in sorted(expected.items()):
        got = seen["advertisers"].get(a)
        if got is None:
            problems.append(f"{a}: not seen")
        elif got["kinds"] != [kind] or got["scan_response"] != kind[2]:
            problems.append(f"{a}: Bumble saw {got}, the capture's type gives {kind} (scan response {kind[2]})")
    for t in tries:
        a = t.split("/")[0]
        outcome = seen["connections"].get(a)
        if a in silent:
            if outcome == "connected":
                problems.append(f"{a} (not connectable) was connected")
            if not any(u.startswith(a) for u in report.get("unansweredConnections", [])):
                problems.append(f"{a}: the report does not list the unanswered attempt")
        elif outcome != "connected":
            problems.append(f"{a} (the captured peripheral): {outcome}")
    return problems, (f"{len(expected)} advertisers as tshark reads the capture ({len(silent)} not connectable), "
                      f"{len(seen['advertisers'])} seen by Bumble; attempts: {seen['connections']}")


def check_serve_central(blecap, path, tmp, speed="max"):
    """(problems, summary): `blecap serve --role central` plays the captured central against
    scripts/bumble/peripheral_app.py serving the captured database; the app must receive the
    captured central's reads, writes and subscriptions in captured order."""
    expected = captured_central(blecap, path)
    if not expected:
        return [], "no peripheral connection"
    python = bumble_python()
    c = expected[0]
    db_path = os.path.join(tmp, os.path.basename(path) + ".db.json")
    with open(db_path, "w") as f:
        json.dump({"services": c["services"]}, f)
    out_path = os.path.join(tmp, os.path.basename(path) + ".central.served.btsnoop")
    serve = subprocess.Popen(
        [blecap, "serve", path, "--role", "central", "--transport", "tcp-server:127.0.0.1:0", "--format", "json",
         "--speed", speed, "--linger", "1", "--timeout", "120", "--accept-timeout", "30", "--out", out_path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = None
    deadline = time.time() + 30
    while port is None and time.time() < deadline:
        m = re.search(r"tcp-client:127\.0\.0\.1:(\d+)", serve.stderr.readline())
        if m:
            port = m.group(1)
    if port is None:
        serve.kill()
        return ["blecap serve --role central did not listen"], "not run"
    app = subprocess.run([python, PERIPHERAL_APP, "--transport", f"tcp-client:127.0.0.1:{port}",
                          "--database", db_path, "--duration", "60"], capture_output=True, text=True, timeout=120)
    try:
        serve.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        serve.kill()
    try:
        seen = json.loads(app.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return [f"app printed nothing: {app.stderr[-400:]}"], "not run"
    if "error" in seen:
        return [f"app: {seen['error']}"], "not run"
    ops = []
    for o in seen["operations"]:
        if o["op"] == "read":
            ops.append(("read", o["handle"]))
        elif o["op"] == "write":
            ops.append(("write", o["handle"], o["value"]))
        elif o["op"] == "subscribe" and (o["notify"] or o["indicate"]):
            ops.append(("subscribe", o["handle"]))
    want = [tuple(o) for o in c["operations"]]
    # The captured central's operations, in order, within what the app received (a read the
    # captured peripheral refused, e.g. before pairing, reaches this app's read handler).
    it = iter(ops)
    missing = [o for o in want if not any(o == x for x in it)]
    problems = [f"operation {o} not received in captured order" for o in missing[:5]]
    paired = ""
    if any(e["type"] == "smp.pairing_request" for e in jsonl(blecap, "timeline", path, "--format", "jsonl")):
        # The captured central paired: played as LE legacy Just Works, the Bumble peripheral
        # answering it; tshark must find the pairing, the LTK request, its reply and the
        # Encryption Change in what crossed the virtual HCI.
        more, paired = check_central_pairing(out_path)
        problems += more
        paired = "; " + paired
    return problems, (f"{len(want)} captured operations, {len(ops)} received by the app "
                      f"({len(ops) - len(want) + len(missing)} extra), central {seen['central']}, "
                      f"disconnection {seen['disconnection']}{paired}")


def check_central_pairing(out_path):
    """Problems with the captured central's pairing in the --out file, read by tshark."""
    if not os.path.exists(out_path):
        return ["--out was not written"], "no --out"
    rows = subprocess.run(["tshark", "-r", out_path, "-T", "fields", "-e", "btsmp.opcode", "-e",
                           "bthci_evt.le_meta_subevent", "-e", "bthci_cmd.opcode", "-e", "bthci_evt.code", "-e",
                           "bthci_evt.status"], capture_output=True, text=True).stdout.splitlines()
    cols = [r.split("\t") + [""] * 5 for r in rows]
    smp = [int(c[0], 0) for c in cols if c[0]]
    ltk_requests = sum(1 for c in cols if c[1] and int(c[1], 0) == 0x05)
    ltk_replies = sum(1 for c in cols if c[2] and int(c[2], 0) == 0x201A)
    changes = sum(1 for c in cols if c[3] and int(c[3], 0) == 0x08 and c[4] and int(c[4].split(",")[0], 0) == 0)
    problems = []
    for code, n in {1: 1, 2: 1, 3: 2, 4: 2}.items():
        if smp.count(code) < n:
            problems.append(f"--out: {smp.count(code)} SMP PDUs of opcode {code:#04x}, expected {n}")
    if 0x0C in smp or 0x0D in smp:
        problems.append("--out: LE Secure Connections PDUs on a legacy pairing")
    if not (ltk_requests and ltk_replies and changes):
        problems.append(f"--out: {ltk_requests} LTK Request, {ltk_replies} LTK Request Reply, {changes} Encryption Change")
    return problems, (f"paired: {len(smp)} SMP PDUs, {ltk_requests} LTK Request, {ltk_replies} reply, "
                      f"{changes} Encryption Change (tshark)")


if __name__ == "__main__":
    sys.exit(main())
