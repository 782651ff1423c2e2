#!/usr/bin/env python3
"""Generate realistic BLE HCI captures (btsnoop) with Google's Bumble stack.

Usage (from the repository root):

    python3 scripts/corpus/gen_bumble_captures.py OUTDIR [--seed N] [--only SCENARIO[,SCENARIO...]]
        [--link-latency-ms MS] [--stock-controller] [--stream-count N]
        [--stream-seconds S] [-v]

e.g. ``python3 scripts/corpus/gen_bumble_captures.py captures/bumble --seed 1``.

Needs the PyPI package ``bumble`` (0.0.236 was used): ``pip install
bumble==0.0.236``, e.g. inside a venv.  If the running Python cannot import it
and the environment variable ``BUMBLE_PYTHON`` names a Python interpreter (for
instance a venv's ``bin/python``), the script re-runs itself with that
interpreter; otherwise it stops and says what to install.
The captures and their expected facts are described in
``captures/bumble/README.md`` (relative to the repository root).

What it does
------------
For each scenario it builds a small virtual radio world *inside this process*:
one Bumble ``Controller`` per device, all joined by a Bumble ``LocalLink`` (no
real radio, no sockets, no network).  On top of each controller runs a complete
Bumble ``Host`` + ``Device`` (GAP, L2CAP, ATT/GATT client and server, SMP) --
an independently written BLE host stack, not our own code.  The HCI traffic
between the central's host and its controller is recorded with Bumble's own
``bumble.snoop.BtSnooper`` (btsnoop v1, datalink H4 = 1002, the format BlueZ's
btmon and Android's "HCI snoop log" write) into ``<scenario>.central.btsnoop``;
the main peripheral's HCI traffic goes into ``<scenario>.peripheral.btsnoop``.

Timestamps are the real wall-clock times at which Bumble's snooper saw each
packet (the scenarios pace themselves with real sleeps, e.g. 1 Hz heart-rate
notifications, ~60 s notification stream).

Scenarios (see README.md next to the captures for the facts an analyzer must find):
  1. clean_heart_rate            filtered scan -> connect -> MTU 247 -> discovery
                                 by UUID -> subscribe 0x2A37 -> 20 notifications
                                 -> read 0x2A19 and 0x2A38 -> disconnect
  2. nil_scan_all_services       unfiltered scan of 4 advertisers, scan left
                                 running while connected, full discovery
  3. oversized_and_unchecked_writes  MTU stays 23; oversized / forbidden /
                                 unpaced writes, CCCD write on a non-CCCD handle
  4. reconnect_storm             6 connections back to back, drops by 0x13 and
                                 simulated supervision timeout 0x08, one
                                 LE Create Connection + Cancel
  5. indications_and_errors      Service Changed + custom indications, error
                                 responses, LE Secure Connections Just Works
  6. long_notify_stream          ~5,000 notifications of 20..244 bytes over ~60 s
  7. two_peripherals_concurrent  two simultaneous connections (handles 0x0001 and
                                 0x0002); handle 0x0010 is Heart Rate Measurement
                                 on one peer and a custom Read|Notify value on the
                                 other; interleaved notifications, reads, a write
  8. cached_reconnect            full discovery + subscribe, disconnect; reconnect
                                 and use the cached handles with no discovery
  9. hr_short_notification       Heart Rate Measurement notifications, two of them
                                 truncated (1 byte, and 2 bytes with flags 0x01)
 10. scan_before_init            LE Set Extended Scan Enable before HCI Reset
                                 (answered 0x0C), then init, filtered scan, connect

Provoked failures (run only with --failures or --only; their files go in
captures/bumble-failures/, README section "Provoked failures"):
  pairing_refused           the peripheral's host refuses pairing (SMP Pairing
                            Failed 0x05); the central disconnects 1 s later
  security_request_ignored  the peripheral sends a Security Request, the central
                            ignores it, the peripheral disconnects 3 s later
  gatt_read_refused         a read answered with Error Response 0x0E; the
                            central disconnects 300 ms later
  att_timeout               a read never answered; Bumble's 30 s GATT request
                            timeout (real time), then the central disconnects
  peripheral_power_off      the peripheral disconnects with reason 0x15
  link_lost                 notifications, then the link is severed
                            (LatencyLink.sever) and times out (0x08)
  connect_cancelled         LE Create Connection to a peer not advertising,
                            cancelled after 2 s (status 0x02); a retry connects

Changes to the *emulated radio* (never to Bumble's host stack); the first two are switchable:
  * ``--link-latency-ms`` (default 7.5): the LocalLink delivers ACL data and LL
    control PDUs after a fixed one-way delay instead of "immediately", so that
    an ATT request/response round trip takes ~1 connection interval (15 ms)
    as over the air.  0 gives Bumble's stock immediate delivery.
  * ``RealisticController`` (disable with ``--stock-controller``): Bumble's
    virtual controller with five small spec fixes, each explained in its class
    docstring below: LE Create Connection Cancel really cancels and reports
    LE Connection Complete(0x02); a host-initiated disconnect is reported
    locally with reason 0x16; received ACL data is fragmented to the LE ACL
    buffer size (27) like a real controller does; the peripheral's LE Connection
    Complete carries the parameters from CONNECT_IND instead of fixed dummies;
    LE Set Extended Scan Enable before any LE Set Extended Scan Parameters
    (since power-up or HCI Reset) is refused with 0x0C Command Disallowed.
  * ``LatencyLink.sever`` (link_lost only) drops all traffic between two
    controllers from then on, as a dead radio link would.
  * The supervision timeout in scenario 4 is simulated by the harness: after
    720 ms of silence both controllers report Disconnection Complete(0x08),
    with no HCI Disconnect and no LL_TERMINATE_IND, as real controllers do.

This file is our own code; only the ``bumble`` package is third party.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import json
import logging
import os
import random
import struct
import sys
import time
from pathlib import Path

try:
    from bumble import att, core, gatt, hci, ll
    from bumble.controller import Controller
    from bumble.device import Device, DeviceConfiguration, Peer
    from bumble.host import Host
    from bumble.link import LocalLink
    from bumble.pairing import PairingConfig, PairingDelegate
    from bumble.profiles.battery_service import BatteryService
    from bumble.profiles.device_information_service import DeviceInformationService
    from bumble.profiles.heart_rate_service import HeartRateService
    from bumble.snoop import BtSnooper
    from bumble.transport.common import AsyncPipeSink
except ImportError as exc:  # pragma: no cover - environment problem
    # BUMBLE_PYTHON may name an interpreter that has bumble (e.g. a venv's
    # bin/python).  Re-run once with it; the marker variable prevents a loop
    # when that interpreter cannot import bumble either.
    _other = os.environ.get('BUMBLE_PYTHON')
    if __name__ == '__main__' and _other and not os.environ.get('_GEN_BUMBLE_REEXEC'):
        os.environ['_GEN_BUMBLE_REEXEC'] = '1'
        os.execv(_other, [_other, *sys.argv])
    sys.exit(
        f'cannot import bumble ({exc}).\n'
        'Install it for this Python:  pip install bumble==0.0.236\n'
        '(or set BUMBLE_PYTHON to a Python interpreter that has it, e.g. a venv\'s bin/python)'
    )

log = logging.getLogger('gen_bumble_captures')

# -----------------------------------------------------------------------------
# Fixed identities (so handle numbers / addresses in the README stay valid).
# LE addresses are random *static* addresses (two top bits set); the public
# addresses are what each controller answers to HCI Read BD_ADDR.
# -----------------------------------------------------------------------------
CENTRAL = dict(name='Bumble Central', address='C0:FF:EE:00:00:01', public='00:1B:DC:00:00:01')
HR_PERIPH = dict(name='PulseBelt HR', address='D8:0D:18:00:00:01', public='00:1B:DC:00:0D:01')
THERMO = dict(name='Thermo-1', address='D9:09:18:00:00:02', public='00:1B:DC:00:09:02')
SCALE = dict(name='Scale-7', address='DA:1D:18:00:00:03', public='00:1B:DC:00:1D:03')
TAG = dict(name='Tag-42', address='DB:59:00:00:00:04', public='00:1B:DC:00:59:04')
CUSTOM_PERIPH = dict(name='Bumble Custom', address='DC:C0:57:00:00:05', public='00:1B:DC:00:C0:05')
INDIC_PERIPH = dict(name='Bumble Secure', address='DD:5E:C0:00:00:06', public='00:1B:DC:00:5E:06')
STREAM_PERIPH = dict(name='Bumble Stream', address='DE:57:4E:00:00:07', public='00:1B:DC:00:57:07')
ENV_PERIPH = dict(name='Bumble Env', address='DF:E5:0B:00:00:08', public='00:1B:DC:00:E5:08')
FAULTY_PERIPH = dict(name='Bumble Faulty', address='E0:FA:17:00:00:09', public='00:1B:DC:00:FA:09')
# Optional keys of HR_PERIPH (defaults in build_heart_rate_peripheral):
# manufacturer, model, battery -- the Device Information strings and the
# Battery Level it serves.  Other generators may swap in their own identities.

# 16-bit SIG UUIDs used below
UUID_HEART_RATE = 0x180D
UUID_BATTERY = 0x180F
UUID_DEVICE_INFO = 0x180A
UUID_HEALTH_THERMOMETER = 0x1809
UUID_WEIGHT_SCALE = 0x181D
UUID_GAP = 0x1800
UUID_DEVICE_NAME = 0x2A00
UUID_TEMPERATURE = 0x2A6E  # used as "a UUID this server does not have"

# Custom 128-bit UUIDs (made up for these captures)
_BASE = 'F0A3C0{:02X}-6C1E-4D5B-9A57-2B8E1A6B{:04X}'
S3_SERVICE = _BASE.format(0x01, 0x3C00)
S3_READ_ONLY = _BASE.format(0x01, 0x3C01)
S3_WRITE = _BASE.format(0x01, 0x3C02)
S3_WRITE_NO_RSP = _BASE.format(0x01, 0x3C03)
S3_NOTIFY = _BASE.format(0x01, 0x3C04)
S5_SERVICE = _BASE.format(0x05, 0x3C50)
S5_INDICATE = _BASE.format(0x05, 0x3C51)
S5_SECURE = _BASE.format(0x05, 0x3C52)
S6_SERVICE = _BASE.format(0x06, 0x3C60)
S6_STREAM = _BASE.format(0x06, 0x3C61)
S7_SERVICE = _BASE.format(0x07, 0x3C70)
S7_LEVEL = _BASE.format(0x07, 0x3C71)      # Read|Notify, value handle 0x0010
S7_CONTROL = _BASE.format(0x07, 0x3C72)    # Read|Write, value handle 0x0013
S11_SERVICE = _BASE.format(0x0B, 0x3CB0)
S11_REFUSED = _BASE.format(0x0B, 0x3CB1)   # Read -> Error Response 0x0E, value handle 0x0010
S11_STALLED = _BASE.format(0x0B, 0x3CB2)   # Read -> never answered, value handle 0x0012

SCENARIOS = [
    'clean_heart_rate',
    'nil_scan_all_services',
    'oversized_and_unchecked_writes',
    'reconnect_storm',
    'indications_and_errors',
    'long_notify_stream',
    'two_peripherals_concurrent',
    'cached_reconnect',
    'hr_short_notification',
    'scan_before_init',
]
# Sessions with a failure provoked through the Bumble API.  They are not run by
# default (their files belong in captures/bumble-failures/, not next to the
# clean scenarios); name them with --only, or --failures for all of them.
FAILURE_SCENARIOS = [
    'pairing_refused',
    'security_request_ignored',
    'gatt_read_refused',
    'att_timeout',
    'peripheral_power_off',
    'link_lost',
    'connect_cancelled',
]


# =============================================================================
# The emulated radio
# =============================================================================
class LatencyLink(LocalLink):
    """Bumble's LocalLink, but connection traffic arrives after a fixed delay.

    The stock LocalLink hands ACL data and LL control PDUs to the peer
    controller on the next event-loop iteration (microseconds later), so an ATT
    request and its response would be ~100 us apart in the capture.  Here both
    kinds of connection traffic go through ONE first-in-first-out queue and are
    delivered ``latency`` seconds after they were sent -- order is preserved,
    so e.g. an LL_TERMINATE_IND can never overtake earlier data.  Advertising
    PDUs (and CONNECT_IND) are not delayed.
    """

    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency
        self._queue: collections.deque = collections.deque()
        self._timer: asyncio.TimerHandle | None = None

    def _defer(self, deliver) -> None:
        if self.latency <= 0:
            deliver()
            return
        loop = asyncio.get_running_loop()
        self._queue.append((loop.time() + self.latency, deliver))
        if self._timer is None:
            self._timer = loop.call_at(self._queue[0][0], self._drain)

    def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = None
        now = loop.time()
        while self._queue and self._queue[0][0] <= now:
            _, deliver = self._queue.popleft()
            try:
                deliver()
            except Exception as error:  # e.g. the peer vanished meanwhile
                log.debug('link delivery dropped: %s', error)
        if self._queue:
            self._timer = loop.call_at(self._queue[0][0], self._drain)

    # Pairs of device addresses whose link carries nothing any more (see
    # sever); empty unless a scenario breaks a link.
    _severed: set = frozenset()

    def sever(self, *controllers: Controller) -> None:
        """From now on, drop all connection traffic between these controllers,
        including what is still in flight: the radio link is gone, both
        controllers still think it is up (until a supervision timeout is
        simulated)."""
        addresses = [bytes(c.random_address) for c in controllers]
        self._severed = set(self._severed) | {
            frozenset((a, b)) for a in addresses for b in addresses if a != b
        }

    def _cut(self, a, b) -> bool:
        return bool(self._severed) and frozenset((bytes(a), bytes(b))) in self._severed

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        def deliver():
            if self._cut(sender_controller.random_address, destination_address):
                return
            LocalLink.send_acl_data(self, sender_controller, destination_address, transport, data)

        self._defer(deliver)

    def send_ll_control_pdu(self, sender_address, receiver_address, packet):
        def deliver():
            if self._cut(sender_address, receiver_address):
                return
            LocalLink.send_ll_control_pdu(self, sender_address, receiver_address, packet)

        self._defer(deliver)


class RealisticController(Controller):
    """Bumble's virtual controller with small fixes toward real-controller HCI.

    1. LE Create Connection Cancel.  Stock Bumble answers Command Complete
       (success) but keeps the pending connection and never sends the LE
       Connection Complete event, so the host waits forever and the "cancelled"
       connection is silently established at the peer's next advertisement.
       Here the pending connection is dropped and, after the Command Complete,
       LE Connection Complete with status 0x02 (Unknown Connection Identifier)
       is sent, as Core Vol 4 Part E 7.8.13 requires.  A cancel with nothing
       pending answers 0x0C (Command Disallowed).
    2. Local disconnect reason.  Stock Bumble reports the reason given in the
       host's HCI Disconnect command back to that same host.  Real controllers
       send it to the peer in LL_TERMINATE_IND and report 0x16 (Connection
       Terminated By Local Host) locally.  Done so here.
    3. Received ACL data is fragmented to the LE ACL buffer size (27 octets,
       the LL payload size this controller supports), first fragment with
       packet-boundary flag 0x02, the rest 0x01 -- stock Bumble delivers each
       L2CAP PDU whole in a single HCI ACL packet.
    4. Peripheral LE Connection Complete.  Stock Bumble fills interval/latency/
       timeout with fixed dummies (10/0/10) on the peripheral side; here they
       are taken from the CONNECT_IND, so both sides report the same values.
    5. LE Set Extended Scan Enable without parameters.  Core Vol 4 Part E
       7.8.65: if Enable is 0x01 and the host has not issued LE Set Extended
       Scan Parameters, the controller "shall either use vendor-specified
       parameters or return the error code Command Disallowed (0x0C)".  Stock
       Bumble accepts (and starts scanning); here the controller refuses with
       0x0C, as Apache NimBLE's link layer does.  HCI Reset forgets the
       parameters.  The Bumble host always sets parameters first, so only a
       scan enable sent before initialisation (scenario 10) is affected.
    """

    _connect_ind: ll.ConnectInd | None = None

    # -- fix 1 ---------------------------------------------------------------
    def on_hci_le_create_connection_cancel_command(self, command):
        pending = self.pending_le_connection
        if pending is None:
            return hci.HCI_StatusReturnParameters(
                hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR
            )
        self.pending_le_connection = None
        peer = pending.peer_address
        event = hci.HCI_LE_Connection_Complete_Event(
            status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR,
            connection_handle=0,
            role=hci.Role.CENTRAL,
            peer_address_type=peer.address_type,
            peer_address=peer,
            connection_interval=0,
            peripheral_latency=0,
            supervision_timeout=0,
            central_clock_accuracy=0,
        )
        # The Command Complete for this command is queued right after we
        # return; queue the event one loop turn later so it comes second.
        asyncio.get_running_loop().call_soon(self.send_hci_packet, event)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    # -- fix 2 ---------------------------------------------------------------
    def on_hci_disconnect_command(self, command):
        connection = self.find_le_connection_by_handle(command.connection_handle)
        if connection is None or not self.link:
            return super().on_hci_disconnect_command(command)
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        connection.send_ll_control_pdu(ll.TerminateInd(command.reason))
        self.on_le_disconnected(
            connection, hci.HCI_ErrorCode.CONNECTION_TERMINATED_BY_LOCAL_HOST_ERROR
        )
        return None

    # -- fix 3 ---------------------------------------------------------------
    def on_link_acl_data(self, sender_address, transport, data):
        if transport != core.PhysicalTransport.LE:
            return super().on_link_acl_data(sender_address, transport, data)
        connection = self.le_connections.get(sender_address)
        if connection is None:
            log.debug('[%s] ACL data for a link that is gone, dropped', self.name)
            return None
        size = self.le_acl_data_packet_length
        for offset in range(0, len(data), size):
            chunk = data[offset : offset + size]
            pb_flag = (
                hci.HCI_ACL_PB_FIRST_FLUSHABLE if offset == 0 else hci.HCI_ACL_PB_CONTINUATION
            )
            self.send_hci_packet(
                hci.HCI_AclDataPacket(connection.handle, pb_flag, 0, len(chunk), chunk)
            )
        return None

    # -- fix 5 ---------------------------------------------------------------
    _ext_scan_parameters_set = False

    def on_hci_reset_command(self, command):
        self._ext_scan_parameters_set = False
        return super().on_hci_reset_command(command)

    def on_hci_le_set_extended_scan_parameters_command(self, command):
        result = super().on_hci_le_set_extended_scan_parameters_command(command)
        if result.status == hci.HCI_ErrorCode.SUCCESS:
            self._ext_scan_parameters_set = True
        return result

    def on_hci_le_set_extended_scan_enable_command(self, command):
        if command.enable and not self._ext_scan_parameters_set:
            return hci.HCI_StatusReturnParameters(
                hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR
            )
        return super().on_hci_le_set_extended_scan_enable_command(command)

    # -- fix 4 ---------------------------------------------------------------
    def on_le_connect_ind(self, packet):
        self._connect_ind = packet
        try:
            super().on_le_connect_ind(packet)
        finally:
            self._connect_ind = None

    def send_hci_packet(self, packet):
        ind = self._connect_ind
        if (
            ind is not None
            and isinstance(packet, hci.HCI_LE_Connection_Complete_Event)
            and packet.role == hci.Role.PERIPHERAL
        ):
            packet = hci.HCI_LE_Connection_Complete_Event(
                status=packet.status,
                connection_handle=packet.connection_handle,
                role=packet.role,
                peer_address_type=packet.peer_address_type,
                peer_address=packet.peer_address,
                connection_interval=ind.interval,
                peripheral_latency=ind.latency,
                supervision_timeout=ind.timeout,
                central_clock_accuracy=packet.central_clock_accuracy,
            )
        super().send_hci_packet(packet)


def simulate_supervision_timeout(*controllers: Controller) -> None:
    """Drop every LE link between the given controllers the way a supervision
    timeout does: each controller just reports Disconnection Complete with
    reason 0x08 to its host -- no HCI Disconnect, no LL_TERMINATE_IND."""
    addresses = set()
    for controller in controllers:
        addresses.add(bytes(controller.random_address))
    for controller in controllers:
        for connection in list(controller.le_connections.values()):
            if bytes(connection.peer_address) in addresses:
                controller.on_le_disconnected(
                    connection, hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR
                )


# =============================================================================
# A device = controller + Bumble host + Bumble Device (+ optional snooper)
# =============================================================================
class Node:
    def __init__(self, world: 'World', ident: dict, snoop_path: Path | None = None):
        controller_class = Controller if world.stock_controller else RealisticController
        self.controller = controller_class(
            ident['name'], link=world.link, public_address=ident['public']
        )
        self.host = Host(self.controller, AsyncPipeSink(self.controller))
        config = DeviceConfiguration()
        config.name = ident['name']
        config.address = hci.Address(ident['address'])
        # Bumble's default IRK is all zeros; give each device its own (stable).
        config.irk = hashlib.sha256(ident['address'].encode()).digest()[:16]
        self.device = Device(config=config, host=self.host)
        self.address = hci.Address(ident['address'])
        self.name = ident['name']
        self._snoop_file = None
        if snoop_path is not None:
            self._snoop_file = open(snoop_path, 'wb')
            self.host.snooper = BtSnooper(self._snoop_file)
        # LE Secure Connections, Just Works (no MITM), bonding -- for both roles.
        self.device.pairing_config_factory = lambda connection: PairingConfig(
            sc=True,
            mitm=False,
            bonding=True,
            delegate=PairingDelegate(
                io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT
            ),
        )

    def close(self) -> None:
        self.host.snooper = None
        if self._snoop_file is not None:
            self._snoop_file.close()
            self._snoop_file = None

    async def advertise(self, ad: bytes, interval_ms: float) -> None:
        """Connectable undirected advertising (Bumble picks the commands)."""
        await self.device.start_advertising(
            advertising_data=ad,
            scan_response_data=b'',
            advertising_interval_min=interval_ms,
            advertising_interval_max=interval_ms,
            auto_restart=False,
        )

    async def readvertise(self) -> None:
        """Re-enable the advertising set after a connection consumed it."""
        adv_set = self.device.legacy_advertising_set
        if adv_set is not None:
            await adv_set.start()
        elif self.device.legacy_advertiser is not None:
            await self.device.legacy_advertiser.start()


class World:
    """One scenario's virtual radio: a link plus the nodes on it."""

    def __init__(self, args) -> None:
        self.link = LatencyLink(args.link_latency_ms / 1000.0)
        self.stock_controller = args.stock_controller
        self.nodes: list[Node] = []

    def node(self, ident: dict, snoop_path: Path | None = None) -> Node:
        n = Node(self, ident, snoop_path)
        self.nodes.append(n)
        return n

    async def power_on(self) -> None:
        for n in self.nodes:
            await n.device.power_on()

    def close(self) -> None:
        for n in self.nodes:
            n.close()


# =============================================================================
# Small helpers
# =============================================================================
def ad_struct(ad_type: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, ad_type]) + payload


def make_adv_data(name: str, uuids16=(), appearance=None, manufacturer=None) -> bytes:
    data = ad_struct(0x01, bytes([0x06]))  # Flags: LE General Discoverable, no BR/EDR
    if uuids16:
        data += ad_struct(0x03, b''.join(struct.pack('<H', u) for u in uuids16))
    if appearance is not None:
        data += ad_struct(0x19, struct.pack('<H', appearance))
    if manufacturer is not None:
        data += ad_struct(0xFF, manufacturer)
    data += ad_struct(0x09, name.encode())
    assert len(data) <= 31, f'advertising data too long: {len(data)}'
    return data


def parse_ad(data: bytes) -> dict[int, list[bytes]]:
    """Minimal AD parser: {ad_type: [payload, ...]}."""
    out: dict[int, list[bytes]] = {}
    i = 0
    while i < len(data):
        length = data[i]
        if length == 0 or i + 1 + length > len(data):
            break
        out.setdefault(data[i + 1], []).append(data[i + 2 : i + 1 + length])
        i += 1 + length
    return out


def ad_has_uuid16(data: bytes, uuid16: int) -> bool:
    ads = parse_ad(data)
    for ad_type in (0x02, 0x03):
        for payload in ads.get(ad_type, []):
            for k in range(0, len(payload) - 1, 2):
                if struct.unpack_from('<H', payload, k)[0] == uuid16:
                    return True
    return False


def ad_name(data: bytes) -> str | None:
    ads = parse_ad(data)
    for ad_type in (0x09, 0x08):
        if ads.get(ad_type):
            return ads[ad_type][0].decode(errors='replace')
    return None


def uuid16(value: int) -> core.UUID:
    return core.UUID.from_16_bits(value)


async def connect_pair(central: Node, peripheral: Node, **kwargs):
    """Central connects to peripheral; returns (central_conn, peripheral_conn)."""
    peripheral_side = asyncio.get_running_loop().create_future()
    peripheral.device.once(
        'connection', lambda c: peripheral_side.done() or peripheral_side.set_result(c)
    )
    c_conn = await central.device.connect(peripheral.address, **kwargs)
    p_conn = await asyncio.wait_for(peripheral_side, 5)
    return c_conn, p_conn


def disconnection_future(connection):
    fut = asyncio.get_running_loop().create_future()
    connection.once('disconnection', lambda reason: fut.done() or fut.set_result(reason))
    return fut


async def gatt_read_expect_error(client, handle: int, what: str) -> int | None:
    try:
        await client.read_value(handle, no_long_read=True)
    except att.ATT_Error as error:
        log.info('  %s: read 0x%04X -> ATT error 0x%02X', what, handle, error.error_code)
        return error.error_code
    log.info('  %s: read 0x%04X unexpectedly succeeded', what, handle)
    return None


# =============================================================================
# Peripheral builders
# =============================================================================
def build_heart_rate_peripheral(world: World, snoop: Path | None, control_point: bool = False,
                                ident: dict | None = None):
    """Heart Rate (0x180D) + Battery (0x180F) + Device Information (0x180A),
    all three from Bumble's own profile implementations.  With
    ``control_point`` the Heart Rate service also has Heart Rate Control
    Point 0x2A39 (Write; 0x01 = reset energy expended), which shifts the
    Battery and Device Information handles by 2."""
    ident = ident or HR_PERIPH
    node = world.node(ident, snoop)
    state = {'bpm': 72, 'energy_resets': 0}

    def measurement(_connection=None):
        bpm = state['bpm']
        return HeartRateService.HeartRateMeasurement(
            heart_rate=bpm, sensor_contact_detected=True, rr_intervals=[60.0 / bpm]
        )

    def reset_energy_expended(_connection):
        state['energy_resets'] += 1

    hrs = HeartRateService(
        read_heart_rate_measurement=measurement,
        body_sensor_location=HeartRateService.BodySensorLocation.CHEST,
        reset_energy_expended=reset_energy_expended if control_point else None,
    )
    battery_level = ident.get('battery', 87)
    bas = BatteryService(read_battery_level=lambda _connection: battery_level)
    dis = DeviceInformationService(
        manufacturer_name=ident.get('manufacturer', 'Acme Biometrics'),
        model_number=ident.get('model', 'HRM-200'),
    )
    node.device.add_services([hrs, bas, dis])
    node.hrs = hrs
    node.hr_state = state
    node.measurement = measurement
    node.ad = make_adv_data(
        ident['name'],
        uuids16=(UUID_HEART_RATE, UUID_BATTERY, UUID_DEVICE_INFO),
        appearance=0x0341,  # Heart Rate Sensor: Heart Rate Belt
    )
    return node


def build_decoy(world: World, ident: dict, uuids16=(), appearance=None, manufacturer=None):
    node = world.node(ident, None)
    node.ad = make_adv_data(
        ident['name'], uuids16=uuids16, appearance=appearance, manufacturer=manufacturer
    )
    return node


def build_env_peripheral(world: World, snoop: Path | None, ident: dict | None = None):
    """A custom sensor whose one service lands on the same handles as the
    Heart Rate service of build_heart_rate_peripheral, with other meanings:

    service S7 0x000E-0x0013: …3C71 decl 0x000F, value 0x0010 (Read|Notify,
    sint16 little-endian, 0.01 degC), CCCD 0x0011; …3C72 decl 0x0012, value
    0x0013 (Read|Write, 1 byte "mode")."""
    ident = ident or ENV_PERIPH
    node = world.node(ident, snoop)
    state = {'centi_degc': 2150, 'mode': b'\x01', 'writes': []}

    def write_mode(_connection, value):
        state['mode'] = bytes(value)
        state['writes'].append(bytes(value).hex())

    level = gatt.Characteristic(
        S7_LEVEL,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.NOTIFY,
        gatt.Characteristic.READABLE,
        gatt.CharacteristicValue(read=lambda _c: struct.pack('<h', state['centi_degc'])),
    )
    mode = gatt.Characteristic(
        S7_CONTROL,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.WRITE,
        gatt.Characteristic.READABLE | gatt.Characteristic.WRITEABLE,
        gatt.CharacteristicValue(read=lambda _c: state['mode'], write=write_mode),
    )
    node.device.add_service(gatt.Service(S7_SERVICE, [level, mode]))
    node.level = level
    node.mode = mode
    node.env_state = state
    node.ad = make_adv_data(ident['name'], appearance=0x0540)  # Generic Sensor
    return node


async def scan_until(central: Node, predicate, timeout: float = 10.0):
    """Active scan (duplicates not filtered) until an advertisement satisfies
    ``predicate`` (the host-side filter), then stop scanning.  Returns it."""
    found = asyncio.get_running_loop().create_future()

    def on_adv(adv):
        if not found.done() and predicate(adv):
            found.set_result(adv)

    central.device.on('advertisement', on_adv)
    await central.device.start_scanning(active=True, filter_duplicates=False)
    try:
        return await asyncio.wait_for(found, timeout)
    finally:
        central.device.remove_listener('advertisement', on_adv)
        await central.device.stop_scanning()


def cccd_handle(characteristic) -> int:
    return characteristic.get_descriptor(
        gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR
    ).handle


def subscription_future(characteristic):
    """Resolves when the server sees a CCCD write for ``characteristic``."""
    fut = asyncio.get_running_loop().create_future()
    characteristic.once('subscription', lambda *a: fut.done() or fut.set_result(None))
    return fut


def gatt_layout(peer) -> list[str]:
    layout = []
    for s in peer.services:
        layout.append(f'service 0x{s.handle:04X}-0x{s.end_group_handle:04X} {s.uuid}')
        for c in s.characteristics:
            layout.append(f'  char value 0x{c.handle:04X} {c.uuid} props={c.properties}')
            for d in c.descriptors:
                layout.append(f'    descriptor 0x{d.handle:04X} {d.type}')
    return layout


# =============================================================================
# Scenario 1: clean_heart_rate
# =============================================================================
async def scenario_clean_heart_rate(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'clean_heart_rate.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / 'clean_heart_rate.peripheral.btsnoop')
    thermo = build_decoy(world, THERMO, uuids16=(UUID_HEALTH_THERMOMETER,), appearance=0x0300)
    facts: dict = {}
    try:
        await world.power_on()
        # The decoy (Health Thermometer, no 0x180D) advertises first; the
        # heart-rate sensor shows up 300 ms later.
        await thermo.advertise(thermo.ad, 150)
        await central.device.start_scanning(active=True, filter_duplicates=False)

        found = asyncio.get_running_loop().create_future()
        seen = collections.Counter()

        def on_adv(adv):
            seen[str(adv.address)] += 1
            # Host-side filter: only a device advertising Heart Rate 0x180D.
            if not found.done() and ad_has_uuid16(adv.data_bytes, UUID_HEART_RATE):
                found.set_result(adv)

        central.device.on('advertisement', on_adv)
        await asyncio.sleep(0.3)
        await hr.advertise(hr.ad, 100)
        adv = await asyncio.wait_for(found, 10)
        central.device.remove_listener('advertisement', on_adv)
        await central.device.stop_scanning()
        log.info('  scan: matched %s (%s); reports seen per address: %s',
                 adv.address, ad_name(adv.data_bytes), dict(seen))

        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        facts['mtu'] = await peer.request_mtu(247)

        # Discover the three services by UUID (Find By Type Value).
        services = {}
        for u in (UUID_HEART_RATE, UUID_BATTERY, UUID_DEVICE_INFO):
            found_services = await peer.discover_service(uuid16(u))
            services[u] = found_services[0]
            await services[u].discover_characteristics()
        chars = {
            c.uuid: c for s in services.values() for c in s.characteristics
        }
        hrm = chars[uuid16(0x2A37)]
        bsl = chars[uuid16(0x2A38)]
        batt = chars[uuid16(0x2A19)]
        facts['handles'] = {
            'hrm_value': hrm.handle, 'bsl_value': bsl.handle, 'battery_value': batt.handle,
            'manufacturer_value': chars[uuid16(0x2A29)].handle,
            'model_value': chars[uuid16(0x2A24)].handle,
        }
        manufacturer = await client.read_value(chars[uuid16(0x2A29)])
        model = await client.read_value(chars[uuid16(0x2A24)])
        log.info('  DIS: manufacturer=%r model=%r', manufacturer, model)

        # Subscribe to Heart Rate Measurement (discovers descriptors, writes CCCD=0x0001)
        received: list[bytes] = []
        twenty = asyncio.get_running_loop().create_future()

        def on_hrm(value: bytes):
            received.append(bytes(value))
            if len(received) == 20 and not twenty.done():
                twenty.set_result(None)

        subscribed = asyncio.get_running_loop().create_future()
        hr.hrs.heart_rate_measurement_characteristic.once(
            'subscription', lambda *a: subscribed.done() or subscribed.set_result(None)
        )
        await client.subscribe(hrm, on_hrm)
        await subscribed
        cccd = hrm.get_descriptor(gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR)
        facts['handles']['hrm_cccd'] = cccd.handle

        # Peripheral: 20 measurements, one per second (a realistic HRM rate).
        sent_bpm = []
        for i in range(20):
            hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
            sent_bpm.append(hr.hr_state['bpm'])
            await hr.device.notify_subscribers(
                hr.hrs.heart_rate_measurement_characteristic, value=hr.measurement()
            )
            if i < 19:
                await asyncio.sleep(1.0)
        await asyncio.wait_for(twenty, 5)
        facts['bpm'] = sent_bpm
        facts['notifications'] = [v.hex() for v in received]

        battery = await client.read_value(batt)
        location = await client.read_value(bsl)
        facts['battery'] = battery.hex()
        facts['body_sensor_location'] = location.hex()

        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 2: nil_scan_all_services
# =============================================================================
async def scenario_nil_scan_all_services(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'nil_scan_all_services.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / 'nil_scan_all_services.peripheral.btsnoop')
    thermo = build_decoy(world, THERMO, uuids16=(UUID_HEALTH_THERMOMETER, UUID_BATTERY), appearance=0x0300)
    scale = build_decoy(world, SCALE, uuids16=(UUID_WEIGHT_SCALE,), appearance=0x0C80)
    tag = build_decoy(world, TAG, manufacturer=struct.pack('<H', 0x0059) + bytes.fromhex('a1b2c3d4'))
    facts: dict = {}
    try:
        await world.power_on()
        await hr.advertise(hr.ad, 100)
        await thermo.advertise(thermo.ad, 152.5)
        await scale.advertise(scale.ad, 211.25)
        await tag.advertise(tag.ad, 318.75)

        seen = collections.Counter()
        central.device.on('advertisement', lambda adv: seen.update([ad_name(adv.data_bytes) or str(adv.address)]))
        # No service filter, duplicates not filtered, active scan.
        await central.device.start_scanning(active=True, filter_duplicates=False)
        await asyncio.sleep(8.0)  # "a long time"
        facts['reports_before_connect'] = dict(seen)
        log.info('  scan: advertisements before connecting: %s', dict(seen))

        # Connect WITHOUT stopping the scan.
        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        # Discover everything: all primary services, all characteristics, all descriptors.
        await peer.discover_all()
        layout = []
        for s in peer.services:
            layout.append(f'service 0x{s.handle:04X}-0x{s.end_group_handle:04X} {s.uuid}')
            for c in s.characteristics:
                layout.append(f'  char value 0x{c.handle:04X} {c.uuid} props={c.properties}')
                for d in c.descriptors:
                    layout.append(f'    descriptor 0x{d.handle:04X} {d.type}')
        facts['gatt'] = layout
        for line in layout:
            log.info('  %s', line)

        # Stay connected a little while; the scan keeps delivering reports.
        await asyncio.sleep(3.0)
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(1.0)
        await central.device.stop_scanning()
        facts['reports_total'] = dict(seen)
        log.info('  scan: advertisements in total: %s', dict(seen))
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 3: oversized_and_unchecked_writes
# =============================================================================
async def scenario_oversized_and_unchecked_writes(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'oversized_and_unchecked_writes.central.btsnoop')
    periph = world.node(CUSTOM_PERIPH, out / 'oversized_and_unchecked_writes.peripheral.btsnoop')
    writes_seen: dict[str, list[int]] = collections.defaultdict(list)

    def refuse_write(_connection, _value):
        # Bumble's GATT server does not check the WRITEABLE permission itself
        # ("TODO: check permissions" in gatt_server.py), so the application
        # refuses the write, exactly like a read-only value should be treated.
        raise att.ATT_Error(att.ErrorCode.WRITE_NOT_PERMITTED)

    def record(tag):
        def write(_connection, value):
            writes_seen[tag].append(len(value))
        return write

    read_only = gatt.Characteristic(
        S3_READ_ONLY, gatt.Characteristic.Properties.READ, gatt.Characteristic.READABLE,
        gatt.CharacteristicValue(read=lambda _c: b'fw-1.4.2', write=refuse_write),
    )
    write_rsp = gatt.Characteristic(
        S3_WRITE, gatt.Characteristic.Properties.WRITE, gatt.Characteristic.WRITEABLE,
        gatt.CharacteristicValue(write=record('write')),
    )
    write_no_rsp = gatt.Characteristic(
        S3_WRITE_NO_RSP, gatt.Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
        gatt.Characteristic.WRITEABLE, gatt.CharacteristicValue(write=record('write_no_rsp')),
    )
    notify_only = gatt.Characteristic(
        S3_NOTIFY, gatt.Characteristic.Properties.NOTIFY, gatt.Characteristic.Permissions(0), b'',
    )
    periph.device.add_service(
        gatt.Service(S3_SERVICE, [read_only, write_rsp, write_no_rsp, notify_only])
    )
    facts: dict = {}
    try:
        await world.power_on()
        await periph.advertise(make_adv_data(CUSTOM_PERIPH['name']), 100)
        c_conn, p_conn = await connect_pair(central, periph)
        client = c_conn.gatt_client
        peer = Peer(c_conn)
        # NO MTU exchange: ATT_MTU stays at the default 23.
        service = (await peer.discover_service(core.UUID(S3_SERVICE)))[0]
        await service.discover_characteristics()
        ch = {str(c.uuid).upper(): c for c in service.characteristics}
        h_ro = ch[S3_READ_ONLY].handle
        h_w = ch[S3_WRITE].handle
        h_wnr = ch[S3_WRITE_NO_RSP].handle
        h_n = ch[S3_NOTIFY].handle
        facts['handles'] = dict(read_only=h_ro, write=h_w, write_no_rsp=h_wnr, notify=h_n)
        facts['mtu'] = client.mtu
        log.info('  handles: %s (ATT MTU %d)', facts['handles'], client.mtu)

        await client.read_value(h_ro)  # a normal read first

        # (a) 40-byte value in ONE Write Request (43-byte ATT PDU > ATT_MTU 23).
        # Bumble's high-level write_value() would not do this (it switches to
        # a long write, see (b)), so the PDU is sent with the client's
        # lower-level send_request().
        value40 = bytes(rng.randrange(256) for _ in range(40))
        response = await client.send_request(
            att.ATT_Write_Request(attribute_handle=h_w, attribute_value=value40)
        )
        facts['oversized_write_response'] = response.name
        log.info('  oversized Write Request (40 B) -> %s', response.name)

        # (b) The same 40 bytes through Bumble's normal API: it transparently
        # uses Prepare Write (18+18+4) + Execute Write.
        await client.write_value(h_w, value40, with_response=True)

        # (c) Write Request to the read-only characteristic -> Error 0x03.
        try:
            await client.write_value(h_ro, b'\x00\x01', with_response=True)
            facts['write_read_only'] = 'accepted'
        except att.ATT_Error as error:
            facts['write_read_only'] = f'0x{error.error_code:02X}'
        log.info('  Write Request to read-only 0x%04X -> %s', h_ro, facts['write_read_only'])

        # (d) Write Command (no response) to the WRITE-with-response-only char.
        await client.write_value(h_w, b'\x42\x42\x42\x42', with_response=False)

        # (e) 200 Write Commands back to back, no pacing, 20 bytes each.
        for i in range(200):
            payload = struct.pack('<H', i) + bytes(rng.randrange(256) for _ in range(18))
            await client.write_value(h_wnr, payload, with_response=False)

        # (f) "Subscribe" to the read-only characteristic the naive way: write
        # 0x0001 to value_handle + 1, where a CCCD would be if it had one.
        # That handle is in fact the next characteristic's declaration (0x2803).
        fake_cccd = h_ro + 1
        try:
            await client.write_value(fake_cccd, b'\x01\x00', with_response=True)
            facts['fake_cccd_write'] = 'accepted (Write Response)'
        except att.ATT_Error as error:
            facts['fake_cccd_write'] = f'error 0x{error.error_code:02X}'
        facts['handles']['fake_cccd'] = fake_cccd
        log.info('  CCCD-style write to 0x%04X -> %s', fake_cccd, facts['fake_cccd_write'])

        await asyncio.sleep(0.3)  # let the last write commands drain
        facts['server_saw'] = {k: collections.Counter(v) for k, v in writes_seen.items()}
        log.info('  server write callbacks: %s', facts['server_saw'])
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 4: reconnect_storm
# =============================================================================
async def scenario_reconnect_storm(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'reconnect_storm.central.btsnoop')
    periph = world.node(HR_PERIPH, out / 'reconnect_storm.peripheral.btsnoop')
    ad = make_adv_data(HR_PERIPH['name'], uuids16=(UUID_HEART_RATE,))
    facts: dict = {'connections': [], 'cancel': None}
    # How each connection ends.  'timeout' = simulated supervision timeout.
    plan = ['peer_0x13', 'timeout', 'peer_0x13', 'timeout', 'peer_0x13', 'central_0x13']
    cancel_after = 2  # the create+cancel happens after the 3rd connection drops
    try:
        await world.power_on()
        await periph.advertise(ad, 20)

        # Find the peripheral once (short scan), then go.
        found = asyncio.get_running_loop().create_future()
        central.device.on(
            'advertisement',
            lambda adv: found.done() or (adv.address == periph.address and found.set_result(adv)),
        )
        await central.device.start_scanning(active=True)
        await asyncio.wait_for(found, 5)
        await central.device.stop_scanning()

        name_handle = None
        for index, how in enumerate(plan):
            t0 = time.monotonic()
            c_conn, p_conn = await connect_pair(central, periph)
            c_gone = disconnection_future(c_conn)
            p_gone = disconnection_future(p_conn)
            # After this drop, does the peripheral go straight back to
            # advertising?  Not after the last connection, and not before the
            # create+cancel (so that nothing can connect in between).
            hold_advertising = index == cancel_after
            if not hold_advertising and index < len(plan) - 1:
                p_conn.once(
                    'disconnection',
                    lambda _reason: asyncio.ensure_future(periph.readvertise()),
                )

            # Short GATT exchange on every connection (handles cached after the 1st).
            client = c_conn.gatt_client
            await client.request_mtu(247)
            if name_handle is None:
                gap = (await Peer(c_conn).discover_service(uuid16(UUID_GAP)))[0]
                await gap.discover_characteristics()
                name_handle = gap.get_characteristics_by_uuid(uuid16(UUID_DEVICE_NAME))[0].handle
            name = await client.read_value(name_handle)

            if how == 'peer_0x13':
                await p_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
            elif how == 'timeout':
                await asyncio.sleep(0.72)  # = supervision timeout (72 x 10 ms) of silence
                simulate_supervision_timeout(central.controller, periph.controller)
            else:
                await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
            reason = await asyncio.wait_for(c_gone, 5)
            p_reason = await asyncio.wait_for(p_gone, 5)
            facts['connections'].append(dict(
                index=index + 1, handle=c_conn.handle, how=how, central_reason=f'0x{reason:02X}',
                peripheral_reason=f'0x{p_reason:02X}', name=name.decode(),
                seconds=round(time.monotonic() - t0, 3)))
            log.info('  connection %d (handle 0x%04X) ended: %s, central saw 0x%02X, peripheral saw 0x%02X',
                     index + 1, c_conn.handle, how, reason, p_reason)

            if hold_advertising:
                # LE Create Connection immediately, then cancel it right away.
                task = asyncio.ensure_future(central.device.connect(periph.address))
                while not central.device.is_le_connecting and not task.done():
                    await asyncio.sleep(0)
                await central.device.cancel_connection()
                done, _ = await asyncio.wait({task}, timeout=1.0)
                if done:
                    try:
                        task.result()
                        facts['cancel'] = 'connection completed despite cancel'
                    except core.ConnectionError as error:
                        facts['cancel'] = f'LE Connection Complete status 0x{error.error_code:02X}'
                    await periph.readvertise()
                else:
                    # Stock Bumble controller: no event after the cancel; the
                    # pending connection completes when the peer advertises again.
                    facts['cancel'] = 'no LE Connection Complete after cancel (stock controller)'
                    await periph.readvertise()
                    ghost = await task
                    gone = disconnection_future(ghost)
                    await ghost.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
                    await gone
                    await periph.readvertise()
                log.info('  create+cancel: %s', facts['cancel'])
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 5: indications_and_errors
# =============================================================================
async def scenario_indications_and_errors(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'indications_and_errors.central.btsnoop')
    periph = world.node(INDIC_PERIPH, out / 'indications_and_errors.peripheral.btsnoop')

    def secure_read(connection):
        # Core Vol 3 Part C 10.3.1: an unencrypted link to a peer without an
        # LTK is answered with Insufficient Authentication (0x05).  (Bumble's
        # READ_REQUIRES_ENCRYPTION flag would answer 0x0F, and its
        # READ_REQUIRES_AUTHENTICATION needs MITM, which Just Works never gives.)
        if not connection.is_encrypted:
            raise att.ATT_Error(att.ErrorCode.INSUFFICIENT_AUTHENTICATION)
        return b'secret:42'

    indicate = gatt.Characteristic(
        S5_INDICATE, gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.INDICATE,
        gatt.Characteristic.READABLE, b'\x00',
    )
    secure = gatt.Characteristic(
        S5_SECURE, gatt.Characteristic.Properties.READ, gatt.Characteristic.READABLE,
        gatt.CharacteristicValue(read=secure_read),
    )
    periph.device.add_service(gatt.Service(S5_SERVICE, [indicate, secure]))
    facts: dict = {}
    try:
        await world.power_on()
        await periph.advertise(make_adv_data(INDIC_PERIPH['name']), 100)
        c_conn, p_conn = await connect_pair(central, periph)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        facts['mtu'] = await peer.request_mtu(185)
        await peer.discover_services()
        for s in peer.services:
            await s.discover_characteristics()
        sc_char = peer.get_characteristics_by_uuid(gatt.GATT_SERVICE_CHANGED_CHARACTERISTIC)[0]
        ind_char = peer.get_characteristics_by_uuid(core.UUID(S5_INDICATE))[0]
        sec_char = peer.get_characteristics_by_uuid(core.UUID(S5_SECURE))[0]

        indications: list[tuple[int, bytes]] = []
        await client.subscribe(sc_char, lambda v: indications.append((sc_char.handle, bytes(v))))
        await client.subscribe(ind_char, lambda v: indications.append((ind_char.handle, bytes(v))))
        await asyncio.sleep(0.05)
        cccd = gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR
        facts['handles'] = dict(
            service_changed=sc_char.handle, service_changed_cccd=sc_char.get_descriptor(cccd).handle,
            indicate=ind_char.handle, indicate_cccd=ind_char.get_descriptor(cccd).handle,
            secure=sec_char.handle,
        )
        log.info('  handles: %s (ATT MTU %d)', facts['handles'], facts['mtu'])

        # Peripheral: Service Changed indication for the whole range, then 5
        # indications on the custom characteristic; each waits for the confirmation.
        await periph.device.indicate_subscribers(
            periph.device.gatt_service.service_changed_characteristic,
            value=struct.pack('<HH', 0x0001, 0xFFFF),
        )
        for i in range(5):
            await periph.device.indicate_subscribers(indicate, value=bytes([0xA0 + i]) + b'alarm')
        await asyncio.sleep(0.05)
        facts['indications'] = [(f'0x{h:04X}', v.hex()) for h, v in indications]

        # Errors: read of a handle that does not exist; Read By Type for a
        # characteristic UUID the server does not have.
        facts['read_missing_handle'] = await gatt_read_expect_error(client, 0x0FFF, 'missing handle')
        values = await client.read_characteristics_by_uuid(uuid16(UUID_TEMPERATURE), None)
        facts['read_by_type_missing'] = len(values)

        # Security: read -> 0x05, pair (LE SC Just Works), read again -> value.
        facts['secure_first_read'] = await gatt_read_expect_error(client, sec_char.handle, 'secure char')
        await c_conn.pair()
        await asyncio.sleep(0.05)
        facts['encrypted'] = c_conn.is_encrypted
        facts['sc'] = c_conn.sc
        facts['authenticated'] = c_conn.authenticated
        value = await client.read_value(sec_char.handle)
        facts['secure_second_read'] = value.decode()
        log.info('  after pairing: encrypted=%s sc=%s authenticated=%s, read -> %r',
                 c_conn.is_encrypted, c_conn.sc, c_conn.authenticated, value)

        await asyncio.sleep(0.2)
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 6: long_notify_stream
# =============================================================================
async def scenario_long_notify_stream(out: Path, args, rng: random.Random) -> dict:
    world = World(args)
    central = world.node(CENTRAL, out / 'long_notify_stream.central.btsnoop')
    periph = world.node(STREAM_PERIPH, out / 'long_notify_stream.peripheral.btsnoop')
    stream = gatt.Characteristic(
        S6_STREAM, gatt.Characteristic.Properties.NOTIFY, gatt.Characteristic.Permissions(0), b'',
    )
    periph.device.add_service(gatt.Service(S6_SERVICE, [stream]))
    count = args.stream_count
    duration = args.stream_seconds
    facts: dict = {}
    try:
        await world.power_on()
        await periph.advertise(make_adv_data(STREAM_PERIPH['name']), 100)
        c_conn, p_conn = await connect_pair(central, periph)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        facts['mtu'] = await peer.request_mtu(247)
        # Peripheral asks for a faster connection (L2CAP Connection Parameter
        # Update Request, 7.5-11.25 ms); the Bumble central accepts and issues
        # HCI LE Connection Update.
        await periph.device.update_connection_parameters(
            p_conn, 7.5, 11.25, 0, 4000, use_l2cap=True
        )
        service = (await peer.discover_service(core.UUID(S6_SERVICE)))[0]
        await service.discover_characteristics()
        char = service.characteristics[0]
        received_sizes: list[int] = []
        all_in = asyncio.get_running_loop().create_future()

        def on_value(value: bytes):
            received_sizes.append(len(value))
            if len(received_sizes) == count and not all_in.done():
                all_in.set_result(None)

        subscribed = asyncio.get_running_loop().create_future()
        stream.once('subscription', lambda *a: subscribed.done() or subscribed.set_result(None))
        await client.subscribe(char, on_value)
        await subscribed
        facts['handles'] = dict(
            stream=char.handle,
            stream_cccd=char.get_descriptor(gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR).handle,
        )
        log.info('  handles: %s (ATT MTU %d); sending %d notifications over %.0f s',
                 facts['handles'], facts['mtu'], count, duration)

        # Peripheral: notifications on a fixed schedule (absolute times, so
        # the total stays ~duration s).  Payload = 4-byte little-endian
        # sequence number + filler; sizes uniform in 20..244 (MTU 247 - 3).
        loop = asyncio.get_running_loop()
        t_start = loop.time()
        sizes = []
        for seq in range(count):
            size = rng.randint(20, 244)
            sizes.append(size)
            payload = struct.pack('<I', seq) + bytes((seq + k) & 0xFF for k in range(size - 4))
            await periph.device.notify_subscriber(p_conn, stream, value=payload)
            delay = t_start + (seq + 1) * duration / count - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
        await asyncio.wait_for(all_in, 10)
        facts['sent'] = count
        facts['received'] = len(received_sizes)
        facts['bytes'] = sum(sizes)
        facts['min_size'] = min(sizes)
        facts['max_size'] = max(sizes)
        facts['seconds'] = round(loop.time() - t_start, 2)
        log.info('  stream: %d sent, %d received, %d value bytes, %.1f s',
                 count, len(received_sizes), sum(sizes), facts['seconds'])
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 7: two_peripherals_concurrent
# =============================================================================
async def scenario_two_peripherals_concurrent(out: Path, args, rng: random.Random) -> dict:
    name = 'two_peripherals_concurrent'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / f'{name}.peripheral.btsnoop')
    env = build_env_peripheral(world, out / f'{name}.peripheral_b.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        await hr.advertise(hr.ad, 100)
        await env.advertise(env.ad, 100)

        # Peer A (heart rate): connect, MTU, discover by UUID, subscribe.
        a_conn, a_p = await connect_pair(central, hr)
        a_peer = Peer(a_conn)
        a_client = a_conn.gatt_client
        a_mtu = await a_peer.request_mtu(247)
        hrs = (await a_peer.discover_service(uuid16(UUID_HEART_RATE)))[0]
        await hrs.discover_characteristics()
        hrm = hrs.get_characteristics_by_uuid(uuid16(0x2A37))[0]
        bsl = hrs.get_characteristics_by_uuid(uuid16(0x2A38))[0]
        a_values: list[bytes] = []
        subscribed = subscription_future(hr.hrs.heart_rate_measurement_characteristic)
        await a_client.subscribe(hrm, lambda v: a_values.append(bytes(v)))
        await subscribed

        # Peer B (custom sensor) while A stays connected.
        b_conn, b_p = await connect_pair(central, env)
        b_peer = Peer(b_conn)
        b_client = b_conn.gatt_client
        b_mtu = await b_peer.request_mtu(247)
        svc = (await b_peer.discover_service(core.UUID(S7_SERVICE)))[0]
        await svc.discover_characteristics()
        level = svc.get_characteristics_by_uuid(core.UUID(S7_LEVEL))[0]
        mode = svc.get_characteristics_by_uuid(core.UUID(S7_CONTROL))[0]
        b_values: list[bytes] = []
        subscribed = subscription_future(env.level)
        await b_client.subscribe(level, lambda v: b_values.append(bytes(v)))
        await subscribed

        facts['a'] = dict(peer=HR_PERIPH['address'], central_handle=f'0x{a_conn.handle:04X}', mtu=a_mtu,
                          hrm=hrm.handle, hrm_cccd=cccd_handle(hrm), bsl=bsl.handle)
        facts['b'] = dict(peer=ENV_PERIPH['address'], central_handle=f'0x{b_conn.handle:04X}', mtu=b_mtu,
                          level=level.handle, level_cccd=cccd_handle(level), mode=mode.handle)
        log.info('  A %s  B %s', facts['a'], facts['b'])

        # Both peers notify on their handle 0x0010, interleaved (A at 0, 250,
        # 500 ms ..., B 125 ms later each time); meanwhile the central reads and
        # writes on both links, with requests outstanding on both at once.
        count = 10
        sent_a, sent_b = [], []

        async def notify_a():
            for _ in range(count):
                hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
                sent_a.append(hr.hr_state['bpm'])
                await hr.device.notify_subscriber(
                    a_p, hr.hrs.heart_rate_measurement_characteristic, value=hr.measurement())
                await asyncio.sleep(0.25)

        async def notify_b():
            await asyncio.sleep(0.125)
            for _ in range(count):
                env.env_state['centi_degc'] += rng.randint(-6, 6)
                sent_b.append(env.env_state['centi_degc'])
                await env.device.notify_subscriber(
                    b_p, env.level, value=struct.pack('<h', env.env_state['centi_degc']))
                await asyncio.sleep(0.25)

        ops = []

        async def central_ops():
            await asyncio.sleep(0.6)
            loc, lvl = await asyncio.gather(a_client.read_value(bsl), b_client.read_value(level))
            ops.append(('read A bsl + read B level together', loc.hex(), lvl.hex()))
            await asyncio.sleep(0.7)
            _, loc = await asyncio.gather(
                b_client.write_value(mode, b'\x02', with_response=True), a_client.read_value(bsl))
            ops.append(('write B mode 02 + read A bsl together', loc.hex()))
            await asyncio.sleep(0.6)
            ops.append(('read B mode', (await b_client.read_value(mode)).hex()))

        await asyncio.gather(notify_a(), notify_b(), central_ops())
        await asyncio.sleep(0.1)
        facts['ops'] = ops
        facts['a_notifications'] = [v.hex() for v in a_values]
        facts['b_notifications'] = [v.hex() for v in b_values]
        facts['bpm'] = sent_a
        facts['centi_degc'] = sent_b

        # B goes first, then A.
        for c_conn, p_conn in ((b_conn, b_p), (a_conn, a_p)):
            gone = disconnection_future(p_conn)
            await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
            await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 8: cached_reconnect
# =============================================================================
async def scenario_cached_reconnect(out: Path, args, rng: random.Random) -> dict:
    name = 'cached_reconnect'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / f'{name}.peripheral.btsnoop', control_point=True)
    hrm_server = hr.hrs.heart_rate_measurement_characteristic
    facts: dict = {}

    async def notify(p_conn, n, sink, spacing=1.0):
        """n measurements at 1 Hz; waits (<= 2 s) until the central has them."""
        start = len(sink)
        sent = []
        for i in range(n):
            hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
            sent.append(hr.hr_state['bpm'])
            await hr.device.notify_subscriber(p_conn, hrm_server, value=hr.measurement())
            if i < n - 1:
                await asyncio.sleep(spacing)
        for _ in range(200):
            if len(sink) - start >= n:
                break
            await asyncio.sleep(0.01)
        return sent

    try:
        await world.power_on()
        await hr.advertise(hr.ad, 100)
        await scan_until(central, lambda adv: ad_has_uuid16(adv.data_bytes, UUID_HEART_RATE))

        # --- connection 1: everything discovered, then subscribe -------------
        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        mtu1 = await peer.request_mtu(185)
        await peer.discover_all()
        facts['gatt'] = gatt_layout(peer)
        hrm = peer.get_characteristics_by_uuid(uuid16(0x2A37))[0]
        bsl = peer.get_characteristics_by_uuid(uuid16(0x2A38))[0]
        hrcp = peer.get_characteristics_by_uuid(uuid16(0x2A39))[0]
        handles = dict(hrm=hrm.handle, hrm_cccd=cccd_handle(hrm), bsl=bsl.handle, hrcp=hrcp.handle)
        facts['handles'] = handles
        log.info('  handles from connection 1: %s', handles)
        first: list[bytes] = []
        subscribed = subscription_future(hrm_server)
        await client.subscribe(hrm, lambda v: first.append(bytes(v)))
        await subscribed
        facts['bpm_1'] = await notify(p_conn, 4, first)
        facts['bsl_1'] = (await client.read_value(bsl)).hex()
        p_conn.once('disconnection', lambda _r: asyncio.ensure_future(hr.readvertise()))
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)

        await asyncio.sleep(2.0)  # the app comes back later

        # --- connection 2: cached handles, no discovery at all ---------------
        c_conn, p_conn = await connect_pair(central, hr)
        client = c_conn.gatt_client  # a fresh client: it knows no services
        mtu2 = await client.request_mtu(185)
        facts['bsl_2'] = (await client.read_value(handles['bsl'])).hex()
        await client.write_value(handles['hrcp'], b'\x01', with_response=True)  # reset energy expended
        second: list[bytes] = []
        client.notification_subscribers.setdefault(handles['hrm'], set()).add(
            lambda v: second.append(bytes(v)))
        subscribed = subscription_future(hrm_server)
        await client.write_value(handles['hrm_cccd'], b'\x01\x00', with_response=True)
        await subscribed
        facts['bpm_2'] = await notify(p_conn, 4, second)
        facts['mtu'] = [mtu1, mtu2]
        facts['energy_resets'] = hr.hr_state['energy_resets']
        facts['notifications'] = [[v.hex() for v in first], [v.hex() for v in second]]
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 9: hr_short_notification
# =============================================================================
async def scenario_hr_short_notification(out: Path, args, rng: random.Random) -> dict:
    name = 'hr_short_notification'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / f'{name}.peripheral.btsnoop')
    hrm_server = hr.hrs.heart_rate_measurement_characteristic
    facts: dict = {}
    try:
        await world.power_on()
        await hr.advertise(hr.ad, 100)
        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        facts['mtu'] = await peer.request_mtu(247)
        hrs = (await peer.discover_service(uuid16(UUID_HEART_RATE)))[0]
        await hrs.discover_characteristics()
        hrm = hrs.get_characteristics_by_uuid(uuid16(0x2A37))[0]
        bsl = hrs.get_characteristics_by_uuid(uuid16(0x2A38))[0]
        received: list[bytes] = []
        subscribed = subscription_future(hrm_server)
        await client.subscribe(hrm, lambda v: received.append(bytes(v)))
        await subscribed
        facts['handles'] = dict(hrm=hrm.handle, hrm_cccd=cccd_handle(hrm), bsl=bsl.handle)

        # 12 measurements at 1 Hz.  Bumble's encoder writes flags 0x16 (UINT8
        # value, contact supported+detected, RR present) + bpm + one RR.  The
        # 5th is the lone flags byte 0x01 (UINT16 format announced, no value),
        # the 9th is 0x01 + a single value byte (UINT16 announced, 1 byte).
        sent = []
        for i in range(1, 13):
            hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
            if i == 5:
                value = b'\x01'
            elif i == 9:
                value = b'\x01' + bytes([hr.hr_state['bpm']])
            else:
                value = bytes(hr.measurement())
            sent.append(value.hex())
            await hr.device.notify_subscriber(p_conn, hrm_server, value=value)
            if i < 12:
                await asyncio.sleep(1.0)
        for _ in range(200):
            if len(received) >= 12:
                break
            await asyncio.sleep(0.01)
        facts['sent'] = sent
        facts['received'] = [v.hex() for v in received]
        facts['bsl'] = (await client.read_value(bsl)).hex()
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Scenario 10: scan_before_init
# =============================================================================
async def scenario_scan_before_init(out: Path, args, rng: random.Random) -> dict:
    name = 'scan_before_init'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / f'{name}.peripheral.btsnoop')
    thermo = build_decoy(world, THERMO, uuids16=(UUID_HEALTH_THERMOMETER,), appearance=0x0300)
    hrm_server = hr.hrs.heart_rate_measurement_characteristic
    facts: dict = {}
    try:
        # The app "starts scanning" before the adapter is up: the very first
        # HCI packet from the central's host is LE Set Extended Scan Enable,
        # before HCI Reset and before any other initialisation command.
        # Bumble's Host drops (and does not snoop) everything the controller
        # sends until its own Reset has completed; a real HCI snoop log would
        # show the answer, so the host is marked ready for this one command.
        # power_on() below then resets it as usual.
        central.host.ready = True
        response = await central.host.send_command(
            hci.HCI_LE_Set_Extended_Scan_Enable_Command(
                enable=1, filter_duplicates=0, duration=0, period=0
            )
        )
        status = response.return_parameters.status
        facts['early_scan_enable_status'] = f'0x{status:02X} {hci.HCI_Constant.error_name(status)}'
        log.info('  LE Set Extended Scan Enable before Reset -> %s', facts['early_scan_enable_status'])

        await world.power_on()
        # Then a normal, host-filtered scan: the decoy (no 0x180D) is on air
        # first, the heart-rate sensor starts advertising 300 ms into the scan.
        await thermo.advertise(thermo.ad, 150)
        seen = collections.Counter()
        central.device.on('advertisement', lambda adv: seen.update([str(adv.address)]))
        scan = asyncio.ensure_future(
            scan_until(central, lambda adv: ad_has_uuid16(adv.data_bytes, UUID_HEART_RATE)))
        await asyncio.sleep(0.3)
        await hr.advertise(hr.ad, 100)
        adv = await scan
        facts['matched'] = str(adv.address)
        facts['reports_seen'] = dict(seen)
        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        facts['mtu'] = await peer.request_mtu(247)
        hrs = (await peer.discover_service(uuid16(UUID_HEART_RATE)))[0]
        await hrs.discover_characteristics()
        hrm = hrs.get_characteristics_by_uuid(uuid16(0x2A37))[0]
        bsl = hrs.get_characteristics_by_uuid(uuid16(0x2A38))[0]
        received: list[bytes] = []
        subscribed = subscription_future(hrm_server)
        await client.subscribe(hrm, lambda v: received.append(bytes(v)))
        await subscribed
        for i in range(3):
            hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
            await hr.device.notify_subscriber(p_conn, hrm_server, value=hr.measurement())
            if i < 2:
                await asyncio.sleep(1.0)
        await asyncio.sleep(0.05)
        facts['notifications'] = [v.hex() for v in received]
        facts['bsl'] = (await client.read_value(bsl)).hex()
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        await asyncio.wait_for(gone, 5)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# Provoked failures (captures/bumble-failures/, README section "Provoked failures")
# =============================================================================
def build_faulty_peripheral(world: World, snoop: Path | None, refuse_pairing: bool = False):
    """A peripheral whose one service S11 (0x000E-0x0012) has two readable
    characteristics that misbehave:

    …3CB1 decl 0x000F, value 0x0010 (Read): every read is refused with ATT
    Error Response 0x0E Unlikely Error (raised by the read callback, as a
    server does whose sensor is not ready);
    …3CB2 decl 0x0011, value 0x0012 (Read): a read is never answered (the
    read callback awaits a future nobody resolves, so Bumble's server never
    sends the response).

    With ``refuse_pairing`` the peripheral's pairing delegate refuses every
    Pairing Request; Bumble then sends SMP Pairing Failed 0x05 (Pairing Not
    Supported)."""
    node = world.node(FAULTY_PERIPH, snoop)
    stalled_reads: list = []

    def refused_read(_connection):
        raise att.ATT_Error(att.ErrorCode.UNLIKELY_ERROR)

    async def stalled_read(_connection):
        never = asyncio.get_running_loop().create_future()
        stalled_reads.append(never)
        return await never

    refused = gatt.Characteristic(
        S11_REFUSED, gatt.Characteristic.Properties.READ, gatt.Characteristic.READABLE,
        gatt.CharacteristicValue(read=refused_read),
    )
    stalled = gatt.Characteristic(
        S11_STALLED, gatt.Characteristic.Properties.READ, gatt.Characteristic.READABLE,
        gatt.CharacteristicValue(read=stalled_read),
    )
    node.device.add_service(gatt.Service(S11_SERVICE, [refused, stalled]))
    node.stalled_reads = stalled_reads
    node.ad = make_adv_data(FAULTY_PERIPH['name'], appearance=0x0540)  # Generic Sensor

    if refuse_pairing:
        class RefusingDelegate(PairingDelegate):
            async def accept(self) -> bool:
                return False

        node.device.pairing_config_factory = lambda connection: PairingConfig(
            sc=True, mitm=False, bonding=True,
            delegate=RefusingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT),
        )
    return node


async def faulty_connect(central: Node, periph: Node, mtu: int = 247):
    """Advertise, connect, exchange MTU, discover S11; returns
    (central connection, peripheral connection, client, refused handle, stalled handle)."""
    await periph.advertise(periph.ad, 100)
    c_conn, p_conn = await connect_pair(central, periph)
    peer = Peer(c_conn)
    await peer.request_mtu(mtu)
    service = (await peer.discover_service(core.UUID(S11_SERVICE)))[0]
    await service.discover_characteristics()
    refused = service.get_characteristics_by_uuid(core.UUID(S11_REFUSED))[0].handle
    stalled = service.get_characteristics_by_uuid(core.UUID(S11_STALLED))[0].handle
    return c_conn, p_conn, c_conn.gatt_client, refused, stalled


async def scenario_pairing_refused(out: Path, args, rng: random.Random) -> dict:
    """The central pairs (LE SC Just Works); the peripheral's host refuses the
    Pairing Request (SMP Pairing Failed 0x05); the central's app gives up and
    disconnects 1 s later."""
    name = 'pairing_refused'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop', refuse_pairing=True)
    facts: dict = {}
    try:
        await world.power_on()
        c_conn, p_conn, _client, _, _ = await faulty_connect(central, periph)
        try:
            await c_conn.pair()
            facts['pairing'] = 'succeeded'
        except core.ProtocolError as error:
            facts['pairing'] = f'failed: {error.error_name} (0x{error.error_code:02X})'
        log.info('  pairing: %s', facts['pairing'])
        await asyncio.sleep(1.0)
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        facts['peripheral_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_security_request_ignored(out: Path, args, rng: random.Random) -> dict:
    """The peripheral sends an SMP Security Request; the central's host (Bumble
    does not pair on a Security Request unless the app does) ignores it; the
    peripheral waits 3 s and disconnects with 0x13."""
    name = 'security_request_ignored'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        c_conn, p_conn, _client, _, _ = await faulty_connect(central, periph)
        requests = []
        c_conn.on('security_request', lambda auth_req: requests.append(int(auth_req)))
        p_conn.request_pairing()
        await asyncio.sleep(3.0)
        facts['security_requests_seen_by_central'] = [f'0x{a:02X}' for a in requests]
        facts['encrypted'] = c_conn.is_encrypted
        gone = disconnection_future(c_conn)
        await p_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        facts['central_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_gatt_read_refused(out: Path, args, rng: random.Random) -> dict:
    """The central reads 0x0010; the server answers Error Response 0x0E; the
    app disconnects 300 ms later."""
    name = 'gatt_read_refused'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        c_conn, p_conn, client, refused, _ = await faulty_connect(central, periph)
        facts['read_error'] = await gatt_read_expect_error(client, refused, 'refused char')
        await asyncio.sleep(0.3)
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        facts['peripheral_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_att_timeout(out: Path, args, rng: random.Random) -> dict:
    """The central reads 0x0012; the server never answers.  Bumble's GATT
    client gives up after its own 30 s request timeout (GATT_REQUEST_TIMEOUT,
    the ATT transaction timeout of Core Vol 3 Part F 3.3.3) -- real wall
    time, so this scenario takes ~31 s -- and the app disconnects."""
    name = 'att_timeout'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        c_conn, p_conn, client, _, stalled = await faulty_connect(central, periph)
        t0 = time.monotonic()
        try:
            await client.read_value(stalled, no_long_read=True)
            facts['read'] = 'answered'
        except core.TimeoutError as error:
            facts['read'] = f'timeout after {time.monotonic() - t0:.1f} s: {error}'
        log.info('  stalled read: %s', facts['read'])
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        facts['peripheral_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_peripheral_power_off(out: Path, args, rng: random.Random) -> dict:
    """After a read, the peripheral's host terminates the link with 0x15
    (Remote Device Terminated Connection due to Power Off), as a device
    about to switch off does."""
    name = 'peripheral_power_off'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        c_conn, p_conn, client, _, _ = await faulty_connect(central, periph)
        facts['name'] = (await client.read_value(0x0003)).decode()
        await asyncio.sleep(0.5)
        gone = disconnection_future(c_conn)
        await p_conn.disconnect(hci.HCI_ErrorCode.REMOTE_DEVICE_TERMINATED_CONNECTION_DUE_TO_POWER_OFF_ERROR)
        facts['central_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_link_lost(out: Path, args, rng: random.Random) -> dict:
    """Heart-rate notifications at 4 Hz, then the radio link stops carrying
    anything (LatencyLink.sever); the central's next read goes unanswered,
    and 720 ms (the supervision timeout) after the last packet the harness
    makes both controllers report Disconnection Complete 0x08."""
    name = 'link_lost'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    hr = build_heart_rate_peripheral(world, out / f'{name}.peripheral.btsnoop')
    hrm_server = hr.hrs.heart_rate_measurement_characteristic
    facts: dict = {}
    try:
        await world.power_on()
        await hr.advertise(hr.ad, 100)
        c_conn, p_conn = await connect_pair(central, hr)
        peer = Peer(c_conn)
        client = c_conn.gatt_client
        await peer.request_mtu(247)
        hrs = (await peer.discover_service(uuid16(UUID_HEART_RATE)))[0]
        await hrs.discover_characteristics()
        hrm = hrs.get_characteristics_by_uuid(uuid16(0x2A37))[0]
        bsl = hrs.get_characteristics_by_uuid(uuid16(0x2A38))[0]
        received: list[bytes] = []
        subscribed = subscription_future(hrm_server)
        await client.subscribe(hrm, lambda v: received.append(bytes(v)))
        await subscribed
        for _ in range(4):
            hr.hr_state['bpm'] = max(55, min(160, hr.hr_state['bpm'] + rng.randint(-2, 3)))
            await hr.device.notify_subscriber(p_conn, hrm_server, value=hr.measurement())
            await asyncio.sleep(0.25)
        world.link.sever(central.controller, hr.controller)
        # Both hosts carry on: one more notification, and a read, both lost.
        await hr.device.notify_subscriber(p_conn, hrm_server, value=hr.measurement())
        c_gone = disconnection_future(c_conn)
        p_gone = disconnection_future(p_conn)
        read = asyncio.ensure_future(client.read_value(bsl))
        await asyncio.sleep(0.72)
        simulate_supervision_timeout(central.controller, hr.controller)
        facts['central_reason'] = f'0x{await asyncio.wait_for(c_gone, 5):02X}'
        facts['peripheral_reason'] = f'0x{await asyncio.wait_for(p_gone, 5):02X}'
        done, _ = await asyncio.wait({read}, timeout=1.0)
        if not done:
            facts['read'] = 'still pending'
        elif read.cancelled():
            facts['read'] = 'cancelled by the disconnection'
        else:
            facts['read'] = repr(read.exception()) if read.exception() else read.result().hex()
        facts['notifications_received'] = len(received)
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


async def scenario_connect_cancelled(out: Path, args, rng: random.Random) -> dict:
    """The central connects to the peripheral while it is not advertising;
    after 2 s the app cancels (LE Create Connection Cancel -> LE Connection
    Complete 0x02).  The peripheral then starts advertising and a second
    attempt connects; the central reads the Device Name and disconnects."""
    name = 'connect_cancelled'
    world = World(args)
    central = world.node(CENTRAL, out / f'{name}.central.btsnoop')
    periph = build_faulty_peripheral(world, out / f'{name}.peripheral.btsnoop')
    facts: dict = {}
    try:
        await world.power_on()
        task = asyncio.ensure_future(central.device.connect(periph.address))
        while not central.device.is_le_connecting and not task.done():
            await asyncio.sleep(0)
        await asyncio.sleep(2.0)
        await central.device.cancel_connection()
        done, _ = await asyncio.wait({task}, timeout=1.0)
        if not done:
            raise RuntimeError('no LE Connection Complete after the cancel (stock controller?)')
        try:
            task.result()
            facts['first_attempt'] = 'connected despite cancel'
        except core.ConnectionError as error:
            facts['first_attempt'] = f'LE Connection Complete status 0x{error.error_code:02X}'
        log.info('  first attempt: %s', facts['first_attempt'])
        await periph.advertise(periph.ad, 100)
        c_conn, p_conn = await connect_pair(central, periph)
        facts['name'] = (await c_conn.gatt_client.read_value(0x0003)).decode()
        gone = disconnection_future(p_conn)
        await c_conn.disconnect(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        facts['peripheral_reason'] = f'0x{await asyncio.wait_for(gone, 5):02X}'
        await asyncio.sleep(0.05)
    finally:
        world.close()
    return facts


# =============================================================================
# main
# =============================================================================
RUNNERS = {
    'clean_heart_rate': scenario_clean_heart_rate,
    'nil_scan_all_services': scenario_nil_scan_all_services,
    'oversized_and_unchecked_writes': scenario_oversized_and_unchecked_writes,
    'reconnect_storm': scenario_reconnect_storm,
    'indications_and_errors': scenario_indications_and_errors,
    'long_notify_stream': scenario_long_notify_stream,
    'two_peripherals_concurrent': scenario_two_peripherals_concurrent,
    'cached_reconnect': scenario_cached_reconnect,
    'hr_short_notification': scenario_hr_short_notification,
    'scan_before_init': scenario_scan_before_init,
    'pairing_refused': scenario_pairing_refused,
    'security_request_ignored': scenario_security_request_ignored,
    'gatt_read_refused': scenario_gatt_read_refused,
    'att_timeout': scenario_att_timeout,
    'peripheral_power_off': scenario_peripheral_power_off,
    'link_lost': scenario_link_lost,
    'connect_cancelled': scenario_connect_cancelled,
}


async def run_all(args, scenarios=None, runners=None, results: dict | None = None) -> int:
    """Run the selected scenarios; other generators may pass their own
    scenario list and runners, and a dict that collects each one's facts."""
    default = scenarios is None
    scenarios = scenarios or SCENARIOS
    runners = runners or RUNNERS
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    selected = args.only.split(',') if args.only else scenarios
    if default:
        # The provoked failures run only when asked for (--only or --failures).
        scenarios = SCENARIOS + FAILURE_SCENARIOS
        if getattr(args, 'failures', False):
            selected = FAILURE_SCENARIOS
    failures = 0
    for index, name in enumerate(scenarios):
        if name not in selected:
            continue
        # Each scenario gets its own RNG stream, so --only gives the same payloads.
        rng = random.Random(f'{args.seed}:{name}')
        log.info('[%d] %s', index + 1, name)
        started = time.monotonic()
        try:
            facts = await runners[name](out, args, rng)
        except Exception:
            log.exception('scenario %s FAILED', name)
            failures += 1
            continue
        log.info('  done in %.1f s; facts: %s', time.monotonic() - started,
                 json.dumps(facts, default=str))
        if results is not None:
            results[name] = facts
        for path in sorted(out.glob(f'{name}.*.btsnoop')):
            log.info('  wrote %s (%d bytes)', path, path.stat().st_size)
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('outdir', help='directory for the .btsnoop files')
    parser.add_argument('--seed', type=int, default=1, help='seed for payload contents (default 1)')
    parser.add_argument('--only', help='comma-separated subset of: '
                        + ','.join(SCENARIOS + FAILURE_SCENARIOS))
    parser.add_argument('--failures', action='store_true',
                        help='run the provoked-failure sessions only (for captures/bumble-failures): '
                             + ','.join(FAILURE_SCENARIOS))
    parser.add_argument('--link-latency-ms', type=float, default=7.5,
                        help='one-way delay of the virtual link for connection traffic '
                             '(default 7.5 ms; 0 = stock Bumble LocalLink timing)')
    parser.add_argument('--stock-controller', action='store_true',
                        help="use Bumble's virtual controller unmodified (see RealisticController)")
    parser.add_argument('--stream-count', type=int, default=5040,
                        help='notifications in long_notify_stream (default 5040)')
    parser.add_argument('--stream-seconds', type=float, default=60.0,
                        help='duration of long_notify_stream (default 60 s)')
    parser.add_argument('-v', '--verbose', action='store_true', help='debug logging (very chatty)')
    args = parser.parse_args()
    if args.only:
        unknown = set(args.only.split(',')) - set(SCENARIOS + FAILURE_SCENARIOS)
        if unknown:
            parser.error(f'unknown scenario(s): {", ".join(sorted(unknown))}')
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format='%(levelname)s %(name)s: %(message)s',
    )
    log.setLevel(logging.DEBUG if args.verbose else logging.INFO)
    sys.exit(1 if asyncio.run(run_all(args)) else 0)


if __name__ == '__main__':
    main()
