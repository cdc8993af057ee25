"""No requests to where a webhook must not reach: loopback, private, link-local (the cloud's
metadata service at 169.254.169.254 among them), shared, reserved and multicast addresses,
nor to any of them wrapped in an IPv6 address (mapped, compatible, translated, 6to4).

Checked twice: when an endpoint is registered (`vet_url`, `vet_host`), and at every
delivery where the socket is opened (`GuardedBackend`), so a name that resolved to a public
address at registration and to an internal one since (DNS rebinding) still reaches nothing:
the connection goes to the very address that was checked. Redirects are not followed
(httpx's default, kept), so a public endpoint cannot send a delivery inward either.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

RESOLVE_TIMEOUT_S = 3.0  # a registration waits no longer on a name server


class UnsafeURL(ValueError):
    """A URL a webhook may not use; `code` is the API's problem code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_net = ipaddress.ip_network

# Written out rather than left to `is_global` alone, whose registry differs between Python
# versions (3.11 takes ::127.0.0.1 and 64:ff9b::a9fe:a9fe for global addresses).
REFUSED_V4 = tuple(
    _net(n)
    for n in (
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",
        "100.64.0.0/10",  # shared (carrier-grade NAT)
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local: the metadata service
        "172.16.0.0/12",
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # 6to4 relays
        "192.168.0.0/16",
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and the broadcast address
    )
)
# A webhook's IPv6 address is a global unicast one (2000::/3), and none of these in it.
GLOBAL_UNICAST = _net("2000::/3")
REFUSED_V6 = tuple(
    _net(n)
    for n in (
        # outside 2000::/3, named for the reader: each carries an IPv4 address or a network
        # of its own that a translator or an old stack may reach
        "::/96",  # IPv4-compatible (deprecated): ::127.0.0.1
        "::ffff:0:0:0/96",  # SIIT, IPv4-translated: ::ffff:0:7f00:1
        "64:ff9b::/96",  # NAT64, well-known prefix: 64:ff9b::a9fe:a9fe is 169.254.169.254
        "64:ff9b:1::/48",  # NAT64, local-use prefixes
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated, still routed by some)
        "ff00::/8",  # multicast
        # inside it
        "2001::/23",  # IETF protocol assignments: Teredo, benchmarking, ORCHID
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation (RFC 9637)
    )
)
_NAT64_WELL_KNOWN = _net("64:ff9b::/96")
_COMPATIBLE = _net("::/96")
_TRANSLATED = _net("::ffff:0:0:0/96")
_LOW_32 = 0xFFFF_FFFF


def embedded_v4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries: mapped (::ffff:a.b.c.d), compatible
    (::a.b.c.d), translated (::ffff:0:a.b.c.d), NAT64's well-known prefix, 6to4 (2002::/16)
    or Teredo's client; None for any other."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _COMPATIBLE and int(address) <= 1:
        return None  # :: and ::1 are IPv6's own
    for prefix in (_COMPATIBLE, _TRANSLATED, _NAT64_WELL_KNOWN):
        if address in prefix:
            return ipaddress.IPv4Address(int(address) & _LOW_32)
    return None


def forbidden(address: IPAddress) -> bool:
    """Anything not globally routable (RFC 6890's registries: private, loopback, link-local,
    shared 100.64/10, documentation, reserved) and multicast, written out in REFUSED_V4 and
    REFUSED_V6 as well as asked of Python's ipaddress. An IPv6 address is refused outside
    global unicast, and when the IPv4 address it carries is; one mapped (::ffff:a.b.c.d) is
    that IPv4 address. NAT64's prefixes are refused whatever they carry: a translator is a
    way into the network it stands in."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return forbidden(address.ipv4_mapped)
        carried = embedded_v4(address)
        if carried is not None and forbidden(carried):
            return True
        if address not in GLOBAL_UNICAST or any(address in n for n in REFUSED_V6):
            return True
    elif any(address in n for n in REFUSED_V4):
        return True
    return not address.is_global or address.is_multicast


def vet_url(url: str, allow_http: bool) -> tuple[str, int]:
    """(host, port) of a URL a webhook may take, or UnsafeURL saying why not."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURL("invalid_webhook_url", f"not a URL: {exc}") from exc
    schemes = ("https", "http") if allow_http else ("https",)
    if parts.scheme not in schemes:
        raise UnsafeURL("invalid_webhook_url", f"the URL's scheme must be {' or '.join(schemes)}")
    if not parts.hostname:
        raise UnsafeURL("invalid_webhook_url", "the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("invalid_webhook_url", "the URL may not carry credentials")
    if parts.fragment:
        raise UnsafeURL("invalid_webhook_url", "the URL may not have a fragment")
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise UnsafeURL("invalid_webhook_url", "the URL may not contain spaces or controls")
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def check_addresses(host: str, addresses: Iterable[str], allow_private: bool) -> list[str]:
    """The addresses, or UnsafeURL if any is forbidden (one bad answer of several is enough:
    the client might pick it)."""
    found = list(dict.fromkeys(addresses))
    if not found:
        raise UnsafeURL("webhook_url_unresolvable", f"{host} resolves to no address")
    if not allow_private:
        for a in found:
            if forbidden(ipaddress.ip_address(a.split("%")[0])):
                raise UnsafeURL(
                    "webhook_url_forbidden",
                    f"{host} resolves to {a}, a loopback, private, link-local or reserved"
                    " address; webhooks reach public addresses only",
                )
    return found


def _addresses(infos: Iterable[tuple[Any, ...]]) -> list[str]:
    return [str(info[4][0]) for info in infos]


async def vet_host(host: str, port: int, allow_private: bool) -> list[str]:
    """At registration: resolve `host` and refuse it if any address is forbidden."""
    lookup = asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    try:
        infos = await asyncio.wait_for(lookup, RESOLVE_TIMEOUT_S)
    except (socket.gaierror, UnicodeError, TimeoutError) as exc:
        raise UnsafeURL("webhook_url_unresolvable", f"{host} does not resolve: {exc!r}") from exc
    return check_addresses(host, _addresses(infos), allow_private)


class Blocked(httpcore.ConnectError):
    """A delivery refused before connecting: its host resolves to a forbidden address."""


class GuardedBackend(httpcore.SyncBackend):
    """Opens a delivery's connection to an address it checked itself, never to a name."""

    def __init__(self, allow_private: bool) -> None:
        self.allow_private = allow_private

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise httpcore.ConnectError(f"{host} does not resolve: {exc}") from exc
        try:
            addresses = check_addresses(host, _addresses(infos), self.allow_private)
        except UnsafeURL as exc:
            raise Blocked(str(exc)) from exc
        error: Exception | None = None
        for address in addresses:  # TLS still names `host` (SNI, certificate): httpcore's
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error


def guarded_client(allow_private: bool, connect_s: float, read_s: float) -> httpx.Client:
    """An HTTP client for deliveries: checked addresses only, short timeouts, no redirects,
    no proxy or credentials from the environment. Safe to share between threads."""
    transport = httpx.HTTPTransport(retries=0)
    # httpx takes no network backend of its own; its pool (httpcore's) does
    transport._pool._network_backend = GuardedBackend(allow_private)
    return httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(read_s, connect=connect_s, pool=connect_s),
        follow_redirects=False,
        trust_env=False,
        headers={"user-agent": "Turnpost-Webhooks/1"},
    )
