#!/usr/bin/env python3
"""Turn an HCI capture (btsnoop, datalink 1002 H4) into the equivalent over-the-air capture: what a
link-layer sniffer following the same devices would have recorded.

Usage:
  make_link_layer.py IN.btsnoop OUT --linktype 256|272 [--container pcap|pcapng]
                     [--nordic-version 3|2] [--max-pdu 27|251] [--empty-pdus]
                     [--retransmit-rate R] [--bad-crc-rate R] [--seed N]
  make_link_layer.py --corpus [--check]   write captures/linklayer/ (--check: exit 1 on drift),
                                          the procedures.* scenarios included
  make_link_layer.py --procedure NAME OUT one link-layer procedure scenario (below), built here

Output link types:
  256  LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (pcap by default): 10-octet pseudo-header (RF channel
       number, signal dBm, noise -128 = invalid, AA offenses 0, reference access address, flags:
       dewhitened, signal valid, reference AA valid on data PDUs, PDU type 0 advertising /
       2 central->peripheral / 3 peripheral->central, CRC checked + CRC valid, decrypted + MIC
       checked + MIC valid after encryption started, PHY LE 1M), then AA, header, payload, CRC.
  272  LINKTYPE_NORDIC_BLE (pcapng by default): nRF Sniffer for Bluetooth LE. Protocol version 3
       (default): board 0, payload length, protocol version, packet counter, packet id 0x02 for
       advertising / 0x06 for data PDUs, event header (length 10, flags: CRC OK, direction
       central->peripheral, encrypted, MIC OK, PHY 1M; channel index; RSSI as a positive sample;
       connection event counter) and a 32-bit firmware timestamp = microseconds since the first
       frame of the file. Version 2 (--nordic-version 2): the same header with packet id 0x06 for
       every PDU and the 32-bit field holding the delta from the end of the previous packet to the
       start of this one (air time of the previous packet: 8 us x (10 + length) at LE 1M,
       4 us x (11 + length) at LE 2M; 0 when two packets overlap, e.g. two links at once).
       As the nRF Sniffer does, decrypted PDUs are written without their MIC (length without it).

What becomes what:
  - LE Advertising Report / LE Extended Advertising Report -> ADV_IND, ADV_DIRECT_IND,
    ADV_NONCONN_IND, ADV_SCAN_IND or SCAN_RSP on channel 37, 38, 39 in turn (AdvA and TxAdd from
    the report, the AD data as captured, RSSI in the pseudo-header); a SCAN_REQ from the local
    device (ScanA) before each SCAN_RSP when the scan was active, both on the channel of the
    advertiser's last ADV_IND / ADV_SCAN_IND. Extended reports that are not
    legacy PDUs become the legacy PDU with the same properties when the data fits in 31 octets;
    longer ones are dropped (counted in the summary line).
  - Our own advertising (LE Set (Extended) Advertising Parameters / Data / Enable): one
    advertising event per interval, the PDU on 37, 38 and 39, from the enable until it is disabled
    or a connection starts (legacy PDUs only; extended sets with more than 31 octets are not
    written). A peripheral's capture so shows how it was found.
  - LE (Enhanced) Connection Complete -> CONNECT_IND, sent ~3 ms before the event: InitA = the
    local address (Read BD_ADDR, or LE Set Random Address when the connection used a random own
    address; 00:00:5E:00:53:01 / C0:00:5E:00:53:01 when the capture has none), AdvA = the peer,
    access address and CRCInit drawn from --seed (access address kept to the Core 5.4 Vol 6 Part B
    2.1.2 rules), WinSize 2, WinOffset 0, Interval / Latency / Timeout from the event, channel map
    all 37 data channels, hop 5..16 from --seed, SCA 0 ppm..20 ppm (7). The local role gives
    which side is central.
  - ACL data -> data channel PDUs on the channel of Channel Selection Algorithm #1
    (unmapped = (last + hop) mod 37; all channels used), LLID 2 for the start of an L2CAP PDU,
    LLID 1 for continuations, fragments of at most --max-pdu octets. Each burst takes the next
    connection event at or after the HCI time: the central transmits first at the anchor, the
    peripheral answers T_IFS = 150 us after the end of the central's packet, and so on while MD is
    set; a burst that arrives while the event is still open continues it (MD set on the earlier
    packet). SN / NESN follow the acknowledgement scheme per direction (Vol 6 Part B 4.5.9).
  - --empty-pdus writes the empty PDUs of every connection event (idle ones too) and lets them take
    part in the SN / NESN scheme exactly. Without it, empty PDUs are neither written nor counted:
    SN / NESN are what they would be on a link where every PDU carries data, so a reader that
    compares each PDU with the previous one of the same direction sees no false retransmission.
  - --retransmit-rate R: each data PDU is, with probability R, not acknowledged by the receiver
    (its reply keeps NESN) and is sent again with the same SN and the same payload.
  - --bad-crc-rate R: each data PDU is, with probability R, received with a bad CRC (the sniffer
    and the receiver both): the frame is written with a wrong CRC and the CRC-invalid flag, is not
    acknowledged, and is sent again (a retransmission with a good CRC). Advertising PDUs get an
    extra corrupted copy on the next channel with the same probability.
  - LL control: LL_TERMINATE_IND from Disconnect (the local side, the command's reason, at the
    command) or from a Disconnection Complete without one (the peer, the event's reason, in an
    event before the report when one is still free; none for 0x08 connection timeout: the link
    goes silent for the supervision timeout before the report); LL_CONNECTION_UPDATE_IND from LE Connection Update
    Complete (from the central, instant = 6 events ahead, new parameters from the instant on);
    LL_LENGTH_REQ / LL_LENGTH_RSP from LE Data Length Change; LL_VERSION_IND both ways from Read
    Remote Version Information Complete; LL_FEATURE_REQ (LL_PERIPHERAL_FEATURE_REQ from a
    peripheral) / LL_FEATURE_RSP from LE Read Remote Features Complete; LL_ENC_REQ / LL_ENC_RSP /
    LL_PHY_REQ / LL_PHY_RSP / LL_PHY_UPDATE_IND from LE PHY Update Complete (LE 1M and 2M; the
    PHY in the pseudo-headers and the air times follow from the instant on; LE Coded is skipped);
    LL_START_ENC_REQ / LL_START_ENC_RSP from LE Enable Encryption / LTK Request and Encryption
    Change, after which PDUs are flagged encrypted and decrypted by the sniffer (MIC OK; air time
    counted with the MIC). With --encrypt they are written as they go over the air instead:
    AES-CCM ciphertext and MIC (le_crypto.py) under the session key from the LTK the HCI capture
    shows and the SKD / IV of LL_ENC_REQ / LL_ENC_RSP, packetCounter per direction; no decrypted
    flag (256), encrypted without MIC OK (272). These procedures go out at the first connection event after the HCI
    event that reports them (over the air they happened before it): a small shift in time, the
    same order of facts.
  - CRC-24 (Vol 6 Part B 3.1.1) over header and payload with CRCInit (0x555555 on advertising
    channels), stored in transmission order.
Procedure scenarios (--procedure NAME, and procedures.NAME.nordic272.pcapng in the corpus): built
here, not from an HCI capture, each the link-layer procedure timing Vol 6 Part B 4.5 / 5.1 draws,
as an nRF Sniffer (272, protocol 3, event counters) records it: conn_update_long_interval (a
1020 ms interval, 900 ms window offset, 6 s timeout, then channel map, PHY update to 2M, data
length, encryption start and pause, the peripheral's LL_TERMINATE_IND 0x13), instant_wraps
(instants past event 65535 on a link joined mid-connection, empty PDUs hidden), late_peer_missed_events
(a peripheral first answering at event 3, 14 events the sniffer missed, past the 500 ms timeout),
unanswered_connect_ind (a CONNECT_IND nobody answered, then one that was), supervision_timeout
(a link silent for good while the peripheral advertises again) and conn_param_request
(LL_CONNECTION_PARAM_REQ refused by LL_REJECT_EXT_IND, then REQ / RSP and the update they lead to).
Deterministic: the same input, options and seed give the same bytes. Memory stays bounded: records
are read one at a time and frames leave a small time-ordered queue as soon as no later record can
precede them.
"""
import argparse, heapq, math, os, random, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import le_crypto  # noqa: E402  (beside this script)

EPOCH_DELTA = 0x00DCDDB30F2F8000  # btsnoop timestamps count microseconds from year 0
ADV_AA = 0x8E89BED6
ADV_CRC_INIT = 0x555555
T_IFS = 150
# Frames may go up to HORIZON us before the HCI record they come from (the CONNECT_IND 3 ms before
# the Connection Complete; our own advertising events up to ADV_LAG before the record that stops
# them; a peer's LL_TERMINATE_IND in an event before its Disconnection Complete), so the queue is
# written out up to HORIZON before the current record.
HORIZON = 100_000
ADV_LAG = 3500
FALLBACK_PUBLIC = bytes.fromhex("0153005E0000")    # 00:00:5E:00:53:01, documentation range (LE order)
FALLBACK_RANDOM = bytes.fromhex("0153005E00C0")    # C0:00:5E:00:53:01, static random
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# ---------------------------------------------------------------------------------------------
# CRC-24: polynomial x^24 + x^10 + x^9 + x^6 + x^4 + x^3 + x + 1, bits in transmission order (LSB
# of each octet first). Computed in the reflected form, where the register's low octet is the
# first CRC octet on air.


def _reverse(value, bits):
    return int(format(value, f"0{bits}b")[::-1], 2)


_CRC_POLY_REFLECTED = _reverse(0x00065B, 24)
_CRC_TABLE = []
for _byte in range(256):
    _r = _byte
    for _ in range(8):
        _r = (_r >> 1) ^ _CRC_POLY_REFLECTED if _r & 1 else _r >> 1
    _CRC_TABLE.append(_r)


def crc24(pdu, crc_init):
    """The three CRC octets as transmitted after `pdu` (header and payload)."""
    r = _reverse(crc_init, 24)
    table = _CRC_TABLE
    for b in pdu:
        r = (r >> 8) ^ table[(r ^ b) & 0xFF]
    return bytes((r & 0xFF, (r >> 8) & 0xFF, r >> 16))


def air_time(payload_len, phy=1):
    """Microseconds on air: preamble (1 octet at LE 1M, 2 at LE 2M), AA 4, header 2, payload, CRC 3."""
    return 8 * (10 + payload_len) if phy == 1 else 4 * (11 + payload_len)


def rf_channel(index):
    """RF channel number (2402 + 2k MHz) of a channel index, as pseudo-header 256 stores it."""
    if index == 37:
        return 0
    if index == 38:
        return 12
    if index == 39:
        return 39
    return index + 1 if index <= 10 else index + 2


# ---------------------------------------------------------------------------------------------
# Output containers


class Frame:
    """One link-layer packet waiting in the time-ordered queue. `pdu` is header + payload; the
    data header's MD bit may still change (a later burst continues the event) until it is written."""
    __slots__ = ("ts", "channel", "rssi", "aa", "crc_init", "direction", "pdu", "crc_ok",
                 "event", "encrypted", "phy")

    def __init__(self, ts, channel, rssi, aa, crc_init, pdu, direction=None, crc_ok=True,
                 event=0, encrypted=False):
        self.ts, self.channel, self.rssi, self.aa, self.crc_init = ts, channel, rssi, aa, crc_init
        self.pdu, self.direction, self.crc_ok, self.event = pdu, direction, crc_ok, event
        self.encrypted = encrypted
        self.phy = 1                    # 1 LE 1M, 2 LE 2M

    def body(self):
        crc = crc24(self.pdu, self.crc_init)
        if not self.crc_ok:
            crc = bytes((crc[0] ^ 0x5A, crc[1], crc[2] ^ 0x01))
        return struct.pack("<I", self.aa) + bytes(self.pdu) + crc


class PcapOut:
    def __init__(self, f, linktype):
        self.f = f
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))

    def packet(self, ts, data):
        self.f.write(struct.pack("<IIII", ts // 1_000_000, ts % 1_000_000, len(data), len(data)))
        self.f.write(data)


class PcapngOut:
    def __init__(self, f, linktype):
        self.f = f
        self.block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))   # SHB
        self.block(0x00000001, struct.pack("<HHI", linktype, 0, 65535))      # IDB, microseconds

    def block(self, btype, body):
        pad = (-len(body)) % 4
        total = 12 + len(body) + pad
        self.f.write(struct.pack("<II", btype, total) + body + b"\0" * pad + struct.pack("<I", total))

    def packet(self, ts, data):
        self.block(0x00000006, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data)) + data)


class LLWithPhdr:
    """Link type 256."""
    LINKTYPE = 256

    def __init__(self, out):
        self.out = out

    def write(self, fr):
        flags = 0x0001 | 0x0002 | 0x0400          # dewhitened, signal valid, CRC checked
        if fr.crc_ok:
            flags |= 0x0800
        ref_aa = 0
        if fr.direction is not None:
            flags |= 0x0010 | ((2 if fr.direction == "C" else 3) << 7)
            ref_aa = fr.aa
        if fr.encrypted == "decrypted":
            flags |= 0x0008 | 0x1000 | 0x2000     # decrypted, MIC checked, MIC valid
        # (ciphertext: none of them, as a sniffer without the key writes it)
        flags |= (fr.phy - 1) << 14
        phdr = struct.pack("<BbbBIH", rf_channel(fr.channel), fr.rssi, -128, 0, ref_aa, flags)
        self.out.packet(fr.ts, phdr + fr.body())


class NordicBle:
    """Link type 272, nRF Sniffer protocol version 2 or 3."""
    LINKTYPE = 272

    def __init__(self, out, version):
        self.out, self.version = out, version
        self.counter = 0
        self.t0 = None
        self.prev_end = None

    def write(self, fr):
        body = fr.body()
        flags = 0x01 if fr.crc_ok else 0x00
        flags |= (fr.phy - 1) << 4
        if fr.direction is not None:
            flags |= 0x02 if fr.direction == "C" else 0
            if fr.encrypted == "decrypted":
                flags |= 0x04 | 0x08                # encrypted, MIC OK
            elif fr.encrypted == "ciphertext":
                flags |= 0x04                       # encrypted, MIC not OK: not decrypted
        if self.version >= 3:
            packet_id = 0x06 if fr.direction is not None else 0x02
            if self.t0 is None:
                self.t0 = fr.ts
            time_field = (fr.ts - self.t0) & 0xFFFFFFFF
        else:
            packet_id = 0x06
            time_field = 0 if self.prev_end is None else max(0, fr.ts - self.prev_end) & 0xFFFFFFFF
            self.prev_end = fr.ts + air_time(len(fr.pdu) - 2, fr.phy)
        event = struct.pack("<BBBBHI", 10, flags, fr.channel, min(127, max(0, -fr.rssi)),
                            fr.event & 0xFFFF, time_field)
        payload = event + body
        header = struct.pack("<BHBHB", 0, len(payload), self.version, self.counter & 0xFFFF, packet_id)
        self.counter += 1
        self.out.packet(fr.ts, header + payload)


# ---------------------------------------------------------------------------------------------
# Input


def read_btsnoop(f):
    """Yields (unix µs, received?, H4 packet) of each record of an H4 btsnoop file, one at a time."""
    head = f.read(16)
    if head[:8] != b"btsnoop\0":
        raise SystemExit("not a btsnoop file")
    version, datalink = struct.unpack(">II", head[8:16])
    if datalink != 1002:
        raise SystemExit(f"expected btsnoop datalink 1002 (H4), got {datalink}")
    while True:
        rec = f.read(24)
        if len(rec) < 24:
            return
        olen, ilen, flags, drops, ts = struct.unpack(">IIIIq", rec)
        pkt = f.read(ilen)
        if len(pkt) < ilen:
            return
        yield ts - EPOCH_DELTA, flags & 1, pkt


# ---------------------------------------------------------------------------------------------
# The link


def random_access_address(rng):
    """A data channel access address that follows Vol 6 Part B 2.1.2 (no more than six equal bits
    in a row, not the advertising AA or one bit from it, not all four octets equal, no more than
    24 transitions, at least two transitions in the six most significant bits)."""
    while True:
        aa = rng.getrandbits(32)
        bits = format(aa, "032b")
        if "0000000" in bits or "1111111" in bits:
            continue
        if bin(aa ^ ADV_AA).count("1") <= 1:
            continue
        octets = aa.to_bytes(4, "little")
        if len(set(octets)) == 1:
            continue
        transitions = sum(bits[i] != bits[i + 1] for i in range(31))
        if transitions > 24:
            continue
        top = bits[:6]
        if sum(top[i] != top[i + 1] for i in range(5)) < 2:
            continue
        return aa


class Conn:
    """One connection as the link layer runs it: the CONNECT_IND, the connection events on the
    channels of CSA#1, SN / NESN on both sides, the open event a burst may continue."""

    def __init__(self, gen, handle, local_role, local_addr, local_type, peer_addr, peer_type,
                 interval, latency, timeout, ts):
        rng = gen.rng
        self.gen, self.handle = gen, handle
        self.local = "C" if local_role == 0 else "P"
        self.remote = "P" if self.local == "C" else "C"
        self.aa = random_access_address(rng)
        self.crc_init = rng.getrandbits(24)
        self.hop = rng.randrange(5, 17)
        self.interval, self.latency, self.timeout = interval, latency, timeout
        self.pending_update = None      # (instant, interval, latency, timeout)
        self.sn = {"C": 0, "P": 0}      # transmitSeqNum of each side
        self.nesn = {"C": 0, "P": 0}    # nextExpectedSeqNum of each side
        self.encrypted = False
        self.cipher = None              # --encrypt: (AES with the session key, IV)
        self.counter = {"C": 0, "P": 0}  # packetCounter of each side
        self.phy = {"C": 1, "P": 1}     # the PHY each side transmits on
        self.pending_phy = None         # (instant, central's PHY, peripheral's PHY)
        self.rssi = {self.local: -40, self.remote: gen.last_rssi.get(peer_addr, -60)}
        central = (local_addr, local_type) if self.local == "C" else (peer_addr, peer_type)
        periph = (peer_addr, peer_type) if self.local == "C" else (local_addr, local_type)
        # The CONNECT_IND goes out on an advertising channel 3 ms before the host hears of it.
        t_ind = max(gen.floor, ts - 3000)
        ll_data = (struct.pack("<I", self.aa) + self.crc_init.to_bytes(3, "little")
                   + struct.pack("<BHHHH", 2, 0, interval, latency, timeout)
                   + b"\xff\xff\xff\xff\x1f" + bytes([self.hop | (7 << 5)]))
        header = bytes([0x05 | (central[1] & 1) << 6 | (periph[1] & 1) << 7, 34])
        gen.emit(Frame(t_ind, gen.next_adv_channel(), self.rssi["C"], ADV_AA, ADV_CRC_INIT,
                       bytearray(header + central[0] + periph[0] + ll_data)))
        # First anchor: transmitWindowDelay (1.25 ms) after the CONNECT_IND ends, WinOffset 0.
        self.base_time = t_ind + air_time(34) + 1250
        self.base_event = 0
        self.event = -1                 # the last connection event used
        self.slot = 0                   # start of the next packet in that event
        self.event_end = 0              # no packet may start later in it
        self.last = {"C": None, "P": None}   # each side's last written frame in that event
        self.reassembly = {"C": None, "P": None}  # [L2CAP bytes so far, L2CAP length + 4]
        self.closed = False             # LL_TERMINATE_IND sent: no more packets

    def interval_us(self):
        # An interval below the 7.5 ms minimum (a damaged capture) is timed as 7.5 ms; the PDUs
        # still carry the value the HCI gave.
        return max(6, self.interval) * 1250

    def anchor(self, n):
        return self.base_time + (n - self.base_event) * self.interval_us()

    def channel(self, n):
        # CSA#1 (Vol 6 Part B 4.5.8.2): unmapped(n) = (unmapped(n-1) + hop) mod 37, starting from
        # 0; with all 37 channels used the unmapped channel is the channel.
        return ((n + 1) * self.hop) % 37

    def open_event(self, k):
        if self.pending_phy is not None and k >= self.pending_phy[0]:
            self.phy = {"C": self.pending_phy[1], "P": self.pending_phy[2]}
            self.pending_phy = None
        self.event, self.slot = k, self.anchor(k)
        self.event_end = self.slot + self.interval_us() - 300
        self.last = {"C": None, "P": None}

    def advance(self, t):
        """Moves to the first connection event after the last one used whose anchor is at or after
        t, applying a connection update at its instant. With --empty-pdus the idle events on the
        way are written (an empty PDU each way)."""
        k = self.event + 1
        while True:
            upd = self.pending_update
            if upd is not None and k >= upd[0]:
                # WinOffset 0: the first anchor with the new parameters is the instant's old one.
                self.base_time, self.base_event = self.anchor(upd[0]), upd[0]
                self.interval, self.latency, self.timeout = upd[1:]
                self.pending_update = upd = None
            a = self.anchor(k)
            if a >= t:
                return k
            if self.gen.empty_pdus:
                self.open_event(k)
                self.transmit("C", 1, b"", False)
                self.transmit("P", 1, b"", False)
                k += 1
            else:
                step = math.ceil((t - a) / self.interval_us())
                if upd is not None and k + step > upd[0]:
                    step = max(1, upd[0] - k)
                k += step

    def idle_until(self, t):
        """With --empty-pdus: writes the idle events whose anchor is before t (called before the
        queue is flushed up to t, so that nothing is written out of order)."""
        if self.gen.empty_pdus and not self.closed and self.anchor(self.event + 1) < t:
            self.advance(t)

    def transmit(self, side, llid, payload, more, lost=False, bad_crc=False):
        """One packet from `side` in the next slot of the open event; returns its frame (None for
        an empty PDU that is not written). Unless `lost`, the other side receives it: a NESN that
        differs from the other side's SN acknowledges the other side's last packet, and an SN equal
        to the other side's NESN is new data. Without --empty-pdus an empty PDU is not written and
        takes no sequence number, but still carries the acknowledgement."""
        other = "P" if side == "C" else "C"
        written = bool(payload) or llid != 1 or self.gen.empty_pdus
        sn, nesn = self.sn[side], self.nesn[side]
        fr = None
        if written:
            header = llid | (nesn << 2) | (sn << 3) | ((1 if more else 0) << 4)
            fr = Frame(self.slot, self.channel(self.event), self.rssi[side], self.aa, self.crc_init,
                       bytearray([header, len(payload)]) + payload, side, not bad_crc,
                       self.event, ("ciphertext" if self.cipher else "decrypted") if self.encrypted and payload else None)
            fr.phy = self.phy[side]
            self.gen.emit(fr)
            self.last[side] = fr
        if not lost:
            if nesn != self.sn[other]:
                self.sn[other] ^= 1
            if written and sn == self.nesn[other]:
                self.nesn[other] ^= 1
        mic = 4 if self.encrypted and payload and not self.cipher else 0   # (ciphertext holds it)
        self.slot += air_time(len(payload) + mic, self.phy[side]) + T_IFS
        return fr

    def send(self, t, side, pdus):
        """A burst of PDUs from `side` that the host handed over at time t. Each goes in a pair of
        packets (the central first, the peripheral T_IFS later; the side without data sends an
        empty PDU), in the open event when the data was there before its next packet and there is
        room, else in the next event. Returns the frames of each PDU (its copies)."""
        gen = self.gen
        out = []
        if self.closed:
            return [[] for _ in pdus]
        for i, (llid, payload) in enumerate(pdus):
            more = i + 1 < len(pdus)
            if self.encrypted and self.cipher and payload:
                # One encryption per PDU: a resent copy carries the same ciphertext and MIC.
                aes, iv = self.cipher
                ct, mic = le_crypto.ccm(aes, le_crypto.nonce(self.counter[side], side == "C", iv),
                                        bytes([llid]), bytes(payload))
                payload = ct + mic
                self.counter[side] += 1
            attempts = ["ok"]
            if gen.bad_crc_rate or gen.retransmit_rate:
                roll = gen.rng.random()
                if roll < gen.bad_crc_rate:
                    attempts = ["bad", "ok"]
                elif roll < gen.bad_crc_rate + gen.retransmit_rate:
                    attempts = ["lost", "ok"]
            copies = []
            for kind in attempts:
                need = 2 * (air_time(len(payload) + 4) + T_IFS)
                if i == 0 and kind == attempts[0]:
                    mine = self.last[side]
                    can_continue = (self.event >= 0 and t <= self.slot and self.slot + need <= self.event_end
                                    and (mine is None or mine.ts >= t))
                    if can_continue:
                        if mine is not None:
                            mine.pdu[0] |= 0x10      # it had more data after all
                    else:
                        self.open_event(self.advance(max(t, self.slot)))
                elif self.slot + need > self.event_end:
                    self.open_event(self.advance(self.slot))
                if side == "P":
                    self.transmit("C", 1, b"", False)
                fr = self.transmit(side, llid, payload, more or kind != "ok", lost=kind != "ok",
                                   bad_crc=kind == "bad")
                copies.append(fr)
                if kind == "bad":
                    gen.bad_crcs += 1
                if kind != "ok":
                    gen.retransmissions += 1
                if side == "C":
                    self.transmit("P", 1, b"", False)
            out.append(copies)
        return out

    def control(self, t, side, opcode, params=b""):
        # A procedure with an instant is complete only at its instant: the next procedure (but a
        # termination) waits for it, as the peer (and tshark) expect.
        pending = [p[0] for p in (self.pending_update, self.pending_phy) if p is not None]
        if pending and opcode != 0x02:
            t = max(t, self.anchor(max(pending)) + 1)
        return self.send(t, side, [(3, bytes([opcode]) + params)])[0]

    def terminate(self, t, side, reason, before=False):
        """LL_TERMINATE_IND; with `before`, in the last unused event that is still ahead of what was
        written (the HCI reports it after the fact), else at or after t. The link closes."""
        if before and self.pending_update is None:
            k = self.base_event + (t - 1250 - self.base_time) // self.interval_us()
            if k > self.event and self.anchor(k) >= self.gen.floor:
                self.idle_until(self.anchor(k))
                if k > self.event:
                    self.open_event(k)
                    t = self.anchor(k)
        self.control(t, side, 0x02, bytes([reason]))
        self.closed = True


class Generator:
    def __init__(self, writer, args):
        self.w = writer
        self.rng = random.Random(args.seed)
        self.max_pdu = args.max_pdu
        self.empty_pdus = args.empty_pdus
        self.retransmit_rate = args.retransmit_rate
        self.bad_crc_rate = args.bad_crc_rate
        self.queue, self.seq = [], 0
        self.floor = 0                # no frame may be earlier than this any more
        self.adv_ch = 0
        self.frames = self.retransmissions = self.bad_crcs = self.dropped_ext = 0
        # Host state from the HCI capture.
        self.public_addr = None
        self.random_addr = None
        self.scan_active = None
        self.own_type_scan = 0
        self.own_type_conn = 0
        self.last_rssi = {}
        self.last_adv_channel = {}    # advertiser -> channel of its last scannable PDU
        self.conns = {}
        self.local_version = (0x0D, 0x05F1, 0x0000)    # 5.4, company 0x05F1 (Linux Foundation)
        self.local_features = bytes([0x01, 0, 0, 0, 0, 0, 0, 0])
        self.length_initiated = set()
        self.phy_initiated = set()
        self.coded_skipped = 0
        self.enc_params = {}
        self.ltks = {}                # handle -> LTK (little-endian, as HCI carries it)
        self.encrypt = args.encrypt
        self.adv_sets = {}            # our own advertising: handle -> {props, data, own_type, addr, interval, next}

    # -- output queue -----------------------------------------------------------------------
    def emit(self, fr):
        heapq.heappush(self.queue, (fr.ts, self.seq, fr))
        self.seq += 1

    def flush(self, before):
        q = self.queue
        while q and q[0][0] < before:
            _, _, fr = heapq.heappop(q)
            self.w.write(fr)
            self.frames += 1
        self.floor = max(self.floor, before)

    def next_adv_channel(self):
        ch = 37 + self.adv_ch
        self.adv_ch = (self.adv_ch + 1) % 3
        return ch

    def local_address(self, own_type):
        if own_type & 1:
            return self.random_addr or FALLBACK_RANDOM, 1
        return self.public_addr or FALLBACK_PUBLIC, 0

    # -- advertising ------------------------------------------------------------------------
    def advertising(self, t, pdu_type, addr, addr_type, data, rssi, direct=None):
        self.last_rssi[addr] = rssi
        if pdu_type == 4 and self.scan_active is not False:
            scan_a, scan_type = self.local_address(self.own_type_scan)
            header = bytes([0x03 | (scan_type & 1) << 6 | (addr_type & 1) << 7, 12])
            # The request answers the advertiser's last scannable PDU, on its channel; the response
            # follows on the same channel.
            ch = self.last_adv_channel.get(addr) or self.next_adv_channel()
            self.emit(Frame(t, ch, -40, ADV_AA, ADV_CRC_INIT, bytearray(header + scan_a + addr)))
            t += air_time(12) + T_IFS
        else:
            ch = None
        if pdu_type == 1:
            target, target_type = direct if direct else self.local_address(self.own_type_scan)
            body = addr + target
            header = bytes([0x01 | (addr_type & 1) << 6 | (target_type & 1) << 7, len(body)])
        else:
            body = addr + data
            header = bytes([pdu_type | (addr_type & 1) << 6, len(body)])
        if ch is None:
            ch = self.next_adv_channel()
        fr = Frame(t, ch, rssi, ADV_AA, ADV_CRC_INIT, bytearray(header + body))
        self.emit(fr)
        if pdu_type in (0, 6):
            self.last_adv_channel[addr] = ch
        if self.bad_crc_rate and self.rng.random() < self.bad_crc_rate:
            self.bad_crcs += 1
            self.emit(Frame(t + 10_000, 37 + (ch - 36) % 3, rssi, ADV_AA, ADV_CRC_INIT,
                            bytearray(header + body), crc_ok=False))

    def adv_report(self, t, body):
        n = body[0]
        off = 1
        for _ in range(n):
            if off + 9 > len(body):
                return
            etype, atype = body[off], body[off + 1]
            addr = body[off + 2:off + 8]
            dlen = body[off + 8]
            data = body[off + 9:off + 9 + dlen]
            rssi = struct.unpack("b", body[off + 9 + dlen:off + 10 + dlen] or b"\x00")[0]
            off += 10 + dlen
            pdu_type = {0: 0, 1: 1, 2: 6, 3: 2, 4: 4}.get(etype)
            if pdu_type is not None:
                self.advertising(t, pdu_type, addr, atype, data, rssi)

    def ext_adv_report(self, t, body):
        n = body[0]
        off = 1
        for _ in range(n):
            if off + 24 > len(body):
                return
            etype = struct.unpack("<H", body[off:off + 2])[0]
            atype = body[off + 2]
            addr = body[off + 3:off + 9]
            rssi = struct.unpack("b", body[off + 13:off + 14])[0]
            dtype, daddr = body[off + 16], body[off + 17:off + 23]
            dlen = body[off + 23]
            data = body[off + 24:off + 24 + dlen]
            off += 24 + dlen
            connectable, scannable, directed, scan_rsp = (etype & 1, etype & 2, etype & 4, etype & 8)
            if (etype >> 5) & 3:
                continue      # truncated / incomplete data: the rest follows in AUX_CHAIN_IND
            if scan_rsp:
                pdu_type = 4
            elif directed:
                pdu_type = 1
            elif connectable:
                pdu_type = 0
            elif scannable:
                pdu_type = 6
            else:
                pdu_type = 2
            if len(data) > 31:
                self.dropped_ext += 1
                continue
            self.advertising(t, pdu_type, addr, atype & 1, data, rssi,
                             (daddr, dtype & 1) if directed else None)

    # -- HCI --------------------------------------------------------------------------------
    def record(self, t, received, pkt):
        t = max(t, self.floor + HORIZON)
        ending, reason = None, None
        if len(pkt) >= 7 and pkt[0] == 4 and pkt[1] == 0x05 and pkt[3] == 0:
            ending, reason = struct.unpack("<H", pkt[4:6])[0] & 0x0FFF, pkt[6]
        for handle, conn in self.conns.items():
            if handle != ending:
                conn.idle_until(t)
            elif reason == 0x08:
                # Link loss: nothing was heard for the supervision timeout before the event.
                conn.idle_until(t - conn.timeout * 10_000)
            else:
                # The peer's LL_TERMINATE_IND goes in an event before this one (Conn.terminate).
                conn.idle_until(t - 2 * conn.interval_us())
        for adv in self.adv_sets.values():
            self.own_advertising_until(adv, t - ADV_LAG)
        self.flush(t - HORIZON)
        if not pkt:
            return
        kind = pkt[0]
        if kind == 1 and len(pkt) >= 4:
            self.command(t, struct.unpack("<H", pkt[1:3])[0], pkt[4:4 + pkt[3]])
        elif kind == 4 and len(pkt) >= 3:
            self.event(t, pkt[1], pkt[3:3 + pkt[2]])
        elif kind == 2 and len(pkt) >= 5:
            hf, length = struct.unpack("<HH", pkt[1:5])
            conn = self.conns.get(hf & 0x0FFF)
            if conn is None:
                return
            data = bytes(pkt[5:5 + length])
            side = conn.remote if received else conn.local
            self.acl(t, conn, side, (hf >> 12) & 3, data)

    def acl(self, t, conn, side, pb, data):
        """HCI ACL fragments -> whole L2CAP PDUs (the link layer fragments independently of HCI)
        -> data channel PDUs of at most --max-pdu octets. A start fragment too short to hold the
        L2CAP length, or a continuation with no start, goes out as it is."""
        buf = conn.reassembly.get(side)
        if pb != 1:
            if buf is not None:
                self.fragments(t, conn, side, buf[0], 2)   # the previous PDU never completed
            conn.reassembly[side] = None
            if len(data) < 2:
                if data:
                    self.fragments(t, conn, side, data, 2)
                return
            buf = [data, 4 + struct.unpack("<H", data[:2])[0]]
        elif buf is None:
            if data:
                self.fragments(t, conn, side, data, 1)
            return
        else:
            buf[0] += data
        if len(buf[0]) >= buf[1]:
            conn.reassembly[side] = None
            self.fragments(t, conn, side, buf[0], 2)
        else:
            conn.reassembly[side] = buf

    def fragments(self, t, conn, side, data, first_llid):
        pdus = []
        for i in range(0, len(data), self.max_pdu):
            pdus.append((first_llid if i == 0 else 1, data[i:i + self.max_pdu]))
        conn.send(t, side, pdus)

    # -- our own advertising (a peripheral's capture has no reports: the sniffer hears its
    # ADV_IND itself, one advertising event per interval on 37, 38, 39) ------------------------
    def adv_set(self, handle):
        return self.adv_sets.setdefault(handle, {"props": 0x13, "data": b"", "own_type": 0, "addr": None,
                                                 "interval": 100_000, "next": None})

    def own_advertising_until(self, adv, t):
        if adv["next"] is None:
            return
        props = adv["props"]
        if props & 0x10 == 0 and len(adv["data"]) > 31:
            return                     # extended advertising with long data: not written (legacy PDUs only)
        pdu_type = 1 if props & 4 else 0 if props & 1 else 6 if props & 2 else 2
        addr = adv["addr"] or self.local_address(adv["own_type"])[0]
        atype = adv["own_type"] & 1
        while adv["next"] < t:
            ts = adv["next"]
            if pdu_type == 1:
                body = addr + FALLBACK_PUBLIC
                header = bytes([0x01 | atype << 6, len(body)])
            else:
                body = addr + adv["data"]
                header = bytes([pdu_type | atype << 6, len(body)])
            for k, ch in enumerate((37, 38, 39)):
                self.emit(Frame(ts + k * (air_time(len(body)) + 150), ch, -40, ADV_AA, ADV_CRC_INIT,
                                bytearray(header + body)))
            adv["next"] += adv["interval"]

    def own_advertising_stops(self, t, handle=None):
        for h, adv in self.adv_sets.items():
            if handle is None or h == handle:
                self.own_advertising_until(adv, t)
                adv["next"] = None

    def command(self, t, opcode, p):
        if opcode == 0x2006 and len(p) >= 7:        # LE Set Advertising Parameters (legacy set 0x100)
            adv = self.adv_set(0x100)
            adv["interval"] = struct.unpack("<H", p[0:2])[0] * 625
            adv["props"] = {0: 0x13, 1: 0x15, 2: 0x12, 3: 0x10, 4: 0x15}.get(p[4], 0x10)
            adv["own_type"] = p[5]
        elif opcode == 0x2008 and len(p) >= 1:
            self.adv_set(0x100)["data"] = bytes(p[1:1 + min(p[0], 31)])
        elif opcode == 0x200A and len(p) >= 1:
            if p[0]:
                self.adv_set(0x100)["next"] = t
            else:
                self.own_advertising_stops(t, 0x100)
        elif opcode == 0x2036 and len(p) >= 11:     # LE Set Extended Advertising Parameters
            adv = self.adv_set(p[0])
            adv["props"] = struct.unpack("<H", p[1:3])[0]
            adv["interval"] = max(20_000, int.from_bytes(p[3:6], "little") * 625)
            adv["own_type"] = p[10]
        elif opcode == 0x2035 and len(p) >= 7:      # LE Set Advertising Set Random Address
            self.adv_set(p[0])["addr"] = bytes(p[1:7])
        elif opcode == 0x2037 and len(p) >= 4:      # LE Set Extended Advertising Data
            adv = self.adv_set(p[0])
            data = bytes(p[4:4 + p[3]])
            adv["data"] = data if p[1] in (1, 3) else adv["data"] + data
        elif opcode == 0x2039 and len(p) >= 2:      # LE Set Extended Advertising Enable
            handles = [p[2 + 4 * i] for i in range(p[1]) if 2 + 4 * i < len(p)]
            if p[0]:
                for h in handles:
                    self.adv_set(h)["next"] = t
            elif handles:
                for h in handles:
                    self.own_advertising_stops(t, h)
            else:
                self.own_advertising_stops(t)
        if opcode == 0x2005 and len(p) >= 6:
            self.random_addr = bytes(p[:6])
        elif opcode == 0x200B and len(p) >= 1:
            self.scan_active = p[0] == 1
            if len(p) >= 6:
                self.own_type_scan = p[5]
        elif opcode == 0x2041 and len(p) >= 4:
            self.own_type_scan = p[0]
            self.scan_active = p[3] == 1
        elif opcode == 0x200D and len(p) >= 13:
            self.own_type_conn = p[12]
        elif opcode == 0x2043 and len(p) >= 2:
            self.own_type_conn = p[1]
        elif opcode == 0x0406 and len(p) >= 3:
            conn = self.conns.get(struct.unpack("<H", p[:2])[0] & 0x0FFF)
            if conn is not None and not conn.closed:
                conn.terminate(t, conn.local, p[2])
        elif opcode == 0x2032 and len(p) >= 2:
            self.phy_initiated.add(struct.unpack("<H", p[:2])[0] & 0x0FFF)
        elif opcode == 0x2022 and len(p) >= 2:
            self.length_initiated.add(struct.unpack("<H", p[:2])[0] & 0x0FFF)
        elif opcode == 0x2019 and len(p) >= 12:
            self.enc_params[struct.unpack("<H", p[:2])[0] & 0x0FFF] = bytes(p[2:12])
            if len(p) >= 28:
                self.ltks[struct.unpack("<H", p[:2])[0] & 0x0FFF] = bytes(p[12:28])
        elif opcode == 0x201A and len(p) >= 18:
            self.ltks[struct.unpack("<H", p[:2])[0] & 0x0FFF] = bytes(p[2:18])

    def event(self, t, code, p):
        if code == 0x0E and len(p) >= 4:
            opcode, status = struct.unpack("<H", p[1:3])[0], p[3]
            ret = p[4:]
            if status == 0 and opcode == 0x1009 and len(ret) >= 6:
                self.public_addr = bytes(ret[:6])
            elif status == 0 and opcode == 0x1001 and len(ret) >= 8:
                self.local_version = (ret[3], struct.unpack("<H", ret[4:6])[0], struct.unpack("<H", ret[6:8])[0])
            elif status == 0 and opcode == 0x2003 and len(ret) >= 8:
                self.local_features = bytes(ret[:8])
        elif code == 0x3E and p:
            sub, body = p[0], p[1:]
            if sub == 0x02:
                self.adv_report(t, body)
            elif sub == 0x0D:
                self.ext_adv_report(t, body)
            elif sub == 0x0B and len(body) >= 17:
                rssi = struct.unpack("b", body[16:17])[0]
                self.advertising(t, 1, bytes(body[3:9]), body[2] & 1, b"", rssi, (bytes(body[10:16]), body[9] & 1))
            elif sub in (0x01, 0x0A, 0x29) and len(body) >= 18:
                status, handle, role, ptype = body[0], struct.unpack("<H", body[1:3])[0], body[3], body[4]
                peer = bytes(body[5:11])
                rest = body[11:] if sub == 0x01 else body[23:]
                if status != 0 or len(rest) < 6:
                    return
                interval, latency, timeout = struct.unpack("<HHH", rest[:6])
                own_type = self.own_type_conn if role == 0 else self.adv_own_type()
                local, ltype = self.local_address(own_type)
                if sub != 0x01 and body[11:17] != b"\0" * 6:
                    local, ltype = bytes(body[11:17]), 1      # local resolvable private address
                if sub != 0x01 and body[17:23] != b"\0" * 6:
                    peer, ptype = bytes(body[17:23]), 1
                if role == 1:
                    # The advertising that led to it stops (the CONNECT_IND was its last PDU);
                    # the address the peer connected to is the advertising set's.
                    for adv in self.adv_sets.values():
                        if adv["next"] is not None and sub == 0x01:
                            if adv["addr"] is not None and adv["own_type"] & 1:
                                local, ltype = adv["addr"], 1
                    self.own_advertising_stops(t - ADV_LAG)
                self.conns[handle] = Conn(self, handle, role, local, ltype, peer, ptype,
                                          interval, latency, timeout, t)
            elif sub == 0x03 and len(body) >= 9 and body[0] == 0:
                conn = self.conns.get(struct.unpack("<H", body[1:3])[0])
                if conn:
                    interval, latency, timeout = struct.unpack("<HHH", body[3:9])
                    copies = conn.control(t, "C", 0x00, struct.pack("<BHHHHH", 1, 0, interval, latency, timeout, 0))
                    # The instant: six events after the one that carried the PDU (last copy).
                    instant = conn.event + 6
                    for fr in copies:
                        fr.pdu[12:14] = struct.pack("<H", instant & 0xFFFF)
                    conn.pending_update = (instant, interval, latency, timeout)
            elif sub == 0x04 and len(body) >= 11 and body[0] == 0:
                conn = self.conns.get(struct.unpack("<H", body[1:3])[0])
                if conn:
                    conn.control(t, conn.local, 0x08 if conn.local == "C" else 0x0E, self.local_features)
                    conn.control(t, conn.remote, 0x09, bytes(body[3:11]))
            elif sub == 0x07 and len(body) >= 10:
                handle = struct.unpack("<H", body[0:2])[0]
                conn = self.conns.get(handle)
                if conn:
                    max_tx, max_tx_time, max_rx, max_rx_time = struct.unpack("<HHHH", body[2:10])
                    mine = struct.pack("<HHHH", max_rx, max_rx_time, max_tx, max_tx_time)
                    theirs = struct.pack("<HHHH", max_tx, max_tx_time, max_rx, max_rx_time)
                    first = conn.local if handle in self.length_initiated else conn.remote
                    conn.control(t, first, 0x14, mine if first == conn.local else theirs)
                    second = conn.remote if first == conn.local else conn.local
                    conn.control(t, second, 0x15, mine if second == conn.local else theirs)
                    self.length_initiated.discard(handle)
            elif sub == 0x0C and len(body) >= 5 and body[0] == 0:
                handle = struct.unpack("<H", body[1:3])[0]
                conn = self.conns.get(handle)
                if conn:
                    self.phy_update(t, conn, body[3], body[4], handle in self.phy_initiated)
                    self.phy_initiated.discard(handle)
            elif sub == 0x05 and len(body) >= 12:
                self.enc_params[struct.unpack("<H", body[0:2])[0]] = bytes(body[2:12])
        elif code == 0x0C and len(p) >= 8 and p[0] == 0:
            conn = self.conns.get(struct.unpack("<H", p[1:3])[0])
            if conn:
                v, c, s = self.local_version
                conn.control(t, conn.local, 0x0C, struct.pack("<BHH", v, c, s))
                conn.control(t, conn.remote, 0x0C, bytes(p[3:8]))
        elif code == 0x08 and len(p) >= 4 and p[0] == 0:
            handle = struct.unpack("<H", p[1:3])[0]
            conn = self.conns.get(handle)
            if conn and p[3] and not conn.encrypted:
                rand_ediv = self.enc_params.pop(handle, bytes(10))
                rng = self.rng
                skdm, ivm, skds, ivs = rng.randbytes(8), rng.randbytes(4), rng.randbytes(8), rng.randbytes(4)
                conn.control(t, "C", 0x03, rand_ediv + skdm + ivm)
                conn.control(t, "P", 0x04, skds + ivs)
                conn.control(t, "P", 0x05)
                ltk = self.ltks.pop(handle, None)
                if self.encrypt and ltk is not None:
                    conn.cipher = le_crypto.session(ltk, skdm, skds, ivm, ivs)
                conn.encrypted = True       # LL_START_ENC_RSP goes out encrypted, both ways
                conn.control(t, "C", 0x06)
                conn.control(t, "P", 0x06)
        elif code == 0x05 and len(p) >= 4 and p[0] == 0:
            handle, reason = struct.unpack("<H", p[1:3])[0], p[3]
            conn = self.conns.pop(handle, None)
            if conn is None:
                return
            if not conn.closed and reason != 0x08:
                conn.terminate(t, conn.remote, reason, before=True)

    def phy_update(self, t, conn, tx, rx, local_initiated):
        """LE PHY Update Complete (our TX / RX PHY, 1 = 1M, 2 = 2M, 3 = Coded) -> LL_PHY_REQ from the
        side that asked (LE Set PHY), LL_PHY_RSP from the peripheral when the central asked, then
        the central's LL_PHY_UPDATE_IND; the new PHYs from its instant (6 events ahead) on. LE
        Coded is not written (the Coding Indicator is not modelled): such an update is counted and
        skipped."""
        if tx not in (1, 2) or rx not in (1, 2):
            self.coded_skipped += 1
            return
        new_c, new_p = (tx, rx) if conn.local == "C" else (rx, tx)
        first = conn.local if local_initiated else conn.remote
        conn.control(t, first, 0x16, bytes([0x03, 0x03]))                 # LL_PHY_REQ: 1M | 2M
        if first == "C":
            conn.control(t, "P", 0x17, bytes([0x03, 0x03]))              # LL_PHY_RSP
        if (new_c, new_p) == (conn.phy["C"], conn.phy["P"]):
            conn.control(t, "C", 0x18, bytes([0, 0, 0, 0]))              # no change, instant 0
            return
        copies = conn.control(t, "C", 0x18, bytes([1 << (new_c - 1), 1 << (new_p - 1), 0, 0]))
        instant = conn.event + 6
        for fr in copies:
            fr.pdu[5:7] = struct.pack("<H", instant & 0xFFFF)
        conn.pending_phy = (instant, new_c, new_p)

    def adv_own_type(self):
        # The peripheral's own address: the random address when one was set (Bumble and most
        # stacks advertise with it), else public.
        return 1 if self.random_addr else 0

    def finish(self):
        self.flush(float("inf"))


def convert(src, dst, args):
    container = args.container or ("pcap" if args.linktype == 256 else "pcapng")
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        out = (PcapOut if container == "pcap" else PcapngOut)(fout, args.linktype)
        writer = LLWithPhdr(out) if args.linktype == 256 else NordicBle(out, args.nordic_version)
        gen = Generator(writer, args)
        for t, received, pkt in read_btsnoop(fin):
            gen.record(t, received, pkt)
        gen.finish()
    return gen


# ---------------------------------------------------------------------------------------------
# The corpus: every Bumble session in both forms, plus a few files that exercise the options.

# long_notify_stream holds 5,040 notifications of ~140 octets: over the air that is 0.7 MB of payload
# in any form, so each side is written once, with 251-octet PDUs (LE Data Length Extension), to keep
# the folder near 2 MB. Both sides are the same link over the air.
CORPUS_SINGLE = {
    "long_notify_stream.central": ("nordic272.pdu251.pcap", ["--linktype", "272", "--container", "pcap", "--max-pdu", "251"]),
    "long_notify_stream.peripheral": ("lell256.pdu251.pcap", ["--linktype", "256", "--max-pdu", "251"]),
}

CORPUS_EXTRAS = [
    # (source session, output suffix, options): the options the plain files leave out.
    ("indications_and_errors.central", "empty-retx-badcrc.nordic272.pcapng",
     ["--linktype", "272", "--empty-pdus", "--retransmit-rate", "0.1", "--bad-crc-rate", "0.05", "--seed", "7"]),
    ("reconnect_storm.central", "empty-retx-badcrc.lell256.pcap",
     ["--linktype", "256", "--empty-pdus", "--retransmit-rate", "0.1", "--bad-crc-rate", "0.05", "--seed", "11"]),
    ("hr_short_notification.central", "v2.nordic272.pcap",
     ["--linktype", "272", "--nordic-version", "2", "--container", "pcap"]),
    ("oversized_and_unchecked_writes.central", "pdu251-retx.lell256.pcap",
     ["--linktype", "256", "--max-pdu", "251", "--retransmit-rate", "0.05", "--seed", "3"]),
    # Encrypted links as they go over the air (ciphertext and MIC under the LTK the HCI shows).
    ("indications_and_errors.central", "encrypted.lell256.pcap", ["--linktype", "256", "--encrypt"]),
    ("indications_and_errors.peripheral", "encrypted.nordic272.pcapng", ["--linktype", "272", "--encrypt"]),
]



# ---------------------------------------------------------------------------------------------
# Link-layer procedures at their instant (issue 28): scenarios built here, not from an HCI
# capture, so that each procedure's timing is what the specification draws (Vol 6 Part B 4.5,
# 5.1): long intervals with a window offset, instants that wrap the 16-bit event counter, a
# peer that answers late, events the sniffer missed, a CONNECT_IND nobody answered, a link lost
# for good. Every file: nRF Sniffer protocol 3 (272, pcapng), empty PDUs written unless the
# scenario says the sniffer hid them; `PROCEDURE_FACTS` lists what each must show.

PROC_CENTRAL = bytes.fromhex("0153005E00C0")       # C0:00:5E:00:53:01 (LE order), random
PROC_PERIPHERAL = bytes.fromhex("0253005E00C0")    # C0:00:5E:00:53:02


class ProcLink:
    """One connection's events as a sniffer following it records them. CSA#1 over ChM; SN /
    NESN per 4.5.9 (a PDU nobody acknowledged is sent again with the same SN)."""

    def __init__(self, frames, aa, crc_init, interval_us, first_anchor, hop=7, event=0, unmapped=0):
        self.frames, self.aa, self.crc_init = frames, aa, crc_init
        self.interval, self.base, self.base_event = interval_us, first_anchor, event
        self.hop, self.unmapped, self.event = hop, unmapped, event
        self.chm = (1 << 37) - 1
        self.sn, self.nesn = [0, 0], [0, 0]      # [central, peripheral]
        self.pending = []                        # (instant, kind, values)
        self.phy = 1
        self.encrypted = False

    def anchor(self, k):
        return self.base + (k - self.base_event) * self.interval

    def channel(self):
        used = [i for i in range(37) if self.chm >> i & 1]
        return self.unmapped if self.chm >> self.unmapped & 1 else used[self.unmapped % len(used)]

    def pdu(self, side, llid, payload):
        s = 0 if side == "C" else 1
        h0 = llid | (self.nesn[s] << 2) | (self.sn[s] << 3)
        return bytes((h0, len(payload))) + bytes(payload)

    def run_event(self, central=(1, b""), peripheral=(1, b""), answered=True, write=True, write_empty=True):
        """Connection event `self.event`: the central's PDU at the anchor, the peripheral's T_IFS
        after it (unless it did not answer); instants reached at this event apply first."""
        k = self.event & 0xFFFF
        for p in list(self.pending):
            if (k - p[0]) & 0xFFFF < 0x8000:
                self.pending.remove(p)
                p[1](p[0])
        self.unmapped = (self.unmapped + self.hop) % 37
        ch = self.channel()
        t = self.anchor(self.event)
        c = self.pdu("C", *central)
        fr_c = Frame(t, ch, -50, self.aa, self.crc_init, c, "C", event=k)
        fr_c.phy = self.phy
        out = [fr_c]
        if answered:
            self.nesn[1] = self.sn[0] ^ 1            # the central's PDU received: acknowledged
            p = self.pdu("P", *peripheral)
            fr_p = Frame(t + air_time(len(c) - 2, self.phy) + T_IFS, ch, -55, self.aa, self.crc_init, p, "P",
                         event=k)
            fr_p.phy = self.phy
            out.append(fr_p)
            # Both PDUs acknowledged: each side's next PDU is new.
            self.nesn[0] = self.sn[1] ^ 1
            self.sn[0] ^= 1
            self.sn[1] ^= 1
        for fr in out:
            if self.encrypted and len(fr.pdu) > 2:
                fr.encrypted = "decrypted"
            if write and (write_empty or len(fr.pdu) > 2):
                self.frames.append(fr)
        self.event += 1
        return out

    def update(self, win_size, win_offset, interval, instant):
        """LL_CONNECTION_UPDATE_IND's timing from its instant: the instant's anchor lies in the
        transmit window 1.25 ms + WinOffset after the old timing's (here 625 us into it)."""
        def apply(_):
            old = self.anchor(self.event)
            self.base = old + 1250 + win_offset * 1250 + min(625, win_size * 1250)
            self.base_event = self.event
            self.interval = interval * 1250
        self.pending.append((instant, apply))

    def channel_map(self, chm, instant):
        def apply(_):
            self.chm = chm
        self.pending.append((instant, apply))

    def phy_update(self, phy, instant):
        def apply(_):
            self.phy = phy
        self.pending.append((instant, apply))


def connect_ind(t, aa, crc_init, win_size, win_offset, interval, latency, timeout, hop=7, chm=(1 << 37) - 1):
    payload = (PROC_CENTRAL + PROC_PERIPHERAL + struct.pack("<I", aa) + crc_init.to_bytes(3, "little")
               + struct.pack("<BHHHH", win_size, win_offset, interval, latency, timeout)
               + chm.to_bytes(5, "little") + bytes(((1 << 5) | hop,)))
    h0 = 0x05 | 0x40 | 0x80                      # CONNECT_IND, TxAdd, RxAdd random
    return Frame(t, 37, -45, ADV_AA, ADV_CRC_INIT, bytes((h0, len(payload))) + payload)


def adv_ind(t, channel=37):
    data = bytes.fromhex("020106")
    payload = PROC_PERIPHERAL + data
    return Frame(t, channel, -45, ADV_AA, ADV_CRC_INIT, bytes((0x40, len(payload))) + payload)


def ctrl(opcode, params=b""):
    return (3, bytes((opcode,)) + params)


def att(pdu):
    return (2, struct.pack("<HH", len(pdu), 4) + pdu)


def conn_update_params(win_size, win_offset, interval, latency, timeout, instant):
    return struct.pack("<BHHHHH", win_size, win_offset, interval, latency, timeout, instant)


def scenario_conn_update_long_interval():
    """LL_CONNECTION_UPDATE_IND to a 1020 ms interval, 900 ms window offset, 6 s supervision
    timeout (issue 28 item 1), then a channel map, a PHY update to LE 2M, a data length update,
    the encryption start (decrypted by the sniffer) and pause, and the peripheral's
    LL_TERMINATE_IND 0x13."""
    frames = []
    t0 = 1_700_000_000_000_000
    aa, crc = 0x50D1_A7C3, 0x1A2B3C
    frames.append(adv_ind(t0 - 20_000))
    frames.append(connect_ind(t0, aa, crc, 2, 3, 24, 0, 72))           # 30 ms, 720 ms
    link = ProcLink(frames, aa, crc, 30_000, t0 + 1250 + 3 * 1250 + 1000)
    link.run_event()
    link.run_event(central=att(bytes((0x02, 0xF7, 0x00))), peripheral=att(bytes((0x03, 0xF7, 0x00))))
    for _ in range(3):
        link.run_event()
    # Event 5: the update, instant 11 (6 events ahead).
    link.run_event(central=ctrl(0x00, conn_update_params(2, 720, 816, 0, 600, 11)))
    link.update(2, 720, 816, 11)
    while link.event < 14:
        link.run_event()
    # Event 14: LL_CHANNEL_MAP_IND (channels 0-21, 35, 36), instant 17.
    chm = 0x18_003F_FFFF
    link.run_event(central=ctrl(0x01, chm.to_bytes(5, "little") + struct.pack("<H", 17)))
    link.channel_map(chm, 17)
    while link.event < 18:
        link.run_event()
    # Event 18: LL_PHY_REQ / RSP, event 19 LL_PHY_UPDATE_IND to LE 2M both ways, instant 22.
    link.run_event(central=ctrl(0x16, bytes((0x02, 0x02))), peripheral=ctrl(0x17, bytes((0x03, 0x03))))
    link.run_event(central=ctrl(0x18, bytes((0x02, 0x02)) + struct.pack("<H", 22)))
    link.phy_update(2, 22)
    while link.event < 23:
        link.run_event()
    # Event 23: LL_LENGTH_REQ / RSP (251 octets, 2120 us each way).
    length = struct.pack("<HHHH", 251, 2120, 251, 2120)
    link.run_event(central=ctrl(0x14, length), peripheral=ctrl(0x15, length))
    # Events 24-26: LL_ENC_REQ / RSP, LL_START_ENC_REQ, LL_START_ENC_RSP (the sniffer had the key).
    link.run_event(central=ctrl(0x03, bytes(range(8)) + b"\x34\x12" + bytes(range(8, 16)) + bytes(range(16, 20))),
                   peripheral=ctrl(0x04, bytes(range(20, 28)) + bytes(range(28, 32))))
    link.run_event(peripheral=ctrl(0x05))
    link.encrypted = True
    link.run_event(central=ctrl(0x06), peripheral=ctrl(0x06))
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    # Events 28-29: LL_PAUSE_ENC_REQ / RSP (the peripheral's encrypted, the central's in the clear).
    link.run_event(central=ctrl(0x0A), peripheral=ctrl(0x0B))
    link.encrypted = False
    link.run_event(central=ctrl(0x0B))
    link.run_event()
    # Event 31: the peripheral ends the link.
    link.run_event(peripheral=ctrl(0x02, bytes((0x13,))))
    link.run_event()
    return frames


def scenario_instant_wraps():
    """A link the nRF Sniffer joined near the end of the 16-bit event counter, empty PDUs hidden
    (as the nRF Sniffer can): LL_CONNECTION_UPDATE_IND at event 65530 with instant 2, a channel
    map with instant 5 and a PHY update with instant 8, all past the wrap; the central's
    LL_TERMINATE_IND 0x16 at event 12."""
    frames = []
    t0 = 1_700_000_100_000_000
    aa, crc = 0x6A3C_91E5, 0x0F1E2D
    link = ProcLink(frames, aa, crc, 50_000, t0, event=65525, unmapped=11)
    write = dict(write_empty=False)
    link.run_event(central=ctrl(0x0C, bytes((0x0B,)) + struct.pack("<HH", 0x0059, 0x0001)),
                   peripheral=ctrl(0x0C, bytes((0x0B,)) + struct.pack("<HH", 0x0059, 0x0002)), **write)
    while link.event < 65530:
        link.run_event(**write)
    link.run_event(central=ctrl(0x00, conn_update_params(1, 4, 40, 0, 200, 2)), **write)   # 50 ms, 2 s
    link.update(1, 4, 40, 2)
    while link.event < 65536 + 1:
        link.run_event(**write)
    chm = 0x1F_FFFF_FF00                                   # channels 8-36
    link.run_event(central=ctrl(0x01, chm.to_bytes(5, "little") + struct.pack("<H", 5)), **write)
    link.channel_map(chm, 5)
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))), **write)
    link.run_event(central=ctrl(0x18, bytes((0x02, 0x02)) + struct.pack("<H", 8)), **write)
    link.phy_update(2, 8)
    while link.event < 65536 + 10:
        link.run_event(**write)
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x65))), **write)
    link.run_event(**write)
    link.run_event(central=ctrl(0x02, bytes((0x16,))), **write)
    return frames


def scenario_late_peer_missed_events():
    """A peripheral that answers the CONNECT_IND only at event 3 (the central's first PDUs go
    unanswered and are sent again), an ATT exchange, then 14 events (700 ms, past the 500 ms
    supervision timeout) the sniffer missed on the same access address, more traffic, and the
    central's LL_TERMINATE_IND 0x16."""
    frames = []
    t0 = 1_700_000_200_000_000
    aa, crc = 0x71B4_2C96, 0x2468AC
    frames.append(adv_ind(t0 - 30_000))
    frames.append(connect_ind(t0, aa, crc, 3, 8, 40, 0, 50))            # 50 ms, 500 ms
    link = ProcLink(frames, aa, crc, 50_000, t0 + 1250 + 8 * 1250 + 2000)
    for _ in range(3):
        link.run_event(answered=False)
    link.run_event()
    link.run_event(central=att(bytes((0x02, 0xF7, 0x00))), peripheral=att(bytes((0x03, 0x17, 0x00))))
    for _ in range(5):
        link.run_event()
    for _ in range(14):
        link.run_event(write=False)
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    for _ in range(4):
        link.run_event()
    link.run_event(central=ctrl(0x02, bytes((0x16,))))
    link.run_event()
    return frames


def scenario_unanswered_connect_ind():
    """A CONNECT_IND the peripheral never answered (the central polls six events, then gives up,
    4.5.2), then a second CONNECT_IND to it on a new access address that it answers, and the
    peripheral's LL_TERMINATE_IND 0x13."""
    frames = []
    t0 = 1_700_000_300_000_000
    aa1, aa2, crc = 0x5A93_C1E6, 0x63D2_1B78, 0x135790
    frames.append(adv_ind(t0 - 20_000))
    frames.append(connect_ind(t0, aa1, crc, 2, 0, 24, 0, 100))
    failed = ProcLink(frames, aa1, crc, 30_000, t0 + 1250 + 1000)
    for _ in range(6):
        failed.run_event(answered=False)
    t1 = t0 + 400_000
    frames.append(adv_ind(t1 - 20_000))
    frames.append(connect_ind(t1, aa2, crc, 2, 0, 24, 0, 100, hop=9))
    link = ProcLink(frames, aa2, crc, 30_000, t1 + 1250 + 1000, hop=9)
    link.run_event()
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    link.run_event()
    link.run_event(peripheral=ctrl(0x02, bytes((0x13,))))
    link.run_event()
    return frames


def scenario_supervision_timeout():
    """A link that goes silent for good (no LL_TERMINATE_IND): the sniffer, which records its
    empty PDUs, hears nothing more on it while the peripheral advertises again for 3 s; its
    supervision timeout (720 ms) ran out: Connection Timeout."""
    frames = []
    t0 = 1_700_000_400_000_000
    aa, crc = 0x4E2B_97D1, 0x0A0B0C
    frames.append(adv_ind(t0 - 20_000))
    frames.append(connect_ind(t0, aa, crc, 2, 0, 24, 0, 72))
    link = ProcLink(frames, aa, crc, 30_000, t0 + 1250 + 1000)
    link.run_event()
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    for _ in range(4):
        link.run_event()
    end = link.anchor(link.event)
    for i in range(30):
        frames.append(adv_ind(end + 800_000 + i * 100_000, 37 + i % 3))
    return frames


def conn_param(interval_min, interval_max, latency, timeout, periodicity=0, reference=0):
    """LL_CONNECTION_PARAM_REQ / RSP CtrData (2.4.2.16): the range asked for, Offset0-5 unused."""
    return (struct.pack("<HHHHBH", interval_min, interval_max, latency, timeout, periodicity, reference)
            + b"\xff\xff" * 6)


def scenario_conn_param_request():
    """The connection parameters request procedure (5.1.7): the peripheral asks for 7.5-15 ms
    (LL_CONNECTION_PARAM_REQ) and the central refuses (LL_REJECT_EXT_IND, 0x3B Unacceptable
    Connection Parameters); the central asks for 50-60 ms, latency 2, 4 s, the peripheral answers
    50 ms (LL_CONNECTION_PARAM_RSP), and the central's LL_CONNECTION_UPDATE_IND puts it in force at
    instant 14 (WinOffset 5, WinSize 2); an ATT read on the new timing, the central's
    LL_TERMINATE_IND 0x16. Only the update changes the parameters."""
    frames = []
    t0 = 1_700_000_500_000_000
    aa, crc = 0x3C5A_96E1, 0x24680A
    frames.append(adv_ind(t0 - 20_000))
    frames.append(connect_ind(t0, aa, crc, 1, 2, 24, 0, 100))           # 30 ms, 1 s, WinOffset 2
    link = ProcLink(frames, aa, crc, 30_000, t0 + 1250 + 2 * 1250 + 500)
    link.run_event()
    link.run_event()
    link.run_event(peripheral=ctrl(0x0F, conn_param(6, 12, 0, 200, 0, 2)))
    link.run_event(central=ctrl(0x11, bytes((0x0F, 0x3B))))
    link.run_event()
    link.run_event()
    link.run_event(central=ctrl(0x0F, conn_param(40, 48, 2, 400, 0, 6)))
    link.run_event(peripheral=ctrl(0x10, conn_param(40, 40, 2, 400, 0, 7)))
    link.run_event(central=ctrl(0x00, conn_update_params(2, 5, 40, 2, 400, 14)))
    link.update(2, 5, 40, 14)
    while link.event < 16:
        link.run_event()
    link.run_event(central=att(bytes((0x0A, 0x03, 0x00))), peripheral=att(bytes((0x0B, 0x64))))
    link.run_event()
    link.run_event(central=ctrl(0x02, bytes((0x16,))))
    link.run_event()
    return frames


# name -> scenario
PROCEDURES = {
    "conn_update_long_interval": scenario_conn_update_long_interval,
    "instant_wraps": scenario_instant_wraps,
    "late_peer_missed_events": scenario_late_peer_missed_events,
    "unanswered_connect_ind": scenario_unanswered_connect_ind,
    "supervision_timeout": scenario_supervision_timeout,
    "conn_param_request": scenario_conn_param_request,
}


def write_procedure(name, path):
    frames = sorted(PROCEDURES[name](), key=lambda fr: fr.ts)
    with open(path, "wb") as f:
        writer = NordicBle(PcapngOut(f, 272), 3)
        for fr in frames:
            writer.write(fr)
    return len(frames)


def corpus_jobs():
    bumble = os.path.join(ROOT, "captures", "bumble")
    for name in sorted(os.listdir(bumble)):
        if name.endswith(".btsnoop"):
            base = name.removesuffix(".btsnoop")
            if base in CORPUS_SINGLE:
                suffix, opts = CORPUS_SINGLE[base]
                yield base + ".btsnoop", base + "." + suffix, opts
                continue
            yield base + ".btsnoop", base + ".lell256.pcap", ["--linktype", "256"]
            yield base + ".btsnoop", base + ".nordic272.pcapng", ["--linktype", "272"]
    for base, suffix, opts in CORPUS_EXTRAS:
        yield base + ".btsnoop", base + "." + suffix, opts


def corpus(check):
    import tempfile
    bumble = os.path.join(ROOT, "captures", "bumble")
    outdir = os.path.join(ROOT, "captures", "linklayer")
    os.makedirs(outdir, exist_ok=True)
    changed = []
    with tempfile.TemporaryDirectory() as tmp:

        def settle(out, write):
            """Writes `out` with `write(path)` into the scratch folder, then keeps it (or, with
            check, only notes it) where it differs from the committed file."""
            tmp_out = os.path.join(tmp, out)
            write(tmp_out)
            new = open(tmp_out, "rb").read()
            path = os.path.join(outdir, out)
            old = open(path, "rb").read() if os.path.exists(path) else None
            if old != new:
                changed.append(out)
                if not check:
                    open(path, "wb").write(new)

        for src, out, opts in corpus_jobs():
            args = parser().parse_args(["x", "y"] + opts)
            settle(out, lambda tmp_out: convert(os.path.join(bumble, src), tmp_out, args))
        for name in PROCEDURES:
            settle(f"procedures.{name}.nordic272.pcapng", lambda tmp_out: write_procedure(name, tmp_out))
    if check and changed:
        print("captures/linklayer differs from what make_link_layer.py writes:", ", ".join(changed))
        return 1
    return 0


def parser():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?")
    p.add_argument("output", nargs="?")
    p.add_argument("--linktype", type=int, choices=[256, 272], default=272)
    p.add_argument("--container", choices=["pcap", "pcapng"])
    p.add_argument("--nordic-version", type=int, choices=[2, 3], default=3)
    p.add_argument("--max-pdu", type=int, choices=[27, 251], default=27)
    p.add_argument("--empty-pdus", action="store_true")
    p.add_argument("--retransmit-rate", type=float, default=0.0)
    p.add_argument("--bad-crc-rate", type=float, default=0.0)
    p.add_argument("--encrypt", action="store_true",
                   help="after encryption starts, write ciphertext and MIC as they go over the air (AES-CCM with "
                        "the LTK of LE Enable Encryption / LTK Request Reply) instead of the PDUs a sniffer "
                        "that had the key decrypted")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--procedure", help="write the procedure scenario NAME (" + ", ".join(PROCEDURES) + ") to OUTPUT")
    p.add_argument("--corpus", action="store_true", help="write captures/linklayer/ from captures/bumble/")
    p.add_argument("--check", action="store_true", help="with --corpus: exit 1 if a file would change")
    return p


def main():
    args = parser().parse_args()
    if args.corpus:
        return corpus(args.check)
    if args.procedure:
        out = args.output or args.input
        n = write_procedure(args.procedure, out)
        print(f"{out}: {n} frames")
        return 0
    if not args.input or not args.output:
        parser().error("IN and OUT are required (or --corpus)")
    gen = convert(args.input, args.output, args)
    print(f"{args.output}: {gen.frames} frames, {gen.retransmissions} retransmissions, "
          f"{gen.bad_crcs} bad CRCs, {gen.dropped_ext} extended reports too long for a legacy PDU, "
          f"{gen.coded_skipped} PHY updates to LE Coded skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
