"""A free port is handed out once: servers started side by side are never told one port."""

from __future__ import annotations

import socket

from infra.servers.local import free_port

CALLS = 2000  # the kernel's ephemeral ports number about 14,000 here: closed, one comes again


def test_free_port_never_hands_out_a_port_twice() -> None:
    ports = [free_port() for _ in range(CALLS)]
    assert len(set(ports)) == CALLS
    with socket.socket() as s:  # and each was free
        s.bind(("127.0.0.1", ports[-1]))
