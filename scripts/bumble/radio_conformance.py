#!/usr/bin/env python3
"""`blecap replay --controller` with no radio: two Bumble virtual controllers on one link
(scripts/bumble/radio_link.py); blecap hosts controller A over tcp-client and plays the
captured peripheral; an unmodified Bumble host on controller B (scripts/bumble/central_app.py,
the app serve's check runs) scans for it, connects, discovers, reads and subscribes. Checked:

  * what the app observed equals the capture (serve_conformance.compare: services,
    characteristics, descriptors, the captured reads' values, notification values in order);
  * the ATT exchange on B's HCI (Bumble's btsnoop snooper) against the one on blecap's HCI
    (--out), both read by tshark: every ATT PDU B sent arrived at blecap and every one blecap
    sent arrived at B, in order, byte for byte (the link between them is Bumble's);
  * the server's answers on B against the capture's: each response, notification and
    indication B received has the captured server's bytes for the same request (tshark on the
    capture and on B's file).

    python3 scripts/bumble/radio_conformance.py --blecap .build/debug/blecap captures/bumble/*.central.btsnoop

A capture recorded on the peripheral plays that peripheral, advertising as its own HCI commands
did (the timeline's `advertising.start`); the app is given the address it advertised from, and
the captured exchange is read from the central's side (requests received, answers and
notifications sent):

    python3 scripts/bumble/radio_conformance.py captures/bumble/*.peripheral*.btsnoop

With --security pair the app pairs right after connecting (Bumble's pair(): bonding, MITM and
SC asked, NoInputNoOutput) and then encrypts again with the key the pairing left; checked: the
pairing succeeded, the link was encrypted after it and again with the key, and blecap answered
the controller's LE Long Term Key Request with a Reply (tshark on --out). For a capture whose
peripheral paired with LE Secure Connections (indications_and_errors) that is SC Just Works:

    python3 scripts/bumble/radio_conformance.py --security pair captures/bumble/indications_and_errors.central.btsnoop

scripts/conformance.py runs `check_radio` for every Bumble capture, central and peripheral.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from serve_conformance import APP, bumble_python, captured, compare  # noqa: E402

LINK = os.path.join(HERE, "radio_link.py")
# The reasons HCI_Disconnect takes (Core Vol 4 Part E 7.1.6).
DISCONNECT_REASONS = {0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B}


def tshark_att(path):
    """(direction, ATT PDU hex, connection) in file order, tshark's ATT dissector's bytes after
    L2CAP reassembly (btatt_raw of its JSON with -x); 'sent' is host to controller; the
    connection is its handle and how many Disconnection Completes that handle saw before (a
    controller may give the next connection the same handle)."""
    out = subprocess.run(["tshark", "-r", path, "-Y", "btatt || bthci_evt.code == 0x05", "-T", "json", "-x"],
                         capture_output=True, text=True).stdout
    pdus = []
    ended = {}
    for packet in json.loads(out or "[]"):
        layers = packet["_source"]["layers"]
        event = layers.get("bthci_evt", {})
        if str(event.get("bthci_evt.code", "")) in ("0x05", "0x00000005"):
            h = str(event.get("bthci_evt.connection_handle", ""))
            ended[h] = ended.get(h, 0) + 1
            continue
        raw = layers.get("btatt_raw")
        if not raw:
            continue
        if isinstance(raw[0], list):
            raw = raw[-1]
        direction = str(layers.get("hci_h4", {}).get("hci_h4.direction", ""))
        handle = str(layers.get("bthci_acl", {}).get("bthci_acl.chandle", ""))
        pdus.append(("sent" if direction in ("0x00", "0", "0x00000000") else "received", raw[0],
                     (handle, ended.get(handle, 0))))
    return pdus


def by_connection(pdus):
    """The PDUs of each connection handle, in the order the handles first appear."""
    groups = {}
    for d, p, h in pdus:
        groups.setdefault(h, []).append((d, p))
    return list(groups.values())


def answers(pdus):
    """Per request (its bytes), the answers the server gave it in order, and the server's own
    notifications and indications in order."""
    table, own, pending = {}, [], None
    for direction, p in pdus:
        op = int(p[:2], 16)
        if direction == "sent":
            pending = p if op & 0x40 == 0 and op not in (0x1E,) else None
        elif op in (0x1B, 0x1D, 0x23):
            own.append(p)
        elif pending is not None:
            table.setdefault(pending, []).append(p)
            pending = None
    return table, own


def ltk_replies(path):
    """How many HCI_LE_Long_Term_Key_Request_Reply commands (0x201A) the host sent (tshark)."""
    out = subprocess.run(["tshark", "-r", path, "-Y", "bthci_cmd.opcode == 0x201a"], capture_output=True,
                         text=True).stdout
    return len(out.splitlines())


def check_security(sessions, out_a):
    """Problems of a --security pair run: each session paired and encrypted, twice."""
    problems = []
    for i, s in enumerate(sessions):
        if s.get("paired") is not True:
            problems.append(f"connection {i + 1}: not paired: {s.get('paired')}")
        if not s.get("encrypted_after_pairing"):
            problems.append(f"connection {i + 1}: not encrypted after pairing")
        again = s.get("encrypted_with_ltk")
        if not again or str(again).startswith("failed"):
            problems.append(f"connection {i + 1}: encryption with the pairing's key: {again}")
    if os.path.exists(out_a) and ltk_replies(out_a) == 0:
        problems.append("blecap sent no LE Long Term Key Request Reply")
    return problems


def check_radio(blecap, path, tmp, speed="max", security="none"):
    """(problems, summary) for one capture played over linked Bumble controllers: its captured
    peripherals (recorded on the central), else the peripheral that recorded it, advertising
    as its own HCI commands did."""
    expected = captured(blecap, path) or captured(blecap, path, peripheral_side=True)
    if not expected:
        return [], "no connection"
    if any(c["peer"] is None for c in expected):
        return ["no advertising address for a connection recorded on the peripheral"], "not run"
    python = bumble_python()
    base = os.path.join(tmp, os.path.basename(path))
    out_a, out_b = base + ".radio-a.btsnoop", base + ".radio-b.btsnoop"
    for f in (out_a, out_b):
        if os.path.exists(f):
            os.remove(f)
    link = subprocess.Popen([python, LINK], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready = link.stdout.readline().split()
        if len(ready) != 3 or ready[0] != "ready":
            return [f"radio_link.py did not start: {ready}"], "not run"
        port_a, port_b = ready[1], ready[2]
        replay = subprocess.Popen(
            [blecap, "replay", path, "--controller", f"tcp-client:127.0.0.1:{port_a}", "--format", "json",
             "--speed", speed, "--timeout", "300", "--accept-timeout", "60", "--out", out_a],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        args = [python, APP, "--transport", f"tcp-client:127.0.0.1:{port_b}", *app_arguments(expected, security)]
        env = dict(os.environ, BUMBLE_SNOOPER=f"btsnoop:file:{out_b}")
        app = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
        try:
            report_text, errors = replay.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            replay.kill()
            report_text, errors = replay.communicate()
    finally:
        link.kill()
        link.wait()
    return judge(path, expected, app.stdout, app.stderr, report_text, errors, out_a, out_b, security)


def app_arguments(expected, security="none"):
    """central_app.py's arguments for the captured connections: one session each, for the
    captured peer, MTU, and long enough for the captured notifications; `security` pair: the app
    pairs after connecting."""
    args = []
    for c in expected:
        duration = 3.0
        if c["subscribed_at"] is not None and c["last_value_at"] is not None:
            duration = c["last_value_at"] - c["subscribed_at"] + 3.0
        args += ["--address", c["peer"], "--mtu", str(c["mtu"] or 247), "--duration", f"{duration:.1f}",
                 "--count", str(len(c["notifications"]) or 0), "--security", security]
    return args


def judge(path, expected, app_out, app_err, report_text, errors, out_a, out_b, security="none"):
    """(problems, summary) of one run: what the app observed against the capture, the replay
    report, and the ATT exchange on blecap's HCI (out_a) and on B's (out_b) against each other
    and against the capture's. scripts/kernel/check_vm_results.py judges the virtual machine's
    run (blecap on hci0 through the HCI user channel) with it too."""
    problems = []
    try:
        sessions = json.loads(app_out.strip().splitlines()[-1])["sessions"]
    except (ValueError, IndexError, KeyError):
        return [f"app printed no observations: {app_out[-300:]} {app_err[-600:]} blecap: {errors[-600:]}"], \
            "not run"
    for i, (c, s) in enumerate(zip(expected, sessions)):
        side, reason = c["end"] or (None, None)
        if side in ("remote", "link_loss") and reason not in DISCONNECT_REASONS:
            # A real controller ends a link only through HCI_Disconnect, with one of its
            # reasons: blecap sends Remote User Terminated instead (docs/real-radio.md).
            c = dict(c, end=(side, 0x13))
        problems += [f"connection {i + 1}: {p}" for p in compare(c, s)]
    if security == "pair":
        problems += check_security(sessions, out_a)
    try:
        report = json.loads(report_text)
        ops = [o["verdict"] for conn in report["operations"] for o in conn]
        op_summary = ", ".join(f"{ops.count(v)} {v}" for v in ("same", "reordered", "different_value", "missing",
                                                                  "extra"))
    except ValueError:
        problems.append(f"replay report is not JSON: {report_text[:200]} {errors[-300:]}")
        op_summary = "no report"
    if not (os.path.exists(out_a) and os.path.exists(out_b)):
        return problems + [f"--out {os.path.exists(out_a)}, B's snoop {os.path.exists(out_b)}"], op_summary
    a, b = tshark_att(out_a), tshark_att(out_b)
    # The link carries each PDU unchanged: what one host sent, the other received.
    a_sent = [p for d, p, _ in a if d == "sent"]
    b_received = [p for d, p, _ in b if d == "received"]
    b_sent = [p for d, p, _ in b if d == "sent"]
    a_received = [p for d, p, _ in a if d == "received"]
    if a_sent != b_received:
        first = next((i for i, (x, y) in enumerate(zip(a_sent, b_received)) if x != y),
                     min(len(a_sent), len(b_received)))
        problems.append(f"blecap sent {len(a_sent)} ATT PDUs, B received {len(b_received)} (first difference at {first})")
    if b_sent != a_received:
        problems.append(f"B sent {len(b_sent)} ATT PDUs, blecap received {len(a_received)}")
    # The server's answers on B against the capture's answers to the same requests, connection
    # by connection (blecap plays captured connections one after another, in captured order).
    answered = same = own_same = own_seen = own_captured = 0
    recorded = tshark_att(path)
    if expected and expected[0].get("side") == "peripheral":
        # Recorded on the peripheral: seen from the central, what it sent it received.
        recorded = [("received" if d == "sent" else "sent", p, h) for d, p, h in recorded]
    for k, (captured_conn, seen_conn) in enumerate(zip(by_connection(recorded), by_connection(b))):
        captured_table, captured_own = answers(captured_conn)
        seen_table, seen_own = answers(seen_conn)
        for request, got in seen_table.items():
            want = captured_table.get(request)
            if want is None:
                continue  # a request the captured central never made: answered from the model
            for i, g in enumerate(got):
                answered += 1
                w = want[min(i, len(want) - 1)]
                if g == w:
                    same += 1
                elif len(problems) < 20:
                    problems.append(f"connection {k + 1}: answer to {request}: {g} != captured {w}")
        own_same += sum(1 for x, y in zip(seen_own, captured_own) if x == y)
        own_seen += len(seen_own)
        own_captured += len(captured_own)
    paired = ""
    if security == "pair":
        paired = (f"paired and encrypted on {sum(1 for s in sessions if s.get('paired') is True)}/{len(sessions)} "
                  f"connections ({ltk_replies(out_a)} LTK Request Replies); ")
    return problems, (f"{paired}B: {len(b_sent)} ATT PDUs sent, {len(b_received)} received (= blecap's --out); "
                      f"{same}/{answered} answers to captured requests byte-identical to the capture's; "
                      f"{own_same}/{own_seen} notifications/indications identical in captured order "
                      f"({own_captured} captured); report: {op_summary}")


def run_checks(check, label, default_speed, doc, options=()):
    """The command line both radio scripts share: `check(blecap, path, tmp, speed, **extra)` on
    each capture, one line per capture, exit status 1 when any failed; `options` are the
    script's own (flag, argparse keywords), passed to `check` by name."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--blecap", default=os.path.join(HERE, "..", "..", ".build", "debug", "blecap"))
    ap.add_argument("--speed", default=default_speed)
    for flag, keywords in options:
        ap.add_argument(flag, **keywords)
    ap.add_argument("captures", nargs="+")
    args = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.captures:
            extra = {flag.lstrip("-").replace("-", "_"): getattr(args, flag.lstrip("-").replace("-", "_"))
                     for flag, _ in options}
            problems, summary = check(args.blecap, path, tmp, args.speed, **extra)
            print(f"{'ok  ' if not problems else 'FAIL'} {label} {os.path.basename(path)}: {summary}", flush=True)
            for p in problems[:20]:
                print(f"       {p}")
            failed += bool(problems)
    print(f"{label}: {len(args.captures) - failed} matched, {failed} failed")
    return 1 if failed else 0


def main():
    return run_checks(check_radio, "radio", "max", __doc__,
                      [("--security", {"choices": ["none", "pair"], "default": "none"})])

if __name__ == "__main__":
    sys.exit(main())
