"""Table chat over real Postgres and Redis (the game service in-process, uvicorn): plain text
in and out, whatever it holds; a muted player's messages and a hidden spectators' channel
never reach the reader who chose so, over the REST feed, the chat pages, the SSE stream and
the record; the rules of speaking (blank, NUL, too long, after the end, a retry, the rate)."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest

from contracts.streams import bots_to_act
from services.bots.dispatcher import Turns
from services.game.service import GameService
from tests.integration.tables import game_service, new_game
from tests.integration.test_sse import Served, auth, play, served, settings_for, stream

# markup, an entity, a script, ANSI and bidi controls, a tab, a newline: all kept as sent
NASTY = '<b>hi</b> &amp; <script>alert("x")</script> \x1b[31mred\x1b[0m \u202egnp.exe\t\nok'


@pytest.fixture
async def game(database_url: str, redis_url: str, stream_prefix: str) -> AsyncIterator[Served]:
    prefix = f"{stream_prefix}chat-{uuid.uuid4().hex[:6]}:"
    settings = settings_for(database_url, redis_url, prefix)
    async with served(msgspec.structs.replace(settings, rate_limit_chat="100000/minute")) as s:
        yield s


async def say(client: httpx.AsyncClient, game_id: str, who: str, text: str, **kw: Any) -> Any:
    return await client.post(
        f"/v1/games/{game_id}/chat", json={"text": text}, headers={**auth(who), **kw}
    )


async def said(client: httpx.AsyncClient, game_id: str, who: str) -> list[tuple[str, str]]:
    """(author, text) of the chat as `who` reads it, every page."""
    out, after = [], 0
    while True:
        r = await client.get(
            f"/v1/games/{game_id}/chat", params={"after": after, "limit": 1}, headers=auth(who)
        )
        assert r.status_code == 200, r.text
        out += [(m["player_id"], m["text"]) for m in r.json()["items"]]
        if r.json()["next_after"] is None:
            return out
        after = r.json()["next_after"]


async def in_feed(client: httpx.AsyncClient, game_id: str, who: str) -> list[tuple[str, str]]:
    r = await client.get(f"/v1/games/{game_id}/events", headers=auth(who))
    return [
        (e["data"]["player_id"], e["data"]["text"])
        for e in r.json()["events"]
        if e["type"] == "chat_said"
    ]


async def mute(client: httpx.AsyncClient, who: str, **settings: Any) -> None:
    r = await client.put("/v1/me/chat-settings", json=settings, headers=auth(who))
    assert r.status_code == 200, r.text
    got = (await client.get("/v1/me/chat-settings", headers=auth(who))).json()
    hide = settings.get("hide_spectators", False)
    assert got == {"muted": sorted(settings.get("muted", [])), "hide_spectators": hide}


async def test_chat_is_plain_text_and_what_a_reader_muted_or_hid_never_reaches_them(
    game: Served, pool: Any
) -> None:
    svc: GameService = game_service(pool)
    game_id, (ada, bob) = await new_game(svc, [None, None])
    cy, dee = f"cy-{uuid.uuid4().hex[:6]}", f"dee-{uuid.uuid4().hex[:6]}"  # spectators
    c = game.client
    posted = await say(c, game_id, ada, NASTY)
    assert posted.status_code == 201, posted.text
    mine = posted.json()
    assert (mine["channel"], mine["seat"], mine["text"]) == ("players", 0, NASTY)
    watching = (await say(c, game_id, cy, "go Bob")).json()
    assert (watching["channel"], watching["seat"]) == ("spectators", None)
    await say(c, game_id, bob, "thanks")
    # served back as sent, as JSON text: never escaped into markup, never stripped
    assert await said(c, game_id, dee) == [(ada, NASTY), (cy, "go Bob"), (bob, "thanks")]
    events = (await c.get(f"/v1/games/{game_id}/events", headers=auth(dee))).json()["events"]
    [first] = [e for e in events if e["type"] == "chat_said"][:1]
    assert first["data"]["text"] == NASTY and first["text"].endswith(NASTY)
    assert first["text"].startswith("p0 says: ")

    # Bob mutes Ada; Ada hides the spectators: for themselves alone
    await mute(c, bob, muted=[ada])
    await mute(c, ada, hide_spectators=True)
    problem = await c.put("/v1/me/chat-settings", json={"muted": [ada]}, headers=auth(ada))
    assert problem.status_code == 422 and problem.json()["code"] == "own_mute"
    assert await said(c, game_id, bob) == [(cy, "go Bob"), (bob, "thanks")]
    assert await said(c, game_id, ada) == [(ada, NASTY), (bob, "thanks")]
    assert await said(c, game_id, dee) == [(ada, NASTY), (cy, "go Bob"), (bob, "thanks")]
    assert await in_feed(c, game_id, bob) == [(cy, "go Bob"), (bob, "thanks")]
    assert await in_feed(c, game_id, ada) == [(ada, NASTY), (bob, "thanks")]
    # the live stream: the same, and a message said while it is open
    version = (await c.get(f"/v1/games/{game_id}", headers=auth(ada))).json()["version"]
    async with stream(c, game_id, bob) as live:
        late = (await say(c, game_id, ada, "still there?")).json()
        await say(c, game_id, cy, "hello again")
        last = (await say(c, game_id, bob, "yes")).json()["version"]
        frames = await live.until(last)
    heard = [(f["data"]["data"]["player_id"], f["data"]["data"]["text"])
             for f in frames if f["event"] == "chat_said"]  # fmt: skip
    assert heard == [(cy, "go Bob"), (bob, "thanks"), (cy, "hello again"), (bob, "yes")]
    assert all(int(f["id"]) != late["version"] for f in frames)
    assert max(int(f["id"]) for f in frames) == last > version
    async with stream(c, game_id, ada) as live:
        frames = await live.until(last)
    assert ("hello again" not in str(frames)) and "go Bob" not in str(frames)

    # Ada's long-poll: a spectator's message, hidden from her, is no news: the wait goes on
    # to the next thing she reads (it answered at once with nothing before)
    now = (await c.get(f"/v1/games/{game_id}", headers=auth(ada))).json()["version"]

    async def chatter() -> int:
        await asyncio.sleep(0.2)
        await say(c, game_id, cy, "psst")
        await asyncio.sleep(0.3)
        return int((await say(c, game_id, bob, "ok")).json()["version"])

    talking = asyncio.create_task(chatter())
    params = {"after": now, "wait": 10}
    polled = (await c.get(f"/v1/games/{game_id}/events", params=params, headers=auth(ada))).json()
    bobs = await talking
    assert [e["data"]["text"] for e in polled["events"]] == ["ok"]
    assert polled["last_version"] == bobs

    # the record, once the game is over: every message kept, the hidden ones blanked
    await play(svc, game_id, 5_000, random.Random(3))
    record = (await c.get(f"/v1/games/{game_id}/record", headers=auth(bob))).text
    lines = [msgspec.json.decode(x) for x in record.splitlines()]
    chats = [e["data"] for line in lines[1:] for e in line["events"] if e["type"] == "chat_said"]
    assert len(chats) == 8
    texts = ["", "go Bob", "thanks", "", "hello again", "yes", "psst", "ok"]
    assert [c_["text"] for c_ in chats] == texts
    assert [c_["hidden"] for c_ in chats] == [True, False, False, True, False, False, False, False]
    assert ada not in str([c_ for c_ in chats if c_["hidden"]]) and NASTY not in record
    full = (await c.get(f"/v1/games/{game_id}/record", headers=auth(dee))).text
    assert msgspec.json.encode(NASTY).decode() in full  # a reader who hid nothing: all of it
    after = await say(c, game_id, ada, "gg")
    assert after.status_code == 409 and after.json()["code"] == "game_finished"


async def test_the_rules_of_speaking(game: Served, pool: Any) -> None:
    svc: GameService = game_service(pool)
    game_id, (ada, _) = await new_game(svc, [None, "random"])
    c = game.client
    for text, status, code in [
        ("   \n\t", 422, "empty_message"),
        ("a\x00b", 422, "invalid_text"),
        ("x" * 501, 400, "malformed_request"),
        ("", 400, "malformed_request"),
    ]:
        r = await say(c, game_id, ada, text)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert (await say(c, game_id, ada, "é" * 500)).status_code == 201  # characters, not bytes
    # a retry with its Idempotency-Key: the same message, nothing appended again
    first = await say(c, game_id, ada, "once", **{"Idempotency-Key": "k1"})
    again = await say(c, game_id, ada, "once", **{"Idempotency-Key": "k1"})
    assert first.json() == again.json()
    other = await say(c, game_id, ada, "twice?", **{"Idempotency-Key": "k1"})
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert [t for _, t in await said(c, game_id, ada)][:2] == ["é" * 500, "once"]
    unknown = await say(c, str(uuid.uuid4()), ada, "hi")
    assert unknown.status_code == 404
    # a game begun under table rules 2 takes no chat: a replica of that release reads its log
    older, (old_ada, _) = await new_game(svc, [None, None])
    await pool.execute(
        """UPDATE events SET metadata = jsonb_set(metadata, '{table_rules}', '2')
           WHERE stream_id = $1 AND version = 1""",
        f"game-{older}",
    )
    refused = await say(c, older, old_ada, "hello")
    assert (refused.status_code, refused.json()["code"]) == (409, "chat_unavailable")
    # a word at the table leaves the clock projection's timers alone: a chat every few
    # seconds must not hold back the bots' resends nor a deadline_soon
    await pool.execute(
        """UPDATE turns SET waiting_since = now() - interval '1 hour', bot_sends = 2
           WHERE game_id = $1""",
        uuid.UUID(game_id),
    )
    before = await pool.fetchrow("SELECT * FROM turns WHERE game_id = $1", uuid.UUID(game_id))
    await say(c, game_id, ada, "still here")
    after = await pool.fetchrow("SELECT * FROM turns WHERE game_id = $1", uuid.UUID(game_id))
    assert after["version"] == before["version"] + 1
    assert (after["waiting_since"], after["bot_sends"]) == (
        before["waiting_since"],
        before["bot_sends"],
    )
    # a word at the table asks no bot to move: the dispatcher reads the envelope and skips
    envelope = {"type": "chat_said", "batch_end": True, "status": "active", "to_act": [1],
                "bots": {"1": "random"}, "game_id": game_id, "game": "itty-bitty",
                "version": 9}  # fmt: skip
    assert bots_to_act(msgspec.convert(envelope, Turns)) == []
    assert bots_to_act(msgspec.convert({**envelope, "type": "card_played"}, Turns)) == [
        (1, "random")
    ]


async def test_chat_is_rate_limited_per_player(
    database_url: str, redis_url: str, stream_prefix: str, pool: Any
) -> None:
    prefix = f"{stream_prefix}chat-rl-{uuid.uuid4().hex[:6]}:"
    settings = msgspec.structs.replace(
        settings_for(database_url, redis_url, prefix), rate_limit_chat="3/minute"
    )
    svc: GameService = game_service(pool)
    game_id, (ada, bob) = await new_game(svc, [None, None])
    async with served(settings) as s:
        codes = [(await say(s.client, game_id, ada, f"m{i}")).status_code for i in range(4)]
        assert codes == [201, 201, 201, 429]
        assert (await say(s.client, game_id, bob, "mine")).status_code == 201  # per player
        # moves are counted apart: chatting spends none of them
        legal = await s.client.get(f"/v1/games/{game_id}/legal-actions", headers=auth(ada))
        assert legal.status_code == 200
