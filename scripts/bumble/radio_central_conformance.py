#!/usr/bin/env python3
"""`blecap replay --role central --controller` with no radio: two Bumble virtual controllers on
one link (scripts/bumble/radio_link.py). An unmodified Bumble peripheral on controller B
(scripts/bumble/peripheral_app.py) serves the captured peripheral's database (the values its
reads returned, the notifications it sent after each subscription) from the captured
peripheral's address; blecap hosts controller A over tcp-client, scans for that address,
connects and plays the captured central. The capture may be recorded on the peripheral (the
database is its host's own) or on the central (the database the central discovered, the
peripheral's address from its LE Connection Complete; the capture's directions are then the
other way round). A capture recorded on a central that talked to several peripherals gets one app
per captured peripheral (its own database, address and connections), each on its own controller
on the same link (radio_link.py --controllers). Checked, for every capture:

  * blecap's report says identical (every captured answer "same", nothing over the radio,
    every captured connection played) and its exit status is 0;
  * the ATT exchange on B's HCI (Bumble's btsnoop snooper) against the one on blecap's HCI
    (--out), both read by tshark: every ATT PDU one host sent the other received, in order;
  * the ATT exchange on B against the capture's, connection by connection (with several
    peripherals, each app's against its own captured connections): what B received
    (the captured central's requests as blecap played them) and what B sent are the captured
    PDUs byte for byte, in captured order.

The app is told what the captured peripheral did beyond its database, each read from the
capture: its notifications' and indications' values whole (tshark; the timeline cuts a long one
to 64 octets) with their delays after the subscription or the previous one (blecap's timeline),
on its own characteristics and on Bumble's Service Changed; the Server Rx MTU of its Exchange MTU
Response, the Write Requests it refused with their error, and the links it ended itself, after
how many ATT PDUs, how long after the last and with which reason (tshark). blecap's captured
central waits for the notifications the capture shows before each of its steps and its end of
the link, so the app's own clock does not reorder them. scripts/conformance.py runs the sessions
that are identical (IDENTICAL below); run this script on all of them to see the others'
divergences.

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
# indications_and_errors pairs (LE Secure Connections Just Works: blecap's SMPInitiator against
# the app's Bumble SMP, --pairing-response) and refuses its read of 0x0013 before the pairing:
# 48/48 ATT PDUs identical on B from both sides in 4 runs of 4 (2026-11-29). Its Service Changed
# indication comes 97 ms after its own subscription, close to the Write Response to the next one:
# watch it if this session ever flakes. two_peripherals_concurrent.central has two peripherals at
# two addresses: one app each, on a third linked controller; blecap plays the two captured links
# one after another (not at once, as the captured central did), and each peripheral's exchange is
# the capture's (58/58 ATT PDUs on the two apps, 2026-11-29).
IDENTICAL = {f"{name}.{side}.btsnoop" for name in (
    "cached_reconnect", "clean_heart_rate", "hr_short_notification", "long_notify_stream", "nil_scan_all_services",
    "oversized_and_unchecked_writes", "reconnect_storm", "scan_before_init", "indications_and_errors",
    "two_peripherals_concurrent")
    for side in ("central", "peripheral")} | {"two_peripherals_concurrent.peripheral_b.btsnoop"}


def database(blecap, path, expected, on_central=False):
    """The app's database: the captured one with, per characteristic, the values the captured
    peripheral notified or indicated on each connection, and the captured peripheral's
    address (recorded on the peripheral, the random address its controller was given, else
    its public one; recorded on the central, the LE Connection Complete's peer)."""
    notified = {}
    address = name = None
    last = {}  # (connection, value handle) -> elapsed of its subscription or last notification
    subscribed = {}  # connection -> {CCCD handle: elapsed of its last subscription}
    # The peripheral's notifications: sent by the capture's host, or received by it.
    notifies = "received" if on_central else "sent"
    if on_central:
        address = expected[0].get("peer")
    # The values whole, as tshark reads them (the timeline cuts a long one to its first 64
    # octets): the capture's notifications and indications in order, one to each event.
    whole = iter(tshark_notified(path, on_central))
    # This peripheral's connections (a central's capture may show several peripherals).
    mine = {c["connection"] for c in expected}
    for e in jsonl(blecap, "timeline", path, "--format", "jsonl"):
        if e.get("connection") is not None and e["connection"] not in mine:
            if e.get("type") in ("gatt.notification", "gatt.indication") and e.get("direction") == notifies:
                next(whole, None)  # another peripheral's, in the same capture order
            continue
        if e.get("type") == "controller.init_complete" and address is None and not on_central:
            address = e.get("random_address") or e.get("public_address")
        elif e.get("type") == "gatt.read" and e.get("uuid") == "2A00" and e.get("value") and name is None:
            # GAP's Device Name, which Bumble's own GAP service answers from the device's name.
            name = bytes.fromhex(e["value"]).decode("utf-8", "replace")
        elif e.get("type") == "gatt.subscribe":
            subscribed.setdefault(e.get("connection"), {})[e.get("handle")] = e["elapsed"]
        elif e.get("type") in ("gatt.notification", "gatt.indication") and e.get("direction") == notifies:
            key = (e["connection"], e["handle"])
            # Counted from its own characteristic's subscription (the app starts each stream
            # there): the CCCD is the first subscribed handle after the value's.
            cccds = subscribed.get(e["connection"], {})
            own = min((h for h in cccds if h > e["handle"]), default=None)
            since = last.get(key, cccds[own] if own is not None else e["elapsed"])
            last[key] = e["elapsed"]
            handle, value = next(whole, (None, None))
            notified.setdefault(e["handle"], {}).setdefault(e["connection"], []).append(
                {"value": value if handle == e["handle"] else e.get("value", ""),
                 "delay": max(0.0, e["elapsed"] - since)})
    numbers = [c["connection"] for c in expected]
    services = expected[0]["services"]
    for s in services:
        for ch in s["characteristics"]:
            per = notified.pop(ch["value_handle"], None)
            if per:
                ch["notifications"] = [per.get(n, []) for n in numbers]
    # The rest are on characteristics of the services Bumble adds itself (Service Changed).
    streams = [{"handle": h, "notifications": [per.get(n, []) for n in numbers]} for h, per in notified.items()]
    return {"services": services, "streams": streams}, address, name


def tshark_notified(path, on_central=False):
    """(handle, value hex) of every Handle Value Notification and Indication the captured
    peripheral sent, in capture order (tshark)."""
    own = "0x01" if on_central else "0x00"
    out = []
    for direction, p, _ in tshark_att(path):
        if (direction == "received") == (own == "0x01") and p[:2] in ("1b", "1d"):
            out.append((int(p[4:6] + p[2:4], 16), p[6:]))
    return out


def tshark_peripheral(path, on_central=False):
    """What the captured peripheral did beyond its database, read by tshark from the capture:
    the Server Rx MTU of its Exchange MTU Response; the handles whose every Write Request it
    refused, with the error code; and per connection (in the order they came up) how it ended
    when the peripheral ended it: after how many ATT PDUs its server received, how long after
    the last of them, with which reason. Recorded on the peripheral, the link it ended is one
    its host sent HCI_Disconnect for; recorded on the central, one that ended with Remote User
    Terminated (0x13) or Remote Device Terminated for Low Resources or Power Off (0x14, 0x15)
    without the central's host asking (Core Vol 4 Part E 7.1.6, 7.7.5)."""
    fields = ["frame.time_relative", "hci_h4.direction", "bthci_acl.chandle", "btatt.opcode", "btatt.handle",
              "btatt.server_rx_mtu", "btatt.req_opcode_in_error", "btatt.error_code", "bthci_cmd.opcode",
              "bthci_cmd.connection_handle", "bthci_cmd.reason", "bthci_evt.code", "bthci_evt.le_meta_subevent",
              "bthci_evt.connection_handle", "bthci_evt.reason", "bthci_evt.status"]
    out = subprocess.run(
        ["tshark", "-r", path, "-Y", "btatt || bthci_cmd.opcode == 0x0406 || bthci_evt.code == 0x05 || "
         "bthci_evt.le_meta_subevent in {0x01, 0x0a, 0x29}", "-T", "fields", "-E", "occurrence=f",
         *[x for f in fields for x in ("-e", f)]], capture_output=True, text=True).stdout

    def number(text):
        return int(text, 0) if text else None

    # The peripheral's own PDUs: sent by the capture's host when recorded on the peripheral.
    own = "0x01" if on_central else "0x00"
    mtu = None
    refused, accepted = {}, set()
    pending_write = {}  # connection handle -> the Write Request's handle waiting for its answer
    ends, live = [], {}  # live: connection handle -> its index in ends
    received = {}  # index in ends -> (ATT PDUs the peripheral's server received, time of the last)
    asked = set()  # recorded on the central: handles its host sent HCI_Disconnect for
    for line in out.splitlines():
        (t, direction, acl, op, handle, server_mtu, req_op, error, cmd, cmd_handle, cmd_reason, evt, sub, evt_handle,
         evt_reason, status) = (line.split("\t") + [""] * len(fields))[:len(fields)]
        t = float(t or 0)
        if evt == "0x3e" and sub in ("0x01", "0x0a", "0x29") and number(status) == 0:
            live[number(evt_handle)] = len(ends)
            ends.append(None)
            continue
        if op:
            h, o = number(acl), number(op)
            k = live.get(h)
            if direction == own:
                if o == 0x03 and mtu is None and server_mtu:
                    mtu = number(server_mtu)
                if o == 0x13 and h in pending_write:
                    accepted.add(pending_write.pop(h))
                elif o == 0x01 and number(req_op) == 0x12:
                    pending_write.pop(h, None)
                    refused[number(handle)] = number(error)
            elif o == 0x12:
                pending_write[h] = number(handle)
            if k is not None and direction != own and o % 2 == 0:
                n, _ = received.get(k, (0, 0.0))
                received[k] = (n + 1, t)
            elif k is not None and on_central and k in received:
                # Seen from the central, the peripheral's answer is the nearer mark of when it
                # was done (its request crossed the link before).
                received[k] = (received[k][0], t)
            continue
        if cmd == "0x0406":
            h = number(cmd_handle)
            if on_central:
                asked.add(h)
            elif h in live:
                k = live[h]
                n, last = received.get(k, (0, t))
                if n:
                    ends[k] = {"after": n, "delay": max(0.0, t - last), "reason": number(cmd_reason)}
            continue
        if evt == "0x05":
            h = number(evt_handle)
            k = live.pop(h, None)
            if on_central and k is not None and h not in asked and number(evt_reason) in (0x13, 0x14, 0x15):
                n, last = received.get(k, (0, t))
                if n:
                    ends[k] = {"after": n, "delay": max(0.0, t - last), "reason": number(evt_reason)}
            asked.discard(h)
    return mtu, {h: e for h, e in refused.items() if h not in accepted}, ends


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
    """(problems, summary) for one peripheral capture played over linked Bumble controllers.
    A capture recorded on a central that talked to several peripherals (two_peripherals_concurrent)
    gets one app per captured peripheral, each on its own controller linked to blecap's."""
    expected = captured_central(blecap, path)
    # Recorded on the central (a phone's own log): the same session from the other side.
    on_central = not expected
    if on_central:
        expected = captured_central(blecap, path, side="central")
    if not expected:
        return [], "no connection"
    mtu, refused, ends = tshark_peripheral(path, on_central)
    # The captured peripherals (recorded on the peripheral: the capture's own host, one), each
    # with the indices of its connections in `expected`.
    groups = {}
    for k, c in enumerate(expected):
        groups.setdefault(c.get("peer") if on_central else None, []).append(k)
    python = bumble_python()
    base = os.path.join(tmp, os.path.basename(path))
    out_a = base + ".central-a.btsnoop"
    peers = []  # (its connections' indices, app arguments, B's snoop) per captured peripheral
    for i, ks in enumerate(groups.values()):
        subset = [expected[k] for k in ks]
        db, address, name = database(blecap, path, subset, on_central)
        if address is None:
            return ["the capture does not show the peripheral's address"], "not run"
        for sv in db["services"]:
            for ch in sv["characteristics"]:
                if ch["value_handle"] in refused:
                    ch["write_error"] = refused[ch["value_handle"]]
        # Its own connections' ends (in the order the connections came up, as `expected`).
        db["ends"] = ends if len(groups) == 1 else [ends[k] if k < len(ends) else None for k in ks]
        suffix = "" if i == 0 else f"-{i + 1}"
        out_b, db_path = base + f".central-b{suffix}.btsnoop", base + f".db{suffix}.json"
        pairing_response = captured_security(blecap, path, db, on_central)
        with open(db_path, "w") as f:
            json.dump(db, f)
        arguments = ["--database", db_path, "--address", address, "--name", name or "peripheral-app",
                     "--connections", str(len(subset)), "--duration", "300", "--connect-timeout", "60",
                     *(["--mtu", str(mtu)] if mtu else [])] + (
            ["--pairing-response", pairing_response] if pairing_response else [])
        peers.append((ks, arguments, out_b))
    for f in [out_a] + [b for _, _, b in peers]:
        if os.path.exists(f):
            os.remove(f)
    link = subprocess.Popen([python, LINK, "--controllers", str(1 + len(peers))], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    apps = []
    try:
        ready = link.stdout.readline().split()
        if len(ready) != 2 + len(peers) or ready[0] != "ready":
            return [f"radio_link.py did not start: {ready}"], "not run"
        port_a = ready[1]
        for (_, arguments, out_b), port in zip(peers, ready[2:]):
            env = dict(os.environ, BUMBLE_SNOOPER=f"btsnoop:file:{out_b}")
            apps.append(subprocess.Popen(
                [python, PERIPHERAL_APP, "--transport", f"tcp-client:127.0.0.1:{port}", *arguments],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        time.sleep(1.0)
        replay = subprocess.run(
            [blecap, "replay", path, "--role", "central", "--controller", f"tcp-client:127.0.0.1:{port_a}",
             "--format", "json", "--speed", speed, "--timeout", "300", "--scan-timeout", "30", "--out", out_a],
            capture_output=True, text=True, timeout=400)
        app_errs = []
        for app in apps:
            try:
                _, app_err = app.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                app.kill()
                _, app_err = app.communicate()
            app_errs.append(app_err)
    finally:
        for app in apps:
            if app.poll() is None:
                app.kill()
                app.wait()
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
    missing = [b for _, _, b in peers if not os.path.exists(b)]
    if not os.path.exists(out_a) or missing:
        return problems + [f"--out {os.path.exists(out_a)}, B's snoop missing: {missing} "
                           f"(apps: {[e[-300:] for e in app_errs]})"], op_summary
    # blecap's links in the order they came up: the captured connections in captured order.
    a_conns = by_connection(tshark_att(out_a))
    captured_conns = by_connection(tshark_att(path))
    # B is the peripheral: what it received is what the captured central sent, which a capture
    # recorded on the central shows as sent.
    mirror = {"received": "sent", "sent": "received"} if on_central else {"received": "received", "sent": "sent"}
    same = total = received_on_b = sent_on_b = 0
    for ks, arguments, out_b in peers:
        who = "" if len(peers) == 1 else f"{arguments[arguments.index('--address') + 1]}: "
        b = tshark_att(out_b)
        # Every ATT PDU one host sent the other received: blecap's links to this peripheral
        # against B's.
        a = [x for k in ks if k < len(a_conns) for x in a_conns[k]] if len(peers) > 1 else [
            x for conn in a_conns for x in conn]
        a_sent = [p for d, p in a if d == "sent"]
        b_received = [p for d, p, _ in b if d == "received"]
        b_sent = [p for d, p, _ in b if d == "sent"]
        a_received = [p for d, p in a if d == "received"]
        received_on_b += len(b_received)
        sent_on_b += len(b_sent)
        if a_sent != b_received:
            problems.append(f"{who}blecap sent {len(a_sent)} ATT PDUs, B received {len(b_received)}")
        if b_sent != a_received:
            problems.append(f"{who}B sent {len(b_sent)} ATT PDUs, blecap received {len(a_received)}")
        # B's exchange against the capture's, connection by connection, each direction in order.
        want_conns = [captured_conns[k] for k in ks if k < len(captured_conns)]
        seen_conns = by_connection(b)
        if len(seen_conns) != len(want_conns):
            problems.append(f"{who}{len(want_conns)} captured connections, {len(seen_conns)} on B")
        for k, want, got in zip(ks, want_conns, seen_conns):
            for direction in ("received", "sent"):
                w = [p for d, p in want if d == mirror[direction]]
                g = [p for d, p in got if d == direction]
                total += len(w)
                same += sum(1 for x, y in zip(w, g) if x == y)
                if w != g and len(problems) < 20:
                    first = next((i for i, (x, y) in enumerate(zip(w, g)) if x != y), min(len(w), len(g)))
                    problems.append(
                        f"{who}connection {k + 1}: B {direction} {len(g)} ATT PDUs, the capture {len(w)}; first "
                        f"difference at {first}: {g[first] if first < len(g) else None} != "
                        f"{w[first] if first < len(w) else None}")
    on = "B" if len(peers) == 1 else f"the {len(peers)} peripherals"
    return problems, (f"{same}/{total} captured ATT PDUs identical on {on} ({received_on_b} received, "
                      f"{sent_on_b} sent = blecap's --out); report: {op_summary}")


def main():
    # At max speed the captured central does not wait for the captured notifications' times:
    # they come in another order against its requests than in the capture.
    return run_checks(check_radio_central, "radio central", "realtime", __doc__)

if __name__ == "__main__":
    sys.exit(main())
