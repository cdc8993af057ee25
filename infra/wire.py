"""The HTTP/1.1 protocol the services run under uvicorn: uvicorn's httptools protocol, with
the writes of one turn of the event loop sent as one.

uvicorn writes a response's status line and headers, then its body, each with its own
`transport.write`: two `send` system calls and two TCP segments for every small JSON answer
(the client's kernel wakes its reader twice). The socket's send was the largest single
item of the game service's CPU profile under the move-cycle load (14 % of its samples,
tests/bench/profile_actions.py). Here the transport is wrapped so that writes made before
the loop next looks for work are joined and sent once, at the end of that turn
(`loop.call_soon`): a response whose body follows its headers at once, as every response
that is not a stream does, leaves in one send. Nothing waits longer than the turn: a
stream's chunk goes out as soon as the code that wrote it yields. A client that closes its
side gets what waits before the transport closes (`eof_received`). What the wrapper holds
is not in the transport's buffer yet, so `pause_writing` comes at the flush, not at the
write: code that writes without ever yielding could hold much here (no sender of ours does:
every stream awaits between its chunks).

`http="infra.wire:CoalescingHttpTools"` in uvicorn's config (infra/process.HTTP_PROTOCOL,
also tests/integration/serve.py); tests/unit/test_wire.py pins what it must keep of a
transport.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    """A transport whose writes wait for the end of the loop's turn, then go out joined.

    Everything else is the wrapped transport's; `close` sends what waits first (as a
    transport's own close sends its buffer), `abort` drops it (as abort does)."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def flush(self) -> None:
        """Send what waits now (the end of the turn does it unasked)."""
        if not self._pending:
            return
        pending = self._pending
        self._pending = []
        if self._transport.is_closing():
            return  # as the transport would: nothing is sent after close or abort
        self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending = []
        self._transport.abort()

    # What uvicorn calls on every request, defined here rather than found by __getattr__
    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class CoalescingHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol on a CoalescingTransport."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]

    def eof_received(self) -> None:
        """The client closed its side (`nc -N`, some probes): asyncio closes the transport
        when this returns, so what waits for the end of the turn goes out first."""
        self.transport.flush()  # type: ignore[attr-defined]
        super().eof_received()
