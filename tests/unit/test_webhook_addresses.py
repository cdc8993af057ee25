"""Where a webhook may be delivered: one table of addresses, each judged the same by the
address check, at registration (a name resolved by `vet_host`) and at delivery (the
connection `GuardedBackend` opens)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

import httpcore
import pytest

from infra.notify.ssrf import (
    Blocked,
    GuardedBackend,
    UnsafeURL,
    check_addresses,
    embedded_v4,
    forbidden,
    vet_host,
    vet_url,
)

ALLOWED = [
    "8.8.8.8",
    "1.1.1.1",
    "9.9.9.9",
    "11.0.0.1",
    "93.184.215.14",
    "100.63.255.255",  # just below the shared 100.64/10
    "100.128.0.0",  # just above it
    "169.253.255.255",  # around link-local
    "169.255.0.1",
    "172.15.255.255",  # around 172.16/12
    "172.32.0.1",
    "192.167.255.255",  # around 192.168/16
    "192.169.0.1",
    "198.17.255.255",  # around benchmarking 198.18/15
    "198.20.0.1",
    "223.255.255.254",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001:80b::200e",
    "2620:fe::fe",
    "2c0f:fb50:4003::1",
    "::ffff:8.8.8.8",  # mapped: the IPv4 address itself
    "2002:808:808::1",  # 6to4 of a public address
]

REFUSED = [
    # IPv4
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",  # the metadata service
    "169.254.0.1",
    "100.64.0.1",
    "100.127.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "192.0.0.8",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "198.19.255.255",
    "192.88.99.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    # IPv6 of its own
    "::1",
    "::",
    "fe80::1",
    "fe80::a9fe:a9fe",
    "fd00:ec2::254",  # the metadata service over IPv6
    "fc00::1",
    "fec0::1",  # site-local
    "feff::1",
    "ff02::1",
    "ff05::2",
    "2001:db8::1",
    "3fff::1",
    "2001:2::1",  # benchmarking
    "100::1",  # discard
    "5f00::1",  # not global unicast
    "4000::1",
    # IPv6 carrying an IPv4 address
    "::ffff:127.0.0.1",  # mapped
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",  # compatible
    "::10.0.0.1",
    "::8.8.8.8",  # compatible: deprecated, whatever it carries
    "::ffff:0:7f00:1",  # SIIT, translated
    "::ffff:0:a9fe:a9fe",
    "::ffff:0:808:808",
    "64:ff9b::7f00:1",  # NAT64
    "64:ff9b::a9fe:a9fe",  # the metadata service through a translator
    "64:ff9b::808:808",  # NAT64, whatever it carries
    "64:ff9b:1::a9fe:a9fe",  # NAT64 local-use
    "64:ff9b:1:a9fe:a9:fe00::",  # the same in RFC 6052's /48 layout
    "2002:7f00:1::1",  # 6to4
    "2002:a9fe:a9fe::1",
    "2002:a00:1::",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
]

TABLE = [(a, False) for a in ALLOWED] + [(a, True) for a in REFUSED]


def test_the_table_is_large_and_each_address_in_it_once() -> None:
    assert len(TABLE) >= 60
    assert len({ipaddress.ip_address(a) for a, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize(("address", "refused"), TABLE)
def test_an_address_is_judged(address: str, refused: bool) -> None:
    assert forbidden(ipaddress.ip_address(address)) is refused


@pytest.mark.parametrize(("address", "refused"), TABLE)
def test_a_name_resolving_to_the_address_is_judged_by_it(address: str, refused: bool) -> None:
    if refused:
        with pytest.raises(UnsafeURL) as caught:
            check_addresses("hook.example", [address], allow_private=False)
        assert caught.value.code == "webhook_url_forbidden" and address in str(caught.value)
        with pytest.raises(UnsafeURL):  # one bad answer among good ones is enough
            check_addresses("hook.example", ["8.8.8.8", address], allow_private=False)
    else:
        assert check_addresses("hook.example", [address], allow_private=False) == [address]
    assert check_addresses("hook.example", [address], allow_private=True) == [address]


def _infos(address: str, port: int) -> list[tuple[Any, ...]]:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    where = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
    return [(family, socket.SOCK_STREAM, 6, "", where)]


@pytest.mark.parametrize(("address", "refused"), TABLE)
def test_registration_resolves_the_name_and_judges_what_it_resolves_to(
    address: str, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def getaddrinfo(host: str, port: int, **kwargs: Any) -> list[tuple[Any, ...]]:
        assert host == "hook.example"
        return _infos(address, port)

    async def vetted() -> list[str]:
        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
        return await vet_host(*vet_url("https://hook.example/in", allow_http=False), False)

    if refused:
        with pytest.raises(UnsafeURL, match="webhooks reach public addresses only"):
            asyncio.run(vetted())
    else:
        assert asyncio.run(vetted()) == [address]


@pytest.mark.parametrize(("address", "refused"), TABLE)
def test_a_delivery_connects_only_to_an_address_it_judged(
    address: str, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At delivery the name is resolved again (DNS rebinding) and the socket goes to the
    address checked, never to the name."""
    opened: list[str] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, **kw: _infos(address, port))
    monkeypatch.setattr(
        httpcore.SyncBackend, "connect_tcp", lambda self, host, *a, **kw: opened.append(host)
    )
    backend = GuardedBackend(allow_private=False)
    if refused:
        with pytest.raises(Blocked):
            backend.connect_tcp("hook.example", 443)
        assert opened == []
    else:
        backend.connect_tcp("hook.example", 443)
        assert opened == [address]


# What the system's resolver makes of other spellings of a refused address: the check sees
# the address it resolved to, however the URL wrote it.
SPELLINGS = [
    ("2130706433", "127.0.0.1"),
    ("0x7f000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"),
    ("127.1", "127.0.0.1"),
    ("0251.0376.0251.0376", "169.254.169.254"),
    ("[::ffff:7f00:1]", "::ffff:127.0.0.1"),
    ("[::127.0.0.1]", "::127.0.0.1"),
    ("[0:0:0:0:ffff:0:7f00:1]", "::ffff:0:7f00:1"),
    ("[64:ff9b::169.254.169.254]", "64:ff9b::a9fe:a9fe"),
    ("[fec0::1]", "fec0::1"),
]


@pytest.mark.parametrize(("host", "address"), SPELLINGS)
def test_every_spelling_of_a_refused_address_is_refused(host: str, address: str) -> None:
    name, port = vet_url(f"https://{host}/in", allow_http=False)
    with pytest.raises(UnsafeURL) as caught:
        asyncio.run(vet_host(name, port, False))
    assert caught.value.code == "webhook_url_forbidden"
    infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    assert {ipaddress.ip_address(i[4][0]) for i in infos} == {ipaddress.ip_address(address)}


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::127.0.0.1", "127.0.0.1"),
        ("::ffff:0:7f00:1", "127.0.0.1"),
        ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
        ("2002:a9fe:a9fe::1", "169.254.169.254"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"),  # Teredo's client
        ("2606:4700:4700::1111", None),
        ("::1", None),
    ],
)
def test_the_ipv4_address_an_ipv6_one_carries(address: str, carried: str | None) -> None:
    found = embedded_v4(ipaddress.IPv6Address(address))
    assert (str(found) if found else None) == carried
