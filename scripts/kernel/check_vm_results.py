#!/usr/bin/env python3
"""Checks what scripts/kernel/guest.sh left in OUT after the virtual machine ran.

    check_vm_results.py BLECAP CAPTURE OUT

The oracles are independent of blecap's own decoding where they can be: BlueZ's hciconfig,
hcitool and gatttool print what the Linux kernel made of the virtual controller and of the
captured peripheral's GATT server; btmon's recording of the kernel's monitor channel is the
reference for `blecap watch hci-monitor`. Prints one line per check; exit 1 if any failed.
"""
import json
import os
import re
import shutil
import subprocess
import sys

BLECAP, CAPTURE, OUT = sys.argv[1:4]
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))


def blecap(*args):
    return subprocess.run([BLECAP, *args], capture_output=True, text=True).stdout


def read(name):
    try:
        with open(f"{OUT}/{name}", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def kernel_scenario():
    """guest.sh: blecap serve on /dev/vhci, used by BlueZ's tools; watch hci-monitor beside btmon."""
    captured = [json.loads(line) for line in blecap("timeline", "--format", "jsonl", CAPTURE).splitlines()]
    peer = json.loads(blecap("info", "--format", "json", CAPTURE))["connections"][0]["peer"]
    gatt = json.loads(blecap("gatt", "--format", "json", CAPTURE))

    # 1. The kernel initialised the virtual controller and powered it on.
    hciconfig = read("hciconfig.txt")
    check("kernel initialised the controller (hciconfig: UP RUNNING)", "UP RUNNING" in hciconfig, hciconfig[:300])

    # 2. The kernel's LE scan found the captured peripheral under its captured name.
    names = {e.get("local_name") for e in captured if e.get("type") == "advertisement" and e.get("peer") == peer}
    names.discard(None)
    lescan = read("lescan.txt")
    check(
        f"hcitool lescan found {peer} {sorted(names)}",
        any(f"{peer} {n}" in lescan for n in names) or (not names and peer in lescan),
        lescan[:300],
    )

    # 3. gatttool, through the kernel's L2CAP LE socket, sees the captured database.
    tool = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", read("gatttool.txt"))
    check("gatttool connected", "Connection successful" in tool, tool[:300])


    def full_uuid(u):
        return f"0000{u.lower()}-0000-1000-8000-00805f9b34fb" if len(u) == 4 else u.lower()


    database = gatt["connections"][0]["remote_database"]
    want_services = [(s["start_handle"], s["end_handle"], full_uuid(s["uuid"])) for s in database["services"]]
    got_services = [
        (int(a, 16), int(b, 16), u)
        for a, b, u in re.findall(r"attr handle: 0x([0-9a-f]+), end grp handle: 0x([0-9a-f]+) uuid: (\S+)", tool)
    ]
    check("primary services equal the capture's", got_services == want_services, f"{got_services} vs {want_services}")
    want_chars = [
        (c["declaration_handle"], c["properties"], c["value_handle"], full_uuid(c["uuid"]))
        for c in database["characteristics"]
    ]
    got_chars = [
        (int(h, 16), int(p, 16), int(v, 16), u)
        for h, p, v, u in re.findall(
            r"handle: 0x([0-9a-f]+), char properties: 0x([0-9a-f]+), char value handle: 0x([0-9a-f]+), uuid: (\S+)", tool
        )
    ]
    check("characteristics equal the capture's", got_chars == want_chars, f"{got_chars} vs {want_chars}")

    # 4. A read and a subscription answered with the captured values, in captured order.
    # The guest read the first handle the central read successfully; the served peripheral answers
    # a handle's reads in captured order, so the first captured read of it (value or error) is due.
    read_handle = next((e["handle"] for e in captured if e.get("type") == "gatt.read" and e.get("outcome") == "success"), None)
    if read_handle is not None:
        first_read = next(e for e in captured if e.get("type") == "gatt.read" and e.get("handle") == read_handle)
        got_read = re.search(r"Characteristic value/descriptor: ([0-9a-f ]+)", tool)
        if first_read.get("outcome") == "success":
            ok = got_read is not None and got_read.group(1).replace(" ", "") == first_read["value"]
        else:
            ok = got_read is None and "read failed" in tool
        check(f"read of 0x{read_handle:04x} answers as captured ({first_read.get('outcome')})", ok, tool[-300:])
    subscriptions = [e for e in captured if e.get("type") == "gatt.subscribe" and e.get("outcome") == "success"]
    # The subscribed characteristic: the nearest value handle below the CCCD written.
    cccd = subscriptions[0]["handle"] if subscriptions else 0
    value_handle = max((c["value_handle"] for c in database["characteristics"] if c["value_handle"] < cccd), default=0)
    notified = [
        e["value"]
        for e in captured
        if e.get("type") in ("gatt.notification", "gatt.indication") and e.get("handle") == value_handle
    ]
    got_notified = [
        v.replace(" ", "")
        for v in re.findall(rf"(?:Notification|Indication) +handle = 0x{value_handle:04x} value: ([0-9a-f ]+)", tool)
    ]
    if subscriptions:
        check(
            f"notifications/indications are the captured values in captured order ({len(got_notified)} received)",
            len(got_notified) >= min(3, len(notified)) > 0 and got_notified == notified[: len(got_notified)],
            f"{got_notified} vs {notified[:len(got_notified)]}",
        )

    # 5. blecap watch hci-monitor saw what btmon saw: the same timeline, event for event and with
    #    the kernel's own timestamps, from the moment the virtual controller appeared.
    def without_frames(v):
        """Frame numbers are each file's own (btmon's recording starts earlier than the watch):
        left out at every level, lists included (a connection.summary's facts and their parameter
        history, an accept list's frames)."""
        if isinstance(v, dict):
            return {
                k: without_frames(x)
                for k, x in v.items()
                if k not in ("frame", "elapsed") and not k.endswith("_frame") and not k.endswith("_frames")
            }
        if isinstance(v, list):
            return [without_frames(x) for x in v]
        return v


    def events(lines):
        out = []
        for line in lines:
            e = json.loads(line)
            if "finding" in e or "verdict" in e:
                continue
            out.append(without_frames(e))
        start = next((i for i, e in enumerate(out) if e["type"] == "controller.index_added"), len(out))
        return out[start:]


    watched = events(read("watch.jsonl").splitlines())
    recorded = events(blecap("timeline", "--format", "jsonl", f"{OUT}/btmon.btsnoop").splitlines())
    first_difference = next((i for i, (a, b) in enumerate(zip(watched, recorded)) if a != b), None)
    check(
        f"watch hci-monitor equals the timeline of btmon's recording ({len(watched)} events)",
        len(watched) > 20 and watched == recorded,
        f"{len(watched)} vs {len(recorded)} events; first difference at {first_difference}: "
        + (f"{watched[first_difference]} vs {recorded[first_difference]}" if first_difference is not None else ""),
    )
    # The watch's live verdicts are diagnose's on the same traffic: the same kind, cause, party and
    # signature per verdict (their texts cite each file's own frame numbers).
    def verdicts(lines):
        return [
            (v["kind"], v["cause"], v["party"], v["signature"])
            for v in (json.loads(line) for line in lines if line.strip())
            if "cause" in v
        ]


    watched_verdicts = verdicts(l for l in read("watch.jsonl").splitlines() if l.startswith('{"verdict":'))
    recorded_verdicts = verdicts(blecap("diagnose", "--format", "jsonl", f"{OUT}/btmon.btsnoop").splitlines())
    check(
        f"watch's live verdicts equal diagnose's on btmon's recording ({len(watched_verdicts)} verdicts)",
        len(watched_verdicts) > 0 and sorted(watched_verdicts) == sorted(recorded_verdicts),
        f"{watched_verdicts} vs {recorded_verdicts}",
    )
    watched_kinds = {e["type"] for e in watched}
    check(
        "watch saw the connection, discovery and notifications",
        "connection.complete" in watched_kinds
        and "gatt.discover.services" in watched_kinds
        and bool({"gatt.notification", "gatt.indication"} & watched_kinds),
        sorted(watched_kinds),
    )

    # 6. serve --out recorded the same HCI traffic as the kernel's monitor (watch --write).
    def records(path):
        return [
            json.loads(line)
            for line in blecap("packets", "--format", "jsonl", path).splitlines()
        ]


    def shape(r):
        return {k: v for k, v in r.items() if k not in ("frame", "time")}


    # Each direction in its own order: a command the host sends and an event the controller sends
    # at the same moment may cross, so serve (the controller's view) and the kernel's monitor can
    # interleave the two directions differently.
    def by_direction(rows):
        return {d: [r for r in rows if r.get("direction") == d] for d in ("sent", "received")}


    served = [shape(r) for r in records(f"{OUT}/serve.btsnoop")]
    monitored = [shape(r) for r in records(f"{OUT}/watch.btsnoop")]
    check(
        f"serve --out and watch --write hold the same {len(served)} HCI packets, each direction in order",
        len(served) > 50 and by_direction(served) == by_direction(monitored),
        f"{len(served)} vs {len(monitored)}",
    )
    if shutil.which("tshark"):
        malformed = subprocess.run(
            ["tshark", "-r", f"{OUT}/serve.btsnoop", "-Y", "_ws.malformed || _ws.expert.severity == error"],
            capture_output=True, text=True).stdout.strip()
        check("tshark finds no malformed frame in serve --out", malformed == "", malformed[:300])
    lint = subprocess.run([BLECAP, "lint", "--fail-on", "error", f"{OUT}/serve.btsnoop"], capture_output=True, text=True)
    check("blecap lint finds no error in serve --out", lint.returncode in (0,), lint.stdout[-400:])



def adapter(name):
    """What hciconfig and btmgmt say of the adapter's identity and power in radio-*-NAME.txt
    (not its packet counters, which every run moves): address, bus and type, UP/DOWN and
    RUNNING, mgmt's current settings."""
    text = read(f"radio-hciconfig-{name}.txt")
    address = re.search(r"BD Address: (\S+)", text)
    kind = re.search(r"Type: (\S+) +Bus: (\S+)", text)
    flags = re.search(r"\n\t((?:UP|DOWN)[A-Z ]*)", text)
    settings = re.search(r"current settings: (.*)", read(f"radio-btmgmt-{name}.txt"))
    return {
        "address": address and address.group(1),
        "type": kind and kind.groups(),
        "flags": flags and flags.group(1).split(),
        "mgmt": settings and settings.group(1).split(),
    }


def run_status(name):
    """(exit status, milliseconds from start or SIGINT to exit) that guest_radio.sh wrote."""
    fields = read(f"{name}.rc").split()
    return (int(fields[0]), int(fields[1]) if len(fields) > 1 else None) if fields else (None, None)


def radio_scenario():
    """guest_radio.sh: blecap replay --controller hci0 (the kernel's adapter of a Bumble
    controller on /dev/vhci) through the HCI user channel, a Bumble central on the controller
    linked to it; the adapter's state before and after, SIGINT, and hci0 refused while up."""
    sys.path.insert(0, f"{ROOT}/scripts/bumble")
    from radio_conformance import judge
    from serve_conformance import captured as captured_connections

    before = adapter("before")
    check("hci0 (Bumble's controller on /dev/vhci) set up and down before the run",
          before["address"] is not None and before["flags"] == ["DOWN"], read("radio-hciconfig-before.txt")[:300])
    status, _ = run_status("radio-replay")
    errors = read("radio-replay.err")
    check(f"blecap replay --controller hci0 played to its end (exit {status}: 0, or 1 when the report differs)",
          status in (0, 1), errors[-400:])
    problems, summary = judge(CAPTURE, captured_connections(BLECAP, CAPTURE), read("radio-app.json"),
                              read("radio-app.err"), read("radio-replay.json"), errors,
                              f"{OUT}/radio-a.btsnoop", f"{OUT}/radio-b.btsnoop")
    check(f"the central on the other controller met the captured peripheral over hci0 ({summary})",
          not problems, "; ".join(problems[:5]))
    after = adapter("after")
    check("hci0 handed back to the kernel as it was (hciconfig, btmgmt)", after == before, f"{after} vs {before}")

    status, ms = run_status("radio-held")
    held = read("radio-held.err")
    check(f"a second blecap on hci0 while the first held it was refused at once (exit {status} after {ms} ms)",
          # Linux 6.1 answers EBUSY here (the holder keeps it up), a kernel without that check EUSERS.
          status == 4 and ms is not None and ms < 10_000
          and ("another program holds it through the HCI user channel" in held
               or "already held through the HCI user channel" in held),
          held[-400:])
    status, ms = run_status("radio-int")
    check(f"SIGINT while the central was connected ended blecap (exit {status} after {ms} ms)",
          "a central connected" in read("radio-int.err") and status is not None and status != 4
          and ms is not None and ms < 10_000, read("radio-int.err")[-400:])
    after = adapter("after-int")
    check("hci0 handed back as it was after SIGINT", after == before, f"{after} vs {before}")
    # What blecap leaves behind in the controller: a link the central still holds, advertising.
    try:
        session = json.loads(read("radio-int-app.json").strip().splitlines()[-1])["sessions"][0]
    except (ValueError, IndexError, KeyError):
        session = {}
    check("the central saw the link end when blecap was interrupted (not its own 60 s later)",
          session.get("disconnected_by_peer") is not None, f"{session} {read('radio-int-app.err')[-300:]}")

    up = adapter("up")
    check("the kernel powers hci0 up again after the runs (hciconfig hci0 up)", up["flags"] == ["UP", "RUNNING"],
          read("radio-hciconfig-up.txt")[:300])
    status, ms = run_status("radio-busy")
    busy = read("radio-busy.err")
    check(f"with hci0 up, blecap replay --controller hci0 refuses it at once (exit {status} after {ms} ms)",
          status == 4 and ms is not None and ms < 10_000 and "hci0 is up under BlueZ" in busy, busy[-400:])
    after = adapter("up-after")
    check("the refused run left hci0 up as it was", after == up and up["flags"] == ["UP", "RUNNING"], f"{after} vs {up}")


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if os.path.exists(f"{OUT}/guest.log"):
    kernel_scenario()
if os.path.exists(f"{OUT}/guest_radio.log"):
    radio_scenario()
else:
    print("SKIP radio over hci0: not run (no Bumble; vm_check.sh said why)")
print(f"kernel-check: {sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)
