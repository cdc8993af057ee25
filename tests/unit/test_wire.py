"""infra/http/wire.py: a turn's writes leave as one send, in order, and nothing is lost or late."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from infra.http.wire import CoalescingTransport, WireBounds, set_bounds
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
    if scope["path"] == "/echo":  # reads the whole body, answers its length
        got = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            got += message.get("body", b"")
            if not message.get("more_body"):
                break
        body = b"%d" % len(got)
    else:
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


# -- the bounds --------------------------------------------------------------------------------

BOUNDS = WireBounds(max_head_bytes=2048, head_timeout_s=0.4, body_timeout_s=0.4, max_connections=6)


@pytest.fixture
async def bounded() -> AsyncIterator[int]:
    """A server whose connections have small bounds (each read when a connection opens)."""
    set_bounds(BOUNDS)
    try:
        async with serving(app) as client:
            assert client.base_url.port is not None
            yield client.base_url.port
    finally:
        set_bounds(None)


async def answer(reader: asyncio.StreamReader, within: float = 3.0) -> tuple[int, dict[str, Any]]:
    """The status and problem of a refusal, read to the connection's end (it must close)."""
    return refusal(await asyncio.wait_for(reader.read(), within))


async def dripped(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pieces: list[bytes], pause: float
) -> tuple[bytes, int]:
    """Send the pieces `pause` apart until the server ends the connection: what it answered
    and how many bytes were sent by then."""
    answered = asyncio.create_task(asyncio.wait_for(reader.read(), 5))
    sent = 0
    for piece in pieces:
        if answered.done():
            break
        writer.write(piece)
        await writer.drain()
        sent += len(piece)
        await asyncio.sleep(pause)
    return await answered, sent


def refusal(raw: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower(), raw
    return int(head.split(b" ", 2)[1]), json.loads(body)


async def test_a_header_that_never_ends_is_refused_431_within_the_bound(bounded: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"GET /x HTTP/1.1\r\nhost: x\r\nx-long: ")
    # 200 reads of 512 bytes: 100 KB, far past the 2 KB bound
    raw, sent = await dripped(reader, writer, [b"a" * 512] * 200, 0.005)
    status, problem = refusal(raw)
    assert status == 431 and problem["code"] == "head_too_large"
    assert sent <= 2048 + 8 * 512  # refused once over the bound, not after the whole line
    writer.close()


async def test_a_large_head_in_one_read_is_refused_431(bounded: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"GET /x HTTP/1.1\r\nhost: x\r\nx-big: " + b"b" * 3000 + b"\r\n\r\n")
    status, problem = await answer(reader)
    assert status == 431 and problem["status"] == 431
    writer.close()


async def test_heads_within_the_bound_pass_whole_or_in_pieces(bounded: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    head = b"GET /fits HTTP/1.1\r\nhost: x\r\nx-pad: " + b"p" * 1800 + b"\r\n\r\n"
    writer.write(head)  # under the bound in one read
    got = await asyncio.wait_for(reader.readuntil(b"/fits"), 3)
    assert got.startswith(b"HTTP/1.1 200 OK")
    for piece in (head[:700], head[700:1400], head[1400:]):  # and in three reads, in time
        writer.write(piece)
        await writer.drain()
        await asyncio.sleep(0.05)
    got = await asyncio.wait_for(reader.readuntil(b"/fits"), 3)
    assert got.startswith(b"HTTP/1.1 200 OK")
    writer.close()


async def test_pipelined_heads_are_each_within_the_bound(bounded: int) -> None:
    """Several requests in one read, together over the bound, each under it: all answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    one = b"GET /p HTTP/1.1\r\nhost: x\r\nx-pad: " + b"p" * 1500 + b"\r\n\r\n"
    writer.write(one * 3 + b"GET /last HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    raw = await read_all(reader)
    assert raw.count(b"HTTP/1.1 200 OK") == 4 and raw.endswith(b"/last")
    writer.close()


@pytest.mark.parametrize(
    "sent",
    [b"", b"GET /slow HTTP/1.1\r\n", b"GET /slow HTTP/1.1\r\nhost: x\r\nx-drip: a"],
    ids=["nothing", "a request line", "an unfinished header"],
)
async def test_an_unfinished_head_is_answered_408_and_closed(bounded: int, sent: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    start = time.monotonic()
    writer.write(sent)
    status, problem = await answer(reader)
    assert status == 408 and problem["code"] == "request_timeout"
    assert BOUNDS.head_timeout_s <= time.monotonic() - start + 0.05 < 2.5
    writer.close()


async def test_a_dripped_head_is_cut_off_at_its_deadline(bounded: int) -> None:
    """Slowloris: a byte now and then never resets the head's clock."""
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    start = time.monotonic()
    writer.write(b"GET /drip HTTP/1.1\r\n")
    raw, _ = await dripped(reader, writer, [b"x"] * 60, 0.05)
    status, _ = refusal(raw)
    assert status == 408 and time.monotonic() - start < 1.5
    writer.close()


async def test_a_stalled_body_is_answered_408_and_the_app_hears_the_client_left(
    bounded: int,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n0123456789")
    status, problem = await answer(reader)
    assert status == 408 and "body" in problem["detail"]
    writer.close()


async def test_a_body_that_arrives_in_time_is_read_whole(bounded: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: 30\r\n\r\n")
    for _ in range(3):
        await asyncio.sleep(0.04)  # the body's three reads well within its 0.4 s
        writer.write(b"0123456789")
    got = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n30"), 3)
    assert got.startswith(b"HTTP/1.1 200 OK")
    writer.close()


async def test_an_idle_kept_alive_connection_is_the_keep_alive_timeout_s_not_408(
    bounded: int,
) -> None:
    """Between requests uvicorn's keep-alive timeout closes an idle connection, silently."""
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"GET /one HTTP/1.1\r\nhost: x\r\n\r\n")
    await asyncio.wait_for(reader.readuntil(b"/one"), 3)
    await asyncio.sleep(BOUNDS.head_timeout_s * 2)  # past the head's bound: no 408 comes
    writer.write(b"GET /two HTTP/1.1\r\nhost: x\r\n\r\n")
    got = await asyncio.wait_for(reader.readuntil(b"/two"), 3)
    assert b"408" not in got
    writer.close()


async def test_connections_past_the_cap_are_answered_503(bounded: int) -> None:
    held = [await asyncio.open_connection("127.0.0.1", bounded) for _ in range(6)]
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    status, problem = await answer(reader, within=1.0)  # at once, not at the head's deadline
    assert status == 503 and problem["code"] == "too_many_connections"
    writer.close()
    for _, w in held:
        w.close()
    await asyncio.sleep(0.1)  # the server sees them go
    reader, writer = await asyncio.open_connection("127.0.0.1", bounded)
    writer.write(b"GET /again HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    assert (await read_all(reader)).endswith(b"/again")
    writer.close()
