"""No requests to where a webhook must not reach: loopback, private, link-local (the cloud's
metadata service at 169.254.169.254 among them), shared, reserved and multicast addresses.

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


def forbidden(address: IPAddress) -> bool:
    """Anything not globally routable (RFC 6890's registries, as Python's ipaddress reads
    them: private, loopback, link-local, shared 100.64/10, documentation, reserved), and
    multicast; an IPv6 address that wraps an IPv4 one is judged as that one."""
    if isinstance(address, ipaddress.IPv6Address):
        wrapped = address.ipv4_mapped or address.sixtofour
        if wrapped is not None:
            return forbidden(wrapped)
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
