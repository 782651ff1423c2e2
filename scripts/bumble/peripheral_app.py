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

Requires Bumble (pip install bumble==0.0.236).
"""

import argparse
import asyncio
import json
import sys

from bumble.core import UUID
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Descriptor, Service
from bumble.hci import Address
from bumble.transport import open_transport

CCCD = "2902"


def build(database, log):
    services = []
    for s in database["services"]:
        characteristics = []
        for c in s["characteristics"]:
            holder = {}

            def read(connection, holder=holder, c=c):
                log.append({"op": "read", "handle": holder["c"].handle})
                return bytes.fromhex(c.get("value", ""))

            def write(connection, value, holder=holder):
                log.append({"op": "write", "handle": holder["c"].handle, "value": bytes(value).hex()})

            descriptors = [Descriptor(UUID(d["uuid"]), Descriptor.READABLE, bytes.fromhex(d.get("value", "")))
                           for d in c.get("descriptors", []) if d["uuid"].upper() != CCCD]
            ch = Characteristic(UUID(c["uuid"]), Characteristic.Properties(c["properties"]),
                                Characteristic.READABLE | Characteristic.WRITEABLE,
                                CharacteristicValue(read=read, write=write), descriptors)
            holder["c"] = ch
            characteristics.append(ch)
        services.append(Service(UUID(s["uuid"]), characteristics, primary=s.get("primary", True)))
    return services


async def run(args):
    database = json.load(open(args.database))
    log = []
    async with await open_transport(args.transport) as (source, sink):
        device = Device.with_hci(args.name, Address(args.address), source, sink)
        device.add_services(build(database, log))

        def on_subscription(connection, characteristic, notify, indicate):
            log.append({"op": "subscribe", "handle": characteristic.handle,
                        "notify": bool(notify), "indicate": bool(indicate)})

        device.on("characteristic_subscription", on_subscription)
        await device.power_on()
        connected = asyncio.get_running_loop().create_future()
        device.on("connection", lambda c: connected.done() or connected.set_result(c))
        await device.start_advertising(auto_restart=False)
        connection = await asyncio.wait_for(connected, args.connect_timeout)
        gone = asyncio.get_running_loop().create_future()
        connection.on("disconnection", lambda reason: gone.done() or gone.set_result(reason))
        try:
            reason = await asyncio.wait_for(gone, args.duration)
        except asyncio.TimeoutError:
            reason = None
    return {"central": str(connection.peer_address).split("/")[0], "disconnection": reason, "operations": log}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", required=True)
    parser.add_argument("--database", required=True, help="JSON file with the services to serve")
    parser.add_argument("--name", default="peripheral-app")
    parser.add_argument("--address", default="D0:D1:D2:D3:D4:D5")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds to wait for the central to finish")
    parser.add_argument("--connect-timeout", type=float, default=10.0)
    args = parser.parse_args()
    try:
        result = asyncio.run(run(args))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        sys.exit(1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
