"""A request still running when its server stops: uvicorn waits out its graceful shutdown
(5 s), then cancels what is left. A long-poll cut so was answered 500 by uvicorn, with a
traceback in the log; it is a 503 with Retry-After (the client asks again, another replica),
and a stream is ended as a stream ends (the client resumes it from its last id)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from litestar import Litestar, get
from litestar.response import Stream

from infra.http.common import EXCEPTION_HANDLERS
from infra.http.edge import Edge
from infra.settings import Settings


@get("/v1/wait")
async def long_poll() -> dict[str, str]:
    await asyncio.sleep(60)
    return {"status": "late"}


@get("/v1/stream")
async def stream() -> Stream:
    async def frames() -> AsyncIterator[bytes]:
        yield b": hello\n\n"
        await asyncio.sleep(60)

    return Stream(frames(), media_type="text/event-stream")


def app() -> Litestar:
    made = Litestar(
        [long_poll, stream],
        middleware=[Edge],
        exception_handlers=EXCEPTION_HANDLERS,
        debug=False,
        logging_config=None,
    )
    made.state.settings = Settings(secret="s" * 40)
    return made


async def cut(path: str) -> list[dict[str, Any]]:
    """The messages the app sends for `path` when its task is cancelled mid-way, as uvicorn
    cancels it after the graceful shutdown's wait; the task must end without an error."""
    sent: list[dict[str, Any]] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)  # the client stays
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    task = asyncio.create_task(app()(scope, receive, send))
    await asyncio.sleep(0.2)
    task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
    await task  # ended, not raised: uvicorn has nothing to answer 500 or log
    return sent


async def test_a_long_poll_cut_by_the_server_stopping_is_a_503_with_retry_after() -> None:
    start, body = await cut("/v1/wait")
    assert start["status"] == 503
    headers = dict(start["headers"])
    assert headers[b"retry-after"] == b"1"
    assert json.loads(body["body"])["code"] == "service_unavailable"
    assert body["more_body"] is False


async def test_a_stream_cut_by_the_server_stopping_ends_as_a_stream_ends() -> None:
    start, *bodies = await cut("/v1/stream")
    assert start["status"] == 200
    assert bodies[0]["body"] == b": hello\n\n"
    assert bodies[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
