#!/usr/bin/env python3
"""Conformance suite: blecap against tshark (the decode oracle) over ../shared/captures.

The unit tests (`make test`) read only the repository's own captures/; this suite runs over the
project's larger shared corpus, including real captures we may not redistribute.

For every capture under ../shared/captures/{bumble,public,formats}:
  * HCI captures: blecap's ATT opcode must equal tshark's on every frame, and so must the
    attribute handle for the PDUs that carry exactly one (Error Response, Read/Read Blob/Write
    requests, Prepare Write request and response, Write/Signed Write Command, Notification,
    Indication). Responses are not compared: tshark infers their handle from its own request
    matching, which pairs across connections (see two_peripherals_concurrent in the bumble
    README).
    Also the LE connection and disconnection events of blecap's timeline equal tshark's count.
  * Over-the-air (link-layer) captures (251, 256, 272, 157, PPI 192): per frame, the advertising
    PDU type, LLID, LL Control opcode, ATT opcode (and handle, as for HCI) and CRC status
    (`btle.crc.incorrect`, or the nRF Sniffer's flag where tshark's btle stops early) equal
    tshark's. Retransmissions: blecap's equal its rule (same SN, LLID and payload as the same
    side's previous PDU) evaluated on tshark's decode of the header and bytes; tshark decodes a copy's
    ATT again, which must repeat the original's, and blecap must not count it. tshark's own
    SN-only `btle.retransmit` count is reported beside (it also calls new data after a PDU the
    sniffer missed a retransmission). The Frontline .cfa must be
    refused with "unknown capture format", exit code 4 (docs/exit-codes.md).
  * Damaged copies of every HCI capture (truncated, garbage appended) must decode their valid
    prefix, name the byte offset of the damage and exit 3.
  * Android vendor commands: every LE Advertising Packet Content Filter (APCF, 0xFD57) and LE Get
    Vendor Capabilities (0xFD53) command and Command Complete of every HCI capture decodes by name
    with no note (truncation, malformed, raw fallback) and no raw `parameters`/`return_parameters`,
    its fields equal to an independent decode of the frame's bytes (tshark's hex, AOSP layouts),
    and to tshark's Broadcom vendor dissector (sub-command, action, filter index, filter support,
    max filter) where tshark applies it (controllers with company identifier 15).
  * Lint facts: what `blecap lint` must say about the real captures whose licence keeps them out
    of the repository (LINT_FACTS; the unit tests check the same on the ones in captures/).
  * Lint (one check over all of bumble/ + public/): the SARIF report validates against
    ../shared/schemas/sarif-schema-2.1.0.json and loads in sarif-tools, the JUnit report loads in
    junitparser (scripts/validate_sarif.py); exit codes 1 (findings), 0 (clean capture or
    --fail-on never), 2 (missing input).
  * Facts consistency (issue 28): over every capture, `info`, `timeline`, `gatt`, `lint` and the
    report state the same facts per connection (scripts/facts_consistency.py): zero differences.
  * Replay: `blecap replay --out` of every HCI capture exits 0 (the replayed ATT exchange equals
    the captured one) and tshark reads the replayed file as the same exchange: the same ATT
    opcodes and handles, in the same order.
  * Replay at --speed max: for every Bumble central capture, `blecap replay --speed max --out`
    exits 0 and tshark reads the replayed file as the same exchange, values included: the same
    opcodes and handles and the same whole ATT PDUs (as tshark reassembles them), in order.
  * Simulator export: one simulated session (BLESimulatorBench --export, built next to blecap)
    decodes in tshark with the same ATT opcodes and handles as in blecap, and blecap's timeline of
    it has the session's 100 notifications. Its pcapng export (CaptureIO's PcapngWriter, link type
    201, per-packet comments) reads in tshark as the btsnoop one, with the comments, and in blecap
    as the same packets.
  * Filter corpus (Tests/BLEFilterTests/Corpus/filter-corpus.json, over captures/): for each
    blecap filter expression, tshark's frames for the display filter written beside it equal the
    recorded ones (scripts/filter_corpus.py), and so do blecap's.
  * Report script: `node --check` of Sources/BLEReport/Resources/report.js and of the script a
    built page carries, which must equal the file (skipped with a note when node is absent).
  * Report (browser): `blecap report` of every HCI and link-layer capture opens in headless Chromium (Debian
    package `chromium`) with its script finished (`data-ready="1"`), no script error and no
    console message; for long_notify_stream.central and oversized_and_unchecked_writes.central
    the DOM must also show lint's findings count, info's connection count and every chart, and
    a screenshot is taken (--screenshots DIR keeps them, e.g. docs/); a link-layer capture with
    connections must show the channel-use, RSSI-per-side and retransmission charts.
Prints one line per file and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import argparse, html, json, os, re, shutil, subprocess, sys, tempfile

# `blecap serve` against an unmodified Bumble host (scripts/bumble/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bumble"))
from serve_conformance import check_serve, check_serve_advertising, check_serve_central  # noqa: E402
from radio_conformance import check_radio  # noqa: E402
from radio_central_conformance import IDENTICAL as RADIO_CENTRAL_IDENTICAL, check_radio_central  # noqa: E402
import filter_corpus  # noqa: E402

HANDLE_OPCODES = {0x01, 0x0A, 0x0C, 0x12, 0x16, 0x17, 0x52, 0xD2, 0x1B, 0x1D}
# Over-the-air captures, by the link type their corpus names carry (SOURCES.md): 251/256
# BLUETOOTH_LE_LL(_WITH_PHDR), 272 NORDIC_BLE, 192 PPI, 157 USER10 (old nRF Sniffer).
LINK_LAYER_TAGS = ("lell25", "nordic272", "ppi192", "user157")


def is_link_layer(name):
    return any(tag in name for tag in LINK_LAYER_TAGS)
EXIT_DAMAGED = 3
EXIT_UNREADABLE = 4


def tshark_att(path, chandles=None):
    """ATT opcode and handles per frame, as tshark decodes them; with `chandles`, only on those
    HCI connection handles."""
    out = subprocess.run(
        ["tshark", "-r", path, "-T", "fields", "-E", "separator=|",
         "-e", "frame.number", "-e", "btatt.opcode", "-e", "btatt.handle", "-e", "bthci_acl.chandle"],
        capture_output=True, text=True, check=True).stdout
    frames = {}
    total = 0
    for line in out.splitlines():
        num, op, handle, chandle = (line.split("|") + ["", "", ""])[:4]
        total += 1
        if chandles is not None and chandle and int(chandle.split(",")[0], 16) not in chandles:
            continue
        if op:
            ops = [int(x, 16) for x in op.split(",")]
            handles = [int(x, 16) for x in handle.split(",")] if handle else []
            frames[int(num)] = (ops[-1], handles)
    return total, frames


def tshark_att_pdus(path):
    """The whole ATT PDUs (opcode, handle, value: the bytes tshark hands its ATT dissector after
    L2CAP reassembly) as hex, by frame number. tshark 4.0's fields output has no raw bytes for a
    protocol, so this reads its JSON with -x (`btatt_raw`)."""
    out = subprocess.run(["tshark", "-r", path, "-Y", "btatt", "-T", "json", "-x"],
                         capture_output=True, text=True, check=True).stdout
    frames = {}
    for packet in json.loads(out or "[]"):
        layers = packet["_source"]["layers"]
        raw = layers.get("btatt_raw")
        if not raw:
            continue
        # One ATT PDU: [hex, offset, length, mask, type]; several in one frame: a list of those
        # (the last, as tshark_att takes the last opcode).
        if isinstance(raw[0], list):
            raw = raw[-1]
        frames[int(layers["frame"]["frame.number"])] = raw[0]
    return frames


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


def check_archived(blecap, path, tmp):
    """The capture gzip'd, xz'd and inside an Android bug-report zip decodes, frame by frame,
    like tshark reads the bare file (blecap opens archives by content)."""
    import gzip, lzma, zipfile
    data = open(path, "rb").read()
    base = os.path.join(tmp, "archived")
    variants = {"gz": base + ".gz", "xz": base + ".xz", "bugreport zip": base + ".zip"}
    with open(variants["gz"], "wb") as f:
        f.write(gzip.compress(data, mtime=0))
    with open(variants["xz"], "wb") as f:
        f.write(lzma.compress(data))
    with zipfile.ZipFile(variants["bugreport zip"], "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("main_entry.txt", "bugreport.txt")
        z.writestr("FS/data/misc/bluetooth/logs/btsnoop_hci.log", data)
    t_total, t = tshark_att(path)
    problems = []
    for kind, archived in variants.items():
        rc, b_total, b, err = blecap_att(blecap, archived)
        if rc != 0:
            problems.append(f"{kind}: blecap exited {rc}: {err.strip()[:200]}")
        if b_total != t_total:
            problems.append(f"{kind}: frame count blecap {b_total} vs tshark {t_total}")
        differing = [f for f in sorted(set(t) | set(b)) if (f in t) != (f in b) or (f in t and t[f][0] != b[f][0])]
        if differing:
            problems.append(f"{kind}: ATT opcodes differ at frames {differing[:10]}")
    return problems, f"{t_total} frames, {len(t)} ATT opcodes, as gz, xz and bug-report zip"


def same_sequence(what, original, replayed):
    """Problems where two per-frame tshark readings differ as sequences (frame numbers differ
    between a capture and its replay; the order does not)."""
    a = [original[k] for k in sorted(original)]
    b = [replayed[k] for k in sorted(replayed)]
    problems = []
    if len(a) != len(b):
        problems.append(f"tshark {what}: capture {len(a)}, replayed file {len(b)}")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            problems.append(f"{what} {i + 1}: tshark on capture {x}, on replayed file {y}")
            break
    return problems


def check_replay(blecap, path, tmp, speed="realtime", values=False):
    """`blecap replay --speed SPEED --out` reproduces the captured ATT exchange (exit 0) and
    tshark reads the replayed file as the same exchange: the same ATT opcodes and handles in
    the same order, and with `values` the same whole ATT PDUs."""
    if is_link_layer(os.path.basename(path)):
        return check_replay_link_layer(blecap, path, tmp, speed)
    out = os.path.join(tmp, f"replayed-{speed}.btsnoop")
    p = subprocess.run([blecap, "replay", "--speed", speed, "--format", "json", "--out", out, path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [f"blecap replay --speed {speed} exit {p.returncode}: {p.stderr.strip()[:200]} {p.stdout[-300:]}"], \
            "replay failed"
    doc = json.loads(p.stdout)
    conns = doc["connections"]
    captured = sum(c["captured"] for c in conns)
    # Only ATT on the captured connections: vendor debug ACL on handles no Connection Complete
    # opened (0x0EDC in dsd6, the Samsung .cfa, infocar), which tshark also decodes as ATT, is no
    # link and is not replayed.
    info = subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True)
    handles = {c["handle"] for c in json.loads(info.stdout)["connections"]} if info.returncode == 0 else None
    _, t_orig = tshark_att(path, handles)
    _, t_rep = tshark_att(out)
    problems = same_sequence("ATT PDU (opcode, handles)", t_orig, t_rep)
    summary = f"{len(conns)} connections, {captured} ATT PDUs identical; tshark {len(t_rep)} ATT frames in the replayed file"
    if values:
        # On the captured connections only, as above (dsd6's vendor frame on 0x0EDC).
        v_orig = {k: v for k, v in tshark_att_pdus(path).items() if k in t_orig}
        v_rep = tshark_att_pdus(out)
        problems += same_sequence("ATT PDU bytes", v_orig, v_rep)
        if len(v_orig) != len(t_orig):
            problems.append(f"tshark: {len(t_orig)} ATT frames but {len(v_orig)} with their bytes")
        summary += f", {len(v_rep)} whole PDUs equal to the capture's"
    return problems, summary


def check_replay_link_layer(blecap, path, tmp, speed):
    """An over-the-air capture: `blecap replay` reproduces every connection's ATT exchange
    (exit 0), or exits 1 with each diverged connection's first divergence on a captured
    behaviour the report names as unreproducible (a response to a request the sniffer lost).
    tshark reads the replayed file as blecap replayed it (as many ATT PDUs), and where tshark
    reads the capture's whole exchange (no retransmitted copy, CRC error or undecrypted PDU in
    the way) the same whole ATT PDUs in the same order."""
    out = os.path.join(tmp, f"replayed-ll-{speed}.btsnoop")
    p = subprocess.run([blecap, "replay", "--speed", speed, "--format", "json", "--out", out, path],
                       capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return [f"blecap replay --speed {speed} exit {p.returncode}: {p.stderr.strip()[:200]}"], "replay failed"
    conns = doc["connections"]
    problems = []
    explained = [c for c in conns if not c["identical"] and c.get("unreproducible")]
    unexplained = [c for c in conns if not c["identical"] and not c.get("unreproducible")]
    for c in unexplained:
        d = c.get("divergence") or {}
        problems.append(f"connection #{c['connection']} diverged at frame {(d.get('captured') or {}).get('frame')}: "
                        f"{c['matching']} of {c['captured']} identical, no reason given")
    expected_rc = 1 if explained or unexplained else 0
    if p.returncode != expected_rc:
        problems.append(f"exit {p.returncode}, expected {expected_rc}")
    replayed = sum(c["replayed"] for c in conns)
    v_rep = tshark_att_pdus(out) if os.path.exists(out) else {}
    if len(v_rep) != replayed:
        problems.append(f"tshark reads {len(v_rep)} ATT PDUs in the replayed file, blecap replayed {replayed}")
    ll = tshark_link_layer(path)
    raw = subprocess.run(["tshark", "-r", path, "-Y", "btatt", "-T", "json", "-x"] + TSHARK_USER_DLTS,
                         capture_output=True, text=True).stdout
    v_orig = {}
    for packet in json.loads(raw or "[]"):
        layers = packet["_source"]["layers"]
        r = layers.get("btatt_raw")
        if not r:
            continue
        frame = int(layers["frame"]["frame.number"])
        f = ll.get(frame, {})
        if f.get("retransmit") or f.get("crc_incorrect"):
            continue
        v_orig[frame] = (r[-1] if isinstance(r[0], list) else r)[0]
    captured = sum(c["captured"] for c in conns)
    compared = "not compared (tshark reads a different exchange: undecrypted, retransmitted or lost PDUs)"
    if len(v_orig) == captured and not explained:
        problems += same_sequence("ATT PDU bytes", v_orig, v_rep)
        compared = "the same whole PDUs as tshark reads in the capture"
    summary = (f"{len(conns)} connections, {captured} ATT PDUs, {sum(c['matching'] for c in conns)} identical"
               f"{', ' + str(len(explained)) + ' unreproducible (named)' if explained else ''}; "
               f"tshark {len(v_rep)} ATT PDUs in the replayed file, {compared}")
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


def check_pcapng_export(blecap, tmp):
    """The same simulated session exported as pcapng (BLESimulatorBench --export FILE.pcapng:
    PcapngWriter, link type 201, a comment on each trace event's first packet): tshark reads it
    as the btsnoop export (the same frames with the same ATT opcodes and handles) and shows the
    comments (frame.comment); blecap reads it back with the same packets."""
    bench = os.path.join(os.path.dirname(blecap), "BLESimulatorBench")
    if not os.path.exists(bench):
        return [f"{bench} not built"], "not run"
    if shutil.which("tshark") is None:
        return ["tshark not installed (apt-get install tshark)"], "not run"
    snoop, ng = os.path.join(tmp, "simulated.btsnoop"), os.path.join(tmp, "simulated.pcapng")
    for out in (snoop, ng):
        p = subprocess.run([bench, "--export", out], capture_output=True, text=True)
        if p.returncode != 0:
            return [f"BLESimulatorBench --export {out} exit {p.returncode}: {p.stderr.strip()[:200]}"], "failed"
    problems = []
    t_total, t_ng = tshark_att(ng)
    s_total, t_snoop = tshark_att(snoop)
    if t_total != s_total:
        problems.append(f"tshark frames: btsnoop {s_total}, pcapng {t_total}")
    if t_ng != t_snoop:
        problems.append("tshark decodes different ATT opcodes/handles in the pcapng export")
    info = subprocess.run(["tshark", "-r", ng, "-T", "fields", "-e", "frame.comment", "-e", "_ws.col.Protocol"],
                          capture_output=True, text=True, check=True).stdout
    comments = [l.split("\t")[0] for l in info.splitlines() if l.split("\t")[0]]
    if not comments or not any(c.startswith("trace seq ") for c in comments):
        problems.append(f"tshark shows {len(comments)} comments, expected one per trace event")
    a = subprocess.run([blecap, "packets", "--format", "jsonl", snoop], capture_output=True, text=True).stdout
    b = subprocess.run([blecap, "packets", "--format", "jsonl", ng], capture_output=True, text=True).stdout
    strip = lambda text: [{k: v for k, v in json.loads(l).items() if k not in ("offset", "length")}
                          for l in text.splitlines()]
    if strip(a) != strip(b):
        problems.append("blecap decodes the pcapng export differently from the btsnoop one")
    return problems, f"{t_total} frames, {len(t_ng)} ATT frames as in the btsnoop export, {len(comments)} comments in tshark"


# tshark decodes Ubertooth's PPI (inner DLT 147) and the nRF Sniffer's USER10 (157) only when
# told which dissector the user DLT means.
TSHARK_USER_DLTS = ["-o", 'uat:user_dlts:"User 0 (DLT=147)","btle","0","","0",""',
                    "-o", 'uat:user_dlts:"User 10 (DLT=157)","nordic_ble","0","","0",""']
LL_FIELDS = ("frame.number", "btle.advertising_header.pdu_type", "btle.data_header.llid",
             "btle.control_opcode", "btatt.opcode", "btatt.handle", "btle.crc.incorrect", "btle.retransmit",
             "btle.crc.indeterminate", "nordic_ble.crcok", "btle.data_header.sequence_number",
             "btle.data_header.next_expected_sequence_number", "btle.link_layer_data.access_address")


def tshark_link_layer(path):
    args = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|"]
    for f in LL_FIELDS:
        args += ["-e", f]
    out = subprocess.run(args + TSHARK_USER_DLTS, capture_output=True, text=True, check=True).stdout
    frames = {}
    for line in out.splitlines():
        cols = (line.split("|") + [""] * len(LL_FIELDS))[:len(LL_FIELDS)]
        num, pdu_type, llid, ctrl, op, handle, crc_bad, retrans, crc_unknown, nordic_crc_ok, sn, nesn, connect_aa = cols
        first = lambda v: int(v.split(",")[0], 16 if v.startswith("0x") else 10) if v else None
        frames[int(num)] = {
            "pdu_type": first(pdu_type), "llid": first(llid), "control": first(ctrl),
            "att": [int(x, 16) for x in op.split(",")] if op else [],
            "handles": [int(x, 16) for x in handle.split(",")] if handle else [],
            # The nRF Sniffer's own verdict counts too: tshark's btle stops before the CRC
            # when the AD data of a damaged packet throws.
            "crc_incorrect": bool(crc_bad) or nordic_crc_ok == "0",
            "crc_indeterminate": bool(crc_unknown), "retransmit": bool(retrans),
            "sn": first(sn), "nesn": first(nesn), "connect_aa": first(connect_aa), "content": None}
    # The data PDU's LLID, Length and payload (what a retransmitted copy repeats): tshark 4.0's
    # fields output has no raw bytes, its JSON with -x has the btle layer's (AA, header, payload,
    # CRC).
    out = subprocess.run(["tshark", "-r", path, "-T", "json", "-x"] + TSHARK_USER_DLTS,
                         capture_output=True, text=True, check=True).stdout
    for packet in json.loads(out or "[]"):
        layers = packet["_source"]["layers"]
        raw = layers.get("btle_raw")
        num = int(layers["frame"]["frame.number"])
        if raw and num in frames and frames[num]["sn"] is not None:
            if isinstance(raw[0], list):
                raw = raw[0]
            b = bytes.fromhex(raw[0])
            frames[num]["content"] = (b[4] & 3, b[5], b[6:6 + b[5]] if b[4] & 0x20 == 0 else b[7:7 + b[5]])
    return frames


def expected_retransmissions(t, b):
    """blecap's retransmission rule (Core 5.4 Vol 6 Part B 4.5.9) evaluated on tshark's decode of
    the SN bit and the bytes, with the sender blecap read from the pseudo-header (or inferred):
    the same SN, LLID and payload as the same side's previous data PDU. A CONNECT_IND starts its
    access address over."""
    state = {}  # (access address, side) -> (sn, content)
    expected = set()
    for frame in sorted(t):
        tf, ll = t[frame], b.get(frame, {}).get("ll", {})
        if tf["connect_aa"] is not None:
            state.pop((tf["connect_aa"], "central"), None)
            state.pop((tf["connect_aa"], "peripheral"), None)
        side = ll.get("sender")
        if tf["sn"] is None or side is None or ll.get("crc") == "incorrect":
            continue
        aa = ll.get("access_address")
        prev = state.get((aa, side))
        if prev and prev == (tf["sn"], tf["content"]):
            expected.add(frame)
        state[(aa, side)] = (tf["sn"], tf["content"])
    return expected


def check_link_layer(blecap, path):
    """Per frame: advertising PDU type, LLID, LL Control opcode, ATT opcode (and handle where
    the PDU carries exactly one) and CRC status equal tshark's. Retransmissions: blecap's equal
    its rule evaluated on tshark's SN/NESN/CRC decode; a copy's ATT (tshark decodes copies
    again) must repeat the original's and is not counted by blecap. Frames blecap decrypted
    (tshark cannot: it reads their ciphertext) are compared on the clear header only (PDU type,
    LLID, CRC, retransmission) and counted; LinkLayerDecryptionTests checks their plaintext
    against crackle's and tshark's witnesses."""
    t = tshark_link_layer(path)
    p = subprocess.run([blecap, "packets", "--format", "jsonl", "--empty-pdus", path],
                       capture_output=True, text=True)
    problems = []
    if p.returncode != 0:
        problems.append(f"blecap exited {p.returncode}: {p.stderr.strip()[:200]}")
    b = {}
    for line in p.stdout.splitlines():
        obj = json.loads(line)
        b[obj["frame"]] = obj
    if len(b) != len(t):
        problems.append(f"frame count blecap {len(b)} vs tshark {len(t)}")
    expected = expected_retransmissions(t, b)
    counts = {"att": 0, "handles": 0, "crc_bad": 0, "crc_only_blecap": 0, "control": 0, "retrans": 0,
              "retrans_att": 0, "tshark_retrans": 0, "tshark_only": 0, "decrypted": 0, "decrypted_att": 0}
    last_att = {}
    for frame in sorted(t):
        tf, bf = t[frame], b.get(frame)
        if bf is None:
            continue
        ll = bf.get("ll", {})
        if tf["pdu_type"] is not None and ll.get("pdu_type") != tf["pdu_type"]:
            problems.append(f"frame {frame}: PDU type tshark {tf['pdu_type']} blecap {ll.get('pdu_type')}")
        if tf["llid"] is not None and ll.get("llid") != tf["llid"]:
            problems.append(f"frame {frame}: LLID tshark {tf['llid']} blecap {ll.get('llid')}")
        decrypted = bool(ll.get("decrypted"))
        if tf["control"] is not None and not decrypted:
            counts["control"] += 1
            if ll.get("control_opcode") != tf["control"] and not ll.get("encrypted"):
                problems.append(f"frame {frame}: LL control tshark 0x{tf['control']:02x} blecap {ll.get('control_opcode')}")
        bad = ll.get("crc") == "incorrect"
        counts["crc_bad"] += tf["crc_incorrect"]
        if tf["crc_indeterminate"]:
            counts["crc_only_blecap"] += bad
        elif bad != tf["crc_incorrect"]:
            problems.append(f"frame {frame}: CRC incorrect tshark {tf['crc_incorrect']} blecap {bad}")
        retrans = bool(ll.get("retransmission"))
        if retrans != (frame in expected):
            problems.append(f"frame {frame}: retransmission blecap {retrans}, rule on tshark's decode {frame in expected}")
        counts["tshark_retrans"] += tf["retransmit"]
        counts["tshark_only"] += tf["retransmit"] and not retrans
        att = bf.get("att")
        sender = (ll.get("access_address"), ll.get("sender"))
        if decrypted:
            counts["decrypted"] += 1
            if retrans:
                counts["retrans"] += 1
                if bf.get("att") is not None:
                    problems.append(f"frame {frame}: a retransmitted copy's ATT counted again")
            else:
                counts["decrypted_att"] += bf.get("att") is not None
            continue
        if retrans:
            counts["retrans"] += 1
            if tf["att"]:
                counts["retrans_att"] += 1
                if last_att.get(sender) != (tf["att"][-1], tuple(tf["handles"])):
                    problems.append(f"frame {frame}: retransmission, but tshark's ATT differs from the original's")
            if att is not None:
                problems.append(f"frame {frame}: a retransmitted copy's ATT counted again")
            continue
        if tf["att"]:
            last_att[sender] = (tf["att"][-1], tuple(tf["handles"]))
        if bool(tf["att"]) != (att is not None):
            problems.append(f"frame {frame}: ATT tshark {tf['att']} blecap {att and att['opcode']}")
            continue
        if not tf["att"]:
            continue
        counts["att"] += 1
        if tf["att"][-1] != att["opcode"]:
            problems.append(f"frame {frame}: ATT opcode tshark 0x{tf['att'][-1]:02x} blecap 0x{att['opcode']:02x}")
        elif tf["att"][-1] in HANDLE_OPCODES and len(tf["handles"]) == 1:
            counts["handles"] += 1
            if tf["handles"][0] != att.get("handle"):
                problems.append(f"frame {frame}: handle tshark 0x{tf['handles'][0]:04x} blecap {att.get('handle')}")
    summary = (f"{len(t)} frames, {counts['att']} ATT opcodes, {counts['handles']} handles, "
               f"{counts['control']} LL control, {counts['crc_bad']} CRC errors (+{counts['crc_only_blecap']} "
               f"tshark cannot check), {counts['retrans']} retransmissions ({counts['retrans_att']} copies of an ATT "
               f"PDU not counted again; tshark's SN-only rule: {counts['tshark_retrans']}, of which "
               f"{counts['tshark_only']} repeat an SN with new content)"
               + (f", {counts['decrypted']} PDUs decrypted by blecap ({counts['decrypted_att']} ATT PDUs tshark "
                  f"cannot read)" if counts["decrypted"] else ""))
    return problems, summary


INSTANT_FIELDS = ("frame.number", "frame.time_epoch", "btle.link_layer_data.access_address",
                  "btle.link_layer_data.interval", "btle.access_address", "btle.control_opcode", "btle.control.instant",
                  "btle.control.m_to_s_phy", "btle.control.s_to_m_phy", "btle.control.channel_map",
                  "nordic_ble.event_counter", "btle_rf.phy")


def check_instants(blecap, path):
    """LL_PHY_UPDATE_IND and LL_CHANNEL_MAP_IND take effect at their instant (Core 5.4 Vol 6 Part
    B 5.1.10, 5.1.2): blecap's connection.phy / connection.channel_map must be at the frame
    tshark's decode says the instant was reached, with tshark's field values. Where it is known:
    the first later frame on the access address whose nRF Sniffer event counter reached the
    instant; for a PHY change on a 256 capture, the connection event of the first later frame
    the pseudo-header shows on the new PHY (blecap counts events at the central's PDUs, and
    Sniffle acting as the central logs its own after the peripheral's answer: within half an
    interval of that frame). Otherwise only the values and the count are compared."""
    args = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
    for f in INSTANT_FIELDS:
        args += ["-e", f]
    out = subprocess.run(args + TSHARK_USER_DLTS, capture_output=True, text=True, check=True).stdout
    rows, intervals = [], {}
    for line in out.splitlines():
        cols = (line.split("|") + [""] * len(INSTANT_FIELDS))[:len(INSTANT_FIELDS)]
        num = lambda v: int(v, 16 if v.startswith("0x") else 10) if v else None
        frame, time, connect_aa, interval, aa, op, instant, c2p, p2c, chm, counter, phy = cols
        if connect_aa and interval:  # a CONNECT_IND: the connection's interval in seconds
            intervals[num(connect_aa)] = num(interval) * 0.00125
        rows.append({"frame": int(frame), "time": float(time), "aa": num(aa), "op": num(op), "instant": num(instant),
                     "c2p": num(c2p), "p2c": num(p2c), "chm": int.from_bytes(bytes.fromhex(chm), "little") if chm else None,
                     "counter": num(counter), "phy": num(phy)})
    p = subprocess.run([blecap, "timeline", "--format", "jsonl", path], capture_output=True, text=True)
    problems = []
    if p.returncode != 0:
        return [f"blecap exited {p.returncode}: {p.stderr.strip()[:200]}"], "not run"
    # Procedures in PDUs only blecap can read (it decrypted them; tshark sees ciphertext).
    pk = subprocess.run([blecap, "packets", "--format", "jsonl", path], capture_output=True, text=True)
    hidden = 0
    for line in pk.stdout.splitlines():
        ll = json.loads(line).get("ll", {})
        hidden += bool(ll.get("decrypted") and not ll.get("retransmission") and ll.get("control_opcode") in (0x01, 0x18))
    applied = {"connection.phy": {}, "connection.channel_map": {}}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        if e["type"] in applied:
            applied[e["type"]].setdefault(e["frame"], []).append(e)
    hci_phy = lambda bits: 1 if bits & 1 else 2 if bits & 2 else 3 if bits & 4 else 0
    seen, placed, valued = set(), 0, 0
    for i, r in enumerate(rows):
        if r["op"] not in (0x01, 0x18) or (r["aa"], r["op"], r["instant"]) in seen:
            continue
        seen.add((r["aa"], r["op"], r["instant"]))  # a retransmitted copy is the same procedure
        kind = "connection.phy" if r["op"] == 0x18 else "connection.channel_map"
        no_change = r["op"] == 0x18 and not r["c2p"] and not r["p2c"]
        expected = r["frame"] if no_change else None
        later = [x for x in rows[i + 1:] if x["aa"] == r["aa"]]
        if expected is None and r["counter"] is not None and r["instant"] is not None:
            expected = next((x["frame"] for x in later if x["counter"] is not None
                             and (x["counter"] - r["instant"]) & 0xFFFF < 0x8000), None)
        elif expected is None and r["op"] == 0x18 and r["phy"] is not None and r["c2p"] == r["p2c"]:
            new = {1: 0, 2: 1, 4: 2}.get(r["c2p"])
            if new is not None and new != r["phy"]:
                expected = next((x["frame"] for x in later if x["phy"] == new), None)
        if expected is not None and r["counter"] is None and not no_change and r["aa"] in intervals:
            # The same connection event: blecap's frame within half an interval after tshark's.
            t0 = next(x["time"] for x in later if x["frame"] == expected)
            same = [x["frame"] for x in later if t0 <= x["time"] < t0 + intervals[r["aa"]] / 2]
            expected = next((f for f in same if f in applied[kind]), expected)
        if expected is not None:
            placed += 1
            if expected not in applied[kind]:
                problems.append(f"frame {r['frame']}: {kind} expected at frame {expected} (tshark), "
                                f"blecap has it at {sorted(applied[kind])}")
                continue
        # The values: wherever blecap placed it, the first such event after the PDU.
        at = expected if expected is not None else min((f for f in applied[kind] if f >= r["frame"]), default=None)
        if at is None:
            problems.append(f"frame {r['frame']}: no {kind} after it")
            continue
        e = applied[kind][at][0]
        valued += 1
        if r["op"] == 0x01 and e.get("channel_map") != r["chm"]:
            problems.append(f"frame {at}: channel_map blecap {e.get('channel_map')} tshark {r['chm']}")
        if r["op"] == 0x18:
            for key, bits in (("tx_phy", r["c2p"]), ("rx_phy", r["p2c"])):
                if bits and e.get(key) != hci_phy(bits):
                    problems.append(f"frame {at}: {key} blecap {e.get(key)} tshark PHY bits {bits:#x}")
    count = sum(len(v) for d in applied.values() for v in d.values())
    if count != len(seen) + hidden:
        problems.append(f"{len(seen)} PHY/channel map procedures in tshark (+{hidden} only blecap decrypted), "
                        f"{count} events in blecap")
    return problems, (f"{len(seen)} LL_PHY_UPDATE_IND/LL_CHANNEL_MAP_IND, {placed} placed at their instant "
                      f"by tshark's decode, {valued} values compared"
                      + (f", {hidden} in PDUs only blecap decrypted" if hidden else ""))


def check_refused(blecap, path, expected_texts):
    p = subprocess.run([blecap, "packets", path], capture_output=True, text=True)
    problems = []
    if p.returncode != EXIT_UNREADABLE:
        problems.append(f"exit {p.returncode}, expected {EXIT_UNREADABLE}")
    if not any(t in p.stderr for t in expected_texts):
        problems.append(f"stderr lacks any of {expected_texts}: {p.stderr.strip()[:200]}")
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


ANDROID_VENDOR = ("bthci_cmd.opcode == 0xfd57 || bthci_cmd.opcode == 0xfd53"
                  " || bthci_evt.opcode == 0xfd57 || bthci_evt.opcode == 0xfd53")
BROADCOM = ("bthci_vendor.broadcom.le.advertising_filter.subcode", "bthci_vendor.broadcom.le.scan_condition",
            "bthci_vendor.broadcom.le.filter_index", "bthci_vendor.broadcom.filter_support",
            "bthci_vendor.broadcom.max_filter")
RAW_FALLBACK = {"parameters", "return_parameters", "remaining", "trailing", "beyond_length"}


def tshark_android_vendor(path):
    """{frame: (opcode, is_command, parameter bytes, broadcom fields)} for the APCF/capability
    commands and their Command Completes; parameters are the last parameter_total_length bytes
    of the frame (tshark's hex)."""
    out = subprocess.run(["tshark", "-r", path, "-Y", ANDROID_VENDOR, "-T", "json", "-x"],
                         capture_output=True, text=True).stdout
    frames = {}
    for pkt in json.loads(out or "[]"):
        layers = pkt["_source"]["layers"]
        raw = bytes.fromhex(layers["frame_raw"][0])
        num = int(layers["frame"]["frame.number"])
        if "bthci_cmd" in layers:
            c = layers["bthci_cmd"]
            n = int(c["bthci_cmd.param_length"])
            opcode, command, params = int(c["bthci_cmd.opcode"], 16), True, raw[len(raw) - n:]
        else:
            e = layers["bthci_evt"]
            if int(e["bthci_evt.code"], 16) != 0x0E:
                continue  # Command Status: no return parameters
            n = int(e["bthci_evt.param_length"])
            opcode, command, params = int(e["bthci_evt.opcode"], 16), False, raw[len(raw) - n + 3:]
        broadcom = {}
        def walk(o):
            if isinstance(o, dict):
                for k, v in o.items():
                    if k in BROADCOM and isinstance(v, str):
                        broadcom[k] = int(v, 0) if v not in ("True", "False") else int(v == "True")
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)
        walk(layers.get("bthci_vendor.broadcom", {}))
        frames[num] = (opcode, command, params, broadcom)
    return frames


def apcf_reference(opcode, command, p):
    """The fields blecap must show, decoded here from the bytes per AOSP
    (btm_ble_adv_filter.cc, hci_packets.pdl LeAdvFilter*, LeGetVendorCapabilitiesComplete)."""
    want = {}
    if opcode == 0xFD53:
        if not command:
            want["status"] = p[0]
            if len(p) >= 9:
                want.update(filtering_support=p[6], max_filter=p[7])
            if len(p) >= 11:
                want["version_supported"] = p[9] | p[10] << 8
        return want
    if command:
        sub = p[0]
        want["apcf_opcode"] = sub
        if sub == 0x00 and len(p) > 1:
            want["apcf_enable"] = p[1]
        if 0x01 <= sub <= 0x09 and len(p) > 1:
            want["apcf_action"] = p[1]
            if len(p) > 2:
                want["apcf_filter_index"] = p[2]
            body = p[3:]
            if sub == 0x01 and p[1] == 0 and len(body) >= 7:
                want["apcf_feature_selection"] = body[0] | body[1] << 8
                want["delivery_mode"] = body[6]
            if p[1] != 2:
                if sub == 0x02 and len(body) == 7:
                    want["apcf_broadcaster_address"] = ":".join(f"{b:02X}" for b in reversed(body[:6]))
                if sub in (0x03, 0x04) and len(body) in (4, 8):
                    n = len(body) // 2
                    want["apcf_uuid"] = f"{int.from_bytes(body[:n], 'little'):0{2 * n}X}"
                if sub == 0x06 and len(body) >= 4 and len(body) % 2 == 0:
                    want["apcf_company_id"] = body[0] | body[1] << 8
                    want["apcf_company_id_mask"] = body[len(body) // 2] | body[len(body) // 2 + 1] << 8
                if sub == 0x07 and len(body) % 2 == 0:
                    want["apcf_service_data"] = body[:len(body) // 2].hex()
                    want["apcf_mask"] = body[len(body) // 2:].hex()
    else:
        want["status"] = p[0]
        if len(p) > 1:
            want["apcf_opcode"] = p[1]
        if len(p) > 2 and p[1] == 0x00:
            want["apcf_enable"] = p[2]
        if len(p) > 3 and 0x01 <= p[1] <= 0x09:
            want.update(apcf_action=p[2], apcf_available_spaces=p[3])
    return want


def flatten(fields, out):
    for f in fields:
        if "note" in f:
            out.setdefault("!notes", []).append(f["note"])
        elif "fields" in f:
            flatten(f["fields"], out)
        if "name" in f:
            out.setdefault(f["name"], f.get("value"))
    return out


def check_android_vendor(blecap, path):
    """Every APCF (0xFD57) and LE Get Vendor Capabilities (0xFD53) command and Command Complete:
    decoded by name, with no note and no raw fallback, its fields equal to the reference decode of
    tshark's bytes and to tshark's Broadcom dissector where it has one."""
    t = tshark_android_vendor(path)
    if not t:
        return [], "no Android APCF/capability frames"
    p = subprocess.run([blecap, "packets", "--format", "json", path], capture_output=True, text=True)
    frames = {o["frame"]: o for o in json.loads(p.stdout)}
    problems = []
    broadcom_compared = 0
    for num, (opcode, command, params, broadcom) in sorted(t.items()):
        o = frames.get(num)
        if o is None:
            problems.append(f"frame {num}: not in blecap's output")
            continue
        name = o["hci"].get("name") if command else o["hci"].get("command")
        if name not in ("LE Advertising Packet Content Filter", "LE Get Vendor Capabilities"):
            problems.append(f"frame {num}: blecap names it {name!r}")
        fields = flatten(o.get("fields", []), {})
        if "malformed" in o or "!notes" in fields:
            problems.append(f"frame {num}: {o.get('malformed') or fields['!notes']}")
        raw = RAW_FALLBACK & set(fields)
        if raw:
            problems.append(f"frame {num}: raw fallback {sorted(raw)}")
        for k, v in apcf_reference(opcode, command, params).items():
            if fields.get(k) != v:
                problems.append(f"frame {num}: {k} blecap {fields.get(k)!r}, bytes {v!r}")
        # tshark's Broadcom dissector (company 15): sub-command, then action and index for the
        # filter sub-commands (its "scan condition" of Enable is the enable byte); capabilities.
        if broadcom:
            broadcom_compared += 1
            sub = broadcom.get("bthci_vendor.broadcom.le.advertising_filter.subcode")
            if sub is not None and fields.get("apcf_opcode") != sub:
                problems.append(f"frame {num}: sub-command blecap {fields.get('apcf_opcode')}, tshark {sub}")
            if sub is not None and 0x01 <= sub <= 0x09:
                for tk, bk in (("bthci_vendor.broadcom.le.scan_condition", "apcf_action"),
                               ("bthci_vendor.broadcom.le.filter_index", "apcf_filter_index")):
                    if tk in broadcom and fields.get(bk) != broadcom[tk]:
                        problems.append(f"frame {num}: {bk} blecap {fields.get(bk)}, tshark {broadcom[tk]}")
            for tk, bk in (("bthci_vendor.broadcom.filter_support", "filtering_support"),
                           ("bthci_vendor.broadcom.max_filter", "max_filter")):
                if tk in broadcom and fields.get(bk) != broadcom[tk]:
                    problems.append(f"frame {num}: {bk} blecap {fields.get(bk)}, tshark {broadcom[tk]}")
    return problems, f"{len(t)} APCF/capability frames ({broadcom_compared} against tshark's Broadcom dissector)"


def check_connections(blecap, path):
    """LE connection attempts that completed (any status; subevents 0x01, 0x0A, 0x29) and
    Disconnection Complete events: blecap's timeline against tshark's count of those events."""
    def tshark_count(flt):
        out = subprocess.run(["tshark", "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"],
                             capture_output=True, text=True).stdout
        return len(out.split())
    t_le = tshark_count("bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a"
                        " || bthci_evt.le_meta_subevent == 0x29")
    t_disc = tshark_count("bthci_evt.code == 0x05")
    p = subprocess.run([blecap, "timeline", "--format", "jsonl", "--type", "connection.*", path],
                       capture_output=True, text=True)
    b_le = b_disc = 0
    for line in p.stdout.splitlines():
        e = json.loads(line)
        if e["type"] in ("connection.complete", "connection.failed") and e.get("transport") == "le":
            b_le += 1
        elif e["type"] == "connection.disconnect":
            b_disc += 1
    problems = []
    if (b_le, b_disc) != (t_le, t_disc):
        problems.append(f"LE connections/disconnections blecap {b_le}/{b_disc}, tshark {t_le}/{t_disc}")
    return problems, f"{t_le} LE connection events, {t_disc} disconnections"


# What blecap lint must say about captures the unit tests cannot read because their licence keeps
# them out of the repository (each fact was checked against tshark's decode when it was written):
#   ("finding", slug, n, text)  exactly n findings of the rule, each message containing text
#   ("frames", slug, [f, ...])  the rule's findings start at these frames
#   ("first", slug, [f, ...])   the rule's findings' first (primary) evidence frames, in order
#   ("none", slug)              no finding of the rule, and the rule was evaluated (in part at least)
#   ("partial", slug, text)     a partial not-evaluated note of the rule containing text
#   ("whole", slug, text)       the rule not evaluable on the whole capture, the reason containing text
#   ("connections", [handle, ...]) `blecap info` lists exactly these connections, by handle
# unfiltered-scan on the Android captures (offloaded scan filters, APCF 0xFD57), checked against
# the bytes with `tshark -Y 'bthci_cmd.opcode == 0xfd57 || bthci_evt.opcode == 0xfd57 ||
# bthci_cmd.opcode == 0x200c || bthci_cmd.opcode == 0x2042' -x`. A finding's first frame is the
# scan start, or the Command Complete of the all-pass set-up when the scan was already running;
# "all-pass" = Set Filtering Parameters add (01 00 <index> 00 00 …: feature selection 0x0000).
# Issue 27: one finding per scanning session of the app (all-pass set-ups, scan restarts and the
# app's own filtered phases less than 15 s apart merged, "restarted N times"), the index-0
# all-pass filter + HCI Inquiry named as the stack's device discovery, the party in the message.
# (domyos is checked by the unit tests.)
APCF_FACTS = {
    # Scan on at 275 (LE Set Extended Scan Enable 01); APCF enable 279; index 1 all-pass at 281,
    # status 0 at 282.
    "public/btsnoop-android_bk300.log.last": [
        ("first", "unfiltered-scan", [282]), ("finding", "unfiltered-scan", 1, "Party: this app"),
    ],
    # Scan on at 185; index 1 all-pass at 211, confirmed 212 (earlier filters: UUIDs FE2C, FEA0,
    # FEAA, FEF3, manufacturer 0x00E0 and Apple iBeacon).
    "public/btsnoop-android_dsd6-fitness-band.log": [
        ("first", "unfiltered-scan", [212]), ("finding", "unfiltered-scan", 1, "all-pass filter index 1"),
    ],
    # Extended scan on at 298; APCF enable 320; index 1 all-pass at 322, confirmed 323; deleted 535.
    "public/btsnoop-android_nexxtender-charger-pairing.log": [
        ("first", "unfiltered-scan", [323]), ("finding", "unfiltered-scan", 1, "all-pass filter index 1"),
    ],
    # No Reset: the capture starts with APCF enable (1) and index 1 all-pass (3), scan on at 11;
    # the same pair is set up again before or during the scans at 73 (75/77, confirmed 78), 301
    # (305/307), 569 (576/578), 661 (788/790), each deleted again (01 01 01) at 63, 91, 321, 592,
    # 821. No service-UUID condition at all. Sessions: 11 (removed at 63, re-installed 68 ms later
    # at 77: one session, restarted once); 308, 579, 791 (index 1 gone 13-14 s between them, the
    # app reconnecting in between): one session restarted twice. 92 -> 308 is 24 s: two sessions.
    "public/btsnoop-android_pogo-plus-pairing-1970clock.log": [
        ("first", "unfiltered-scan", [11, 308]),
        ("finding", "unfiltered-scan", 2, "all-pass filter index 1"),
        ("partial", "unfiltered-scan", "no HCI Reset"),
    ],
    # Scan on at 180; index 1 all-pass at 198, confirmed 199 (the others: service data 2CFE…,
    # UUIDs FE2C and FEF3).
    "public/btsnoop-android_rc-toy-ae01-writes.log": [
        ("first", "unfiltered-scan", [199]), ("finding", "unfiltered-scan", 1, "all-pass filter index 1"),
    ],
    # LE Get Vendor Capabilities at 21 is answered by a Command Complete for opcode 0xFFFF with
    # status 0x01; no APCF command at all: the host filters.
    "public/btsnoop-android_sphero-large.log": [("whole", "unfiltered-scan", "0xFD57")],
    # Samsung: all-pass set-ups at indices 0, 6, 9, 12, 15, 8, 4, 13, 11 (as this stack chose
    # them); checked: scan on at 238, index 0 all-pass at 441 (01 00 00 00 00 01 00 00 81 …),
    # confirmed 442 (the delete at 439 failed with 0x17); scan on at 648, the same at 676/677;
    # APCF enable 6032, index 15 all-pass 6034/6035, scan on at 6038. The first scans (before
    # 213) precede any APCF Enable. Index 0 at 442 and 677 with HCI Inquiry at 451 and 686: the
    # stack's device discovery (one session). From 1397 the app cycles every ~10 s between its
    # all-pass index and its Apple 0x004C / AltBeacon 0x0118 manufacturer filters: one session.
    "public/btsnoop-samsung_nexxtender-charger.cfa": [
        ("first", "unfiltered-scan", [442, 1397]),
        ("finding", "unfiltered-scan", 2, "Party: "),
        ("partial", "unfiltered-scan", "before the capture showed"),
    ],
    # Moto G6 (pcap): APCF enable 121, index 1 all-pass 123, scan on at 127.
    "public/pcap-h4phdr201_beancounter-hci.pcap": [
        ("first", "unfiltered-scan", [127]), ("finding", "unfiltered-scan", 1, "all-pass filter index 1"),
    ],
    # No Reset; the scan at 7 precedes any APCF Enable; scan on at 123, index 1 all-pass at 171,
    # confirmed 172.
    "public/pcapng-h4phdr201_airbily-smartwatch.pcapng": [
        ("first", "unfiltered-scan", [172]), ("finding", "unfiltered-scan", 1, "all-pass filter index 1"),
        ("partial", "unfiltered-scan", "before the capture showed"), ("partial", "unfiltered-scan", "no HCI Reset"),
    ],
    # Starts mid-connection: no HCI command at all.
    "public/pcap-h4phdr201-nsec_infocar-obd.pcap": [("whole", "unfiltered-scan", "0xFD57")],
}

LINT_FACTS = {
    # Pokémon GO Plus: Android asks for MITM, the accessory has no IO and no SC: LE legacy Just
    # Works, three times; an accept-list create cancelled after 4 ms and not re-issued.
    "public/btsnoop-android_pogo-plus-pairing-1970clock.log": [
        ("finding", "insecure-pairing", 3, "Just Works (LE legacy pairing)"),
        ("none", "peripheral-not-retained"),
        ("partial", "peripheral-not-retained", "accept list"),
    ],
    # btmon on a Linux laptop: bluetoothd's Start Discovery without a filter at frame 118; a 0x3E
    # loss on 54:5E:30:C3:2C:DB 0.3 s before the capture ends.
    "public/btsnoop-btmon_blue2thprinting-intel-scan.snoop": [
        ("frames", "unfiltered-scan", [118]),
        ("none", "reconnect-storm"),
        ("partial", "reconnect-storm", "54:5E:30:C3:2C:DB"),
    ],
    # MGMT Open only: no discovery started.
    "public/btsnoop-btmon_batteread-header-only.btsnoop": [("none", "unfiltered-scan")],
    # OBD dongle, starts mid-connection: 137 Write Commands to handles never discovered; 259
    # notifications and no CCCD write in the capture (tshark), so their subscriptions could predate it.
    "public/pcap-h4phdr201-nsec_infocar-obd.pcap": [
        ("none", "unchecked-write"),
        ("partial", "unchecked-write", "never discovered"),
        ("whole", "write-without-response-flow", "LE Read Buffer Size"),
        ("partial", "notify-without-subscription", "started before the capture"),
        # 396 ACL frames on handle 0x000A (the dongle's link); 22 vendor records on 0x0EDC with a
        # counter where the channel goes (frame 757: a 481-byte "Read Request" on 0x0004).
        ("connections", [0x000A]),
    ],
    # Samsung: 482-byte vendor packets on handle 0x0EDC (frames 184-) parse as unanswered Read
    # Requests; after the HCI Reset of frame 1 only a Connection Complete makes a link, and tshark
    # shows five, all status 0 (frames 207, 663, 925, 6158, 10818: handles 0x0002-0x0006).
    "public/btsnoop-samsung_nexxtender-charger.cfa": [
        ("none", "att-protocol"),
        ("connections", [0x0002, 0x0003, 0x0004, 0x0005, 0x0006]),
    ],
    # 12 Android connections, 11 reconnects minutes apart after supervision timeouts.
    "public/btsnoop-android_sphero-large.log": [("none", "gatt-before-connected"), ("none", "reconnect-storm")],
    # A 0x3E loss while an accept-list connection was pending; plain connects.
    "public/btsnoop-android_nexxtender-charger-pairing.log": [
        ("none", "reconnect-storm"), ("none", "peripheral-not-retained"),
    ],
}


for _rel, _facts in APCF_FACTS.items():
    LINT_FACTS.setdefault(_rel, []).extend(_facts)

# Connections on Android captures with vendor debug ACL on handle 0x0EDC (HCI Reset at frame 1):
# only the successful LE Connection Completes tshark shows are links (bk300: 317 on 0x0001, the
# status-0x02 attempts at 154, 312 and 534 are none; dsd6: 367 on 0x0002).
LINT_FACTS["public/btsnoop-android_bk300.log.last"].append(("connections", [0x0001]))
LINT_FACTS["public/btsnoop-android_dsd6-fitness-band.log"].append(("connections", [0x0002]))

# BLE012 counts each characteristic once per peer, without GAP's and GATT's (issue 17 item 1),
# checked against tshark's Read By Type (0x2803) responses and the handles of reads, writes,
# CCCD writes and notifications: pogo-plus discovers one 5-service database (14 characteristics,
# 5 of them GAP/GATT) three times and uses 6 of 9; sphero 12 times 11 (7 the app's, 5 used);
# bk300, rc-toy and airbily use every characteristic outside GAP/GATT (2/2, 2/2, 4/4).
for _rel in ("public/btsnoop-android_pogo-plus-pairing-1970clock.log", "public/btsnoop-android_sphero-large.log",
             "public/btsnoop-android_bk300.log.last", "public/btsnoop-android_rc-toy-ae01-writes.log",
             "public/pcapng-h4phdr201_airbily-smartwatch.pcapng"):
    LINT_FACTS.setdefault(_rel, []).append(("none", "full-discovery"))

# BLE004 on Android judges the app's scan only (issue 27): pogo-plus deletes its all-pass index 1
# before each Create Connection (91 -> 111, 321 -> 341, 592 -> 604), the low-power scan running on
# has no filter of the app; sphero (no APCF) drops the window from 2000 to 500 ms of 5000
# (balanced -> low power) just before each Create Connection (e.g. 1516 -> 1518) and after the
# link losses at 19555 and 20096 only that low-power scan runs until the app's balanced scan
# returns 18-22 s later; nexxtender-pairing: after 1120 only the OS's filters (FEF3, Fast Pair
# FE2C group) are in force; bk300: the accept-list connection at 315/317 to B3:00:69:77:51:08
# comes after the app's all-pass index 1 was deleted (301), with only an address filter for
# CE:1B:85:9C:E8:FB of the app in force.
for _rel in ("public/btsnoop-android_pogo-plus-pairing-1970clock.log", "public/btsnoop-android_sphero-large.log",
             "public/btsnoop-android_nexxtender-charger-pairing.log", "public/btsnoop-android_bk300.log.last"):
    LINT_FACTS[_rel].append(("none", "scan-left-running"))


def check_lint_facts(blecap, path, facts):
    p = subprocess.run([blecap, "lint", "--format", "json", "--fail-on", "never", path], capture_output=True, text=True)
    if p.returncode != 0:
        return [f"blecap lint exit {p.returncode}: {p.stderr.strip()[:200]}"], "lint failed"
    capture = json.loads(p.stdout)["captures"][0]
    findings, notes = capture["findings"], capture["not_evaluated"]
    problems = []
    for fact in facts:
        kind, slug = fact[0], fact[1]
        mine = [f for f in findings if f["slug"] == slug]
        if kind == "finding":
            n, text = fact[2], fact[3]
            if len(mine) != n or not all(text in f["message"] for f in mine):
                problems.append(f"{slug}: expected {n} findings with '{text}', got {[f['message'][:80] for f in mine]}")
        elif kind == "frames":
            got = [min(f["frames"]) for f in mine]
            if got != fact[2]:
                problems.append(f"{slug}: findings at {got}, expected {fact[2]}")
        elif kind == "first":
            got = [f["frames"][0] for f in mine]
            if got != fact[2]:
                problems.append(f"{slug}: findings first at {got}, expected {fact[2]}")
        elif kind == "none":
            if mine:
                problems.append(f"{slug}: unexpected findings {[f['message'][:80] for f in mine]}")
            if any(n["slug"] == slug and n["whole"] for n in notes):
                problems.append(f"{slug}: not evaluated at all")
        elif kind == "connections":
            info = subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True)
            got = [c["handle"] for c in json.loads(info.stdout)["connections"]]
            if got != fact[1]:
                problems.append(f"connections on handles {[hex(h) for h in got]}, expected {[hex(h) for h in fact[1]]}")
            continue
        elif kind in ("partial", "whole"):
            want_whole = kind == "whole"
            if not any(n["slug"] == slug and n["whole"] == want_whole and fact[2] in n["reason"] for n in notes):
                problems.append(f"{slug}: no {kind} not-evaluated note with '{fact[2]}'")
    return problems, f"{len(facts)} facts, {len(findings)} findings"


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
    if is_link_layer(name):
        # A sniffed connection's page has the link-layer charts (channel use, RSSI per side,
        # retransmissions); an advertising-only capture has none to draw.
        info = json.loads(subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True).stdout)
        if info["connection_count"] and 'data-chart="channels"' not in dom:
            problems.append("link-layer charts missing for a capture with connections")
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


# Drives the report's controls in the page itself: appended after the page's own script, so it
# runs once the page is drawn, acts through the DOM's events (input, change, click) as a user
# would, and writes what it saw into <pre id="selftest"> for --dump-dom to carry out. Injected
# into a copy of the page rather than read from a hook in the product: the shipped page holds
# no test code, and a file:// page cannot reach into an iframe without relaxing Chromium's
# file-origin rules.
CONTROLS_SELFTEST = r"""
<script>
(function () {
  const out = { ok: document.body.getAttribute("data-ready") === "1" };
  try {
    const art = document.querySelector("article.capture");
    const rows = () => Array.from(art.querySelectorAll("[data-search-row]"));
    const seen = () => rows().map(r => ({ hidden: r.hidden, text: r.textContent.toLowerCase(), connection: r.getAttribute("data-connection"), tag: r.tagName }));
    const series = chart => Array.from(art.querySelectorAll('svg[data-chart="' + chart + '"] [data-series]')).map(e => e.getAttribute("data-series"));
    const legend = chart => Array.from(art.querySelector('svg[data-chart="' + chart + '"]').parentNode.querySelectorAll(".legend .series"));
    const search = art.querySelector('[data-control="search"]'), count = art.querySelector('[data-control="search-count"]');
    const pick = art.querySelector('[data-control="connection"]');
    out.options = Array.from(pick.options).map(o => o.textContent);
    out.rows = seen().length;
    search.value = TERM;
    search.dispatchEvent(new Event("input", { bubbles: true }));
    out.search = { rows: seen(), count: count.textContent };
    search.value = "";
    search.dispatchEvent(new Event("input", { bubbles: true }));
    out.cleared = seen().filter(r => !r.hidden).length;
    if (CONNECTION !== null) {
      pick.value = String(CONNECTION);
      pick.dispatchEvent(new Event("change", { bubbles: true }));
      out.pick = { rows: seen(), count: count.textContent, bars: art.querySelectorAll('svg[data-chart="timeline"] rect.conn-bar').length, parameters: series("parameters") };
      pick.value = "";
      pick.dispatchEvent(new Event("change", { bubbles: true }));
      out.unpicked = { bars: art.querySelectorAll('svg[data-chart="timeline"] rect.conn-bar').length, parameters: series("parameters") };
      const entry = legend("parameters")[0];
      const key = entry.getAttribute("data-series");
      entry.click();
      out.legend = { key: key, off: entry.classList.contains("off"), struck: getComputedStyle(entry).textDecorationLine, parameters: series("parameters") };
      entry.click();
      out.legendAgain = { off: entry.classList.contains("off"), parameters: series("parameters") };
    }
    const others = art.querySelector(".legend .others");
    out.rssiBefore = series("rssi");
    if (others) {
      out.folded = Number(others.getAttribute("data-folded"));
      others.click();
      out.rssiAfter = series("rssi");
      out.rssiLegendAfter = legend("rssi").filter(e => !e.classList.contains("others")).map(e => e.getAttribute("data-series"));
    }
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  const pre = document.createElement("pre");
  pre.id = "selftest";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def run_controls_selftest(blecap, capture, tmp, term, connection):
    """The page of `capture` with CONTROLS_SELFTEST appended, through headless Chromium: what the
    script saw (a dict), or a problem string."""
    page = os.path.join(tmp, "controls-" + os.path.basename(capture) + ".html")
    r = subprocess.run([blecap, "report", "-o", page, capture], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(page):
        return f"report {capture}: exit {r.returncode}"
    page_html = open(page, encoding="utf-8").read()
    script = CONTROLS_SELFTEST.replace("TERM", json.dumps(term)).replace("CONNECTION", json.dumps(connection))
    with open(page, "w", encoding="utf-8") as f:
        f.write(page_html.replace("</body>", script + "</body>"))
    d = subprocess.run(CHROMIUM + ["--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", "file://" + os.path.abspath(page)],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="selftest">(.*?)</pre>', d.stdout, re.S)
    if not m:
        return f"no self-test result in the DOM of {os.path.basename(capture)}"
    return json.loads(html.unescape(m.group(1)))


def check_report_controls(blecap, tmp):
    """The report's controls in headless Chromium, on shipped captures (captures/): the search box
    filters rows case-insensitively and counts them, the connection filter keeps one
    connection's rows, bars and series, a legend entry toggles its series, and the folded RSSI
    entry expands. No shipped capture has both several connections and more than six
    advertisers: reconnect_storm (6 connections) drives the first three, domyos (8 advertisers,
    2 folded) the last."""
    captures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
    problems = []
    storm = os.path.join(captures, "bumble", "reconnect_storm.central.btsnoop")
    # Lower case on purpose: the page shows the peer's address in upper case.
    r = run_controls_selftest(blecap, storm, tmp, "d8:0d:18", 3)
    if isinstance(r, str):
        return [r], "no result"
    if not r.get("ok") or r.get("error"):
        return [f"reconnect_storm page: ready {r.get('ok')}, error {r.get('error')}"], "script failed"
    rows = r["search"]["rows"]
    shown = [x for x in rows if not x["hidden"]]
    if not shown or len(shown) == len(rows):
        problems.append(f"search 'd8:0d:18' shows {len(shown)} of {len(rows)} rows (expected some, not all)")
    problems += [f"search shows a row without the text: {x['text'][:80]}" for x in shown if "d8:0d:18" not in x["text"]][:3]
    problems += [f"search hides a row with the text: {x['text'][:80]}" for x in rows if x["hidden"] and "d8:0d:18" in x["text"]][:3]
    if r["search"]["count"] != f"{len(shown)} of {len(rows)} rows":
        problems.append(f"search count says {r['search']['count']!r}, {len(shown)} of {len(rows)} rows shown")
    if r["cleared"] != r["rows"]:
        problems.append(f"an empty search shows {r['cleared']} of {r['rows']} rows")
    info = json.loads(subprocess.run([blecap, "info", "--format", "json", storm], capture_output=True, text=True).stdout)
    want = [f"#{c['connection']} handle 0x{c['handle']:04x} {c['peer']}" for c in info["connections"]]
    if [o.split(" PulseBelt")[0] for o in r["options"][1:]] != want:
        problems.append(f"connection filter lists {r['options'][1:]}, info gives {want}")
    picked = r["pick"]
    conns = [x for x in picked["rows"] if x["tag"] == "DETAILS" and x["connection"] is not None and not x["hidden"]]
    if [x["connection"] for x in conns] != ["3"]:
        problems.append(f"connection 3 chosen: connections shown {[x['connection'] for x in conns]}")
    if any(not x["hidden"] and x["connection"] not in (None, "3") for x in picked["rows"]):
        problems.append("connection 3 chosen: another connection's row is still shown")
    if picked["bars"] != 1 or r["unpicked"]["bars"] != len(info["connections"]):
        problems.append(f"timeline bars: {picked['bars']} with #3 chosen, {r['unpicked']['bars']} with all")
    if set(picked["parameters"]) - {"#3"} or set(r["unpicked"]["parameters"]) <= {"#3"}:
        problems.append(f"parameter series {picked['parameters']} with #3 chosen, {r['unpicked']['parameters']} with all")
    lg = r["legend"]
    if not lg["off"] or "line-through" not in lg["struck"] or lg["key"] in lg["parameters"] or lg["key"] not in r["unpicked"]["parameters"]:
        problems.append(f"legend click on {lg['key']}: off {lg['off']}, style {lg['struck']}, series {lg['parameters']}")
    if r["legendAgain"]["off"] or lg["key"] not in r["legendAgain"]["parameters"]:
        problems.append(f"second legend click on {lg['key']} did not bring the series back")
    summary = f"search {len(shown)} of {len(rows)} rows; #3 alone ({picked['bars']} bar); legend {lg['key']} toggled"

    domyos = os.path.join(captures, "public", "btsnoop-android_domyos-treadmill-ftms.log")
    r = run_controls_selftest(blecap, domyos, tmp, "flower", None)
    if isinstance(r, str):
        return problems + [r], summary
    if not r.get("ok") or r.get("error"):
        return problems + [f"domyos page: ready {r.get('ok')}, error {r.get('error')}"], summary
    info = json.loads(subprocess.run([blecap, "info", "--format", "json", domyos], capture_output=True, text=True).stdout)
    ranked = [d["address"] for d in sorted(info["devices"], key=lambda d: -d["reports"])]
    shown = [x for x in r["search"]["rows"] if not x["hidden"]]
    if len(shown) != 1 or "flower care" not in shown[0]["text"]:
        problems.append(f"search 'flower' shows {[x['text'][:40] for x in shown]}")
    if sorted(r["rssiBefore"]) != sorted(ranked[:6]):
        problems.append(f"RSSI drawn at first {r['rssiBefore']}, the six most heard are {ranked[:6]}")
    if r.get("folded") != len(ranked) - 6 or sorted(r.get("rssiAfter", [])) != sorted(ranked) or sorted(r.get("rssiLegendAfter", [])) != sorted(ranked):
        problems.append(f"RSSI 'others' ({r.get('folded')}) expanded to {r.get('rssiAfter')}, legend {r.get('rssiLegendAfter')}")
    summary += f"; RSSI {len(r['rssiBefore'])} drawn, {r.get('folded')} folded, {len(r.get('rssiAfter', []))} expanded"
    return problems, summary


def check_facts_consistency(blecap, root):
    """Issue 28: info, timeline, gatt, lint and the report state the same facts per connection
    (scripts/facts_consistency.py) on every shared capture; zero differences."""
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "facts_consistency.py"),
                        "--blecap", blecap, root], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    problems = [line.strip() for line in lines if line.startswith("FAIL") or line.startswith("       ")]
    if p.returncode != 0 and not problems:
        problems = [f"facts_consistency.py exited {p.returncode}: {p.stderr.strip()[-300:]}"]
    return problems, (lines[-1].replace("facts consistency: ", "") if lines else "no output")


def hci_captures(root):
    """(folder, name, path) of every HCI capture (not link-layer, not unknown) under root."""
    for folder in ("bumble", "formats", "public"):
        d = os.path.join(root, folder)
        for name in sorted(os.listdir(d)):
            if name.endswith(".md") or is_link_layer(name) or name.startswith("unknown-"):
                continue
            yield folder, name, os.path.join(d, name)


def real_captures_with_connections(blecap, root):
    """(name, path) of every capture in public/ (HCI and link layer) in which `blecap info`
    finds a connection."""
    d = os.path.join(root, "public")
    for name in sorted(os.listdir(d)):
        if name.endswith(".md") or name.startswith("unknown-"):
            continue
        path = os.path.join(d, name)
        p = subprocess.run([blecap, "info", "--format", "json", path], capture_output=True, text=True)
        try:
            if json.loads(p.stdout).get("connection_count", 0) > 0:
                yield name, path
        except ValueError:
            continue


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blecap", default=".build/release/blecap")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--screenshots", help="keep the report screenshots in this folder (e.g. docs)")
    ap.add_argument("--only", metavar="TEXT",
                    help="run only the checks whose label contains TEXT (e.g. 'replay --speed max')")
    args = ap.parse_args()

    def wanted(label):
        return args.only is None or args.only in label
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
                if not wanted(f"{folder}/{name}"):
                    continue
                if is_link_layer(name):
                    problems, summary = check_link_layer(args.blecap, path)
                    p2, s2 = check_instants(args.blecap, path)
                    problems += p2
                    summary += "; " + s2
                elif name.startswith("unknown-"):
                    problems, summary = check_refused(args.blecap, path, ("unknown capture format",))
                else:
                    problems, summary = check_hci(args.blecap, path)
                    p2, s2 = check_connections(args.blecap, path)
                    problems += p2
                    summary += "; " + s2
                    p2, s2 = check_android_vendor(args.blecap, path)
                    problems += p2
                    summary += "; " + s2
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

        def record(label, check, *check_args):
            if not wanted(label):
                return
            problems, summary = check(*check_args)
            counts[0 if not problems else 1] += 1
            print(f"{'ok  ' if not problems else 'FAIL'} {label}: {summary}")
            for pr in problems[:20]:
                print(f"       {pr}")
        for folder, name, path in hci_captures(root):
            record(f"archives {folder}/{name}", check_archived, args.blecap, path, tmp)
        for folder, name, path in hci_captures(root):
            record(f"replay {folder}/{name}", check_replay, args.blecap, path, tmp)
        for folder, name, path in hci_captures(root):
            if folder == "bumble" and ".central." in name:
                record(f"replay --speed max {folder}/{name}", check_replay, args.blecap, path, tmp, "max", True)
        # Every real capture with a connection (issue 33), HCI and over the air, at both speeds:
        # the replay reproduces it or names what it cannot, and tshark reads the same PDUs.
        for name, path in real_captures_with_connections(args.blecap, root):
            for speed in ("realtime", "max"):
                record(f"replay real --speed {speed} public/{name}", check_replay, args.blecap, path, tmp, speed, True)
        for folder, name, path in hci_captures(root):
            if folder == "bumble" and ".central." in name:
                record(f"serve {folder}/{name}", check_serve, args.blecap, path, tmp)
            elif folder == "bumble" and ".peripheral" in name:
                record(f"serve --role central {folder}/{name}", check_serve_central, args.blecap, path, tmp)
                # The default role plays the peripheral that recorded it (its advertising.start).
                record(f"serve {folder}/{name}", check_serve, args.blecap, path, tmp)
        # `blecap replay --controller` hosting one of two linked Bumble controllers, a Bumble
        # central on the other (issue 33): the app sees the capture, B's ATT equals blecap's.
        for folder, name, path in hci_captures(root):
            if folder == "bumble" and (".central." in name or ".peripheral" in name):
                record(f"replay --controller {folder}/{name}", check_radio, args.blecap, path, tmp)
        # blecap as the captured peripheral paired by the Bumble central (Bumble's pair(), LE
        # Secure Connections Just Works as captured), then encrypted again with the key.
        sc = os.path.join(root, "bumble", "indications_and_errors.central.btsnoop")
        if os.path.exists(sc):
            record("replay --controller --security pair bumble/indications_and_errors.central.btsnoop", check_radio,
                   args.blecap, sc, tmp, "max", "pair")
        # The same with blecap as central: a Bumble peripheral on B serves the captured database,
        # blecap plays the captured central; B's ATT equals the capture's, the report says identical
        # (for the sessions the Bumble app reproduces: radio_central_conformance.IDENTICAL).
        for folder, name, path in hci_captures(root):
            if folder == "bumble" and name in RADIO_CENTRAL_IDENTICAL:
                record(f"replay --role central --controller {folder}/{name}", check_radio_central, args.blecap,
                       path, tmp)
        # The capture's advertisers with their event types, as a Bumble scanner sees them.
        advertising = os.path.join(root, "public", "btsnoop-android_domyos-treadmill-ftms.log")
        if os.path.exists(advertising):
            record("serve advertising public/btsnoop-android_domyos-treadmill-ftms.log", check_serve_advertising,
                   args.blecap, advertising, tmp)
        # A host that pairs (Bumble's pair()) and encrypts again on the next connection.
        paired = os.path.join(root, "bumble", "cached_reconnect.central.btsnoop")
        if os.path.exists(paired):
            record("serve --security pair,encrypt bumble/cached_reconnect.central.btsnoop", check_serve, args.blecap,
                   paired, tmp, "max", ["pair", "encrypt"])
        # The filter corpus (repository captures): tshark still gives the recorded frames for
        # each display filter, and blecap for the expression beside it.
        record("filter corpus", filter_corpus.check, args.blecap)
        record("simulator export", check_simulator_export, args.blecap, tmp)
        record("simulator pcapng export", check_pcapng_export, args.blecap, tmp)
        record("lint", check_lint, args.blecap, root, tmp, args.shared)
        record("facts consistency", check_facts_consistency, args.blecap, root)
        for rel, facts in LINT_FACTS.items():
            path = os.path.join(root, rel)
            if os.path.exists(path):
                record(f"lint facts {rel}", check_lint_facts, args.blecap, path, facts)
            else:
                record(f"lint facts {rel}", lambda: ([f"{path} is missing"], "not run"))
        sample = os.path.join(root, "bumble", "clean_heart_rate.central.btsnoop")
        problems, summary = check_report_script(args.blecap, sample, tmp)
        if summary.startswith("skipped"):
            print(f"note report script: {summary}")
        else:
            record("report script", lambda: (problems, summary))
        if shutil.which("chromium") is None:
            record("report controls", lambda: (["chromium not installed (apt-get install chromium)"], "not run"))
        else:
            record("report controls", check_report_controls, args.blecap, tmp)
        link_layer = [("public", n, os.path.join(root, "public", n))
                      for n in sorted(os.listdir(os.path.join(root, "public"))) if is_link_layer(n)]
        for folder, name, path in list(hci_captures(root)) + link_layer:
            if shutil.which("chromium") is None:
                record(f"report {folder}/{name}", lambda: (["chromium not installed (apt-get install chromium)"], "not run"))
            else:
                record(f"report {folder}/{name}", check_report, args.blecap, path, tmp, args.screenshots)
        passed += counts[0]
        failed += counts[1]
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
