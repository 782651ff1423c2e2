#!/usr/bin/env python3
"""Writes captures/archives/: Android bug reports whose only Bluetooth record is the btsnooz
summary in the bug report text, built from the repository's own Bumble captures, for the tests
of blecap's btsnooz decoder. Deterministic: running it again changes nothing.

btsnooz (the format of AOSP's btsnooz.py, which decodes it) is the summary Android's Bluetooth
stack prints into dumpsys between `--- BEGIN:BTSNOOP_LOG_SUMMARY` and `--- END:BTSNOOP_LOG_SUMMARY`:
base64 of a 9-byte preamble (version u8, last timestamp u64 little-endian in µs since the Unix
epoch) and a zlib stream of records, little-endian:
  v1: length u16, delta u32, type u8, data       v2: length u16, packet length u16, delta u32, type u8, data
`length` and `packet length` count the type byte; `delta` is µs since the previous packet (for the
first, since a packet no longer in the summary: times are rebuilt backwards from the last one). Types: 0x10 event, 0x11 ACL, 0x12 SCO, 0x17 ISO received; 0x20 command, 0x21 ACL, 0x22 SCO,
0x2D ISO sent. Android keeps only the first bytes of ACL packets (ACL and L2CAP headers and the
start of the ATT PDU): this encoder keeps ACL_KEEP bytes of each ACL packet, the rest whole.

  bugreport-snooz-<capture>.zip   an `adb bugreport` zip (version.txt, main_entry.txt, the main text
                                  with a v2 section, FS/data/misc/bluetooth/ without logs), for
                                  bumble/<capture>.btsnoop
  snooz-v1-clean_heart_rate.txt   a bare bug report text with a v1 section (no packet lengths)
  snooz-bad-checksum.txt          the v2 section of clean_heart_rate with its Adler-32 broken
  snooz-version-3.txt             a section whose preamble says version 3

Usage: scripts/corpus/make_archives.py [--check]   (--check: exit 1 if a file would change)
"""
import base64, io, os, struct, sys, zipfile, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures")
OUT = os.path.join(ROOT, "archives")
EPOCH = 0x00DCDDB30F2F8000  # btsnoop µs from year 0 to 1970
ACL_KEEP = 14
FIRST_DELTA = 1250  # µs
CAPTURES = ["clean_heart_rate.central", "oversized_and_unchecked_writes.central", "indications_and_errors.central"]
# H4 packet type → (sent type, received type)
TYPES = {1: (0x20, None), 2: (0x21, 0x11), 3: (0x22, 0x12), 4: (None, 0x10), 5: (0x2D, 0x17)}


def btsnoop_packets(path):
    """(µs since 1970, received, h4 type, packet without type) of each record of a datalink-1002 file."""
    data = open(path, "rb").read()
    assert data[:8] == b"btsnoop\0" and struct.unpack(">I", data[12:16])[0] == 1002, path
    off, out = 16, []
    while off + 24 <= len(data):
        olen, ilen, flags, drops, ts = struct.unpack(">IIIIq", data[off:off + 24])
        body = data[off + 24:off + 24 + ilen]
        out.append((ts - EPOCH, flags & 1 == 1, body[0], body[1:]))
        off += 24 + ilen
    return out


def records(packets, version):
    out, prev = bytearray(), None
    for ts, received, h4, packet in packets:
        kind = TYPES[h4][1 if received else 0]
        assert kind is not None, (h4, received)
        kept = packet[:ACL_KEEP] if h4 == 2 else packet
        # The first delta reaches back to a packet Android's ring buffer already dropped.
        delta = FIRST_DELTA if prev is None else ts - prev
        prev = ts
        if version == 1:
            out += struct.pack("<HIB", len(kept) + 1, delta, kind)
        else:
            out += struct.pack("<HHIB", len(kept) + 1, len(packet) + 1, delta, kind)
        out += kept
    return bytes(out)


def section(packets, version, corrupt=None):
    compressed = bytearray(zlib.compress(records(packets, version), 9))
    if corrupt == "checksum":
        compressed[-1] ^= 0xFF  # the Adler-32 trailer's last byte
    preamble = struct.pack("<BQ", 3 if corrupt == "version" else version, packets[-1][0])
    text = base64.standard_b64encode(preamble + bytes(compressed)).decode()
    lines = [text[i:i + 76] for i in range(0, len(text), 76)]
    return (
        "--- BEGIN:BTSNOOP_LOG_SUMMARY (%d bytes in) ---\n" % len(compressed)
        + "\n".join(lines) + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n")


def bugreport_text(name, body):
    return (
        "========================================================\n"
        "== dumpstate: 2026-11-22 11:30:00\n"
        "========================================================\n\n"
        "Build: blecap-test\n\n"
        "-------------------------------------------------------------------------------\n"
        "DUMP OF SERVICE bluetooth_manager:\n"
        "Bluetooth Status\n  enabled: true\n  state: ON\n  address: 00:00:00:00:5A:5A\n\n"
        "Bluetooth HCI snoop log: disabled (" + name + ")\n"
        + body
        + "\n--------- 0.012s was the duration of dumpsys bluetooth_manager\n").encode()


def bugreport_zip(name, text):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        def add(path, data):
            info = zipfile.ZipInfo(path, date_time=(2026, 11, 22, 11, 30, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        main = "bugreport-blecap-2026-11-22-11-30-00.txt"
        add("version.txt", b"2.0")
        add("main_entry.txt", main.encode())
        add(main, text)
        add("FS/data/misc/bluetooth/bt_config.conf", b"[Info]\nFileSource = Empty\n")
    return buf.getvalue()


def outputs():
    for c in CAPTURES:
        packets = btsnoop_packets(os.path.join(ROOT, "bumble", c + ".btsnoop"))
        yield "bugreport-snooz-%s.zip" % c, bugreport_zip(c, bugreport_text(c, section(packets, 2)))
    clean = btsnoop_packets(os.path.join(ROOT, "bumble", "clean_heart_rate.central.btsnoop"))
    yield "snooz-v1-clean_heart_rate.txt", bugreport_text("v1", section(clean, 1))
    yield "snooz-bad-checksum.txt", bugreport_text("bad checksum", section(clean, 2, "checksum"))
    yield "snooz-version-3.txt", bugreport_text("version 3", section(clean, 2, "version"))


def main():
    check = "--check" in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    changed = []
    for name, data in outputs():
        path = os.path.join(OUT, name)
        old = open(path, "rb").read() if os.path.exists(path) else None
        if old != data:
            changed.append(name)
            if not check:
                open(path, "wb").write(data)
    for name in changed:
        print(("would change " if check else "wrote ") + os.path.join("captures", "archives", name))
    sys.exit(1 if check and changed else 0)


if __name__ == "__main__":
    main()
