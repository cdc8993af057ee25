"""The HTTP/1.1 protocol the services run under uvicorn: uvicorn's httptools protocol, with
the writes of one turn of the event loop sent as one, and bounds on what a client may hold.

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

Bounds (`WireBounds`, from the settings): uvicorn's httptools protocol has none of its own.
It hands every byte to httptools, which keeps a header line that never ends in memory
whole (four such connections grew a game service from 149 to 444 MB), and it holds an
unfinished head or body for ever (1,500 half-sent heads were all still open after 20 s);
its keep-alive timeout runs only between requests. So here:
- a head (request line and headers) over `max_head_bytes` is answered 431 and closed:
  counted as it arrives while it is unfinished (what httptools holds is at most the bound
  and one read), and measured when it completes within one read;
- a head not whole `head_timeout_s` after its first byte, or after the connection opened,
  and a body not whole `body_timeout_s` after its head, are answered 408 and closed (a
  request that arrives within one read, as nearly all do, sets no timer);
- past `max_connections` open connections in the process, a new one is answered 503 and
  closed at once.
Each answer is a problem document (`head_too_large`, `request_timeout`,
`too_many_connections`). h11's `h11_max_incomplete_event_size` bounds only uvicorn's h11
protocol, which costs more CPU per request than httptools; hypercorn and granian have
such limits but would replace the server this wire is tuned for.

`http="infra.http.wire:BoundedHttpTools"` in uvicorn's config (infra/servers/process.py, HTTP_PROTOCOL,
also tests/integration/serve.py); tests/unit/test_wire.py pins what it must keep of a
transport and each bound.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import msgspec
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from contracts.problems import PROBLEM_CONTENT_TYPE, ProblemError
from infra.settings import Settings, from_env


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


class WireBounds(msgspec.Struct, frozen=True, kw_only=True):
    max_head_bytes: int
    head_timeout_s: float
    body_timeout_s: float
    max_connections: int

    @classmethod
    def of(cls, settings: Settings) -> WireBounds:
        return cls(
            max_head_bytes=settings.max_head_bytes,
            head_timeout_s=settings.head_timeout_s,
            body_timeout_s=settings.body_timeout_s,
            max_connections=settings.max_connections,
        )


_bounds: WireBounds | None = None


def bounds() -> WireBounds:
    """The process's bounds, read from the environment at the first connection."""
    global _bounds
    if _bounds is None:
        _bounds = WireBounds.of(from_env())
    return _bounds


def set_bounds(value: WireBounds | None) -> None:
    """Bounds for the connections made from now on (None: the environment's, read again)."""
    global _bounds
    _bounds = value


_Phase = Literal["head", "body", "done"]
_LINGER_S = 1.0  # how long a refused connection's further bytes are read and dropped


def _refusal(status: int, code: str, detail: str) -> bytes:
    body = msgspec.json.encode(ProblemError(status, code, detail).problem())
    head = STATUS_LINE.get(status) or f"HTTP/1.1 {status} \r\n".encode()
    return b"".join(
        (
            head,
            b"content-type: ",
            PROBLEM_CONTENT_TYPE.encode(),
            b"\r\ncontent-length: ",
            str(len(body)).encode(),
            b"\r\nconnection: close\r\n\r\n",
            body,
        )
    )


class BoundedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol on a CoalescingTransport, within the wire's bounds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bounds = bounds()
        self._phase: _Phase = "head"  # what the bytes to come belong to
        self._head_bytes = 0  # of the unfinished head, counted read by read
        self._reading = 0  # the length of the read being parsed
        self._began_here = self._ended_here = False  # a message began / ended in this read
        self._timer: asyncio.TimerHandle | None = None
        self._timing: _Phase | None = None  # which phase the timer is for
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]
        if len(self.connections) > self._bounds.max_connections:
            self._refuse(503, "too_many_connections", "the server holds all the connections it can")
            return
        self._arm("head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def eof_received(self) -> None:
        """The client closed its side (`nc -N`, some probes): asyncio closes the transport
        when this returns, so what waits for the end of the turn goes out first."""
        self.transport.flush()  # type: ignore[attr-defined]
        super().eof_received()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        self._began_here = self._ended_here = False
        self._reading = len(data)
        super().data_received(data)
        if self._refused or self.transport.is_closing():
            return
        phase = self._phase
        if phase == "head":
            # A head begun in this read after another message ended in it: how much of the
            # read is its own is unknown, so it is counted from the next read (at most one
            # read more than the bound is ever held).
            if not (self._began_here and self._ended_here):
                self._head_bytes += len(data)
            if self._head_bytes > self._bounds.max_head_bytes:
                self._head_too_large()
            elif self._timing != "head":
                self._arm("head")
        elif phase == "body":
            if self._timing != "body":
                self._arm("body")
        elif self._timer is not None:
            self._disarm()

    # the parser's callbacks (httptools calls them while data_received feeds it)
    def on_message_begin(self) -> None:
        if self._refused:
            return
        self._phase = "head"
        self._head_bytes = 0
        self._began_here = True
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        if not self._refused:
            super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self._refused:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        # The head lies within the earlier reads counted and this one: measured whole only
        # where those could hold more than the bound (a small request costs nothing here).
        if self._head_bytes + self._reading > self._bounds.max_head_bytes:
            size = len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers)
            if size > self._bounds.max_head_bytes:
                self._head_too_large()
                return
        self._phase = "body"
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        self._phase = "done"
        self._ended_here = True
        super().on_message_complete()

    # the bounds
    def _arm(self, phase: _Phase) -> None:
        self._disarm()
        delay = self._bounds.head_timeout_s if phase == "head" else self._bounds.body_timeout_s
        self._timer = self.loop.call_later(delay, self._timed_out)
        self._timing = phase

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timing = None

    def _timed_out(self) -> None:
        self._timer = None
        if self._refused or self.transport.is_closing() or self._phase != self._timing:
            return
        cycle = self.cycle
        if self._phase == "body" and cycle is not None and cycle.response_started:
            self._refused = True  # the app has answered already: only the connection ends
            self.transport.close()
            return
        what = "head" if self._phase == "head" else "body"
        self._refuse(408, "request_timeout", f"the request's {what} did not arrive in time")

    def _head_too_large(self) -> None:
        limit = self._bounds.max_head_bytes
        self._refuse(431, "head_too_large", f"the request line and headers are over {limit} bytes")

    def _refuse(self, status: int, code: str, detail: str) -> None:
        """Answer with a problem and end the connection: nothing more of it is parsed.

        A lingering close, as web servers do: the answer and our FIN go out now, what the
        client still sends is dropped unread for `_LINGER_S`, then the socket closes. Closed
        at once with the client's bytes unread, the kernel would answer them with a reset,
        which can destroy the answer before the client reads it."""
        self._refused = True
        self._disarm()
        self._unset_keepalive_if_required()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True  # an app still reading the body hears it left
            self.cycle.message_event.set()
        transport = self.transport
        transport.write(_refusal(status, code, detail))
        transport.flush()  # type: ignore[attr-defined]
        if transport.can_write_eof():
            transport.write_eof()
            self.loop.call_later(_LINGER_S, transport.close)
        else:
            transport.close()
