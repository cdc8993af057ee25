"""infra/wire.py: a turn's writes leave as one send, in order, and nothing is lost or late."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from infra.wire import CoalescingTransport
from tests.integration.serve import serving


class Spy:
    """A transport that records what it was asked to do."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closing = False
        self.calls: list[str] = []

    def write(self, data: bytes) -> None:
        assert not self.closing, "written after close"
        self.sent.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.calls.append("close")
        self.closing = True

    def abort(self) -> None:
        self.calls.append("abort")
        self.closing = True

    def get_write_buffer_size(self) -> int:
        return 7

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 80) if name == "peername" else default


async def turn() -> None:
    await asyncio.sleep(0)  # the loop runs what call_soon queued


async def test_the_writes_of_one_turn_leave_as_one_send_in_order() -> None:
    spy = Spy()
    wire = CoalescingTransport(spy, asyncio.get_running_loop())  # type: ignore[arg-type]
    wire.write(b"HTTP/1.1 200 OK\r\n\r\n")
    wire.write(b"")  # nothing: no send of its own
    wire.write(bytearray(b"{"))
    wire.writelines([b"}", memoryview(b"\n")])
    assert spy.sent == [] and wire.get_write_buffer_size() == 7 + 19 + 3
    await turn()
    assert spy.sent == [b"HTTP/1.1 200 OK\r\n\r\n{}\n"]
    wire.write(b"next")
    await turn()
    assert spy.sent[1:] == [b"next"]  # the next turn's, alone
    await turn()
    assert len(spy.sent) == 2  # nothing more, no empty send


async def test_close_sends_what_waits_first_and_abort_drops_it() -> None:
    spy = Spy()
    wire = CoalescingTransport(spy, asyncio.get_running_loop())  # type: ignore[arg-type]
    wire.write(b"last words")
    wire.close()
    assert spy.sent == [b"last words"] and spy.calls == ["close"]
    wire.write(b"after close")
    await turn()
    assert spy.sent == [b"last words"]  # dropped, as a closed transport drops it

    spy = Spy()
    wire = CoalescingTransport(spy, asyncio.get_running_loop())  # type: ignore[arg-type]
    wire.write(b"never")
    wire.abort()
    await turn()
    assert spy.sent == [] and spy.calls == ["abort"]


async def test_everything_else_is_the_transport_s() -> None:
    spy = Spy()
    wire = CoalescingTransport(spy, asyncio.get_running_loop())  # type: ignore[arg-type]
    assert wire.get_extra_info("peername") == ("127.0.0.1", 80)
    assert wire.is_closing() is False
    spy.closing = True
    assert wire.is_closing() is True


# -- under uvicorn, over a socket -------------------------------------------------------------


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["path"] == "/stream":  # a body in chunks, a turn apart: each leaves in its turn
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for n in range(3):
            await send({"type": "http.response.body", "body": b"%d;" % n, "more_body": True})
            await asyncio.sleep(0.05)
        await send({"type": "http.response.body", "body": b"end", "more_body": False})
        return
    body = scope["path"].encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", b"%d" % len(body))],
        }
    )
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
async def port() -> AsyncIterator[int]:
    async with serving(app) as client:  # HTTP_PROTOCOL, as the services run
        assert client.base_url.port is not None
        yield client.base_url.port


async def read_all(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), 5)


async def test_pipelined_requests_are_answered_whole_and_in_order(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"GET /first HTTP/1.1\r\nhost: x\r\n\r\n"
        b"GET /second HTTP/1.1\r\nhost: x\r\n\r\n"
        b"GET /third HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    )
    raw = await read_all(reader)  # the server closes after the third: all of it came
    writer.close()
    answers = raw.split(b"HTTP/1.1 200 OK\r\n")[1:]
    assert [a.rsplit(b"\r\n\r\n", 1)[1] for a in answers] == [b"/first", b"/second", b"/third"]


async def test_a_streamed_body_leaves_chunk_by_chunk(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /stream HTTP/1.1\r\nhost: x\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert b"transfer-encoding: chunked" in head
    first = await asyncio.wait_for(reader.readuntil(b"0;\r\n"), 1)  # before the stream ends
    assert first.endswith(b"2\r\n0;\r\n")
    rest = await asyncio.wait_for(reader.readuntil(b"0\r\n\r\n"), 5)
    assert b"end" in rest
    writer.close()


async def test_a_client_that_closes_its_side_still_gets_its_answer(port: int) -> None:
    for _ in range(20):  # the answer and the client's EOF meet in one turn, most times
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /half HTTP/1.1\r\nhost: x\r\n\r\n")
        writer.write_eof()
        raw = await read_all(reader)
        writer.close()
        assert raw.startswith(b"HTTP/1.1 200 OK\r\n") and raw.endswith(b"/half"), raw
