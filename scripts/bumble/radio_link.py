#!/usr/bin/env python3
"""Two Bumble virtual controllers on one link (Bumble's LocalLink), each behind its own H4 TCP
server: the radio that `blecap replay --controller` is checked against without hardware.
Controller A (the one blecap hosts) has the public address --address-a, so a captured
peripheral with a public address is found where the capture found it; controller B is for an
unmodified Bumble host (scripts/bumble/central_app.py). Prints one line, "ready PORT_A PORT_B",
when both listen, then runs until killed.

    python3 radio_link.py --address-a D8:0D:18:00:00:01

Requires Bumble (pip install bumble==0.0.236).
"""

import argparse
import asyncio
import socket

from bumble.controller import Controller
from bumble.hci import Address
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


def listening_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    return s


async def main(args):
    link = LocalLink()
    sockets = [listening_socket(), listening_socket()]
    ports = [s.getsockname()[1] for s in sockets]
    transports = [await open_tcp_server_transport_with_socket(s) for s in sockets]
    addresses = [args.address_a, args.address_b]
    controllers = [Controller(f"C{i}", host_source=t.source, host_sink=t.sink, link=link,
                              public_address=Address(a, Address.PUBLIC_DEVICE_ADDRESS))
                   for i, (t, a) in enumerate(zip(transports, addresses))]
    print(f"ready {ports[0]} {ports[1]}", flush=True)
    await asyncio.get_running_loop().create_future()
    del controllers


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address-a", default="B1:EC:A9:00:00:0A")
    ap.add_argument("--address-b", default="F0:F1:F2:F3:F4:F5")
    asyncio.run(main(ap.parse_args()))
