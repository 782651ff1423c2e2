#!/usr/bin/env python3
"""Writes captures/diagnose/: HCI captures (btsnoop, H4) built packet by packet, one per
`blecap diagnose` cause class that no shipped or Bumble capture shows, so that what each holds
is known by construction (captures/diagnose/README.md lists them; captures/diagnose-expected.json
holds the verdicts diagnose must give). Deterministic: running it again changes nothing.

Every packet follows Core 5.4 Vol 4 Part E (commands 7.8, events 7.7); tshark decodes them all
(`tshark -r F -V`), which is how the expected verdicts were checked.

Usage: scripts/corpus/make_diagnose_scenarios.py [--check]   (--check: exit 1 if a file would change)
"""
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_synthetic import write_or_check  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures", "diagnose")
EPOCH_1970 = 0x00DCDDB30F2F8000  # btsnoop counts microseconds from year 0
BASE = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z

PEER = "C0:11:22:33:44:01"     # the device the host wants
OTHER = "C0:11:22:33:44:99"    # some other advertiser
HANDLE = 0x0040


def addr(a):
    return bytes(int(x, 16) for x in reversed(a.split(":")))


class Capture:
    def __init__(self):
        self.records = []

    def add(self, t_ms, flags, packet):
        ts = BASE + int(t_ms * 1000) + EPOCH_1970
        self.records.append(struct.pack(">IIIIq", len(packet), len(packet), flags, 0, ts) + packet)

    def cmd(self, t, opcode, params=b""):
        self.add(t, 2, b"\x01" + struct.pack("<HB", opcode, len(params)) + params)

    def evt(self, t, code, params):
        self.add(t, 3, b"\x04" + bytes([code, len(params)]) + params)

    def complete(self, t, opcode, ret=b"\x00"):
        self.evt(t, 0x0E, struct.pack("<BH", 1, opcode) + ret)

    def status(self, t, opcode, status=0):
        self.evt(t, 0x0F, struct.pack("<BBH", status, 1, opcode))

    def meta(self, t, sub, params):
        self.evt(t, 0x3E, bytes([sub]) + params)

    # Commands with their answers.
    def reset(self, t):
        self.cmd(t, 0x0C03)
        self.complete(t + 5, 0x0C03)

    def scan(self, t, enable):
        self.cmd(t, 0x200C, bytes([1 if enable else 0, 0]))
        self.complete(t + 1, 0x200C)

    def clear_accept_list(self, t):
        self.cmd(t, 0x2010)
        self.complete(t + 1, 0x2010)

    def add_accept_list(self, t, a):
        self.cmd(t, 0x2011, b"\x00" + addr(a))
        self.complete(t + 1, 0x2011)

    def create(self, t, peer=None):
        """LE Create Connection (7.8.12): direct to `peer`, or through the accept list."""
        policy = 0 if peer else 1
        p = struct.pack("<HHBB", 0x0060, 0x0030, policy, 0) + addr(peer or "00:00:00:00:00:00")
        p += struct.pack("<BHHHHHH", 0, 24, 40, 0, 500, 0, 0)
        self.cmd(t, 0x200D, p)
        self.status(t + 1, 0x200D)

    def cancel(self, t):
        self.cmd(t, 0x200E)
        self.complete(t + 1, 0x200E)
        self.connection_complete(t + 2, status=0x02, peer="00:00:00:00:00:00")

    def connection_complete(self, t, status=0, peer=PEER):
        p = struct.pack("<BHBB", status, HANDLE if status == 0 else 0, 0, 0) + addr(peer)
        p += struct.pack("<HHHB", 36, 0, 500, 0)
        self.meta(t, 0x01, p)

    def advert(self, t, a, event_type, rssi=-60):
        data = bytes([2, 0x01, 0x06]) if event_type in (0, 2) else b""
        p = bytes([1, event_type, 0]) + addr(a) + bytes([len(data)]) + data + struct.pack("<b", rssi)
        self.meta(t, 0x02, p)

    def disconnected(self, t, reason):
        self.evt(t, 0x05, struct.pack("<BHB", 0, HANDLE, reason))

    def connect(self, t):
        self.create(t, PEER)
        self.connection_complete(t + 100)

    def acl(self, t, sent, cid, payload):
        """One L2CAP B-frame on the link (Vol 3 Part A 3.1), first fragment."""
        l2 = struct.pack("<HH", len(payload), cid) + payload
        self.add(t, 0 if sent else 1, b"\x02" + struct.pack("<HH", HANDLE | 0x2000, len(l2)) + l2)

    def local_disconnect(self, t, reason=0x13):
        self.cmd(t, 0x0406, struct.pack("<HB", HANDLE, reason))
        self.status(t + 1, 0x0406)
        self.disconnected(t + 50, 0x16)

    def data(self):
        return b"btsnoop\x00" + struct.pack(">II", 1, 1002) + b"".join(self.records)


def ll_response_timeout_set_phy():
    """LE Set PHY accepted (Command Status 0x00), no LE PHY Update Complete, 0x22 40 s later."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.cmd(1200, 0x2032, struct.pack("<HBBBH", HANDLE, 0, 0x02, 0x02, 0))
    c.status(1201, 0x2032)
    c.disconnected(41200, 0x22)
    return c


def ll_response_timeout_connection_update():
    """A PHY update that completed, then LE Connection Update accepted and never completed."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.cmd(1200, 0x2032, struct.pack("<HBBBH", HANDLE, 0, 0x02, 0x02, 0))
    c.status(1201, 0x2032)
    c.meta(1300, 0x0C, struct.pack("<BHBB", 0, HANDLE, 2, 2))
    c.cmd(2000, 0x2013, struct.pack("<HHHHHHH", HANDLE, 6, 12, 0, 400, 0, 0))
    c.status(2001, 0x2013)
    c.disconnected(42000, 0x22)
    return c


def ll_response_timeout_nothing_outstanding():
    """0x22 with every command of the host completed: HCI cannot say which procedure."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.cmd(2000, 0x2013, struct.pack("<HHHHHHH", HANDLE, 6, 12, 0, 400, 0, 0))
    c.status(2001, 0x2013)
    c.meta(2100, 0x03, struct.pack("<BHHHH", 0, HANDLE, 12, 0, 400))
    c.disconnected(50000, 0x22)
    return c


def autoconnect_loop():
    """Android's background connect (autoConnect=true): PEER on the accept list, create through
    the list, cancel, again; the host scans and hears OTHER, never PEER."""
    c = Capture()
    c.reset(0)
    c.scan(50, True)
    c.clear_accept_list(100)
    c.add_accept_list(110, PEER)
    t = 200
    for i in range(4):
        c.create(t)
        c.advert(t + 3000, OTHER, 0)
        c.advert(t + 6000, OTHER, 0)
        c.cancel(t + 9500)
        t += 10000
    return c


def accept_list_not_scanning():
    """One background connect cancelled, with no scan: the capture cannot show advertising."""
    c = Capture()
    c.reset(0)
    c.clear_accept_list(100)
    c.add_accept_list(110, PEER)
    c.create(200)
    c.cancel(5200)
    return c


def failed_to_be_established_loop():
    """The app reconnects on every failure: create to PEER, 0x3E, create again (5 times)."""
    c = Capture()
    c.reset(0)
    t = 100
    for i in range(5):
        c.create(t, PEER)
        c.connection_complete(t + 400, status=0x3E, peer=PEER)
        t += 2000
    return c


def non_connectable_target():
    """The host connects to a device it only heard with ADV_NONCONN_IND; it gives up after 30 s."""
    c = Capture()
    c.reset(0)
    c.scan(50, True)
    for i in range(3):
        c.advert(100 + 100 * i, PEER, 3, rssi=-55)
    c.advert(350, OTHER, 0)
    c.scan(500, False)
    c.create(600, PEER)
    c.cancel(30600)
    return c


def ended(reason):
    """A link this host made, ended by the peer or the link with `reason` a second later."""
    def make():
        c = Capture()
        c.reset(0)
        c.connect(100)
        c.disconnected(1200, reason)
        return c
    return make


def attempt_failed(status, role=0):
    """An LE Connection Complete with a failed status (no create for 0x3C: advertising ends it)."""
    def make():
        c = Capture()
        c.reset(0)
        if role == 0:
            c.create(100, PEER)
        p = struct.pack("<BHBB", status, 0, role, 0) + addr(PEER) + struct.pack("<HHHB", 0, 0, 0, 0)
        c.meta(600, 0x01, p)
        return c
    return make


def page_timeout():
    """BR/EDR Create Connection (7.1.5) answered by Connection Complete (7.7.3) status 0x04."""
    c = Capture()
    c.reset(0)
    c.cmd(100, 0x0405, addr(PEER) + struct.pack("<HBBHB", 0xCC18, 1, 0, 0, 1))
    c.status(101, 0x0405)
    c.evt(5200, 0x03, struct.pack("<BH", 0x04, 0) + addr(PEER) + bytes([1, 0]))
    return c


def pairing_failed():
    """This host asks to pair, the peer answers Pairing Failed 0x05 (Pairing Not Supported) and ends the link."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.acl(500, True, 6, bytes([0x01, 0x03, 0x00, 0x01, 16, 0x07, 0x07]))
    c.acl(560, False, 6, bytes([0x05, 0x05]))
    c.disconnected(700, 0x13)
    return c


def att_transaction_timeout():
    """This host reads handle 0x0003; no response in 30 s; it ends the link."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.acl(500, True, 4, bytes([0x0A, 0x03, 0x00]))
    c.local_disconnect(30600)
    return c


def host_disconnected_after_gatt_error():
    """This host reads handle 0x0003, gets Read Not Permitted, and disconnects 300 ms later."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.acl(500, True, 4, bytes([0x0A, 0x03, 0x00]))
    c.acl(560, False, 4, bytes([0x01, 0x0A, 0x03, 0x00, 0x02]))
    c.local_disconnect(860)
    return c


def disconnect_after_security_request():
    """The peer (peripheral) sends Security Request; this host never pairs; the peer ends the link 5 s later."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.acl(500, False, 6, bytes([0x0B, 0x05]))
    c.disconnected(5500, 0x13)
    return c


def buffer_stall():
    """The controller has 4 LE ACL buffers (LE Read Buffer Size); this host writes 8 commands:
    the first 4 come back (Number of Completed Packets), the next 4 never do; 3.2 s after the
    last buffer went, the link ends with 0x08 (supervision timeout)."""
    c = Capture()
    c.reset(0)
    c.cmd(10, 0x2002)
    c.complete(11, 0x2002, struct.pack("<BHB", 0, 27, 4))
    c.connect(100)
    t = 500
    for i in range(4):
        c.acl(t + 10 * i, True, 4, bytes([0x52, 0x03, 0x00, i]))
    c.evt(600, 0x13, struct.pack("<BHH", 1, HANDLE, 4))
    for i in range(4):
        c.acl(1000 + 10 * i, True, 4, bytes([0x52, 0x03, 0x00, 4 + i]))
    c.disconnected(4230, 0x08)
    return c


def rssi_falling():
    """The host scans (PEER advertises at -55 dBm), connects, then reads the link's RSSI once a
    second (HCI Read RSSI, 7.5.4: Command Complete with Status, Handle, RSSI): it holds near
    -60 dBm, then falls to -86 dBm; 2 s after the last read the link ends with 0x08."""
    c = Capture()
    c.reset(0)
    c.scan(100, True)
    for i in range(3):
        c.advert(200 + 100 * i, PEER, 0, rssi=-55)
    c.scan(600, False)
    c.connect(1000)
    values = [-58, -59, -58, -60, -61, -64, -68, -72, -77, -82, -86]
    for i, v in enumerate(values):
        t = 2000 + 1000 * i
        c.cmd(t, 0x1405, struct.pack("<H", HANDLE))
        c.complete(t + 2, 0x1405, struct.pack("<BHb", 0, HANDLE, v))
    c.disconnected(14002, 0x08)
    return c


def bqr_link_quality(t_ms, report_id, rssi, snr, retx, no_rx, nak):
    """Android's Bluetooth Quality Report (HCI Vendor-Specific event 0xFF, sub-event 0x58) with
    the 48-byte link-quality block as AOSP reads it: id, packet type, handle, role, TX power,
    RSSI, SNR, unused AFH channels, AFH select-unideal channels, LSTO (slots), piconet clock,
    then retransmission, no-RX, NAK counts, last TX ack timestamp, flow-off count, last flow-on
    timestamp, buffer overflow and underflow bytes (u32 each)."""
    block = struct.pack("<BBHBbbbBBH", report_id, 0x01, HANDLE, 0, 4, rssi, snr, 3, 1, 800)
    block += struct.pack("<9I", 0x00012345 + t_ms, retx, no_rx, nak, 0x00010000 + t_ms, 0, 0, 0, 0)
    return b"\x58" + block


def bqr_supervision_timeout():
    """A connection whose controller sends BQR quality-monitoring reports (id 0x01) once a
    second, the link getting worse (RSSI -60 to -88 dBm, no-RX count growing), an RF-stats
    report (id 0x09, kept raw), an approaching-LSTO report (id 0x02), then 0x08."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    rows = [(-60, 30, 0, 0, 0), (-66, 25, 2, 1, 1), (-74, 18, 9, 6, 4), (-83, 9, 31, 20, 12)]
    for i, (rssi, snr, retx, no_rx, nak) in enumerate(rows):
        c.evt(1000 + 1000 * i, 0xFF, bqr_link_quality(1000 + 1000 * i, 0x01, rssi, snr, retx, no_rx, nak))
    c.evt(4500, 0xFF, b"\x58\x09" + bytes(range(1, 9)))
    c.evt(5000, 0xFF, bqr_link_quality(5000, 0x02, -88, 4, 47, 38, 19))
    c.disconnected(6000, 0x08)
    return c


def bqr_root_inflammation():
    """A connection, then a BQR Root Inflammation report (id 0x05, AOSP btif_bqr's layout: id,
    Error_Code 0x00, Vendor_Specific_Error_Code 0x2a, then vendor parameters: a count of 1 and
    one id/length/value, 0x01 0x02 0x34 0x12), the controller reporting its own failure, then
    the link lost (0x08) 1.5 s later."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.evt(3000, 0xFF, b"\x58\x05\x00\x2a" + b"\x01\x01\x02\x34\x12")
    c.disconnected(4500, 0x08)
    return c


def bqr_energy_monitoring(period_ms):
    """A BQR Energy Monitoring report (id 0x06) in AOSP btif_bqr's `BqrEnergyMonitorEvent`
    layout (81 bytes, little-endian): id, average current u16 (mA), idle time, idle entries,
    active time, active entries, BR/EDR TX time, BR/EDR TX entries (u32), BR/EDR average TX
    power u8, BR/EDR RX time, BR/EDR RX entries, LE TX time, LE TX entries (u32), LE average TX
    power u8, LE RX time, LE RX entries, period, then the six chain times (u32)."""
    body = struct.pack("<BH6I", 0x06, 12, 3100, 40, 1900, 41, 0, 0)
    body += struct.pack("<B4I", 0, 0, 0, 620, 380)
    body += struct.pack("<B9I", 4, 710, 395, period_ms, 700, 10, 600, 20, 0, 0)
    assert len(body) == 81
    return b"\x58" + body


def bqr_rf_stats(period_ms, rssi_buckets):
    """A BQR RF Stats report (id 0x09) in AOSP btif_bqr's `BqrRFStatsEvent` layout (82 bytes):
    id, extension info 0x01, period u32 (ms), TX packet counters (iPA BF, ePA BF, iPA div, ePA
    div), received packets by chain RSSI (> -50, -50..-55, …, -85..-90, < -90 dBm: 10), by RSSI
    delta between the chains (< 2, 2..5, 5..8, 8..11, > 11 dB: 5), u32 each."""
    assert len(rssi_buckets) == 10
    delta = [sum(rssi_buckets) - 30, 20, 6, 3, 1]
    body = struct.pack("<BBI", 0x09, 0x01, period_ms) + struct.pack("<4I", 0, 0, 820, 0)
    body += struct.pack("<10I", *rssi_buckets) + struct.pack("<5I", *delta)
    assert len(body) == 82
    return b"\x58" + body


def bqr_rf_stats_supervision_timeout():
    """A connection whose controller sends a BQR Energy Monitoring report (id 0x06) and, 1.5 s
    before the link is lost (0x08), an RF Stats report (id 0x09) over 5 s: of 1000 packets
    received, 700 at -80 dBm or weaker (400 at -80..-85, 250 at -85..-90, 50 below -90)."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.evt(3000, 0xFF, bqr_energy_monitoring(5000))
    c.evt(4500, 0xFF, bqr_rf_stats(5000, [0, 0, 10, 20, 40, 80, 150, 400, 250, 50]))
    c.disconnected(6000, 0x08)
    return c


def bqr_root_inflammation_reset():
    """A connection, a BQR Root Inflammation report (the controller's own failure), then this
    host resets the controller 800 ms later (HCI Reset: every connection ends, no Disconnection
    Complete, Core Vol 4 Part E 7.3.2), as Android's stack does when it restarts Bluetooth."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.evt(3000, 0xFF, b"\x58\x05\x00\x2a" + b"\x01\x01\x02\x34\x12")
    c.reset(3800)
    return c


def reset_mid_connection():
    """A connection, then this host resets the controller with the link up and nothing before
    it that says why; it connects again afterwards on the same handle, and ends that link."""
    c = Capture()
    c.reset(0)
    c.connect(100)
    c.reset(2000)
    c.connect(2100)
    c.local_disconnect(3000)
    return c


SCENARIOS = {
    "bqr.rf_stats.supervision_timeout.btsnoop": bqr_rf_stats_supervision_timeout,
    "bqr.root_inflammation.reset.btsnoop": bqr_root_inflammation_reset,
    "reset.mid_connection.btsnoop": reset_mid_connection,
    "bqr.root_inflammation.btsnoop": bqr_root_inflammation,
    "bqr.supervision_timeout.btsnoop": bqr_supervision_timeout,
    "rssi_falling.supervision_timeout.btsnoop": rssi_falling,
    "buffer_stall.supervision_timeout.btsnoop": buffer_stall,
    "end.authentication_failure.btsnoop": ended(0x05),
    "end.key_missing.btsnoop": ended(0x06),
    "end.remote_low_resources.btsnoop": ended(0x14),
    "end.remote_power_off.btsnoop": ended(0x15),
    "end.unsupported_remote_feature.btsnoop": ended(0x1A),
    "end.instant_passed.btsnoop": ended(0x28),
    "end.unacceptable_connection_parameters.btsnoop": ended(0x3B),
    "end.mic_failure.btsnoop": ended(0x3D),
    "end.other_reason_0x1f.btsnoop": ended(0x1F),
    "attempt.advertising_timeout.btsnoop": attempt_failed(0x3C, role=1),
    "attempt.connection_failed_0x09.btsnoop": attempt_failed(0x09),
    "attempt.page_timeout.btsnoop": page_timeout,
    "pairing_failed.btsnoop": pairing_failed,
    "att_transaction_timeout.btsnoop": att_transaction_timeout,
    "host_disconnected_after_gatt_error.btsnoop": host_disconnected_after_gatt_error,
    "disconnect_after_security_request.btsnoop": disconnect_after_security_request,
    "ll_response_timeout.le_set_phy.btsnoop": ll_response_timeout_set_phy,
    "ll_response_timeout.le_connection_update.btsnoop": ll_response_timeout_connection_update,
    "ll_response_timeout.nothing_outstanding.btsnoop": ll_response_timeout_nothing_outstanding,
    "reconnect_loop.accept_list.btsnoop": autoconnect_loop,
    "reconnect_loop.failed_to_be_established.btsnoop": failed_to_be_established_loop,
    "accept_list.not_scanning.btsnoop": accept_list_not_scanning,
    "non_connectable_target.btsnoop": non_connectable_target,
}


def main():
    outputs = ((name, make().data()) for name, make in SCENARIOS.items())
    return write_or_check(ROOT, outputs, "--check" in sys.argv[1:], "make_diagnose_scenarios.py")


if __name__ == "__main__":
    sys.exit(main())
