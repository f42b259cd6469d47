"""Where webhooks may go: public addresses, and the private ranges the operator allows.

A subscription's URL could name a cloud's metadata service, a database on the private network or
the host itself, and the workers would send requests there for whoever holds the operator's key.
So its host must resolve to public addresses only, or to ones in `BANCO_WEBHOOK_ALLOW_NETWORKS`
(a receiver on the operator's own network). It is checked when the subscription is made and again
at every connection, on the addresses connected to: a name may resolve elsewhere later (DNS
rebinding), so the worker connects to the address it checked and never looks the name up twice.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Sequence
from typing import Any

from service.runtime.config import Network

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
AddrInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]

# Names of clouds' metadata services, refused whatever they resolve to: some resolve only there.
METADATA_NAMES = frozenset({"metadata", "metadata.google.internal", "metadata.goog",
                            "instance-data", "instance-data.ec2.internal"})
# A metadata service at an address Python counts as global (Oracle Cloud's); the others'
# (169.254.169.254, 100.100.100.200, fd00:ec2::254) are in ranges refused anyway.
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("192.0.0.192")})
RESOLVE_S = 5.0  # how long a subscription waits for its host's addresses


class NotAllowed(Exception):
    """The host is not one webhooks may be sent to, or it has no address."""


def literal(host: str) -> Address | None:
    """The address `host` spells, in any form a resolver reads as one (`127.1`, `0x7f000001`,
    `2130706433`, `0177.0.0.1`), or None for a name."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def public(address: Address) -> bool:
    """Whether `address`, and any IPv4 address it carries, is a public unicast one."""
    carried: list[Address] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        carried += [a for a in (address.ipv4_mapped, address.sixtofour, *(address.teredo or ()))
                    if a is not None]
    # `is_global` alone lets multicast and a few reserved blocks through.
    return all(a.is_global and not (a.is_multicast or a.is_reserved or a.is_private
                                    or a.is_loopback or a.is_link_local or a.is_unspecified)
               and a not in METADATA_ADDRESSES for a in carried)


def allowed(address: Address, allow: Sequence[Network]) -> bool:
    """Whether webhooks may connect to `address`: public, or in a range the operator allows."""
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return public(address) or any(a in network for network in allow
                                  for a in (address, mapped) if a is not None)


def lookup(host: str, port: int) -> Sequence[AddrInfo]:
    """The system resolver's addresses for `host` (the one place names are looked up)."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def _resolve(host: str, port: int, timeout: float) -> Sequence[AddrInfo]:
    # getaddrinfo cannot be interrupted: it runs in a thread of its own, left behind to finish
    # alone when it takes longer than the caller may wait.
    found: list[Sequence[AddrInfo]] = []

    def run() -> None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: a name IDNA cannot encode
            found.append(lookup(host, port))

    thread = threading.Thread(target=run, name="webhook-resolve", daemon=True)
    thread.start()
    thread.join(timeout)
    if not found or not found[0]:
        raise NotAllowed(f"{host} has no address")
    return found[0]


def addresses(host: str, port: int, allow: Sequence[Network],
              timeout: float) -> Sequence[AddrInfo]:
    """Where a connection to `host` may go: all its addresses, each checked; raises NotAllowed
    when one is not allowed, the name is refused, or it has no address within `timeout`."""
    name = host.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost") or name in METADATA_NAMES:
        raise NotAllowed(f"{host} names this host or a metadata service")
    spelled = literal(host)
    found: Sequence[AddrInfo]
    if spelled is not None:  # no lookup: the address as written, in its one canonical form
        found = socket.getaddrinfo(str(spelled), port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_NUMERICHOST)
    else:
        found = _resolve(host, port, timeout)
    # One address refused refuses them all: a name that answers a public address and a private
    # one would reach the private one whenever the public one does not answer.
    for *_, sockaddr in found:
        if not allowed(ipaddress.ip_address(sockaddr[0]), allow):
            raise NotAllowed(f"{host} resolves to an address not allowed")
    return found
