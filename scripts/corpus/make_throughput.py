#!/usr/bin/env python3
"""Write small HCI captures whose throughput ceiling is known by construction (issue 29, item 5).

Usage: make_throughput.py [OUTDIR]     (default captures/throughput)

Each file is one connection (btsnoop, H4) with chosen connection interval, PHY, LL data length,
ATT_MTU, write type, packets per connection event and LE ACL buffers, and one transfer timed to
run at its ceiling. Beside the captures, expected.json gives for each the parameters, the ceiling
computed here from the model of docs/diagnose.md ("Budget"), the factor that bounds it, the
setting the advice must name, and, from tshark when it is installed, the ATT value bytes of the
transfer and the count of malformed frames (must be 0). Byte-for-byte reproducible.
"""
import json, math, os, shutil, struct, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bench_capture import Writer  # noqa: E402

T_IFS = 150


def airtime(octets, phy):
    """Air time in µs of an LL data PDU with `octets` of payload (Core Vol 6 Part B 2.1)."""
    return (11 + octets) * 4 if phy == 2 else (10 + octets) * 8


def att_airtime(l2cap_len, data_length, phy):
    """One ATT PDU's fragments, each answered by an empty PDU, T_IFS after each."""
    full, rest = divmod(l2cap_len, data_length)
    ack = airtime(0, phy) + 2 * T_IFS
    t = full * (airtime(data_length, phy) + ack)
    if rest:
        t += airtime(rest, phy) + ack
    return t


def ceiling(c):
    """Value bytes per second the parameters allow, and what bounds it."""
    i = c["interval_us"]
    value = c["mtu"] - 3
    l2 = value + 7
    per_event_air = i / att_airtime(l2, c["data_length"], c["phy"])
    if c["write_type"] == "request":
        return min(0.5, per_event_air) * value * 1e6 / i, "request_response"
    limits = [(per_event_air, "airtime")]
    if c.get("acl_buffers"):
        limits.append((c["acl_buffers"] / math.ceil(l2 / c["acl_length"]), "acl_buffers"))
    if c.get("packets_per_event"):
        limits.append((c["packets_per_event"], "packets_per_event"))
    per_event, limit = min(limits, key=lambda x: x[0])
    return per_event * value * 1e6 / i, limit


CASES = [
    # Notifications to this host (central), 4 per connection event, 30 ms, 1M, 27 octets, MTU 23.
    dict(name="notify_4_per_event", direction="peer", write_type="notification", interval_us=30_000,
         phy=1, data_length=27, data_length_shown=False, mtu=23, packets_per_event=4, events=60,
         advice="connection_interval"),
    # Notifications filling every event: 1M, 251 octets, MTU 247, 30 ms: the air time bounds it.
    dict(name="notify_airtime_1m", direction="peer", write_type="notification", interval_us=30_000,
         phy=1, data_length=251, data_length_shown=True, mtu=247, pdus=150, advice="phy_2m",
         over_the_air=["--max-pdu", "251"]),
    # Write requests from this host, MTU 185, 45 ms: one transaction per two events.
    dict(name="write_requests_45ms", direction="host", write_type="request", interval_us=45_000,
         phy=1, data_length=27, data_length_shown=False, mtu=185, transactions=40,
         advice="write_without_response", over_the_air=[]),
    # Write commands from this host through 4 LE ACL buffers of 251 octets, 2M, 251, MTU 247, 30 ms.
    dict(name="write_commands_4_buffers", direction="host", write_type="command", interval_us=30_000,
         phy=2, data_length=251, data_length_shown=True, mtu=247, acl_buffers=4, acl_length=251,
         events=40, advice="connection_interval"),
]


def write_case(c, path):
    h = 0x0040
    peer = bytes([0x01, 0x00, 0x00, 0x5E, 0xBA, 0xC0])
    with open(path, "wb") as f:
        w = Writer(f, "h4")
        w.cmd(0x0C03)  # Reset
        w.cmd(0x1009, ret=bytes([0x11, 0x22, 0x33, 0x44, 0x55, 0x66]))  # Read BD_ADDR
        w.cmd(0x2002, ret=struct.pack("<HB", c.get("acl_length", 251), c.get("acl_buffers", 12)))
        w.cmd(0x0C01, bytes([0xFF] * 8))  # Set Event Mask (ends the bring-up)
        units = c["interval_us"] // 1250
        w.cmd_status(0x200D, struct.pack("<HHBB", 0x60, 0x30, 0, 1) + peer + bytes([0])
                     + struct.pack("<HHHHHH", units, units, 0, 400, 0, 0))
        w.le_meta(0x01, struct.pack("<BHBB", 0, h, 0, 1) + peer + struct.pack("<HHHB", units, 0, 400, 0), 30_000)
        att = lambda pdu, sent, dt=50: w.acl(h, 4, pdu, sent, dt)
        if c["data_length_shown"]:
            # LE Data Length Change (7.7.65.7): max TX/RX octets and times.
            t = (14 + c["data_length"]) * 8
            w.le_meta(0x07, struct.pack("<HHHHH", h, c["data_length"], t, c["data_length"], t), 20_000)
        if c["phy"] != 1:
            w.cmd_status(0x2032, struct.pack("<HBBBH", h, 0, c["phy"], c["phy"], 0))  # LE Set PHY
            w.le_meta(0x0C, struct.pack("<BHBB", 0, h, c["phy"], c["phy"]), 30_000)  # LE PHY Update Complete
        if c["mtu"] != 23:
            att(b"\x02" + struct.pack("<H", c["mtu"]), True)
            att(b"\x03" + struct.pack("<H", c["mtu"]), False, 30_000)
        i = c["interval_us"]
        value = c["mtu"] - 3
        vhandle = 0x0012
        data = lambda n: bytes((n * 7 + k) & 0xFF for k in range(value))
        base = w.t + 100_000
        base -= base % i  # the connection's anchors, as far as this capture is concerned
        base += i
        n = 0

        def at(t, pdu, sent):
            w.t = t - 50
            att(pdu, sent)

        if c["write_type"] == "notification" and "packets_per_event" in c:
            for e in range(c["events"]):
                for j in range(c["packets_per_event"]):
                    at(base + e * i + 700 * j, b"\x1B" + struct.pack("<H", vhandle) + data(n), False)
                    n += 1
        elif c["write_type"] == "notification":
            period = att_airtime(value + 7, c["data_length"], c["phy"])
            for k in range(c["pdus"]):
                at(base + k * period, b"\x1B" + struct.pack("<H", vhandle) + data(n), False)
                n += 1
        elif c["write_type"] == "request":
            for k in range(c["transactions"]):
                at(base + 2 * k * i - 1000, b"\x12" + struct.pack("<H", vhandle) + data(n), True)
                at(base + (2 * k + 1) * i + 1000, b"\x13", False)
                n += 1
        else:
            for e in range(c["events"]):
                for j in range(c["acl_buffers"]):
                    # Each sent ACL is followed by its Number of Completed Packets 200 µs later:
                    # space them so the record times stay in order.
                    at(base + e * i - 2000 + 400 * j, b"\x52" + struct.pack("<H", vhandle) + data(n), True)
                    n += 1
        w.t = max(w.t, base) + 50_000
        w.cmd_status(0x0406, struct.pack("<HB", h, 0x13))
        w.rec(4, bytes([0x05, 4, 0]) + struct.pack("<HB", h, 0x16), False, 40_000)
    return n * value


def tshark_facts(path):
    """ATT value bytes tshark decodes, and its count of malformed frames (None without tshark)."""
    if not shutil.which("tshark"):
        return None, None
    out = subprocess.run(["tshark", "-r", path, "-Y", "btatt.value", "-T", "fields", "-e", "btatt.value"],
                         capture_output=True, text=True, check=True).stdout
    total = sum(len(line.replace(":", "")) // 2 for line in out.split("\n") if line)
    bad = subprocess.run(["tshark", "-r", path, "-Y", "_ws.malformed"], capture_output=True, text=True,
                         check=True).stdout
    return total, len([x for x in bad.split("\n") if x.strip()])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures", "throughput")
    os.makedirs(out, exist_ok=True)
    expected = {
        "about": "Generated by scripts/corpus/make_throughput.py: each capture's parameters, the ceiling "
                 "computed from them by construction (the model of docs/diagnose.md, \"Budget\"), the "
                 "factor that bounds it, the setting the advice names, the value bytes of the "
                 "transfer as constructed and as tshark decodes them (btatt.value), and tshark's "
                 "malformed-frame count.",
        "captures": {},
    }
    for c in CASES:
        path = os.path.join(out, c["name"] + ".btsnoop")
        constructed = write_case(c, path)
        rate, limit = ceiling(c)
        tshark_bytes, malformed = tshark_facts(path)
        e = {k: v for k, v in c.items() if k not in ("name", "advice", "over_the_air")}
        e.update(ceiling_bytes_per_second=round(rate, 1), limit=limit, advice=c["advice"],
                 value_bytes=constructed, tshark_value_bytes=tshark_bytes, tshark_malformed=malformed,
                 over_the_air=False)
        expected["captures"][c["name"] + ".btsnoop"] = e
        print(f"{path}: {os.path.getsize(path)} bytes, ceiling {rate:.1f} B/s ({limit}), "
              f"value bytes {constructed} (tshark {tshark_bytes}, malformed {malformed})")
        if "over_the_air" in c:
            # The same session as a link-layer sniffer records it (LINKTYPE 256): same ceiling;
            # the converter's own event scheduling sets the achieved rate.
            ota = os.path.join(out, c["name"] + ".lell256.pcap")
            subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "make_link_layer.py"), path, ota, "--linktype", "256"]
                           + c["over_the_air"], check=True, stdout=subprocess.DEVNULL)
            tb, tm = tshark_facts(ota)
            o = dict(e, tshark_value_bytes=tb, tshark_malformed=tm, over_the_air=True)
            expected["captures"][c["name"] + ".lell256.pcap"] = o
            print(f"{ota}: {os.path.getsize(ota)} bytes (tshark {tb}, malformed {tm})")
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
