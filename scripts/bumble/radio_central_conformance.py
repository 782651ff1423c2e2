#!/usr/bin/env python3
"""`blecap replay --role central --controller` with no radio: two Bumble virtual controllers on
one link (scripts/bumble/radio_link.py). An unmodified Bumble peripheral on controller B
(scripts/bumble/peripheral_app.py) serves the captured peripheral's database (the values its
reads returned, the notifications it sent after each subscription) from the captured
peripheral's address; blecap hosts controller A over tcp-client, scans for that address,
connects and plays the captured central. The capture may be recorded on the peripheral (the
database is its host's own) or on the central (the database the central discovered, the
peripheral's address from its LE Connection Complete; the capture's directions are then the
other way round). Checked, for every capture:

  * blecap's report says identical (every captured answer "same", nothing over the radio,
    every captured connection played) and its exit status is 0;
  * the ATT exchange on B's HCI (Bumble's btsnoop snooper) against the one on blecap's HCI
    (--out), both read by tshark: every ATT PDU one host sent the other received, in order;
  * the ATT exchange on B against the capture's, connection by connection: what B received
    (the captured central's requests as blecap played them) and what B sent are the captured
    PDUs byte for byte, in captured order.

The Bumble app is not the captured peripheral: where it answers otherwise (it never ends a
link itself, answers an oversized write as Bumble does, notifies on its own asyncio timing
against the central's requests) blecap's report says so, which is the point of the report;
scripts/conformance.py runs the sessions the app reproduces (IDENTICAL below); run this script
on all of them to see the others' divergences.

    python3 scripts/bumble/radio_central_conformance.py --blecap .build/debug/blecap \\
        captures/bumble/*.btsnoop

scripts/conformance.py runs `check_radio_central` for every Bumble peripheral capture.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from radio_conformance import LINK, by_connection, run_checks, tshark_att  # noqa: E402
from serve_conformance import PERIPHERAL_APP, bumble_python, captured_central, jsonl  # noqa: E402


# The sessions the Bumble app reproduces byte for byte, where the report must say identical.
# Measured on the others (2026-11-28, --speed realtime): cached_reconnect, clean_heart_rate,
# hr_short_notification and scan_before_init lose their last notification or two (the captured
# central ends the link before the app's asyncio timer sends them); indications_and_errors pairs
# (the app does not) and answers its reads otherwise; long_notify_stream's notifications are cut
# to the app's MTU; oversized_and_unchecked_writes' oversized write is accepted by Bumble where
# the captured peripheral refused it; reconnect_storm's exchange is identical but the captured
# peripheral ended three of its links, the app none; two_peripherals_concurrent's notifications
# come in another order against the reads. blecap reports each of these as it should.
IDENTICAL = {"nil_scan_all_services.peripheral.btsnoop", "nil_scan_all_services.central.btsnoop"}


def database(blecap, path, expected, on_central=False):
    """The app's database: the captured one with, per characteristic, the values the captured
    peripheral notified or indicated on each connection, and the captured peripheral's
    address (recorded on the peripheral, the random address its controller was given, else
    its public one; recorded on the central, the LE Connection Complete's peer)."""
    notified = {}
    address = name = None
    last = {}  # (connection, value handle) -> elapsed of its subscription or last notification
    subscribed = {}  # connection -> elapsed of its last subscription
    # The peripheral's notifications: sent by the capture's host, or received by it.
    notifies = "received" if on_central else "sent"
    if on_central:
        address = expected[0].get("peer")
    for e in jsonl(blecap, "timeline", path, "--format", "jsonl"):
        if e.get("type") == "controller.init_complete" and address is None and not on_central:
            address = e.get("random_address") or e.get("public_address")
        elif e.get("type") == "gatt.read" and e.get("uuid") == "2A00" and e.get("value") and name is None:
            # GAP's Device Name, which Bumble's own GAP service answers from the device's name.
            name = bytes.fromhex(e["value"]).decode("utf-8", "replace")
        elif e.get("type") == "gatt.subscribe":
            subscribed[e.get("connection")] = e["elapsed"]
        elif e.get("type") in ("gatt.notification", "gatt.indication") and e.get("direction") == notifies:
            key = (e["connection"], e["handle"])
            since = last.get(key, subscribed.get(e["connection"], e["elapsed"]))
            last[key] = e["elapsed"]
            notified.setdefault(e["handle"], {}).setdefault(e["connection"], []).append(
                {"value": e.get("value", ""), "delay": max(0.0, e["elapsed"] - since)})
    numbers = [c["connection"] for c in expected]
    services = expected[0]["services"]
    for s in services:
        for ch in s["characteristics"]:
            per = notified.get(ch["value_handle"])
            if per:
                ch["notifications"] = [per.get(n, []) for n in numbers]
    return {"services": services}, address, name


def captured_security(blecap, path, db, on_central=False):
    """The captured peripheral's security, for the app: the six feature octets of its Pairing
    Response (hex; None when it never answered one), and, in `db`, the characteristics whose
    reads it refused for want of encryption (Insufficient Authentication or Encryption) with
    that error, so the app refuses them until the link is encrypted."""
    features = None
    refused = {}
    answered = "received" if on_central else "sent"
    for e in jsonl(blecap, "timeline", path, "--format", "jsonl"):
        if e.get("type") == "smp.pairing_response" and e.get("direction") == answered and features is None:
            auth = (1 if e.get("bonding") else 0) | (4 if e.get("mitm") else 0) | (
                8 if e.get("secure_connections_flag") else 0)
            features = bytes([e["io_capability"], e.get("oob", 0), auth, e["max_key_size"], e["initiator_keys"],
                              e["responder_keys"]]).hex()
        elif e.get("type") == "gatt.read" and e.get("error") in (0x05, 0x0F):
            refused.setdefault(e["handle"], e["error"])
    for s in db["services"]:
        for ch in s["characteristics"]:
            if ch["value_handle"] in refused:
                ch["read_error_unencrypted"] = refused[ch["value_handle"]]
    return features


def check_radio_central(blecap, path, tmp, speed="realtime"):
    """(problems, summary) for one peripheral capture played over linked Bumble controllers."""
    expected = captured_central(blecap, path)
    # Recorded on the central (a phone's own log): the same session from the other side.
    on_central = not expected
    if on_central:
        expected = captured_central(blecap, path, side="central")
    if not expected:
        return [], "no connection"
    db, address, name = database(blecap, path, expected, on_central)
    if address is None:
        return ["the capture does not show the peripheral's address"], "not run"
    python = bumble_python()
    base = os.path.join(tmp, os.path.basename(path))
    out_a, out_b, db_path = base + ".central-a.btsnoop", base + ".central-b.btsnoop", base + ".db.json"
    for f in (out_a, out_b):
        if os.path.exists(f):
            os.remove(f)
    pairing_response = captured_security(blecap, path, db, on_central)
    with open(db_path, "w") as f:
        json.dump(db, f)
    link = subprocess.Popen([python, LINK], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = link.stdout.readline().split()
        if len(ready) != 3 or ready[0] != "ready":
            return [f"radio_link.py did not start: {ready}"], "not run"
        port_a, port_b = ready[1], ready[2]
        env = dict(os.environ, BUMBLE_SNOOPER=f"btsnoop:file:{out_b}")
        app = subprocess.Popen(
            [python, PERIPHERAL_APP, "--transport", f"tcp-client:127.0.0.1:{port_b}", "--database", db_path,
             "--address", address, "--name", name or "peripheral-app", "--connections", str(len(expected)),
             "--duration", "120",
             "--connect-timeout", "60"]
            + (["--pairing-response", pairing_response] if pairing_response else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        time.sleep(1.0)
        replay = subprocess.run(
            [blecap, "replay", path, "--role", "central", "--controller", f"tcp-client:127.0.0.1:{port_a}",
             "--format", "json", "--speed", speed, "--timeout", "300", "--scan-timeout", "30", "--out", out_a],
            capture_output=True, text=True, timeout=400)
        try:
            app_out, app_err = app.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
            app_out, app_err = app.communicate()
    finally:
        link.kill()
        link.wait()
    problems = []
    if replay.returncode != 0:
        problems.append(f"blecap exited {replay.returncode}: {replay.stderr[-400:]}")
    try:
        report = json.loads(replay.stdout)
        ops = [o["verdict"] for conn in report["operations"] for o in conn]
        op_summary = ", ".join(f"{ops.count(v)} {v}" for v in ("same", "reordered", "different_value", "missing",
                                                                  "extra"))
        if any(v != "same" for v in ops):
            problems.append("report: " + "; ".join(
                f"{o['verdict']} {o['operation']}" for conn in report["operations"] for o in conn
                if o["verdict"] != "same")[:400])
        if report.get("radio"):
            problems.append(f"report, over the radio: {report['radio']}")
        if report.get("notServed"):
            problems.append(f"captured connections not played: {report['notServed']}")
    except ValueError:
        problems.append(f"replay report is not JSON: {replay.stdout[:200]} {replay.stderr[-300:]}")
        op_summary = "no report"
    if not (os.path.exists(out_a) and os.path.exists(out_b)):
        return problems + [f"--out {os.path.exists(out_a)}, B's snoop {os.path.exists(out_b)} "
                           f"(app: {app_err[-300:]})"], op_summary
    a, b = tshark_att(out_a), tshark_att(out_b)
    a_sent = [p for d, p, _ in a if d == "sent"]
    b_received = [p for d, p, _ in b if d == "received"]
    b_sent = [p for d, p, _ in b if d == "sent"]
    a_received = [p for d, p, _ in a if d == "received"]
    if a_sent != b_received:
        problems.append(f"blecap sent {len(a_sent)} ATT PDUs, B received {len(b_received)}")
    if b_sent != a_received:
        problems.append(f"B sent {len(b_sent)} ATT PDUs, blecap received {len(a_received)}")
    # B's exchange against the capture's, connection by connection, each direction in order.
    same = total = 0
    captured_conns = by_connection(tshark_att(path))
    seen_conns = by_connection(b)
    if len(seen_conns) != len(captured_conns):
        problems.append(f"{len(captured_conns)} captured connections, {len(seen_conns)} on B")
    # B is the peripheral: what it received is what the captured central sent, which a capture
    # recorded on the central shows as sent.
    mirror = {"received": "sent", "sent": "received"} if on_central else {"received": "received", "sent": "sent"}
    for k, (want, got) in enumerate(zip(captured_conns, seen_conns)):
        for direction in ("received", "sent"):
            w = [p for d, p in want if d == mirror[direction]]
            g = [p for d, p in got if d == direction]
            total += len(w)
            same += sum(1 for x, y in zip(w, g) if x == y)
            if w != g and len(problems) < 20:
                first = next((i for i, (x, y) in enumerate(zip(w, g)) if x != y), min(len(w), len(g)))
                problems.append(f"connection {k + 1}: B {direction} {len(g)} ATT PDUs, the capture {len(w)}; first "
                                f"difference at {first}: {g[first] if first < len(g) else None} != "
                                f"{w[first] if first < len(w) else None}")
    return problems, (f"{same}/{total} captured ATT PDUs identical on B ({len(b_received)} received, "
                      f"{len(b_sent)} sent = blecap's --out); report: {op_summary}")


def main():
    # At max speed the captured central does not wait for the captured notifications' times:
    # they come in another order against its requests than in the capture.
    return run_checks(check_radio_central, "radio central", "realtime", __doc__)

if __name__ == "__main__":
    sys.exit(main())
