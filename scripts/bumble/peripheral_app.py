#!/usr/bin/env python3
"""A small Bumble GATT peripheral: an ordinary host application, nothing in it knows blecap.

It opens an HCI transport by Bumble's name for it, serves a GATT database given as JSON
(services with their characteristics: UUID, properties, value; descriptors other than the
Client Characteristic Configuration, which Bumble adds itself), advertises, and logs every
operation a central makes on it — reads, writes, subscriptions, in order — until the central
disconnects (or --duration runs out); then prints its log as one JSON document.

    python3 peripheral_app.py --transport tcp-client:127.0.0.1:9000 --database db.json

db.json: {"services": [{"uuid": "180D", "characteristics": [{"uuid": "2A38", "properties": 2,
"value": "01", "descriptors": [{"uuid": "2901", "value": "..."}]}]}]}

A characteristic may say "read_error_unencrypted": an ATT error code (e.g. 5, Insufficient
Authentication) its reads are answered with until the link is encrypted, as a peripheral whose
value needs pairing does. --pairing-response HEX (the six feature octets of a Pairing Response:
IO capability, OOB flag, AuthReq, key size, initiator and responder key distribution) makes the
app accept pairing with those features (Just Works with NoInputNoOutput); without it Bumble's
defaults answer.

A characteristic may also list "notifications": values (hex, or {"value": hex, "delay": seconds
after the previous one}; or one such list per connection) the app notifies (or indicates, when
the subscription asked for indications) once a central subscribes, --interval apart unless
given, as a sensor would. --connections N serves N connections one after another, advertising again after
each; the log then has one entry per connection.

A characteristic's "write_error" (an ATT error code) refuses every Write Request to it with that
error, as a server whose value may not be written does. The database's "ends" (one entry per
connection, null or {"after": N, "delay": seconds, "reason": code}) ends that connection itself
(HCI_Disconnect with that reason) the delay after the N-th ATT PDU its server received on it.
--mtu sets the Server Rx MTU its Exchange MTU Response offers. The database's "streams" ({"handle":
h, "notifications": …} each) gives notifications to a characteristic of Bumble's own services
(GATT's Service Changed) by its value handle.

Requires Bumble (pip install bumble==0.0.236).
"""

import argparse
import asyncio
import json
import sys

from bumble import att
from bumble.core import UUID
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Descriptor, Service
from bumble.hci import Address
from bumble.transport import open_transport

CCCD = "2902"


def parse_stream(notifications):
    """One list of (value, delay) for every connection, or one list per connection."""
    lists = notifications if isinstance(notifications[0], list) else [notifications]
    return [[(bytes.fromhex(v["value"]), v["delay"]) if isinstance(v, dict) else (bytes.fromhex(v), None)
             for v in values] for values in lists]


def build(database, log):
    services, streams = [], {}
    for s in database["services"]:
        characteristics = []
        for c in s["characteristics"]:
            holder = {}

            def read(connection, holder=holder, c=c):
                log.append({"op": "read", "handle": holder["c"].handle})
                refuse_unencrypted(connection, c)
                return bytes.fromhex(c.get("value", ""))

            def write(connection, value, holder=holder, c=c):
                log.append({"op": "write", "handle": holder["c"].handle, "value": bytes(value).hex()})
                if c.get("write_error") is not None:
                    raise att.ATT_Error(c["write_error"], holder["c"].handle)

            descriptors = [Descriptor(UUID(d["uuid"]), Descriptor.READABLE, bytes.fromhex(d.get("value", "")))
                           for d in c.get("descriptors", []) if d["uuid"].upper() != CCCD]
            ch = Characteristic(UUID(c["uuid"]), Characteristic.Properties(c["properties"]),
                                Characteristic.READABLE | Characteristic.WRITEABLE,
                                CharacteristicValue(read=read, write=write), descriptors)
            holder["c"] = ch
            characteristics.append(ch)
            if c.get("notifications"):
                streams[ch] = parse_stream(c["notifications"])
        services.append(Service(UUID(s["uuid"]), characteristics, primary=s.get("primary", True)))
    return services, streams


def refuse_unencrypted(connection, characteristic):
    """A read of a characteristic that needs an encrypted link, on one that is not: the
    characteristic's error ("read_error_unencrypted")."""
    code = characteristic.get("read_error_unencrypted")
    if code and not connection.is_encrypted:
        from bumble.att import ATT_Error
        raise ATT_Error(code)


def pairing_config_factory(features_hex):
    """Bumble's pairing config from a Pairing Response's six feature octets: SC, MITM and
    bonding from its AuthReq, its IO capability and key distributions."""
    from bumble.pairing import PairingConfig, PairingDelegate
    io, _oob, auth, size, initiator, responder = bytes.fromhex(features_hex)
    delegate = PairingDelegate(
        io_capability=PairingDelegate.IoCapability(io),
        local_initiator_key_distribution=PairingDelegate.KeyDistribution(initiator),
        local_responder_key_distribution=PairingDelegate.KeyDistribution(responder),
        maximum_encryption_key_size=size)
    return lambda connection: PairingConfig(
        sc=bool(auth & 0x08), mitm=bool(auth & 0x04), bonding=auth & 0x03 == 1, delegate=delegate)


async def stream(device, connection, characteristic, values, indicate, interval):
    """The characteristic's values to one subscriber, each after its own delay (else `interval`)
    from the previous one (the first from the subscription), while it is connected. The delays
    add up from the subscription: a value sent late does not make every later one late too."""
    loop = asyncio.get_running_loop()
    due = loop.time()
    for v, delay in values:
        due += interval if delay is None else delay
        await asyncio.sleep(max(0.0, due - loop.time()))
        try:
            if indicate:
                await device.indicate_subscriber(connection, characteristic, v)
            else:
                await device.notify_subscriber(connection, characteristic, v)
        except Exception:
            return


async def disconnect(connection, delay, reason):
    await asyncio.sleep(delay)
    try:
        await connection.disconnect(reason)
    except Exception:
        return


async def run(args):
    database = json.load(open(args.database))
    log = []
    sessions = []
    async with await open_transport(args.transport) as (source, sink):
        device = Device.with_hci(args.name, Address(args.address), source, sink)
        if args.mtu:
            device.gatt_server.max_mtu = args.mtu
        services, streams = build(database, log)
        device.add_services(services)
        if args.pairing_response:
            device.pairing_config_factory = pairing_config_factory(args.pairing_response)
        for own in database.get("streams", []):
            characteristic = device.gatt_server.get_attribute(own["handle"])
            if characteristic is not None:
                streams[characteristic] = parse_stream(own["notifications"])
        tasks = []
        ends = database.get("ends") or []
        received = {}  # connection handle -> ATT PDUs its server received

        # The server's PDUs, counted: the connections this app ends, it ends after the N-th.
        serve_pdu = device.gatt_server.on_gatt_pdu

        def on_gatt_pdu(connection, pdu):
            serve_pdu(connection, pdu)
            n = received[connection.handle] = received.get(connection.handle, 0) + 1
            end = ends[len(sessions)] if len(sessions) < len(ends) else None
            if end and n == end["after"]:
                tasks.append(asyncio.ensure_future(disconnect(connection, end["delay"], end["reason"])))

        device.gatt_server.on_gatt_pdu = on_gatt_pdu
        # A new connection counts from zero (the controller may give it the last one's handle).
        device.on("connection", lambda connection: received.pop(connection.handle, None))

        def on_subscription(connection, characteristic, notify, indicate):
            log.append({"op": "subscribe", "handle": characteristic.handle,
                        "notify": bool(notify), "indicate": bool(indicate)})
            lists = streams.get(characteristic)
            values = lists[min(len(sessions), len(lists) - 1)] if lists else None
            if values and (notify or indicate):
                tasks.append(asyncio.ensure_future(
                    stream(device, connection, characteristic, values, bool(indicate) and not notify, args.interval)))

        device.on("characteristic_subscription", on_subscription)
        await device.power_on()
        for _ in range(args.connections):
            connected = asyncio.get_running_loop().create_future()
            listener = lambda c, f=connected: f.done() or f.set_result(c)
            device.on("connection", listener)
            await device.start_advertising(auto_restart=False)
            connection = await asyncio.wait_for(connected, args.connect_timeout)
            device.remove_listener("connection", listener)
            gone = asyncio.get_running_loop().create_future()
            connection.on("disconnection", lambda reason, f=gone: f.done() or f.set_result(reason))
            try:
                reason = await asyncio.wait_for(gone, args.duration)
            except asyncio.TimeoutError:
                reason = None
            for t in tasks:
                t.cancel()
            tasks.clear()
            sessions.append({"central": str(connection.peer_address).split("/")[0], "disconnection": reason,
                             "operations": list(log)})
            log.clear()
            if reason is None:
                break
    if args.connections == 1:
        return sessions[0]
    return {"sessions": sessions}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", required=True)
    parser.add_argument("--database", required=True, help="JSON file with the services to serve")
    parser.add_argument("--name", default="peripheral-app")
    parser.add_argument("--address", default="D0:D1:D2:D3:D4:D5")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds to wait for the central to finish")
    parser.add_argument("--connect-timeout", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=1, help="connections to serve one after another")
    parser.add_argument("--pairing-response", help="accept pairing with these Pairing Response features (hex)")
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between notifications")
    parser.add_argument("--mtu", type=int, help="the Server Rx MTU to offer (default Bumble's)")
    args = parser.parse_args()
    try:
        result = asyncio.run(run(args))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
