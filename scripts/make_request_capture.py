#!/usr/bin/env python3
"""Write a deterministic, request-heavy BLE btsnoop capture (H4, datalink 1002) for replay benchmarks.

Usage: make_request_capture.py OUT.btsnoop [--requests N] [--commands-every K] [--connections C]

Controller init, then C connections one after the other (default 1), each: connection, MTU exchange, primary service and characteristic
discovery (so replay has a database), then N ATT requests each answered: Read Requests on three
handles (Read Responses of 1-20 bytes, every 97th a Read Not Permitted error), Write Requests on
two handles (Write Responses, every 101st an error), and a Write Command after every K-th
request (no answer). Host-sent ACL packets are followed by Number of Completed Packets, as
make_bench_capture.py writes them. A connection of N requests holds 2 N ATT PDUs plus the
commands: keep it under blecap's 2,000,000-PDU cap (N <= 950,000 with the default K). About
3.1 N frames a connection (a host-sent packet is two frames).
The output is byte-for-byte reproducible for the same arguments.
"""
import argparse, struct

EPOCH_DELTA = 0x00DCDDB30F2F8000  # microseconds from year 0 to 1970-01-01


class Writer:
    def __init__(self, f):
        self.f, self.t, self.frames = f, 1_700_000_000_000_000, 0
        f.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))

    def rec(self, ptype, payload, sent, dt_us=50):
        """ptype: 1 cmd, 2 acl, 4 event. sent: host->controller."""
        self.t += dt_us
        data = bytes([ptype]) + payload
        flags = (0 if sent else 1) | (2 if ptype in (1, 4) else 0)
        self.f.write(struct.pack(">IIIIQ", len(data), len(data), flags, 0, self.t + EPOCH_DELTA))
        self.f.write(data)
        self.frames += 1

    def cmd(self, opcode, params=b"", ret=b""):
        self.rec(1, struct.pack("<HB", opcode, len(params)) + params, True)
        ev = struct.pack("<BHB", 1, opcode, 0) + ret
        self.rec(4, bytes([0x0E, len(ev)]) + ev, False, 300)

    def acl(self, handle, pdu, sent, dt):
        l2 = struct.pack("<HH", len(pdu), 4) + pdu
        self.rec(2, struct.pack("<HH", handle | (0x2 << 12), len(l2)) + l2, sent, dt)
        if sent:
            self.rec(4, bytes([0x13, 5, 1]) + struct.pack("<HH", handle, 1), False, 200)


def connection(w, a, peer):
    """One connection of `a.requests` requests to `peer`, from its creation to its disconnection."""
    h = 0x0040
    w.rec(1, struct.pack("<HB", 0x200D, 25) + struct.pack("<HHBB", 0x60, 0x30, 0, 1) + peer + bytes([0])
          + struct.pack("<HHHHHH", 24, 40, 0, 400, 0, 0), True)
    w.rec(4, bytes([0x0F, 4, 0, 1]) + struct.pack("<H", 0x200D), False, 300)
    w.rec(4, bytes([0x3E, 19, 0x01]) + struct.pack("<BHBB", 0, h, 0, 1) + peer + struct.pack("<HHHB", 24, 0, 400, 0),
          False, 30_000)

    def att(pdu, sent, dt=50):
        w.acl(h, pdu, sent, dt)

    att(b"\x02" + struct.pack("<H", 247), True)
    att(b"\x03" + struct.pack("<H", 247), False, 30_000)
    att(b"\x10" + struct.pack("<HHH", 1, 0xFFFF, 0x2800), True)
    att(b"\x11\x06" + struct.pack("<HHH", 1, 5, 0x1800) + struct.pack("<HHH", 16, 30, 0xFFF0), False, 30_000)
    att(b"\x10" + struct.pack("<HHH", 31, 0xFFFF, 0x2800), True)
    att(b"\x01\x10" + struct.pack("<H", 31) + b"\x0A", False, 30_000)
    # Characteristics at 17/18 (read), 19/20 (read), 21/22 (read, write), 23/24 (write, write cmd).
    chars = [(17, 0x02, 18, 0xFFF1), (19, 0x02, 20, 0xFFF2), (21, 0x0A, 22, 0xFFF3), (23, 0x0C, 24, 0xFFF4)]
    att(b"\x08" + struct.pack("<HHH", 16, 30, 0x2803), True)
    att(b"\x09\x07" + b"".join(struct.pack("<HBHH", *c) for c in chars), False, 30_000)
    att(b"\x08" + struct.pack("<HHH", 25, 30, 0x2803), True)
    att(b"\x01\x08" + struct.pack("<H", 25) + b"\x0A", False, 30_000)
    reads, writes = [18, 20, 22], [22, 24]
    for n in range(a.requests):
        dt = 1_000 + (n * 37) % 3_000  # the client's pace
        latency = 400 + (n * 53) % 2_000  # the server's
        if n % 3 == 2:
            handle = writes[n % 2]
            value = bytes((n + i) & 0xFF for i in range(1 + n % 12))
            att(b"\x12" + struct.pack("<H", handle) + value, True, dt)
            if n % 101 == 0:
                att(b"\x01\x12" + struct.pack("<H", handle) + b"\x03", False, latency)  # Write Not Permitted
            else:
                att(b"\x13", False, latency)
        else:
            handle = reads[n % 3]
            att(b"\x0A" + struct.pack("<H", handle), True, dt)
            if n % 97 == 0:
                att(b"\x01\x0A" + struct.pack("<H", handle) + b"\x02", False, latency)  # Read Not Permitted
            else:
                att(b"\x0B" + bytes((n * 7 + i) & 0xFF for i in range(1 + n % 20)), False, latency)
        if a.commands_every and n % a.commands_every == 0:
            att(b"\x52" + struct.pack("<H", 24) + struct.pack("<I", n), True, 500)
    w.rec(1, struct.pack("<HB", 0x0406, 3) + struct.pack("<HB", h, 0x13), True)  # Disconnect
    w.rec(4, bytes([0x0F, 4, 0, 1]) + struct.pack("<H", 0x0406), False, 300)
    w.rec(4, bytes([0x05, 4, 0]) + struct.pack("<HB", h, 0x16), False, 40_000)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--requests", type=int, default=950_000)
    p.add_argument("--commands-every", type=int, default=20)
    p.add_argument("--connections", type=int, default=1)
    a = p.parse_args()
    with open(a.out, "wb") as f:
        w = Writer(f)
        w.cmd(0x0C03)  # Reset
        w.cmd(0x1009, ret=bytes([0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))  # Read BD_ADDR
        w.cmd(0x2002, ret=struct.pack("<HB", 251, 12))  # LE Read Buffer Size
        for c in range(a.connections):
            connection(w, a, bytes([0x01 + c % 200, 0x42, 0x13, 0x37, 0xC0, 0xDE]))
    print(f"{a.out}: {w.frames} frames")


if __name__ == "__main__":
    main()
