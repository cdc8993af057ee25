"""Every page's cursor, forged: 400 `bad_cursor`, never a driver's error nor a 500. A cursor
is the client's text; what it holds is checked before it reaches Postgres."""

from __future__ import annotations

import base64

import httpx
import pytest

from infra.settings import Settings
from services.game.app import create_app as game_app
from tests.integration.serve import serving
from tests.integration.test_lobby_api import auth, client, player, problem, settings  # noqa: F401


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


NUL, LONE = b'"\\u0000"', b'"\\ud800"'  # JSON for a NUL, for a lone surrogate
OUT_OF_UTC = (b'"0001-01-01T00:00:00+14:00"', b'"9999-12-31T23:59:59-14:00"')
NAIVE = b'"2020-01-01T00:00:00"'
WHEN = b'"2020-01-01T00:00:00+00:00"'
FORGED = {
    # lobby: the rooms' list (time|room id), a player's history ([time, game id]), a
    # leaderboard ([ordinal, subject, place])
    "/v1/rooms": [
        "0001-01-01T00:00:00+14:00|r-1",
        "9999-12-31T23:59:59-14:00|r-1",
        "2020-01-01",  # no offset, no room
        "2020-01-01T00:00:00+00:00|",  # no room
        "2020-01-01T00:00:00+00:00|r-\x00",
    ],
    "/v1/players/{ada}/games": [
        b64(b"[" + OUT_OF_UTC[0] + b',"g"]'),
        b64(b"[" + OUT_OF_UTC[1] + b',"g"]'),
        b64(b"[" + NAIVE + b',"g"]'),
        b64(b"[" + WHEN + b"," + NUL + b"]"),
        b64(b"[" + WHEN + b"," + LONE + b"]"),
        b64(b"[" + WHEN + b',""]'),
    ],
    "/v1/leaderboards/itty-bitty": [
        b64(b'[NaN,"x",0]'),
        b64(b'[Infinity,"x",0]'),
        b64(b'[1e400,"x",0]'),
        b64(b'[1,"x",-5]'),
        b64(b'[1,"x",' + b"9" * 30 + b"]"),
        b64(b"[1," + NUL + b",0]"),
        b64(b"[1," + LONE + b",0]"),
    ],
}
GAME_FORGED = {
    # game service: the games to watch ([time, game id]) and mine ([deadline, created, id])
    "/v1/games": [
        b64(b"[" + OUT_OF_UTC[0] + b',"00000000-0000-0000-0000-000000000000"]'),
        b64(b"[" + NAIVE + b',"00000000-0000-0000-0000-000000000000"]'),
        b64(b"[" + WHEN + b',"not-a-uuid"]'),
    ],
    "/v1/me/games": [
        b64(b"[" + b"9" * 25 + b',1,"g"]'),
        b64(b"[1,-" + b"9" * 25 + b',"g"]'),
        b64(b"[1,1," + NUL + b"]"),
        b64(b'[1,1,""]'),
    ],
}


@pytest.mark.parametrize("path", list(FORGED))
async def test_a_forged_lobby_cursor_is_bad_cursor(
    client: httpx.AsyncClient,  # noqa: F811
    path: str,
) -> None:
    ada = await player(client, "Ada")
    for cursor in FORGED[path]:
        r = await client.get(
            path.format(ada=ada["id"]), params={"cursor": cursor}, headers=auth(ada)
        )
        problem(r, 400, "bad_cursor")


async def test_a_forged_game_cursor_is_bad_cursor(
    client: httpx.AsyncClient,  # noqa: F811
    settings: Settings,  # noqa: F811
) -> None:
    ada = await player(client, "Ada")
    async with serving(game_app(settings)) as game:
        for path, cursors in GAME_FORGED.items():
            for cursor in cursors:
                r = await game.get(path, params={"cursor": cursor}, headers=auth(ada))
                problem(r, 400, "bad_cursor")
