#!/usr/bin/env python3
"""Two Bumble virtual controllers on one link (Bumble's LocalLink), each behind its own H4 TCP
server: the radio that `blecap replay --controller` is checked against without hardware.
Controller A (the one blecap hosts) has the public address --address-a, so a captured
peripheral with a public address is found where the capture found it; controller B is for an
unmodified Bumble host (scripts/bumble/central_app.py). Prints one line, "ready PORT_A PORT_B",
when both listen, then runs until killed. With --transport-a, controller A is on that Bumble
transport instead, e.g. `vhci` (Linux's /dev/vhci: the kernel registers it as an adapter,
hciN, which blecap opens through the HCI user channel; scripts/kernel/guest_radio.sh), and the
line is "ready TRANSPORT PORT_B". --controllers N links N controllers (B's and the further ones
each for one peripheral app, a central that talks to several peripherals at once); the line
then names each one's port, "ready PORT_A PORT_B PORT_C …".

    python3 radio_link.py --address-a D8:0D:18:00:00:01
    python3 radio_link.py --transport-a vhci

Requires Bumble (pip install bumble==0.0.236).
"""

import argparse
import asyncio
import logging
import socket

from bumble.controller import Controller
from bumble.hci import Address
from bumble.link import LocalLink
from bumble.transport import open_transport
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


def listening_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    return s


async def main(args):
    link = LocalLink()
    sockets = [listening_socket() for _ in range(args.controllers - (1 if args.transport_a else 0))]
    ports = [s.getsockname()[1] for s in sockets]
    transports = [await open_tcp_server_transport_with_socket(s) for s in sockets]
    if args.transport_a:
        transports.insert(0, await open_transport(args.transport_a))
        ports.insert(0, args.transport_a)
    # The further controllers' public addresses follow B's in its last octet.
    head, last = args.address_b.rsplit(":", 1)
    addresses = [args.address_a, args.address_b] + [
        f"{head}:{(int(last, 16) + k) % 256:02X}" for k in range(1, args.controllers - 1)]
    controllers = [Controller(f"C{i}", host_source=t.source, host_sink=t.sink, link=link,
                              public_address=Address(a, Address.PUBLIC_DEVICE_ADDRESS))
                   for i, (t, a) in enumerate(zip(transports, addresses))]
    print("ready " + " ".join(str(p) for p in ports), flush=True)
    await asyncio.get_running_loop().create_future()
    del controllers


if __name__ == "__main__":
    # Bumble's own warnings (a transport that fails, a packet it drops) on standard error.
    logging.basicConfig(level=logging.WARNING)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address-a", default="B1:EC:A9:00:00:0A")
    ap.add_argument("--address-b", default="F0:F1:F2:F3:F4:F5")
    ap.add_argument("--controllers", type=int, default=2, help="how many linked controllers (at least 2)")
    ap.add_argument("--transport-a", help="a Bumble transport for controller A (e.g. vhci) instead of a TCP server")
    asyncio.run(main(ap.parse_args()))
