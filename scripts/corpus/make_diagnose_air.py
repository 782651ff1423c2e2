#!/usr/bin/env python3
"""Writes captures/diagnose-air/: over-the-air (link-layer) captures built PDU by PDU, one per
`blecap diagnose` cause class the air can show, so that what each holds is known by construction
(captures/diagnose-air/README.md lists them; captures/diagnose-air-expected.json holds the verdicts
diagnose must give, with the tshark fields that show the evidence). Deterministic: running it
again changes nothing.

The link-layer machinery is make_link_layer.py's (ProcLink: CSA#1 channels, SN / NESN, anchors;
the nRF Sniffer (272) and LE_LL_WITH_PHDR (256) writers; CONNECT_IND, ADV_IND, LL control and
L2CAP helpers): this file only lays out each scenario. The central is C0:00:5E:00:53:01, the
peripheral C0:00:5E:00:53:02 (make_link_layer.PROC_*).

What the air never carries, and how each scenario shows it instead (Core 5.4 Vol 6 Part B):
* a link the LL response timeout (5.2), a MIC failure (5.1.3.1) or an instant in the past (5.5.1)
  ended: the controller that gave up leaves the Connection state without LL_TERMINATE_IND; the
  sniffer hears the link go silent (its peer stops too once its supervision timeout runs out).

Usage: scripts/corpus/make_diagnose_air.py [--check]   (--check: exit 1 if a file would change)
"""
import io, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_synthetic import write_or_check  # noqa: E402
from make_link_layer import (  # noqa: E402
    LLWithPhdr, NordicBle, PcapOut, PcapngOut, ProcLink, adv_ind, att, conn_param,
    conn_update_params, connect_ind, ctrl)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures", "diagnose-air")
T0 = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z, in µs

# LL control opcodes (Vol 6 Part B 2.4.2)
LL_CONNECTION_UPDATE_IND, LL_TERMINATE_IND, LL_ENC_REQ, LL_ENC_RSP = 0x00, 0x02, 0x03, 0x04
LL_START_ENC_REQ, LL_START_ENC_RSP, LL_CONNECTION_PARAM_REQ = 0x05, 0x06, 0x0F
LL_REJECT_EXT_IND, LL_PHY_REQ = 0x11, 0x16


def smp(pdu):
    """An SMP PDU in an L2CAP basic frame on CID 0x0006 (Vol 3 Part H 3.2)."""
    return (2, struct.pack("<HH", len(pdu), 6) + pdu)


def terminate(reason):
    return ctrl(LL_TERMINATE_IND, bytes((reason,)))


class Scenario:
    """One capture: the peripheral advertising, the central's CONNECT_IND, the link's events."""

    def __init__(self, offset_s, interval=24, timeout=100, aa=0x5B3C_96A5, crc=0x3A5C7E, hop=7):
        self.frames = []
        self.t0 = T0 + offset_s * 1_000_000
        self.aa, self.crc = aa, crc
        self.frames.append(adv_ind(self.t0 - 20_000))
        self.frames.append(connect_ind(self.t0, aa, crc, 2, 0, interval, 0, timeout, hop=hop))
        self.link = ProcLink(self.frames, aa, crc, interval * 1250, self.t0 + 1250 + 1000, hop=hop)
        self.link.run_event()

    def events_until(self, seconds, **kw):
        """Empty events until `seconds` after the CONNECT_IND."""
        while self.link.anchor(self.link.event) < self.t0 + int(seconds * 1_000_000):
            self.link.run_event(**kw)

    def silent_then_advertising(self, seconds=8):
        """Nothing more on the link; the peripheral advertises again for `seconds` (a sniffer
        that stays on air after the link went silent)."""
        end = self.link.anchor(self.link.event)
        for i in range(seconds * 10):
            self.frames.append(adv_ind(end + 7_000_000 + i * 100_000, 37 + i % 3))
        return self

    def done(self):
        return self


def ll_response_timeout_phy_req():
    """The central's LL_PHY_REQ (event 3) that the peripheral acknowledges but never answers
    (no LL_PHY_RSP, LL_PHY_UPDATE_IND, LL_REJECT_EXT_IND or LL_UNKNOWN_RSP) while the link runs on
    with empty PDUs, 1 s interval; 40 s later the central's LL response timeout: it leaves the
    link without a PDU, the peripheral's supervision timeout (6 s) follows; the peripheral
    advertises again."""
    s = Scenario(0, interval=800, timeout=600)
    s.link.run_event(central=att(bytes((0x02, 0xF7, 0x00))), peripheral=att(bytes((0x03, 0xF7, 0x00))))
    s.link.run_event()
    s.link.run_event(central=ctrl(LL_PHY_REQ, bytes((0x02, 0x02))))
    s.events_until(3 * 1.0 + 40.0)
    return s.silent_then_advertising()


def ll_response_timeout_conn_param_req():
    """The peripheral's LL_CONNECTION_PARAM_REQ (event 2) the central never answers; 40 s later
    the peripheral's LL response timeout: it stops answering, the central polls unanswered for
    its supervision timeout (6 s) and stops. Link type 256."""
    s = Scenario(100, interval=800, timeout=600, aa=0x6C2D_A571, crc=0x15A3C9, hop=9)
    s.link.run_event()
    s.link.run_event(peripheral=ctrl(LL_CONNECTION_PARAM_REQ, conn_param(6, 12, 0, 600, 0, 2)))
    s.events_until(2 * 1.0 + 40.0)
    for _ in range(6):
        s.link.run_event(answered=False)
    return s.silent_then_advertising()


def instant_passed():
    """The central's LL_CONNECTION_UPDATE_IND sent at event 20 with instant 18, already past
    (a central that queued it late): the peripheral acknowledges it and leaves the link (Instant
    Passed, 0x28, 5.5.1) without a PDU; the central, on its old timing, polls unanswered until its
    supervision timeout (1 s) runs out."""
    s = Scenario(200, interval=40, timeout=100, aa=0x4A6B_3D92, crc=0x2B4D6F, hop=11)
    s.events_until(0.9)
    while s.link.event < 20:
        s.link.run_event()
    s.link.run_event(central=ctrl(LL_CONNECTION_UPDATE_IND, conn_update_params(2, 0, 80, 0, 200, 18)))
    for _ in range(20):
        s.link.run_event(answered=False)
    return s.silent_then_advertising()


def mic_failure():
    """Encryption started (LL_ENC_REQ … LL_START_ENC_RSP) and an ATT read, all decrypted by a
    sniffer that had the key (272 encrypted + MIC OK); then a central PDU whose MIC does not
    verify (272 encrypted, MIC not OK: the sniffer writes its ciphertext and MIC). The
    peripheral leaves the link on the MIC failure (0x3D, 5.1.3.1) without a PDU; the central
    sends the unacknowledged PDU again each event until its supervision timeout (1 s)."""
    s = Scenario(300, interval=24, timeout=100, aa=0x3D69_A5C2, crc=0x0C1D2E, hop=5)
    s.link.run_event()
    s.link.run_event(central=ctrl(LL_ENC_REQ, bytes(range(8)) + b"\x34\x12" + bytes(range(8, 16)) + bytes(range(16, 20))),
                     peripheral=ctrl(LL_ENC_RSP, bytes(range(20, 28)) + bytes(range(28, 32))))
    s.link.run_event(peripheral=ctrl(LL_START_ENC_REQ))
    s.link.encrypted = True
    s.link.run_event(central=ctrl(LL_START_ENC_RSP), peripheral=ctrl(LL_START_ENC_RSP))
    s.link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    s.link.run_event()
    # The damaged PDU: 7 octets of ciphertext (a Read Request's size) + 4 of MIC, sent again
    # (same SN, same bytes) in every event since the peripheral never acknowledges it.
    s.link.encrypted = False            # ProcLink would flag it decrypted; it is not
    for _ in range(40):
        bad = s.link.run_event(central=(2, bytes.fromhex("5e21c4907a3b1f" + "d2c41a77")), answered=False)
        bad[0].encrypted = "ciphertext"
    return s.silent_then_advertising()


def unacceptable_connection_parameters():
    """The peripheral's LL_CONNECTION_PARAM_REQ (7.5–15 ms) refused by the central's
    LL_REJECT_EXT_IND 0x3B, then the peripheral's LL_TERMINATE_IND 0x3B."""
    s = Scenario(400, aa=0x5C93_6A1E, crc=0x1F2E3D, hop=13)
    s.link.run_event()
    s.link.run_event(peripheral=ctrl(LL_CONNECTION_PARAM_REQ, conn_param(6, 12, 0, 200, 0, 2)))
    s.link.run_event(central=ctrl(LL_REJECT_EXT_IND, bytes((LL_CONNECTION_PARAM_REQ, 0x3B))))
    s.link.run_event()
    s.link.run_event(peripheral=terminate(0x3B))
    s.link.run_event()
    return s.done()


def key_missing():
    """The central's LL_ENC_REQ (a bonded reconnection: no pairing on the link), the peripheral's
    LL_ENC_RSP, then its LL_REJECT_EXT_IND for LL_ENC_REQ with 0x06 PIN or Key Missing (its host
    has no LTK for the bond, 5.1.3.1); the central's LL_TERMINATE_IND 0x05."""
    s = Scenario(500, aa=0x71A5_C3D6, crc=0x2C3D4E, hop=15)
    s.link.run_event()
    s.link.run_event(central=ctrl(LL_ENC_REQ, bytes(range(8)) + b"\x34\x12" + bytes(range(8, 16)) + bytes(range(16, 20))),
                     peripheral=ctrl(LL_ENC_RSP, bytes(range(20, 28)) + bytes(range(28, 32))))
    s.link.run_event(peripheral=ctrl(LL_REJECT_EXT_IND, bytes((LL_ENC_REQ, 0x06))))
    s.link.run_event()
    s.link.run_event(central=terminate(0x05))
    s.link.run_event()
    return s.done()


def pairing_failed():
    """The central's SMP Pairing Request, the peripheral's Pairing Failed 0x05 (Pairing Not
    Supported), then the peripheral's LL_TERMINATE_IND 0x13."""
    s = Scenario(600, aa=0x5A3C_9D61, crc=0x3D4E5F, hop=6)
    s.link.run_event()
    s.link.run_event(central=smp(bytes((0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07))))
    s.link.run_event(peripheral=smp(bytes((0x05, 0x05))))
    s.link.run_event()
    s.link.run_event(peripheral=terminate(0x13))
    s.link.run_event()
    return s.done()


def att_transaction_timeout():
    """The central's Read Request (handle 0x0003) acknowledged but never answered for 30 s (1 s
    interval, empty PDUs), then the central's LL_TERMINATE_IND 0x13 (its host gave up)."""
    s = Scenario(700, interval=800, timeout=600, aa=0x6A5C_3B91, crc=0x4E5F60, hop=8)
    s.link.run_event()
    s.link.run_event(central=att(bytes((0x0A, 0x03, 0x00))))
    s.events_until(2 * 1.0 + 30.5)
    s.link.run_event(central=terminate(0x13))
    s.link.run_event()
    return s.done()


def host_disconnected_after_gatt_error():
    """The central's Read Request (handle 0x0003) refused with Error Response 0x02 (Read Not
    Permitted); 300 ms later the central's LL_TERMINATE_IND 0x13."""
    s = Scenario(800, aa=0x4B9D_36A5, crc=0x5F6071, hop=10)
    s.link.run_event()
    s.link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x01, 0x0A, 0x03, 0x00, 0x02))))
    for _ in range(10):
        s.link.run_event()
    s.link.run_event(central=terminate(0x13))
    s.link.run_event()
    return s.done()


def disconnect_after_security_request():
    """The peripheral's SMP Security Request (bonding, MITM), no Pairing Request or LL_ENC_REQ
    from the central; 5 s later the peripheral's LL_TERMINATE_IND 0x13 (1 s interval)."""
    s = Scenario(900, interval=800, timeout=600, aa=0x3C6A_59D2, crc=0x607182, hop=12)
    s.link.run_event(peripheral=smp(bytes((0x0B, 0x05))))
    s.events_until(1 + 5.0)
    s.link.run_event(peripheral=terminate(0x13))
    s.link.run_event()
    return s.done()


def remote_reason(reason, offset):
    def build():
        """An ATT read, then the peripheral's LL_TERMINATE_IND with the reason."""
        s = Scenario(offset, aa=0x5D3A_6C94 ^ (reason << 8), crc=0x718293, hop=14)
        s.link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
        s.link.run_event()
        s.link.run_event(peripheral=terminate(reason))
        s.link.run_event()
        return s.done()
    return build


def reconnect_loop():
    """Four CONNECT_INDs to the same advertiser, 2 s apart, each on a new access address and
    none answered (the central polls 6 events, 4.5.2, and gives up): four failed attempts; the
    advertiser heard again for 1 s after the last."""
    frames = []
    t0 = T0 + 1500 * 1_000_000
    for i, aa in enumerate((0x5A6C_3D91, 0x6B3D_A592, 0x3C5E_9A63, 0x4D6A_35C4)):
        t = t0 + i * 2_000_000
        frames.append(adv_ind(t - 20_000))
        frames.append(connect_ind(t, aa, 0x123456, 2, 0, 24, 0, 100, hop=7 + i))
        link = ProcLink(frames, aa, 0x123456, 30_000, t + 1250 + 1000, hop=7 + i)
        for _ in range(6):
            link.run_event(answered=False)
    # The peripheral heard advertising afterwards: the last attempt's 6 intervals have passed.
    for i in range(10):
        frames.append(adv_ind(t + 1_000_000 + i * 100_000, 37 + i % 3))
    s = Scenario.__new__(Scenario)
    s.frames = frames
    return s


def rssi_falling():
    """The peripheral heard at -55 dBm while it advertises, a link at 1 s interval whose
    peripheral RSSI (the sniffer's) falls from -58 to -88 dBm over 10 s, then silence: the
    supervision timeout (6 s) ran out."""
    s = Scenario(1600, interval=800, timeout=600, aa=0x69A3_5C4D, crc=0x8293A4, hop=16)
    s.frames[0].rssi = -55
    rssi = [-58, -60, -61, -64, -67, -70, -74, -77, -81, -84, -88]
    s.link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    for v in rssi:
        out = s.link.run_event()
        out[1].rssi = v
    return s.silent_then_advertising()


SCENARIOS = {
    # name -> (builder, link type)
    "ll_response_timeout.phy_req.nordic272.pcapng": (ll_response_timeout_phy_req, 272),
    "ll_response_timeout.conn_param_req.lell256.pcap": (ll_response_timeout_conn_param_req, 256),
    "instant_passed.nordic272.pcapng": (instant_passed, 272),
    "mic_failure.nordic272.pcapng": (mic_failure, 272),
    "unacceptable_connection_parameters.nordic272.pcapng": (unacceptable_connection_parameters, 272),
    "key_missing.nordic272.pcapng": (key_missing, 272),
    "pairing_failed.nordic272.pcapng": (pairing_failed, 272),
    "att_transaction_timeout.nordic272.pcapng": (att_transaction_timeout, 272),
    "host_disconnected_after_gatt_error.lell256.pcap": (host_disconnected_after_gatt_error, 256),
    "disconnect_after_security_request.nordic272.pcapng": (disconnect_after_security_request, 272),
    "end.authentication_failure.nordic272.pcapng": (remote_reason(0x05, 1000), 272),
    "end.remote_user_terminated.lell256.pcap": (remote_reason(0x13, 1100), 256),
    "end.remote_low_resources.nordic272.pcapng": (remote_reason(0x14, 1200), 272),
    "end.remote_power_off.nordic272.pcapng": (remote_reason(0x15, 1300), 272),
    "end.unsupported_remote_feature.nordic272.pcapng": (remote_reason(0x1A, 1400), 272),
    "end.other_reason_0x1f.nordic272.pcapng": (remote_reason(0x1F, 1450), 272),
    "reconnect_loop.unanswered_connect_ind.nordic272.pcapng": (reconnect_loop, 272),
    "rssi_falling.supervision_timeout.nordic272.pcapng": (rssi_falling, 272),
}


def render(build, linktype):
    frames = sorted(build().frames, key=lambda fr: fr.ts)
    f = io.BytesIO()
    writer = NordicBle(PcapngOut(f, 272), 3) if linktype == 272 else LLWithPhdr(PcapOut(f, 256))
    for fr in frames:
        writer.write(fr)
    return f.getvalue()


def main():
    outputs = ((name, render(*spec)) for name, spec in SCENARIOS.items())
    return write_or_check(ROOT, outputs, "--check" in sys.argv[1:], "make_diagnose_air.py")


if __name__ == "__main__":
    sys.exit(main())
