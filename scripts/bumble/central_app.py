#!/usr/bin/env python3
"""A small Bumble GATT central: an ordinary host application, nothing in it knows blecap.

It opens an HCI transport by Bumble's name for it (e.g. tcp-client:127.0.0.1:9000), scans
for a peripheral by name or address, connects, exchanges MTU, discovers every service,
characteristic and descriptor, reads every readable characteristic, subscribes to every one
that notifies or indicates, collects what arrives for a while, disconnects, and prints what
it observed as one JSON document on standard output: {"sessions": [...]}, one entry per
connection. --address/--name, --mtu, --duration, --count and --security may be repeated for
one session after another (the last value repeats). --security pair pairs right after
connecting (Bumble's pair(): Just Works, bonding) and then encrypts again with the key the
peer distributed; --security encrypt encrypts with a key from an earlier session's pairing.
--scan-only SECONDS only scans and prints what each advertiser showed (its event types as
Bumble decoded them, whether a scan response came), then tries the --try-connect addresses.

    python3 central_app.py --transport tcp-client:127.0.0.1:9000 --address D8:0D:18:00:00:01 \
        --mtu 247 --duration 12

Requires Bumble (pip install bumble==0.0.236).
"""

import argparse
import asyncio
import json
import sys

from bumble.core import AdvertisingData
from bumble.device import Device, Peer
from bumble.hci import Address
from bumble.transport import open_transport

READ, NOTIFY, INDICATE = 0x02, 0x10, 0x20


def uuid_text(u):
    return u.to_hex_str().upper()


def nth(values, i):
    return values[min(i, len(values) - 1)] if values else None


async def scan_only(device, args):
    """--scan-only: what the scan shows of each advertiser (the event type properties Bumble
    decoded from its reports, whether a scan response came), then --try-connect attempts."""
    seen = {}

    def on_advertisement(adv):
        # Bumble merges a scan response into the advertisement it answers (connectable as
        # that one was, scannable).
        a = seen.setdefault(str(adv.address).split("/")[0].upper(), {"kinds": set(), "scan_response": False})
        a["scan_response"] |= bool(adv.is_scan_response)
        a["kinds"].add((adv.is_legacy, adv.is_connectable, adv.is_scannable, adv.is_directed))
    device.on("advertisement", on_advertisement)
    await device.start_scanning(active=True, legacy=args.legacy_scan)
    await asyncio.sleep(args.scan_only)
    await device.stop_scanning()
    device.remove_listener("advertisement", on_advertisement)
    out = {"advertisers": {a: {"kinds": sorted([list(k) for k in v["kinds"]]), "scan_response": v["scan_response"]}
                           for a, v in sorted(seen.items())}, "connections": {}}
    for target in args.try_connect:
        address, _, kind = target.partition("/")
        try:
            connection = await device.connect(Address(address, Address.RANDOM_DEVICE_ADDRESS if kind == "random"
                                                      else Address.PUBLIC_DEVICE_ADDRESS),
                                              timeout=args.connect_timeout)
            out["connections"][address] = "connected"
            await connection.disconnect()
        except Exception as error:  # a connection that never comes up is the observation
            out["connections"][address] = f"{type(error).__name__}"
    return out


async def run(args):
    sessions = []
    async with await open_transport(args.transport) as (source, sink):
        device = Device.with_hci("central-app", Address("F0:F1:F2:F3:F4:F5"), source, sink)
        await device.power_on()
        if args.scan_only:
            return await scan_only(device, args)
        targets = [("address", a) for a in args.address] + [("name", n) for n in args.name]
        for i, target in enumerate(targets):
            observations = {"target": target[1], "scanned": False, "connected": False}
            sessions.append(observations)
            try:
                await session(device, target, nth(args.mtu, i) or 247, nth(args.duration, i) or 10.0,
                              nth(args.count, i) or 0, args, observations, nth(args.security, i) or "none")
            except (Exception, asyncio.CancelledError) as error:
                # The peer may end the link mid-session (as it did in the capture).
                observations["error"] = f"{type(error).__name__}: {error}"
    return {"sessions": sessions}


async def secure(device, connection, security, observations):
    """Pairs and/or encrypts as asked; records what happened (an error is an observation)."""
    if security == "pair":
        try:
            await asyncio.wait_for(connection.pair(), 15)
            observations["paired"] = True
        except Exception as error:
            observations["paired"] = f"{type(error).__name__}: {error}"
        observations["encrypted_after_pairing"] = bool(connection.is_encrypted)
    if security in ("pair", "encrypt"):
        # With the LTK, EDIV and Rand the peer distributed (Bumble's key store): on an
        # encrypted link a key refresh, on a new one an encryption start.
        # Bumble's encrypt() waits for Encryption Change, which an encrypted link does not get
        # (Core Vol 4 Part E 7.8.24: Encryption Key Refresh Complete instead): either ends it.
        refreshed = asyncio.get_running_loop().create_future()

        def on_refresh():
            if not refreshed.done():
                refreshed.set_result("key refresh")
        connection.on("connection_encryption_key_refresh", on_refresh)
        encrypting = asyncio.ensure_future(connection.encrypt())
        done, _ = await asyncio.wait([encrypting, refreshed], timeout=15, return_when=asyncio.FIRST_COMPLETED)
        connection.remove_listener("connection_encryption_key_refresh", on_refresh)
        if refreshed in done:
            encrypting.cancel()
            observations["encrypted_with_ltk"] = "key refresh"
        elif encrypting in done and encrypting.exception() is None:
            observations["encrypted_with_ltk"] = "encryption change" if connection.is_encrypted else False
        else:
            error = encrypting.exception() if encrypting in done else "timeout"
            encrypting.cancel()
            observations["encrypted_with_ltk"] = f"failed: {error!r}"


async def session(device, target, mtu, duration, count, args, observations, security="none"):
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(adv):
        name = adv.data.get(AdvertisingData.COMPLETE_LOCAL_NAME) or adv.data.get(
            AdvertisingData.SHORTENED_LOCAL_NAME)
        if isinstance(name, bytes):
            name = name.decode(errors="replace")
        kind, wanted = target
        matches = (str(adv.address).split("/")[0].upper() == wanted.upper()) if kind == "address" else name == wanted
        if matches and not found.done():
            found.set_result((adv, name))

    device.on("advertisement", on_advertisement)
    await device.start_scanning(active=True)
    try:
        adv, name = await asyncio.wait_for(found, args.scan_timeout)
    finally:
        device.remove_listener("advertisement", on_advertisement)
        await device.stop_scanning()
    observations.update(scanned=True, address=str(adv.address).split("/")[0], name=name, rssi=adv.rssi)

    connection = await device.connect(adv.address, timeout=args.connect_timeout)
    observations["connected"] = True
    disconnected = asyncio.get_running_loop().create_future()

    def on_disconnection(reason):
        observations["disconnected_by_peer"] = reason
        if not disconnected.done():
            disconnected.set_result(reason)

    connection.on("disconnection", on_disconnection)
    await secure(device, connection, security, observations)
    peer = Peer(connection)
    observations["mtu"] = await peer.request_mtu(mtu)

    await peer.discover_services()
    services = []
    for service in peer.services:
        await peer.discover_characteristics(service=service)
        characteristics = []
        for c in service.characteristics:
            await peer.discover_descriptors(characteristic=c)
            characteristics.append({
                "uuid": uuid_text(c.uuid), "value_handle": c.handle, "properties": int(c.properties),
                "descriptors": [{"uuid": uuid_text(d.type), "handle": d.handle} for d in c.descriptors],
            })
        services.append({"uuid": uuid_text(service.uuid), "start_handle": service.handle,
                         "end_handle": service.end_group_handle, "characteristics": characteristics})
    observations["services"] = services

    reads = {}
    for service in peer.services:
        for c in service.characteristics:
            if int(c.properties) & READ:
                try:
                    reads[str(c.handle)] = bytes(await peer.read_value(c)).hex()
                except Exception as error:  # an ATT error answer is an observation too
                    reads[str(c.handle)] = {"error": getattr(error, "error_code", str(error))}
    observations["reads"] = reads

    notifications = []
    enough = asyncio.Event()

    def collector(handle):
        def on_value(value):
            notifications.append({"handle": handle, "value": bytes(value).hex()})
            if count and len(notifications) >= count:
                enough.set()
        return on_value

    for service in peer.services:
        for c in service.characteristics:
            if int(c.properties) & (NOTIFY | INDICATE):
                try:
                    await peer.subscribe(c, collector(c.handle), prefer_notify=True)
                except Exception as error:
                    observations.setdefault("subscribe_errors", {})[str(c.handle)] = str(error)
    waiters = [asyncio.ensure_future(enough.wait()), disconnected]
    await asyncio.wait(waiters, timeout=duration, return_when=asyncio.FIRST_COMPLETED)
    observations["notifications"] = notifications
    if not disconnected.done():
        connection.remove_listener("disconnection", on_disconnection)
        await connection.disconnect()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", required=True, help="Bumble transport name, e.g. tcp-client:127.0.0.1:9000")
    parser.add_argument("--address", action="append", default=[], help="peripheral address to connect to")
    parser.add_argument("--name", action="append", default=[], help="peripheral local name to connect to")
    parser.add_argument("--mtu", type=int, action="append", default=[], help="MTU to request (default 247)")
    parser.add_argument("--duration", type=float, action="append", default=[],
                        help="seconds to collect notifications (default 10)")
    parser.add_argument("--count", type=int, action="append", default=[],
                        help="stop collecting after this many notifications")
    parser.add_argument("--security", action="append", default=[], choices=["none", "pair", "encrypt"],
                        help="pair (then encrypt with the distributed key), encrypt (with a stored key) or none")
    parser.add_argument("--scan-timeout", type=float, default=10.0)
    parser.add_argument("--connect-timeout", type=float, default=10.0)
    parser.add_argument("--scan-only", type=float, default=0,
                        help="scan this many seconds and print what each advertiser showed; no session")
    parser.add_argument("--legacy-scan", action="store_true", help="--scan-only: legacy scanning")
    parser.add_argument("--try-connect", action="append", default=[],
                        help="--scan-only: then try to connect to ADDRESS[/random] (the outcome is printed)")
    args = parser.parse_args()
    if not args.address and not args.name and not args.scan_only:
        parser.error("give --address or --name (or --scan-only)")
    try:
        observations = asyncio.run(run(args))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
    print(json.dumps(observations))


if __name__ == "__main__":
    main()
