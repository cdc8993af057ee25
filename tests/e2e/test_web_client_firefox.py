"""The web client in Firefox, the distribution's (firefox-esr), driven over WebDriver BiDi, the
W3C protocol Firefox itself serves (`--remote-debugging-port`): no driver binary, and
Playwright's own Firefox build is never downloaded. A whole game of each of the three played
by the page's controls, each move accepted (the game's version rises by them), the bot's
moves read from the live stream through fetch() in Firefox, and no JavaScript error.
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


# One step of a person's play, run in the page: the outcome reached, a move played (the
# preferred kinds first), one choice made on the way to a move (the page shows a dozen at a
# time: a kind, then a field), or nothing to do yet (another's turn, the page busy).
STEP = """(prefer) => {
  if (document.querySelector('.outcome')) return 'over';
  const moves = document.querySelector('.moves');
  if (!moves || moves.classList.contains('busy')) return 'wait';
  for (const kind of [...prefer, '']) {
    const where = kind ? `.group[data-types~="${kind}"] ` : '';
    const play = document.querySelector(`${where}button.action:not([disabled])`);
    if (play) { play.click(); return 'played'; }
    const step = document.querySelector(`${where}button.choose:not([disabled])`);
    if (step) { step.click(); return 'chose'; }
  }
  return 'wait';
}"""


async def whole_game(
    port: int, lobby: str, game: str, prefer: list[list[str]], seconds: float
) -> dict[str, Any]:
    """Register, open a room of `game` (two seats, a greedy bot), start, and play by the page's
    controls to the outcome; `prefer[n % len(prefer)]` the kinds preferred at the n-th move."""
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
        await click_when(until, click, f'.game-entry[data-key="{game}"] button[type=submit]')
        await click_when(until, click, "#start")
        await until(".game .moves, .game .outcome")
        version = "Number(document.querySelector('.game').dataset.version)"
        start = await js(version)
        mine = "document.querySelectorAll('.log li[data-seat=\"0\"]').length"
        played = chose = 0
        deadline = time.monotonic() + seconds
        while True:
            assert time.monotonic() < deadline, f"{game}: no outcome after {played} moves"
            kinds = prefer[played % len(prefer)] if prefer else []
            done = await js(f"({STEP})({json.dumps(kinds)})")
            if done == "over":
                break
            played += done == "played"
            chose += done == "chose"
            await asyncio.sleep(0.05 if done == "chose" else 0.15)
        streamed = "document.querySelectorAll('.log li[data-via=stream][data-seat=\"1\"]').length"
        return {
            "played": played,
            "chose": chose,
            "own": await js(mine),
            "rose": await js(version) - start,
            "bot_streamed": await js(streamed),
            "outcome": await js("document.querySelector('.outcome h2')?.textContent || ''"),
            "rows": await js("document.querySelectorAll('.outcome tbody tr').length"),
            "turn": await js("document.querySelector('.status-bar .turn')?.textContent"),
            "notice": await js(
                "(n => n.hidden || !n.classList.contains('error') ? '' : n.textContent)"
                "(document.querySelector('#notice'))"
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


GAMES = {  # the kinds a person might prefer, move by move: the game ends sooner
    "itty-bitty": [
        ["complete_collector", "keep_collector"],
        ["complete_collector", "keep_collector", "draw_collectors"],
    ],
    # a trade is one of many: chosen a field at a time
    "itchy-feet": [["travel"], ["travel", "offer_trade"]],
    "footprints": [["top"], []],  # moves on the map when it may
}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_in_firefox(stack: Stack, game: str) -> None:
    """A whole game of each of the three, played to its outcome in Firefox by the page's
    controls (a choice at a time where the moves are many), against a greedy bot whose moves
    reach the page by the live stream (read by fetch() in Firefox), with no JavaScript error."""
    executable = firefox()
    if executable is None:
        pytest.skip("no Firefox on this machine (apt-get install firefox-esr)")
    # a loop of its own, never made the thread's current one (pytest-asyncio keeps a session's)
    loop = asyncio.new_event_loop()
    try:
        with firefox_serving(executable) as port:
            seen = loop.run_until_complete(whole_game(port, stack.lobby, game, GAMES[game], 420))
    finally:
        loop.close()
    assert seen["errors"] == [], seen["errors"]
    assert seen["notice"] == "", seen
    assert seen["outcome"] and seen["rows"] == 2 and seen["turn"] == "Game over", seen
    # every move played is the person's own line in the log, and the version rose by them
    assert seen["own"] >= seen["played"] >= 5 and seen["rose"] > seen["played"], seen
    assert seen["bot_streamed"] >= 1, seen  # the bot's moves came by the stream
    if game == "itchy-feet":  # trades chosen a kind, then a field, at a time
        assert seen["chose"] >= 2, seen
