#!/usr/bin/env python3
"""Check an over-the-air capture written by make_link_layer.py against its HCI original, with
tshark as the oracle.

Usage:
  check_link_layer.py ORIGINAL.btsnoop GENERATED [GENERATED ...]
  check_link_layer.py --corpus [--only TEXT]      every file of captures/linklayer/
  check_link_layer.py --procedures                the procedure scenarios of captures/linklayer/
                                                  (make_link_layer.py --procedure; also with --corpus):
                                                  tshark decodes them cleanly, every CRC, CSA#1 channel,
                                                  PHY and anchor follows the timing in force (an update's
                                                  instant anchored in its transmit window), the LL
                                                  Control PDUs and their fields are the listed ones
  check_link_layer.py --synthetic                 a small HCI capture built here with what the
                                                  corpus lacks (remote version and features, PHY
                                                  update, data length, legacy / directed reports,
                                                  enhanced connection complete, peripheral role),
                                                  converted five ways and checked the same way

First two self-tests on real captures in captures/public: the bitwise CRC-24 below reproduces the
CRCs of the WHAD capture (1,604), and le_crypto's AES-CCM verifies the MICs of the encrypted
bsniffhub capture with the LTK its upstream file name gives (132). Then, for each generated file:
  1. tshark decodes every frame without a malformed or expert item, except those the seeded faults
     explain ("Incorrect CRC" / "CRC is bad" exactly on the frames whose pseudo-header says the CRC
     is invalid, "Retransmission" only where the SN repeats, "Not acknowledged" only where the NESN
     does not acknowledge) and those tshark also reports on the same ATT PDU / advertising report
     of the HCI original.
  2. The CRC-24 of every frame, recomputed bit by bit as Vol 6 Part B 3.1.1 draws the LFSR (not the
     generator's table), matches the stored CRC exactly when the pseudo-header says it is valid;
     tshark, recomputing the advertising CRCs on a copy with "CRC checked" cleared (256), finds
     only the seeded ones wrong.
  3. Ciphertext (--encrypt) is decrypted with the LTK the HCI capture shows and the SKD / IV of
     LL_ENC_REQ / RSP, every MIC verifying; tshark reads the plaintext from there on.
  4. Per connection (in the order of Connection Complete / CONNECT_IND), the ATT opcodes, and
     handles where the PDU carries one, equal tshark's decode of the HCI original, each PDU counted
     once (bad-CRC frames and resent copies with the same SN and payload left out).
  5. LL control PDUs equal what the HCI reports: connection update, encryption (Rand, EDIV),
     termination (side, reason; none after a supervision timeout), remote version and features,
     data length, PHY update.
  6. Each CONNECT_IND's Interval, Latency, Timeout and peer address equal the Connection
     Complete's, and its local address is one the HCI capture shows the local device using.
  7. Timing (272, which carries event counters and time fields): the CSA#1 channel and the PHY of
     each data PDU; the nRF time field (protocol 3 timestamp, protocol 2 end-to-start delta); with
     empty PDUs, anchors one connInterval apart (the new one from an update's instant) opened by the
     central, and the peripheral T_IFS = 150 us after the central's packet ends.
Exit status 1 when a check fails; one line per file otherwise.
"""
import argparse, collections, os, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import le_crypto  # noqa: E402
ROOT = os.path.join(HERE, "..", "..")
ADV_AA = 0x8E89BED6


# -- an independent CRC-24: the LFSR of Vol 6 Part B Figure 3.2, one bit at a time ---------------

def crc24_lfsr(pdu, crc_init):
    """The register as a list of 24 bits, position i preset with bit i of CRCInit; each data bit
    (LSB of each octet first) is XORed with position 23 and fed back into position 0 and the taps
    of x, x^3, x^4, x^6, x^9, x^10; the CRC goes on air from position 23 down to 0."""
    reg = [(crc_init >> i) & 1 for i in range(24)]
    taps = (1, 3, 4, 6, 9, 10)        # positions fed back (x, x^3, x^4, x^6, x^9, x^10)
    for byte in pdu:
        for i in range(8):
            fb = reg[23] ^ ((byte >> i) & 1)
            new = [fb] + reg[:23]
            for tpos in taps:
                new[tpos] ^= fb
            reg = new
    bits = reg[::-1]                   # position 23 first on air
    return bytes(sum(bits[8 * k + j] << j for j in range(8)) for k in range(3))


def selftest_crc():
    """The bitwise CRC must reproduce CRCs that real sniffers captured (WHAD, link type 256)."""
    frames = read_capture(os.path.join(ROOT, "captures", "public", "pcap-lell256_whad-pairing-gatt-conn-update.pcap"))
    init, checked = None, 0
    for fr in frames:
        if fr["aa"] == ADV_AA and (fr["pdu"][0] & 0x0F) == 0x05 and len(fr["pdu"]) >= 2 + 12 + 7:
            init = int.from_bytes(fr["pdu"][2 + 12 + 4:2 + 12 + 7], "little")
        crc_init = 0x555555 if fr["aa"] == ADV_AA else init
        if crc_init is None or not fr["crc_ok"]:
            continue
        if crc24_lfsr(fr["pdu"], crc_init) != fr["crc"]:
            sys.exit(f"CRC self-test failed on a real frame of the WHAD capture: {fr['pdu'].hex()}")
        checked += 1
    if checked < 10:
        sys.exit("CRC self-test: too few frames of the WHAD capture checked")
    return checked


def selftest_ccm():
    """le_crypto's AES-CCM must verify the MICs of a real encrypted capture: bsniffhub's, whose
    file name upstream gives its LTK (9A7163D4C92D91B5C3BA0EBFB4D1B8A2, most significant first)."""
    frames = read_capture(os.path.join(ROOT, "captures", "public", "pcap-lell256_bsniffhub-aux-connect-req-enc.pcap"))
    ltk_le = bytes.fromhex("9A7163D4C92D91B5C3BA0EBFB4D1B8A2")[::-1]
    view, count, problems = decrypt_view(frames, [{"ltk": ltk_le}], None)
    # The sniffer missed packets late in that capture (the packetCounter then runs ahead of ours):
    # what matters is that the MICs up to there verify.
    if count < 100:
        sys.exit(f"AES-CCM self-test failed on the bsniffhub capture: {count} MICs verified, {problems[:3]}")
    return count


def air_time(length, phy):
    """Air time of a packet with `length` payload octets, as tshark reckons it for the nRF Sniffer
    (preamble 1 octet at LE 1M, 2 at LE 2M; AA, header, payload, CRC)."""
    return 8 * (10 + length) if phy == 1 else 4 * (11 + length)


# -- our own reading of the generated file ------------------------------------------------------

def records(data):
    """(timestamp µs, link type, packet) of a pcap or pcapng file."""
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        linktype = struct.unpack("<I", data[20:24])[0]
        off = 24
        while off + 16 <= len(data):
            sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
            yield sec * 1_000_000 + usec, linktype, data[off + 16:off + 16 + incl]
            off += 16 + incl
    elif magic == b"\x0a\x0d\x0d\x0a":
        off, linktype = 0, None
        while off + 12 <= len(data):
            btype, total = struct.unpack("<II", data[off:off + 8])
            body = data[off + 8:off + total - 4]
            if btype == 1:
                linktype = struct.unpack("<H", body[:2])[0]
            elif btype == 6:
                _, hi, lo, incl, orig = struct.unpack("<IIIII", body[:20])
                yield (hi << 32) | lo, linktype, body[20:20 + incl]
            off += total
    else:
        sys.exit("not a pcap or pcapng file")


def read_capture(path):
    frames = []
    for n, (ts, linktype, pkt) in enumerate(records(open(path, "rb").read()), 1):
        fr = {"n": n, "ts": ts, "linktype": linktype, "event": None, "direction": None}
        if linktype == 256:
            ch, sig, noise, offenses, ref_aa, flags = struct.unpack("<BbbBIH", pkt[:10])
            ll = pkt[10:]
            pdu_type = (flags >> 7) & 7
            fr["direction"] = {2: "C", 3: "P"}.get(pdu_type)
            fr["crc_ok"] = bool(flags & 0x0800) if flags & 0x0400 else None
            fr["phy"] = (flags >> 14) + 1
            fr["decrypted"] = bool(flags & 0x0008)     # written without its MIC
            fr["ciphertext_flag"] = None                # 256 does not say; the LL procedure does
            fr["rf"] = ch
        elif linktype == 272:
            board, plen, ver, counter, pid = struct.unpack("<BHBHB", pkt[:7])
            hlen, flags, ch, rssi, event, time_field = struct.unpack("<BBBBHI", pkt[7:17])
            ll = pkt[17:]
            fr["crc_ok"] = bool(flags & 1)
            fr["phy"] = ((flags >> 4) & 7) + 1
            fr["decrypted"] = bool(flags & 0x04) and bool(flags & 0x08)
            fr["ciphertext_flag"] = bool(flags & 0x04) and not flags & 0x08
            fr["channel"], fr["version"], fr["pid"] = ch, ver, pid
            fr["time_field"] = time_field
            aa = struct.unpack("<I", ll[:4])[0]
            if aa != ADV_AA:
                fr["direction"] = "C" if flags & 2 else "P"
                fr["event"] = event
        else:
            sys.exit(f"{path}: link type {linktype} is not one make_link_layer.py writes")
        fr["packet"] = pkt
        fr["aa"] = struct.unpack("<I", ll[:4])[0]
        fr["pdu"], fr["crc"] = ll[4:-3], ll[-3:]
        frames.append(fr)
    return frames


# -- tshark -----------------------------------------------------------------------------------

def tshark(path, fields, display_filter=None):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    if display_filter:
        cmd += ["-Y", display_filter]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(fields) - len(cols))
        rows.append(dict(zip(fields, cols)))
    return rows


def addr_le(text):
    return bytes(int(x, 16) for x in reversed(text.split(":")))


# ATT PDUs whose handle tshark infers from the matching request instead of reading it from the PDU
# (tshark 4.0 keys that match by connection handle, which is 0 for every link-layer connection, so
# with two links at once it can pick the other link's request): compared by opcode only.
NO_HANDLE_IN_PDU = {0x02, 0x03, 0x07, 0x0B, 0x0D, 0x0F, 0x13, 0x18, 0x19, 0x1E, 0x21, 0x23}
SEEDED = {"Incorrect CRC", "CRC is bad", "Retransmission", "Not acknowledged"}


def att_key(opcode, handle):
    op = int(opcode.split(",")[0], 16)
    return (opcode, "" if op in NO_HANDLE_IN_PDU else handle)


def experts(row):
    msgs = [m for m in row["_ws.expert.message"].split(",") if m and m not in SEEDED]
    if row["_ws.malformed"]:
        msgs.append("malformed")
    return sorted(msgs)


def hci_facts(original):
    """tshark's view of the HCI original: per connection, the Connection Complete fields and the
    ATT (opcode, handle) sequence."""
    rows = tshark(original, ["frame.number", "bthci_evt.le_meta_subevent", "bthci_evt.status",
                             "bthci_evt.connection_handle", "bthci_evt.role", "bthci_evt.bd_addr",
                             "bthci_evt.le_con_interval", "bthci_evt.le_con_latency",
                             "bthci_evt.le_supv_timeout", "bthci_acl.chandle", "btatt.opcode",
                             "btatt.handle", "_ws.malformed", "_ws.expert.message", "bthci_cmd.opcode",
                             "bthci_cmd.connection_handle", "bthci_cmd.reason", "bthci_evt.code",
                             "bthci_evt.reason", "bthci_cmd.le_random_number",
                             "bthci_cmd.le_encrypted_diversifier", "bthci_evt.le_random_number",
                             "bthci_evt.le_encrypted_diversifier", "bthci_evt.encryption_enable",
                             "bthci_evt.lmp_vers_nr", "bthci_evt.comp_id", "bthci_evt.lmp_sub_vers_nr",
                             "bthci_evt.le_features", "bthci_evt.max_tx_octets", "bthci_evt.max_tx_time",
                             "bthci_evt.max_rx_octets", "bthci_evt.max_rx_time", "bthci_evt.opcode",
                             "bthci_cmd.bd_addr", "bthci_cmd.le_long_term_key", "bthci_evt.le_tx_phy",
                             "bthci_evt.le_rx_phy"])
    conns, current = [], {}
    adv_experts = collections.Counter()
    local_disconnect, enc_keys, ltks = {}, {}, {}
    # The addresses the local device may use: its public address and the random ones it set; the
    # generator's documented fallbacks when the capture shows none.
    local_addresses = {"00:00:5e:00:53:01", "c0:00:5e:00:53:01"}
    for r in rows:
        code = r["bthci_evt.code"].split(",")[0]
        cmd = r["bthci_cmd.opcode"]
        if r["bthci_evt.opcode"] == "0x1009" and r["bthci_evt.bd_addr"]:
            local_addresses.add(r["bthci_evt.bd_addr"].split(",")[0])
        if cmd in ("0x2005", "0x2035") and r["bthci_cmd.bd_addr"]:
            local_addresses.add(r["bthci_cmd.bd_addr"])
        if cmd in ("0x2019", "0x201a") and r["bthci_cmd.le_long_term_key"]:
            ltks[int(r["bthci_cmd.connection_handle"], 16)] = bytes.fromhex(r["bthci_cmd.le_long_term_key"].replace(":", ""))
        if cmd == "0x0406":
            local_disconnect[int(r["bthci_cmd.connection_handle"], 16)] = int(r["bthci_cmd.reason"], 16)
        elif cmd == "0x2019":
            enc_keys[int(r["bthci_cmd.connection_handle"], 16)] = (
                int.from_bytes(bytes.fromhex(r["bthci_cmd.le_random_number"].replace(":", "")), "little"),
                int(r["bthci_cmd.le_encrypted_diversifier"], 16))
        elif r["bthci_evt.le_meta_subevent"] == "0x05" and r["bthci_evt.le_random_number"]:
            enc_keys[int(r["bthci_evt.connection_handle"], 16)] = (
                int.from_bytes(bytes.fromhex(r["bthci_evt.le_random_number"].replace(":", "")), "little"),
                int(r["bthci_evt.le_encrypted_diversifier"], 16))
        elif code == "0x05" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current:
                c = conns[current.pop(h)]
                if h in local_disconnect:
                    c["control"].append(("terminate", "local", local_disconnect.pop(h)))
                elif int(r["bthci_evt.reason"], 16) != 0x08:
                    c["control"].append(("terminate", "remote", int(r["bthci_evt.reason"], 16)))
            continue
        elif code == "0x0c" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current:
                conns[current[h]]["control"].append(("version", int(r["bthci_evt.lmp_vers_nr"], 0),
                                                     int(r["bthci_evt.comp_id"], 0), int(r["bthci_evt.lmp_sub_vers_nr"], 0)))
            continue
        elif r["bthci_evt.le_meta_subevent"] == "0x04" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current:
                conns[current[h]]["control"].append(("features", int(r["bthci_evt.le_features"].split(",")[0], 0)))
            continue
        elif r["bthci_evt.le_meta_subevent"] == "0x0c" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            tx, rx = int(r["bthci_evt.le_tx_phy"], 0), int(r["bthci_evt.le_rx_phy"], 0)
            if h in current and tx in (1, 2) and rx in (1, 2):
                c = conns[current[h]]
                new = (tx, rx) if c["role"] == 0 else (rx, tx)
                if new != c["phy"]:
                    c["control"].append(("phy", 1 << (new[0] - 1), 1 << (new[1] - 1)))
                    c["phy"] = new
            continue
        elif r["bthci_evt.le_meta_subevent"] == "0x07":
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current:
                conns[current[h]]["control"].append(("length",) + tuple(int(r[f], 0) for f in (
                    "bthci_evt.max_tx_octets", "bthci_evt.max_tx_time", "bthci_evt.max_rx_octets", "bthci_evt.max_rx_time")))
            continue
        elif r["bthci_evt.le_meta_subevent"] == "0x03" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current:
                conns[current[h]]["control"].append(("update", int(r["bthci_evt.le_con_interval"], 0),
                                                     int(r["bthci_evt.le_con_latency"], 0),
                                                     int(r["bthci_evt.le_supv_timeout"], 0)))
            continue
        elif code == "0x08" and r["bthci_evt.status"].split(",")[0] in ("0x00", "0") and r["bthci_evt.encryption_enable"] not in ("", "0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            if h in current and not conns[current[h]]["encrypted"]:
                conns[current[h]]["encrypted"] = True
                conns[current[h]]["ltk"] = ltks.pop(h, None)
                conns[current[h]]["control"].append(("enc",) + enc_keys.pop(h, (0, 0)))
            continue
        if r["bthci_evt.le_meta_subevent"] in ("0x02", "0x0d", "0x0b"):
            adv_experts.update(experts(r))
        if r["bthci_evt.le_meta_subevent"] in ("0x01", "0x0a", "0x29") and r["bthci_evt.status"] in ("0x00", "0"):
            h = int(r["bthci_evt.connection_handle"], 16)
            conns.append({"role": int(r["bthci_evt.role"], 16), "peer": r["bthci_evt.bd_addr"].split(",")[0],
                          "interval": int(r["bthci_evt.le_con_interval"].split(",")[0], 0),
                          "latency": int(r["bthci_evt.le_con_latency"].split(",")[0], 0),
                          "timeout": int(r["bthci_evt.le_supv_timeout"].split(",")[0], 0), "att": [],
                          "experts": [], "control": [], "encrypted": False, "phy": (1, 1)})
            current[h] = len(conns) - 1
        elif r["btatt.opcode"] and r["bthci_acl.chandle"]:
            h = int(r["bthci_acl.chandle"].split(",")[0], 16)
            if h in current:
                conns[current[h]]["att"].append(att_key(r["btatt.opcode"], r["btatt.handle"]))
                conns[current[h]]["experts"].append(experts(r))
    for c in conns:
        c["local_addresses"] = local_addresses
    return conns, adv_experts


# -- encrypted links --------------------------------------------------------------------------

def decrypt_view(frames, hci, conn_index):
    """Decrypts the PDUs written as ciphertext (after a connection's LL_START_ENC_REQ, with no
    decrypted / MIC OK flag), verifying each MIC, with the LTK the HCI capture shows and the SKD /
    IV halves of LL_ENC_REQ / LL_ENC_RSP; packetCounter per direction, a resent copy (same
    ciphertext) under the same counter. Returns (packets with plaintext, length without the MIC,
    flags saying decrypted and MIC OK, CRC recomputed and left bad where it was), the number of MICs
    verified, problems). conn_index: access address -> index into hci (None: all in hci[0])."""
    state, out, count, problems = {}, [], 0, []
    crc_init = {}
    for fr in frames:
        pdu, aa, pkt = fr["pdu"], fr["aa"], fr["packet"]
        if aa == ADV_AA:
            if (pdu[0] & 0x0F) == 0x05 and len(pdu) >= 21:
                crc_init[struct.unpack("<I", pdu[14:18])[0]] = int.from_bytes(pdu[18:21], "little")
            out.append((fr["ts"], pkt))
            continue
        st = state.setdefault(aa, {"counter": {"C": 0, "P": 0}, "last": {}, "started": False, "cipher": None})
        length = pdu[1]
        if fr["ciphertext_flag"] is None:
            is_ct = st["started"] and length > 0 and not fr["decrypted"]
        else:
            is_ct = st["started"] and length > 0 and fr["ciphertext_flag"]
        if not is_ct:
            if (pdu[0] & 3) == 3 and length >= 1:
                if pdu[2] == 0x03 and length >= 23:
                    st["skdm"], st["ivm"] = bytes(pdu[13:21]), bytes(pdu[21:25])
                elif pdu[2] == 0x04 and length >= 13:
                    st["skds"], st["ivs"] = bytes(pdu[3:11]), bytes(pdu[11:15])
                elif pdu[2] == 0x05:
                    st["started"] = True
            out.append((fr["ts"], pkt))
            continue
        if st["cipher"] is None:
            i = 0 if conn_index is None else conn_index.get(aa)
            ltk = hci[i].get("ltk") if i is not None and i < len(hci) else None
            if ltk is None or "skds" not in st:
                problems.append(f"frame {fr['n']}: ciphertext, but no LTK in the HCI capture or no LL_ENC_REQ / RSP")
                out.append((fr["ts"], pkt))
                continue
            st["cipher"] = le_crypto.session(ltk, st["skdm"], st["skds"], st["ivm"], st["ivs"])
        body = bytes(pdu[2:2 + length])
        d = fr["direction"]
        last = st["last"].get(d)
        if last is not None and last[0] == body:
            counter = last[1]
        else:
            counter = st["counter"][d]
            st["counter"][d] += 1
        st["last"][d] = (body, counter)
        aes, iv = st["cipher"]
        plain, mic = le_crypto.ccm(aes, le_crypto.nonce(counter, d == "C", iv), bytes([pdu[0] & 0xE3]),
                                   body[:-4], decrypt=True)
        if mic != body[-4:]:
            problems.append(f"frame {fr['n']}: the MIC does not verify (packetCounter {counter})")
            out.append((fr["ts"], pkt))
            continue
        count += 1
        new_pdu = bytes([pdu[0], length - 4]) + plain
        crc = crc24_lfsr(new_pdu, crc_init.get(aa, 0))
        if not fr["crc_ok"]:
            crc = bytes([crc[0] ^ 0xFF]) + crc[1:]
        ll = struct.pack("<I", aa) + new_pdu + crc
        if fr["linktype"] == 256:
            flags = struct.unpack("<H", pkt[8:10])[0] | 0x0008 | 0x1000 | 0x2000
            new = pkt[:8] + struct.pack("<H", flags) + ll
        else:
            head = bytearray(pkt[:17])
            head[1:3] = struct.pack("<H", len(head) - 7 + len(ll))
            head[8] |= 0x0C
            new = bytes(head) + ll
        out.append((fr["ts"], new))
    return out, count, problems


def write_pcap(path, linktype, packets):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for ts, data in packets:
            f.write(struct.pack("<IIII", ts // 1_000_000, ts % 1_000_000, len(data), len(data)) + data)


# -- the checks -------------------------------------------------------------------------------

def check(original, generated):
    problems = []
    frames = read_capture(generated)
    hci, hci_adv_experts = hci_facts(original)

    # Our own notion of the seeded faults: CRC-invalid frames and repeated SNs.
    conn_of_aa, crc_init, hop = {}, {}, {}
    last_sn = {}
    last_good = {}
    repeats, duplicates, unacked = set(), set(), set()
    last_in = {}                # (aa, direction) -> the last frame of that direction
    good_copy = {}              # bad-CRC frame -> the next frame of its direction (the resend)
    crc_checked = 0
    for fr in frames:
        pdu = fr["pdu"]
        if fr["aa"] == ADV_AA:
            init = 0x555555
            if (pdu[0] & 0x0F) == 0x05 and len(pdu) == 36:
                aa = struct.unpack("<I", pdu[14:18])[0]
                conn_of_aa[aa] = len(conn_of_aa)
                crc_init[aa] = int.from_bytes(pdu[18:21], "little")
                hop[aa] = pdu[35] & 0x1F
        else:
            init = crc_init.get(fr["aa"])
            key = (fr["aa"], fr["direction"])
            sn = (pdu[0] >> 3) & 1
            if key in last_sn and last_sn[key] == sn:
                repeats.add(fr["n"])
            last_sn[key] = sn
            other = last_in.get((fr["aa"], "P" if fr["direction"] == "C" else "C"))
            if other is not None and ((pdu[0] >> 2) & 1) == ((other["pdu"][0] >> 3) & 1):
                unacked.add(fr["n"])
            mine = last_in.get(key)
            if mine is not None and not mine["crc_ok"]:
                good_copy[mine["n"]] = fr["n"]
            last_in[key] = fr
            if fr["crc_ok"]:
                prev = last_good.get(key)
                if prev is not None and prev[0] == sn and prev[1] == bytes(pdu[1:]) and pdu[1] > 0 and fr["n"] in repeats:
                    duplicates.add(fr["n"])
                last_good[key] = (sn, bytes(pdu[1:]))
        if init is None:
            problems.append(f"frame {fr['n']}: data PDU on an access address without a CONNECT_IND")
            continue
        good = crc24_lfsr(pdu, init) == fr["crc"]
        crc_checked += 1
        if good != bool(fr["crc_ok"]):
            problems.append(f"frame {fr['n']}: CRC {'matches' if good else 'does not match'} but the header says {'valid' if fr['crc_ok'] else 'invalid'}")
    bad_crc = {fr["n"] for fr in frames if not fr["crc_ok"]}

    # Ciphertext (--encrypt): decrypt it, checking every MIC, and let tshark read the plaintext.
    packets, mics, crypto_problems = decrypt_view(frames, hci, conn_of_aa)
    problems += crypto_problems
    tmpdir = tempfile.TemporaryDirectory()
    view = generated
    original_frames = frames
    if mics:
        view = os.path.join(tmpdir.name, "decrypted.pcap")
        write_pcap(view, frames[0]["linktype"], packets)
        frames = read_capture(view)
    by_n = {fr["n"]: fr for fr in frames}
    rows = tshark(view, ["frame.number", "_ws.malformed", "_ws.expert.message", "btle.retransmit",
                              "btle.crc.incorrect", "btatt.opcode", "btatt.handle",
                              "btle.link_layer_data.access_address", "btle.link_layer_data.interval",
                              "btle.link_layer_data.latency", "btle.link_layer_data.timeout",
                              "btle.link_layer_data.hop", "btle.initiator_address",
                              "btle.advertising_address", "btle.control_opcode", "btle.control.error_code",
                              "btle.control.interval", "btle.control.latency", "btle.control.timeout",
                              "btle.control.instant", "btle.control.random_number",
                              "btle.control.encrypted_diversifier", "btle.control.version_number",
                              "btle.control.company_id", "btle.control.subversion_number",
                              "btle.control.feature_set", "btle.control.max_rx_octets", "btle.control.max_rx_time",
                              "btle.control.max_tx_octets", "btle.control.max_tx_time",
                              "btle.control.m_to_s_phy", "btle.control.s_to_m_phy"])
    if len(rows) != len(frames):
        problems.append(f"tshark read {len(rows)} frames, the file has {len(frames)}")


    ll_adv_experts = collections.Counter()
    all_written_view = any(fr["aa"] != ADV_AA and fr["pdu"][1] == 0 for fr in frames)
    # 1. tshark: nothing malformed, experts only where the seeded faults put them (or, on an ATT
    # PDU, the ones tshark reports on the same PDU of the HCI original: checked in 3).
    for r in rows:
        n = int(r["frame.number"])
        for msg in filter(None, r["_ws.expert.message"].split(",")):
            if msg in ("Incorrect CRC", "CRC is bad") and n not in bad_crc:
                problems.append(f"frame {n}: tshark expert item '{msg}' on a frame with a good CRC")
            if msg == "Retransmission" and n not in repeats:
                problems.append(f"frame {n}: tshark expert item '{msg}' but the SN is new")
            if msg == "Not acknowledged" and n not in unacked:
                problems.append(f"frame {n}: tshark expert item '{msg}' but the NESN acknowledges")
        fr = by_n.get(n)
        if not all_written_view and "Incorrect control procedure packet sequencing or direction" in experts(r):
            # tshark 4.0 closes a procedure with an instant (PHY update) only on a frame in the
            # instant's event; without empty PDUs there may be none there. The file with empty
            # PDUs shows the same sequence without this item.
            r = dict(r, **{"_ws.expert.message": r["_ws.expert.message"].replace(
                "Incorrect control procedure packet sequencing or direction", "")})
        if experts(r) and not r["btatt.opcode"]:
            if fr is not None and fr["aa"] == ADV_AA and fr["crc_ok"]:
                ll_adv_experts.update(experts(r))
            elif not (fr is not None and not fr["crc_ok"]):
                problems.append(f"frame {n}: tshark says {experts(r)}")
        if r["btle.crc.incorrect"] and n not in bad_crc:
            problems.append(f"frame {n}: tshark finds the CRC incorrect")
        if r["btle.retransmit"] and n not in repeats:
            problems.append(f"frame {n}: tshark calls it a retransmission, the SN says not")
    # tshark recomputing the advertising CRCs itself (256: clear "CRC checked").
    if frames and frames[0]["linktype"] == 256:
        data = bytearray(open(generated, "rb").read())
        if data[:4] == b"\xd4\xc3\xb2\xa1":
            off = 24
            while off + 16 <= len(data):
                incl = struct.unpack("<I", data[off + 8:off + 12])[0]
                p = off + 16
                flags = struct.unpack("<H", data[p + 8:p + 10])[0] & ~0x0C00
                data[p + 8:p + 10] = struct.pack("<H", flags)
                off = p + incl
            with tempfile.NamedTemporaryFile(suffix=".pcap") as tmp:
                tmp.write(data)
                tmp.flush()
                for r in tshark(tmp.name, ["frame.number", "btle.crc.incorrect"], "btle.crc.incorrect"):
                    if int(r["frame.number"]) not in bad_crc:
                        problems.append(f"frame {r['frame.number']}: tshark computes a wrong advertising CRC")

    # 3. ATT sequences per connection.
    if hci_adv_experts != ll_adv_experts:
        problems.append(f"advertising: tshark says {dict(ll_adv_experts)} over the air, {dict(hci_adv_experts)} on the HCI reports")
    att_rows = {int(r["frame.number"]): r["btatt.opcode"] for r in rows}
    ll_att = [[] for _ in conn_of_aa]
    ll_experts = [[] for _ in conn_of_aa]
    connect_inds = []
    for r in rows:
        n = int(r["frame.number"])
        fr = by_n.get(n)
        if r["btle.link_layer_data.access_address"]:
            connect_inds.append(r)
        if not r["btatt.opcode"] or fr is None or fr["aa"] == ADV_AA:
            continue
        if n in duplicates:
            continue
        if n in bad_crc and att_rows.get(good_copy.get(n)):
            continue       # the good resend carries it (tshark 4.0 reassembles a continuation
                           # fragment with a bad CRC as if it were good: then it is counted here)
        ll_att[conn_of_aa[fr["aa"]]].append(att_key(r["btatt.opcode"], r["btatt.handle"]))
        ll_experts[conn_of_aa[fr["aa"]]].append(experts(r))
    if len(hci) != len(conn_of_aa):
        problems.append(f"{len(hci)} connections in the HCI original, {len(conn_of_aa)} CONNECT_IND")
    att_total = 0
    for i, (h, l) in enumerate(zip(hci, ll_att)):
        att_total += len(l)
        if h["att"] != l:
            k = next((j for j in range(min(len(h["att"]), len(l))) if h["att"][j] != l[j]), min(len(h["att"]), len(l)))
            problems.append(f"connection {i + 1}: ATT differs at PDU {k + 1} (HCI {len(h['att'])} PDUs, "
                            f"over the air {len(l)}): {h['att'][k:k + 2]} vs {l[k:k + 2]}")
        elif h["experts"] != ll_experts[i]:
            k = next(j for j in range(len(l)) if h["experts"][j] != ll_experts[i][j])
            problems.append(f"connection {i + 1}: ATT PDU {k + 1}: tshark says {ll_experts[i][k]} over the air, "
                            f"{h['experts'][k]} on the HCI original")

    # 4b. LL control PDUs against the HCI: LL_CONNECTION_UPDATE_IND (from the central, the LE
    # Connection Update Complete's parameters, an instant still ahead), LL_ENC_REQ (Rand and EDIV
    # of LE Enable Encryption / LTK Request), LL_TERMINATE_IND (from the side that disconnected,
    # with its reason; none after a supervision timeout).
    ll_control = [[] for _ in conn_of_aa]
    for r in rows:
        n = int(r["frame.number"])
        fr = by_n.get(n)
        if not r["btle.control_opcode"] or fr is None or fr["aa"] == ADV_AA or n in bad_crc or n in duplicates:
            continue
        i = conn_of_aa[fr["aa"]]
        op = int(r["btle.control_opcode"], 16)
        role_local = "C" if i < len(hci) and hci[i]["role"] == 0 else "P"
        if op == 0x00:
            if fr["direction"] != "C":
                problems.append(f"frame {n}: LL_CONNECTION_UPDATE_IND from the peripheral")
            if fr["event"] is not None and (int(r["btle.control.instant"]) - fr["event"]) % 65536 >= 32767:
                problems.append(f"frame {n}: LL_CONNECTION_UPDATE_IND instant {r['btle.control.instant']} is not ahead of event {fr['event']}")
            ll_control[i].append(("update", int(r["btle.control.interval"]), int(r["btle.control.latency"]),
                                  int(r["btle.control.timeout"])))
        elif op == 0x03:
            ll_control[i].append(("enc", int(r["btle.control.random_number"] or 0, 0),
                                  int(r["btle.control.encrypted_diversifier"] or "0", 0)))
        elif op == 0x0C and fr["direction"] != role_local:
            ll_control[i].append(("version", int(r["btle.control.version_number"], 0),
                                  int(r["btle.control.company_id"], 0), int(r["btle.control.subversion_number"], 0)))
        elif op == 0x09 and fr["direction"] != role_local:
            ll_control[i].append(("features", int(r["btle.control.feature_set"].split(",")[0], 0)))
        elif op in (0x14, 0x15) and fr["direction"] == role_local:
            ll_control[i].append(("length",) + tuple(int(r[f], 0) for f in (
                "btle.control.max_tx_octets", "btle.control.max_tx_time", "btle.control.max_rx_octets",
                "btle.control.max_rx_time")))
        elif op == 0x18 and int(r["btle.control.m_to_s_phy"] or "0", 0):
            if fr["direction"] != "C":
                problems.append(f"frame {n}: LL_PHY_UPDATE_IND from the peripheral")
            ll_control[i].append(("phy", int(r["btle.control.m_to_s_phy"], 0), int(r["btle.control.s_to_m_phy"], 0)))
        elif op == 0x02:
            side = "local" if fr["direction"] == role_local else "remote"
            ll_control[i].append(("terminate", side, int(r["btle.control.error_code"], 16)))
    control_total = sum(len(c) for c in ll_control)
    for i, h in enumerate(hci):
        if i < len(ll_control) and h["control"] != ll_control[i]:
            problems.append(f"connection {i + 1}: LL control {ll_control[i]}, the HCI says {h['control']}")

    # 4. CONNECT_IND fields.
    for i, (h, r) in enumerate(zip(hci, connect_inds)):
        got = (int(r["btle.link_layer_data.interval"]), int(r["btle.link_layer_data.latency"]),
               int(r["btle.link_layer_data.timeout"]))
        want = (h["interval"], h["latency"], h["timeout"])
        if got != want:
            problems.append(f"connection {i + 1}: CONNECT_IND interval/latency/timeout {got}, Connection Complete {want}")
        peer_field = "btle.advertising_address" if h["role"] == 0 else "btle.initiator_address"
        if r[peer_field] != h["peer"]:
            problems.append(f"connection {i + 1}: CONNECT_IND {peer_field} {r[peer_field]}, the peer is {h['peer']}")
        local_field = "btle.initiator_address" if h["role"] == 0 else "btle.advertising_address"
        if r[local_field] not in h["local_addresses"]:
            problems.append(f"connection {i + 1}: CONNECT_IND {local_field} {r[local_field]} is none of the local "
                            f"addresses {sorted(h['local_addresses'])}")

    # 5. CSA#1 and T_IFS (T_IFS only where every packet is written, i.e. with empty PDUs).
    frames = original_frames
    all_written = any(fr["aa"] != ADV_AA and fr["pdu"][1] == 0 for fr in frames)
    prev = None
    for fr in frames:
        if fr["aa"] == ADV_AA:
            continue
        if fr["event"] is not None and fr["aa"] in hop:
            want = ((fr["event"] + 1) * hop[fr["aa"]]) % 37
            if fr["channel"] != want:
                problems.append(f"frame {fr['n']}: channel {fr['channel']} but CSA#1 gives {want} for event {fr['event']}")
        if (all_written and prev is not None and prev["aa"] == fr["aa"] and prev["direction"] == "C"
                and fr["direction"] == "P" and fr["ts"] - prev["ts"] < 3000):
            mic = 4 if prev["decrypted"] and prev["pdu"][1] else 0
            gap = fr["ts"] - prev["ts"] - air_time(prev["pdu"][1] + mic, prev["phy"])
            if gap != 150:
                problems.append(f"frame {fr['n']}: starts {gap} us after the central's packet ends, not T_IFS")
        prev = fr

    # 5b. The nRF Sniffer time field: protocol 3, the firmware timestamp (µs, here from the first
    # frame); protocol 2, the gap from the end of the previous packet (its air time at LE 1M is
    # 8 µs x (10 + length), as tshark computes it) to the start of this one.
    for a, b in zip(frames, frames[1:]):
        if b["linktype"] != 272:
            break
        if b["version"] >= 3:
            if b["time_field"] != (b["ts"] - frames[0]["ts"]) & 0xFFFFFFFF:
                problems.append(f"frame {b['n']}: firmware timestamp {b['time_field']}, the frame is {b['ts'] - frames[0]['ts']} us in")
        elif b["ts"] - a["ts"] < air_time(a["pdu"][1], a["phy"]):
            if b["time_field"] != 0:       # overlapping packets (two links at once): delta 0
                problems.append(f"frame {b['n']}: overlaps the previous packet but its delta time is {b['time_field']}")
        elif b["ts"] - a["ts"] != air_time(a["pdu"][1], a["phy"]) + b["time_field"]:
            problems.append(f"frame {b['n']}: delta time {b['time_field']} does not give its start")

    # 5c. Each data PDU on the PHY its side uses in that event (272: event counters): LE 1M until
    # the instant of an LL_PHY_UPDATE_IND, then the PHYs it names.
    phy_state = {}
    for fr in frames:
        if fr["aa"] == ADV_AA or fr["event"] is None:
            continue
        st = phy_state.setdefault(fr["aa"], {"C": 1, "P": 1, "pending": None})
        pend = st["pending"]
        if pend is not None and fr["event"] >= pend[0]:
            st["C"], st["P"], st["pending"] = pend[1], pend[2], None
        if fr["phy"] != st[fr["direction"]]:
            problems.append(f"frame {fr['n']}: PHY {fr['phy']}, the link is on {st[fr['direction']]} for that side")
        pdu = fr["pdu"]
        if (pdu[0] & 3) == 3 and pdu[1] >= 5 and pdu[2] == 0x18 and fr["crc_ok"] and not fr.get("ciphertext_flag"):
            if pdu[3] or pdu[4]:
                st["pending"] = (struct.unpack("<H", pdu[5:7])[0], pdu[3].bit_length(), pdu[4].bit_length())

    # 6. With every packet written (empty PDUs), each connection event opens with the central at
    # the anchor, anchors one connInterval apart, the new interval counting from the instant of an
    # LL_CONNECTION_UPDATE_IND (WinOffset 0) on.
    if all_written and frames and frames[0]["linktype"] == 272:
        interval = {}
        for fr in frames:
            pdu = fr["pdu"]
            if fr["aa"] == ADV_AA and (pdu[0] & 0x0F) == 0x05 and len(pdu) == 36:
                interval[struct.unpack("<I", pdu[14:18])[0]] = [struct.unpack("<H", pdu[24:26])[0], None, None, None]
        first = {}
        for fr in frames:
            st = interval.get(fr["aa"])
            if st is None or fr["event"] is None:
                continue
            pdu = fr["pdu"]
            if (pdu[0] & 3) == 3 and pdu[1] >= 12 and pdu[2] == 0x00 and fr["crc_ok"]:
                st[1] = (struct.unpack("<H", pdu[12:14])[0], struct.unpack("<H", pdu[6:8])[0])
            k = fr["event"]
            if st[2] == k:
                continue
            if fr["direction"] != "C":
                problems.append(f"frame {fr['n']}: event {k} opens with the peripheral")
            if st[2] is not None and k == st[2] + 1:
                use_new = st[1] is not None and st[2] >= st[1][0]
                step = (st[1][1] if use_new else st[0]) * 1250
                if fr["ts"] - st[3] != step:
                    problems.append(f"frame {fr['n']}: anchor {fr['ts'] - st[3]} us after the previous one, the interval is {step} us")
                if use_new and k > st[1][0]:
                    st[0], st[1] = st[1][1], None
            st[2], st[3] = k, fr["ts"]

    summary = (f"{os.path.relpath(generated)}: {len(frames)} frames, {len(conn_of_aa)} connections, "
               f"{att_total} ATT PDUs and {control_total} LL control facts compared with the HCI original's, {crc_checked} CRCs checked, "
               f"{len(bad_crc)} seeded bad CRCs, {len(repeats)} repeated SNs ({len(duplicates)} duplicate PDUs)"
               + (f", {mics} MICs verified" if mics else ""))
    return problems, summary


def synthetic_hci(path):
    """Writes a small H4 btsnoop with what the Bumble corpus lacks: legacy and directed advertising
    reports after an active scan, LE Enhanced Connection Complete, Read Remote Version Information,
    LE Read Remote Features, LE Set PHY / PHY Update Complete (2M both ways; on the second link,
    from the peer, 2M one way), LE Set Data Length / Data Length Change, a 200-octet write in HCI
    fragments, a local Disconnect; then a second link on which the local device is the peripheral
    (legacy advertising), with a connection update and a supervision timeout at the end."""
    t = [1_700_000_000_000_000]
    out = [b"btsnoop\0" + struct.pack(">II", 1, 1002)]

    def rec(ptype, payload, sent, dt=1000):
        t[0] += dt
        data = bytes([ptype]) + payload
        flags = (0 if sent else 1) | (2 if ptype in (1, 4) else 0)
        out.append(struct.pack(">IIIIq", len(data), len(data), flags, 0, t[0] + 0x00DCDDB30F2F8000) + data)

    def cmd(op, params=b"", ret=b""):
        rec(1, struct.pack("<HB", op, len(params)) + params, True)
        ev = struct.pack("<BHB", 1, op, 0) + ret
        rec(4, bytes([0x0E, len(ev)]) + ev, False, 200)

    def cmd_status(op, params=b""):
        rec(1, struct.pack("<HB", op, len(params)) + params, True)
        rec(4, bytes([0x0F, 4, 0, 1]) + struct.pack("<H", op), False, 200)

    def evt(code, body, dt=1000):
        rec(4, bytes([code, len(body)]) + body, False, dt)

    def meta(sub, body, dt=1000):
        evt(0x3E, bytes([sub]) + body, dt)

    def att(h, pdu, sent, dt=20_000, frag=27):
        l2 = struct.pack("<HH", len(pdu), 4) + pdu
        for i in range(0, len(l2), frag):
            pb = 0 if i == 0 else 1
            chunk = l2[i:i + frag]
            rec(2, struct.pack("<HH", h | (pb << 12), len(chunk)) + chunk, sent, dt if i == 0 else 100)

    local = bytes.fromhex("665544332211")
    peer = bytes.fromhex("0100001880C0")
    cmd(0x1009, ret=local)
    cmd(0x1001, ret=bytes([0x0C, 0x00, 0x00, 0x0C, 0x0F, 0x00, 0x10, 0x00]))
    cmd(0x200B, bytes([1]) + struct.pack("<HH", 0x60, 0x30) + bytes([0, 0]))
    cmd(0x200C, bytes([1, 0]))
    adv = bytes([2, 1, 6, 3, 3, 0x0D, 0x18, 5, 9]) + b"Belt"
    meta(0x02, bytes([1, 0, 1]) + peer + bytes([len(adv)]) + adv + bytes([0xC4]), 50_000)
    rsp = bytes([7, 0xFF, 0x4C, 0x00, 1, 2, 3, 4])
    meta(0x02, bytes([1, 4, 1]) + peer + bytes([len(rsp)]) + rsp + bytes([0xC2]), 500)
    meta(0x02, bytes([1, 3, 1]) + bytes.fromhex("0200001880C1") + bytes([3, 2, 1, 6, 0xB0]), 30_000)
    meta(0x0B, bytes([1, 1, 1]) + bytes.fromhex("0300001880C1") + bytes([0]) + local + bytes([0xBA]), 30_000)
    cmd(0x200C, bytes([0, 0]))
    h = 0x0040
    cmd_status(0x200D, struct.pack("<HHBB", 0x60, 0x30, 0, 1) + peer + bytes([0]) + struct.pack("<HHHHHH", 24, 40, 0, 72, 0, 0))
    meta(0x0A, struct.pack("<BHBB", 0, h, 0, 1) + peer + bytes(12) + struct.pack("<HHHB", 24, 0, 72, 0), 20_000)
    att(h, b"\x02" + struct.pack("<H", 247), True, 2_000)
    att(h, b"\x03" + struct.pack("<H", 247), False, 30_000)
    cmd_status(0x041D, struct.pack("<H", h))
    evt(0x0C, struct.pack("<BHBHH", 0, h, 0x0B, 0x0059, 0x1234), 40_000)
    cmd_status(0x2016, struct.pack("<H", h))
    meta(0x04, struct.pack("<BH", 0, h) + bytes([0xFF, 0x49, 0x01, 0, 0, 0, 0, 0]), 40_000)
    cmd_status(0x2032, struct.pack("<HBBBH", h, 0, 2, 2, 0))
    meta(0x0C, struct.pack("<BHBB", 0, h, 2, 2), 40_000)
    cmd(0x2022, struct.pack("<HHH", h, 251, 2120))
    meta(0x07, struct.pack("<HHHHH", h, 251, 2120, 251, 2120), 40_000)
    att(h, b"\x12" + struct.pack("<H", 0x0010) + bytes(range(200)), True)
    att(h, b"\x13", False, 30_000)
    cmd_status(0x0406, struct.pack("<HB", h, 0x13))
    evt(0x05, struct.pack("<BHB", 0, h, 0x16), 40_000)

    h2 = 0x0041
    central = bytes.fromhex("AABBCCDDEE00")
    cmd(0x2006, struct.pack("<HHBBB", 160, 160, 0, 0, 0) + bytes(6) + bytes([7, 0]))
    cmd(0x2008, bytes([len(adv)]) + adv + bytes(31 - len(adv)))
    cmd(0x200A, bytes([1]), )
    meta(0x01, struct.pack("<BHBB", 0, h2, 1, 0) + central + struct.pack("<HHHB", 40, 2, 100, 0), 350_000)
    att(h2, b"\x02" + struct.pack("<H", 100), False, 60_000)
    att(h2, b"\x03" + struct.pack("<H", 247), True, 1_000)
    for n in range(5):
        att(h2, b"\x1B" + struct.pack("<H", 0x0012) + bytes([n] * 30), True, 45_000)
    meta(0x0C, struct.pack("<BHBB", 0, h2, 2, 1), 60_000)
    meta(0x03, struct.pack("<BHHHH", 0, h2, 80, 0, 200), 100_000)
    for n in range(5):
        att(h2, b"\x1B" + struct.pack("<H", 0x0012) + bytes([n] * 3), True, 150_000)
    evt(0x05, struct.pack("<BHB", 0, h2, 0x08), 2_000_000)
    open(path, "wb").write(b"".join(out))


SYNTHETIC_VARIANTS = [
    ("synthetic.lell256.pcap", ["--linktype", "256"]),
    ("synthetic.nordic272.pcapng", ["--linktype", "272"]),
    ("synthetic.v2.nordic272.pcap", ["--linktype", "272", "--nordic-version", "2", "--container", "pcap"]),
    ("synthetic.empty-retx-badcrc.nordic272.pcapng",
     ["--linktype", "272", "--empty-pdus", "--retransmit-rate", "0.1", "--bad-crc-rate", "0.05", "--seed", "9"]),
    ("synthetic.pdu251.lell256.pcap", ["--linktype", "256", "--max-pdu", "251", "--empty-pdus"]),
]



# -- link-layer procedure scenarios (make_link_layer.py --procedure) -----------------------------

# What each scenario must show, written out here rather than taken from the generator: per access
# address the connection's timing (from its CONNECT_IND, or given for a link joined mid-connection:
# interval µs, CRCInit, hop, first unmapped channel), and the LL Control PDUs in order as
# (event counter, direction, opcode, {tshark field: value}).
PROCEDURE_FACTS = {
    "conn_update_long_interval": {
        "experts": set(),
        "control": [
            (5, "C", 0x00, {"btle.control.window_size": "2", "btle.control.window_offset": "720",
                            "btle.control.interval": "816", "btle.control.latency": "0",
                            "btle.control.timeout": "600", "btle.control.instant": "11"}),
            (14, "C", 0x01, {"btle.control.instant": "17"}),
            (18, "C", 0x16, {}), (18, "P", 0x17, {}),
            (19, "C", 0x18, {"btle.control.instant": "22"}),
            (23, "C", 0x14, {}), (23, "P", 0x15, {}),
            (24, "C", 0x03, {}), (24, "P", 0x04, {}), (25, "P", 0x05, {}),
            (26, "C", 0x06, {}), (26, "P", 0x06, {}),
            (28, "C", 0x0A, {}), (28, "P", 0x0B, {}), (29, "C", 0x0B, {}),
            (31, "P", 0x02, {"btle.control.error_code": "0x13"}),
        ],
    },
    "instant_wraps": {
        "experts": {"Not acknowledged"},           # the empty PDUs between are hidden
        "joined": {0x6A3C91E5: (50_000, 0x0F1E2D)},
        "control": [
            (65525, "C", 0x0C, {}), (65525, "P", 0x0C, {}),
            (65530, "C", 0x00, {"btle.control.window_offset": "4", "btle.control.interval": "40",
                                "btle.control.timeout": "200", "btle.control.instant": "2"}),
            (1, "C", 0x01, {"btle.control.instant": "5"}),
            (3, "C", 0x18, {"btle.control.instant": "8"}),
            (12, "C", 0x02, {"btle.control.error_code": "0x16"}),
        ],
    },
    "late_peer_missed_events": {
        "experts": {"Retransmission"},             # the central's unanswered PDUs, sent again
        "control": [(29, "C", 0x02, {"btle.control.error_code": "0x16"})],
        "missed": {10: 14},                        # after event 9, 14 events not in the file
    },
    "unanswered_connect_ind": {
        "experts": {"Retransmission"},
        "control": [(3, "P", 0x02, {"btle.control.error_code": "0x13"})],
        # Per CONNECT_IND in order: whether the peripheral answered on its access address (a
        # failed attempt, then a connection).
        "answered": [False, True],
    },
    "supervision_timeout": {"experts": set(), "control": []},
    "conn_param_request": {
        "experts": set(),
        "control": [
            (2, "P", 0x0F, {"btle.control.interval.min": "6", "btle.control.interval.max": "12",
                            "btle.control.latency": "0", "btle.control.timeout": "200"}),
            (3, "C", 0x11, {"btle.control.reject_opcode": "0x0f", "btle.control.error_code": "0x3b"}),
            (6, "C", 0x0F, {"btle.control.interval.min": "40", "btle.control.interval.max": "48",
                            "btle.control.latency": "2", "btle.control.timeout": "400"}),
            (7, "P", 0x10, {"btle.control.interval.min": "40", "btle.control.interval.max": "40"}),
            (8, "C", 0x00, {"btle.control.window_size": "2", "btle.control.window_offset": "5",
                            "btle.control.interval": "40", "btle.control.instant": "14"}),
            (18, "C", 0x02, {"btle.control.error_code": "0x16"}),
        ],
    },
}


def check_procedure(name, path):
    facts = PROCEDURE_FACTS[name]
    problems = []
    frames = read_capture(path)
    fields = ["frame.number", "btle.advertising_header.pdu_type", "btle.link_layer_data.access_address",
              "btle.link_layer_data.crc_init", "btle.link_layer_data.window_size",
              "btle.link_layer_data.window_offset", "btle.link_layer_data.interval", "btle.link_layer_data.hop",
              "btle.control_opcode", "_ws.expert.message", "_ws.malformed"]
    fields += sorted({f for c in facts["control"] for f in c[3]})
    rows = tshark(path, fields)
    if len(rows) != len(frames):
        problems.append(f"tshark shows {len(rows)} frames, the file has {len(frames)}")
    # 1. No malformed frame; no expert item but the ones the scenario explains.
    for row in rows:
        msgs = {m for m in row["_ws.expert.message"].split(",") if m}
        if row["_ws.malformed"] or msgs - facts["experts"]:
            problems.append(f"frame {row['frame.number']}: {sorted(msgs - facts['experts'])} {row['_ws.malformed']}")
    # 2. Each link's timing from its CONNECT_IND (or given): CRC, channel (CSA#1), anchors.
    links = {}
    for aa, (interval, crc) in facts.get("joined", {}).items():
        links[aa] = {"crc": crc, "interval": interval, "hop": None}
    for fr, row in zip(frames, rows):
        if fr["aa"] == ADV_AA:
            if crc24_lfsr(fr["pdu"], 0x555555) != fr["crc"]:
                problems.append(f"frame {fr['n']}: advertising CRC")
            if row["btle.advertising_header.pdu_type"] in ("0x05", "0x5"):
                aa = int(row["btle.link_layer_data.access_address"], 16)
                links[aa] = {"crc": int(row["btle.link_layer_data.crc_init"], 16),
                             "interval": int(row["btle.link_layer_data.interval"]) * 1250,
                             "hop": int(row["btle.link_layer_data.hop"]), "unmapped": 0,
                             "chm": (1 << 37) - 1, "connect": fr["ts"],
                             "window": (int(row["btle.link_layer_data.window_offset"]) * 1250,
                                        int(row["btle.link_layer_data.window_size"]) * 1250)}
    pending = []
    last = {}
    for fr, row in zip(frames, rows):
        if fr["aa"] == ADV_AA:
            continue
        link = links.get(fr["aa"])
        if link is None:
            problems.append(f"frame {fr['n']}: data PDU on an access address with no CONNECT_IND")
            continue
        if crc24_lfsr(fr["pdu"], link["crc"]) != fr["crc"]:
            problems.append(f"frame {fr['n']}: CRC")
        ev = fr["event"]
        if fr["direction"] == "P":
            c = last.get(fr["aa"])
            if not c or c["event"] != ev or fr["ts"] != c["ts"] + air_time(len(c["pdu"]) - 2, c["phy"]) + 150:
                problems.append(f"frame {fr['n']}: the peripheral not T_IFS after the central's PDU of its event")
            continue
        # A central PDU opens its connection event.
        prev = last.get(fr["aa"])
        if prev is None:
            if "connect" in link:
                start = link["connect"] + air_time(34, 1) + 1250 + link["window"][0]
                if not start <= fr["ts"] <= start + link["window"][1] or ev != 0:
                    problems.append(f"frame {fr['n']}: event 0 not in the CONNECT_IND's transmit window")
        else:
            # Walk the events from the previous anchor, applying instants on the way: the
            # instant's anchor lies in the transmit window 1.25 ms + WinOffset after the old
            # timing's anchor of that event (4.5.5.1), later ones at the new interval.
            t, k, slack = prev["ts"], prev["event"], 0
            while k != ev:
                k = (k + 1) & 0xFFFF
                t += link["interval"]
                for p in [p for p in pending if p[0] == fr["aa"] and p[1] == k and p[2] == 0x00]:
                    pending.remove(p)
                    off, size, interval = p[3]
                    t += 1250 + off
                    link["interval"] = interval
                    if k == ev:
                        if not t <= fr["ts"] <= t + size:
                            problems.append(f"frame {fr['n']}: instant {k}'s anchor not in the transmit window")
                        t = fr["ts"]
                    else:
                        slack = size
            if not t <= fr["ts"] <= t + slack:
                problems.append(f"frame {fr['n']}: anchor {fr['ts'] - t} us off the timing in force (event {ev})")
        if link["hop"] is not None:
            # CSA#1 over every event since the last PDU seen (missed ones too).
            k0 = prev["event"] if prev else -1
            steps = (ev - k0) & 0xFFFF if prev else ev + 1
            for i in range(steps):
                kk = (k0 + 1 + i) & 0xFFFF
                for p in list(pending):
                    if p[0] == fr["aa"] and p[1] == kk and p[2] == 0x01:
                        pending.remove(p)
                        link["chm"] = p[3]
                link["unmapped"] = (link["unmapped"] + link["hop"]) % 37
            used = [i for i in range(37) if link["chm"] >> i & 1]
            want = link["unmapped"] if link["chm"] >> link["unmapped"] & 1 else used[link["unmapped"] % len(used)]
            if fr["channel"] != want:
                problems.append(f"frame {fr['n']}: channel {fr['channel']}, CSA#1 gives {want}")
        for p in list(pending):
            if p[0] == fr["aa"] and p[2] == 0x18 and (ev - p[1]) & 0xFFFF < 0x8000:
                pending.remove(p)
                link["phy"] = p[3]
        if fr["phy"] != link.get("phy", 1):
            problems.append(f"frame {fr['n']}: PHY {fr['phy']}, {link.get('phy', 1)} in force")
        last[fr["aa"]] = {"event": ev, "ts": fr["ts"], "pdu": fr["pdu"], "phy": fr["phy"]}
        op = row["btle.control_opcode"]
        if op in ("0x00", "0x01", "0x18") and row["btle.control.instant"]:
            pdu = fr["pdu"]
            instant = int(row["btle.control.instant"])
            if op == "0x00":
                ws, wo, iv = pdu[3], struct.unpack("<H", pdu[4:6])[0], struct.unpack("<H", pdu[6:8])[0]
                pending.append((fr["aa"], instant, 0x00, (wo * 1250, ws * 1250, iv * 1250)))
            elif op == "0x01":
                pending.append((fr["aa"], instant, 0x01, int.from_bytes(pdu[3:8], "little")))
            else:
                pending.append((fr["aa"], instant, 0x18, 2 if pdu[3] & 2 else 1))
    # 3. The LL Control PDUs, in order, as tshark decodes them.
    seen = []
    for fr, row in zip(frames, rows):
        if row["btle.control_opcode"]:
            got = {f: row[f] for c in facts["control"] for f in c[3]}
            seen.append((fr["event"], fr["direction"], int(row["btle.control_opcode"], 16), got))
    want = facts["control"]
    if [(e, d, o) for e, d, o, _ in seen] != [(e, d, o) for e, d, o, _ in want]:
        problems.append(f"LL Control PDUs {[(e, d, hex(o)) for e, d, o, _ in seen]}, expected "
                        f"{[(e, d, hex(o)) for e, d, o, _ in want]}")
    else:
        for (e, d, o, got), (_, _, _, exp) in zip(seen, want):
            for f, v in exp.items():
                if got.get(f) != v:
                    problems.append(f"event {e} opcode {o:#04x}: {f} = {got.get(f)!r}, expected {v!r}")
    # 4. Which CONNECT_INDs the peripheral answered (a PDU from it on the access address): the
    # others are failed attempts, no connection (4.5.2).
    if "answered" in facts:
        order = [int(row["btle.link_layer_data.access_address"], 16) for fr, row in zip(frames, rows)
                 if fr["aa"] == ADV_AA and row["btle.advertising_header.pdu_type"] in ("0x05", "0x5")]
        heard = {fr["aa"] for fr in frames if fr["aa"] != ADV_AA and fr["direction"] == "P"}
        got = [aa in heard for aa in order]
        if got != facts["answered"]:
            problems.append(f"CONNECT_INDs answered {got}, expected {facts['answered']}")
    summary = f"{os.path.basename(path)}: {len(frames)} frames, {len(links)} links, {len(seen)} LL Control PDUs"
    return problems, summary


def procedure_files():
    sys.path.insert(0, HERE)
    import make_link_layer
    for name in make_link_layer.PROCEDURES:
        yield name, os.path.join(ROOT, "captures", "linklayer", f"procedures.{name}.nordic272.pcapng")


def corpus_pairs(only):
    sys.path.insert(0, HERE)
    import make_link_layer
    for src, out, _ in make_link_layer.corpus_jobs():
        if only and only not in out:
            continue
        yield (os.path.join(ROOT, "captures", "bumble", src), os.path.join(ROOT, "captures", "linklayer", out))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*")
    p.add_argument("--corpus", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--procedures", action="store_true",
                   help="check the procedure scenarios (captures/linklayer/procedures.*, make_link_layer.py --procedure)")
    p.add_argument("--synthetic", action="store_true",
                   help="also build a small HCI capture with what the corpus lacks (see synthetic_hci) and check its conversions")
    a = p.parse_args()
    tmp = tempfile.TemporaryDirectory()
    pairs = []
    if a.synthetic:
        hci = os.path.join(tmp.name, "synthetic.btsnoop")
        synthetic_hci(hci)
        for name, opts in SYNTHETIC_VARIANTS:
            out = os.path.join(tmp.name, name)
            subprocess.run([sys.executable, os.path.join(HERE, "make_link_layer.py"), hci, out] + opts,
                           check=True, capture_output=True)
            pairs.append((hci, out))
    if a.corpus:
        pairs += list(corpus_pairs(a.only))
    elif len(a.files) >= 2:
        pairs += [(a.files[0], g) for g in a.files[1:]]
    elif not a.synthetic and not a.procedures:
        p.error("ORIGINAL GENERATED..., --corpus or --synthetic")
    real = selftest_crc()
    print(f"CRC-24 self-test: {real} CRCs of a real sniffer capture reproduced")
    mics = selftest_ccm()
    print(f"AES-CCM self-test: {mics} MICs of a real encrypted capture verified")
    failed = 0

    def report(problems, summary):
        """Prints one file's verdict (the first 20 problems); counts a failure."""
        nonlocal failed
        if problems:
            failed += 1
            print(f"FAIL {summary}")
            for line in problems[:20]:
                print(f"  {line}")
            if len(problems) > 20:
                print(f"  ... {len(problems) - 20} more")
        else:
            print(f"ok   {summary}")

    for original, generated in pairs:
        report(*check(original, generated))
    procedures = list(procedure_files()) if a.procedures or a.corpus else []
    for name, path in procedures:
        report(*check_procedure(name, path))
    print(f"{len(pairs) + len(procedures) - failed} of {len(pairs) + len(procedures)} files pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
