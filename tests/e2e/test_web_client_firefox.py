"""The web client in Firefox, the distribution's (firefox-esr), driven over WebDriver BiDi, the
W3C protocol Firefox itself serves (`--remote-debugging-port`): no driver binary, and
Playwright's own Firefox build is never downloaded. The first moves of an itty bitty game,
each accepted (the game's version rises by them), a bot's move read from the live stream
through fetch() in Firefox, and no JavaScript error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import websockets

from tests.e2e.conftest import Stack


def firefox() -> str | None:
    for name in (os.environ.get("FIREFOX"), "firefox-esr", "firefox"):
        if name and (found := shutil.which(name)):
            return found
    return None


class Bidi:
    """A WebDriver BiDi session: commands answered by id, events kept."""

    def __init__(self, ws: Any) -> None:
        self.ws, self.last = ws, 0
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []

    async def pump(self) -> None:
        async for raw in self.ws:
            message = json.loads(raw)
            if message.get("id") in self.waiting:
                self.waiting.pop(message["id"]).set_result(message)
            elif message.get("type") == "event":
                self.events.append(message["params"])

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.last += 1
        answer = asyncio.get_running_loop().create_future()
        self.waiting[self.last] = answer
        await self.ws.send(json.dumps({"id": self.last, "method": method, "params": params}))
        message = await asyncio.wait_for(answer, 30)
        assert message.get("type") != "error", f"{method}: {message}"
        result: dict[str, Any] = message["result"]
        return result


@contextlib.contextmanager
def firefox_serving(executable: str) -> Iterator[int]:
    """Headless Firefox on a fresh profile, serving WebDriver BiDi on the port yielded."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    profile = tempfile.mkdtemp(prefix="turnpost-firefox-")
    command = [executable, "--headless", "--no-remote", "--profile", profile]
    proc = subprocess.Popen(
        [*command, f"--remote-debugging-port={port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.asynccontextmanager
async def browser(port: int) -> AsyncIterator[Bidi]:
    for _ in range(150):
        try:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/session", max_size=None)
            break
        except OSError:
            await asyncio.sleep(0.2)
    else:
        raise AssertionError("Firefox did not open its WebDriver BiDi port in 30 s")
    session = Bidi(ws)
    pump = asyncio.create_task(session.pump())
    try:
        await session.send("session.new", capabilities={})
        await session.send("session.subscribe", events=["log.entryAdded"])
        yield session
    finally:
        pump.cancel()
        await ws.close()


async def first_moves(port: int, lobby: str) -> dict[str, Any]:
    async with browser(port) as session:
        tree = await session.send("browsingContext.getTree")
        context = tree["contexts"][0]["context"]

        async def js(expression: str) -> Any:
            result = await session.send(
                "script.evaluate",
                expression=expression,
                target={"context": context},
                awaitPromise=True,
            )
            assert result.get("type") != "exception", result
            return result["result"].get("value")

        async def until(selector: str, seconds: float = 30) -> None:
            for _ in range(int(seconds * 10)):
                if await js(f"Boolean(document.querySelector({json.dumps(selector)}))"):
                    return
                await asyncio.sleep(0.1)
            raise AssertionError(f"no {selector} in Firefox after {seconds} s")

        async def click(selector: str) -> bool:
            return bool(
                await js(
                    f"(b => b ? (b.click(), true) : false)(document.querySelector({json.dumps(selector)}))"
                )
            )

        await session.send(
            "browsingContext.navigate", context=context, url=f"{lobby}/play/", wait="complete"
        )
        await until("#name")
        await js("document.querySelector('#name').value = 'Fox'")
        await click("#register button[type=submit]")
        await click_when(until, click, '.game-entry[data-key="itty-bitty"] button[type=submit]')
        await click_when(until, click, "#start")
        await until(".game .market .card")
        version = "Number(document.querySelector('.game').dataset.version)"
        start = await js(version)
        # a move counts when the service accepted it: the log has one more of Fox's own
        mine = "document.querySelectorAll('.log li[data-seat=\"0\"]').length"
        own_start = await js(mine)
        moves = 0
        deadline = time.monotonic() + 150
        while moves < 6 and time.monotonic() < deadline:
            before = await js(mine)
            if not await click("button.action:not([disabled])"):
                # many moves: the page asks for one choice at a time (the kind, a field...)
                await click("button.choose:not([disabled])")
            else:
                for _ in range(100):
                    if await js(f"!document.querySelector('.moves.busy') && {mine} > {before}"):
                        moves += 1
                        break
                    await asyncio.sleep(0.1)
            await asyncio.sleep(0.3)
        # a bot's move after Fox's, read from the stream
        streamed = "document.querySelectorAll('.log li[data-via=stream][data-seat=\"1\"]').length"
        for _ in range(300):
            if await js(streamed):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1)
        return {
            "moves": moves,
            "own": await js(mine) - own_start,
            "rose": await js(version) - start,
            "streamed": await js("Number(document.querySelector('.game').dataset.streamed)"),
            "bot_streamed": await js(streamed),
            "live": await js("document.querySelector('#live').textContent"),
            "log": await js("document.querySelectorAll('.log li').length"),
            "hand": await js("document.querySelectorAll('.hand .card').length"),
            "notice": await js(
                "(n => n.hidden ? '' : n.textContent)(document.querySelector('#notice'))"
            ),
            "errors": [
                e
                for e in session.events
                if e.get("level") == "error" or e.get("type") == "javascript"
            ],
        }


async def click_when(until: Any, click: Any, selector: str) -> None:
    await until(selector)
    assert await click(selector), selector


def test_first_moves_in_firefox(stack: Stack) -> None:
    executable = firefox()
    if executable is None:
        pytest.skip("no Firefox on this machine (apt-get install firefox-esr)")
    # a loop of its own, never made the thread's current one (pytest-asyncio keeps a session's)
    loop = asyncio.new_event_loop()
    try:
        with firefox_serving(executable) as port:
            seen = loop.run_until_complete(first_moves(port, stack.lobby))
    finally:
        loop.close()
    assert seen["errors"] == [], seen["errors"]
    assert seen["moves"] == 6, seen  # six moves accepted, each its own line in the log
    assert seen["rose"] >= seen["own"] >= 6, seen  # the version rose by them (and the bot's)
    assert seen["live"] == "live (stream)", seen
    # the SSE stream, read by fetch() in Firefox: a bot's move reached the log by it
    assert seen["bot_streamed"] >= 1 and seen["streamed"] >= seen["bot_streamed"], seen
    assert seen["hand"] >= 3 and seen["log"] > 6, seen
    assert seen["notice"] == "" or "moved on" in seen["notice"], seen
