"""The move cycle's fast routes (infra/http/fastpath.py) answer exactly as Litestar's handlers do.

Two game services on the same Postgres and Redis, one with fast routes (the default) and one
without (`fast_routes=False`), each with a game of its own dealt from the same seed to the
same players. Every request below goes to both, in the same order, the second game's id in
place of the first's: the answers must match byte for byte (the game's id and the times
aside), and the requests of the plain shape must have been answered by the fast route,
the others handed to Litestar.
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

import services.game.app as game_app
import services.game.routes.games as game_routes
from contracts.streams import RoomStarted, StartedSeat
from infra.auth.bearer import issue
from infra.auth.keys import SigningKey
from infra.settings import Settings
from services.game import commands
from services.game.service import GameService
from tests.integration.serve import serving
from tests.integration.tables import game_service

SECRET = secrets.token_urlsafe(48)
KEY = SigningKey.from_secret(SECRET)
PLAYERS = [f"fast-{uuid.uuid4()}-{seat}" for seat in range(3)]
STRANGER = f"fast-{uuid.uuid4()}-stranger"
_ROOM = re.compile(r'"room_id":"[^"]*"')
_TIMES = re.compile(r'"(recorded_at|deadline)":"[^"]*"')
_VARYING = {"date", "server", "x-request-id"}  # set per response by design


def bearer(player: str) -> str:
    return f"Bearer {issue(KEY, player, player[-8:])}"


def seat(n: int) -> dict[str, str]:
    return {"authorization": bearer(PLAYERS[n])}


class Twins:
    """The two services and their two games; `both` sends one request to each."""

    def __init__(
        self, fast: httpx.AsyncClient, slow: httpx.AsyncClient, ids: tuple[str, str]
    ) -> None:
        self.fast, self.slow, self.ids = fast, slow, ids
        self.answered_fast = 0

    async def both(
        self,
        method: str,
        path: str,
        *,
        fast: bool,
        headers: Any = None,
        **kw: Any,
    ) -> httpx.Response:
        """The fast service's answer, after checking the slow one's is the same and that
        the fast route took the request (`fast`) or handed it to Litestar."""
        before = self.answered_fast
        a = await self.fast.request(method, path.format(game=self.ids[0]), headers=headers, **kw)
        took = self.answered_fast - before
        b = await self.slow.request(method, path.format(game=self.ids[1]), headers=headers, **kw)
        assert self.answered_fast - before == took, "the slow service took a fast route"
        where = f"{method} {path} {kw}"
        assert took == (1 if fast else 0), f"{where}: fast route taken {took} times"
        assert a.status_code == b.status_code, f"{where}: {a.text} / {b.text}"
        assert self._body(a, 0) == self._body(b, 1), where
        assert self._headers(a) == self._headers(b), where
        assert a.headers["x-request-id"] and b.headers["x-request-id"]
        return a

    def _body(self, response: httpx.Response, which: int) -> str:
        text = response.text
        for spelling in (self.ids[which], self.ids[which].upper()):
            text = text.replace(spelling, "{game}")
        text = _ROOM.sub('"room_id":"{room}"', text)  # each game's own room
        return _TIMES.sub(r'"\1":"..."', text)

    @staticmethod
    def _headers(response: httpx.Response) -> dict[str, str]:
        named = {k: v for k, v in response.headers.items() if k not in _VARYING}
        for k in list(named):
            if k.startswith("ratelimit"):  # both spend the one bucket of each caller
                named[k] = "..."
        named.pop("content-length", None)  # the ids' spellings are as long; the times not
        return named


@pytest.fixture
async def twins(
    database_url: str,
    redis_url: str,
    stream_prefix: str,
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Twins]:
    seed = secrets.randbits(62)
    monkeypatch.setattr(commands, "new_seed", lambda: seed)
    ids = []
    for _ in range(2):
        room = f"room-{uuid.uuid4()}"
        seats = [StartedSeat(seat=i, player_id=p, name=f"p{i}") for i, p in enumerate(PLAYERS)]
        ids.append(
            await service.create_from_room(
                RoomStarted(room_id=room, game="itty-bitty", seats=seats, options={})
            )
        )
    base = {
        "database_url": database_url,
        "redis_url": redis_url,
        "secret": SECRET,
        "stream_prefix": stream_prefix,
        "cors_allow_origins": WEB,
    }
    answer = game_routes.answer
    box: list[Twins] = []

    async def counted(scope: Any, receive: Any, send: Any, job: Callable[[], Awaitable[Any]]):
        box[0].answered_fast += 1
        await answer(scope, receive, send, job)

    monkeypatch.setattr(game_routes, "answer", counted)
    async with (
        serving(game_app.create_app(Settings(**base))) as fast,
        serving(game_app.create_app(Settings(**base, fast_routes=False))) as slow,
    ):
        box.append(Twins(fast, slow, (ids[0], ids[1])))
        yield box[0]


@pytest.fixture
def service(pool: Any) -> GameService:
    return game_service(pool)


WEB = "https://web.example"
VIEW = "/v1/games/{game}"
LEGAL = "/v1/games/{game}/legal-actions"
ACT = "/v1/games/{game}/actions"


async def test_reads_answer_as_litestar_does(twins: Twins) -> None:
    both = twins.both
    view = (await both("GET", VIEW, fast=True, headers=seat(0))).json()
    assert view["your_seat"] == 0 and view["version"] == 11
    for n in (1, 2):
        await both("GET", VIEW, fast=True, headers=seat(n))
    await both("GET", VIEW, fast=True, headers={"authorization": bearer(STRANGER)})
    for query in ("0", "11", "10"):
        await both("GET", VIEW, fast=True, headers=seat(0), params={"min_version": query})
    beyond = await both("GET", VIEW, fast=True, headers=seat(0), params={"min_version": 12})
    assert beyond.json()["code"] == "min_version_beyond_version"
    # what Litestar alone reads (a float that is whole) or refuses in its own words
    for query in ("abc", "-1", "", str(2**62 + 1), "1" * 25, "+3", "1.0", "011", "00"):
        await both("GET", VIEW, fast=False, headers=seat(0), params={"min_version": query})
    await both("GET", VIEW, fast=False, headers=seat(0), params={"min_version": 3, "x": 1})
    await both("GET", VIEW, fast=False, headers=seat(0), params={"x": 1})
    await both("GET", VIEW, fast=False, headers=seat(0), params=[("min_version", 1)] * 2)
    # a missing or bad token: Edge refuses it before any route, fast or not (infra/http/edge.py)
    for headers in ({}, {"authorization": "Bearer nonsense"}, {"authorization": "Basic eDp5"}):
        assert (await both("GET", VIEW, fast=False, headers=headers)).status_code == 401
    two = [("authorization", bearer(PLAYERS[0])), ("authorization", bearer(PLAYERS[1]))]
    await both("GET", VIEW, fast=False, headers=two)
    for path in (f"/v1/games/{uuid.uuid4()}", "/v1/games/not-a-game"):
        assert (await both("GET", path, fast=True, headers=seat(0))).status_code == 404
    # a browser's (CORS: Litestar's outer layers add their headers) and a path with a slash
    # more, which the router reads as without it
    browser = {**seat(0), "origin": WEB}
    cors = await both("GET", VIEW, fast=True, headers=browser)
    assert cors.headers["access-control-allow-origin"] == WEB
    await both("GET", VIEW + "/", fast=True, headers=seat(0))
    await both("GET", LEGAL, fast=True, headers={**seat(1), "origin": "https://elsewhere"})
    upper = await twins.fast.get(VIEW.format(game=twins.ids[0].upper()), headers=seat(0))
    assert upper.status_code == 200 and upper.json()["id"] == twins.ids[0]

    legal = (await both("GET", LEGAL, fast=True, headers=seat(0))).json()
    assert legal["seat"] == 0 and legal["actions"] and legal["version"] == 11
    assert view["legal_actions"] is None  # not asked for

    # the view and its legal actions in one answer: the same as the two routes give
    include = {"include": "legal_actions"}
    for n in (0, 1, 2):
        with_legal = await both("GET", VIEW, fast=True, headers=seat(n), params=include)
        alone = await both("GET", LEGAL, fast=True, headers=seat(n))
        assert with_legal.json()["legal_actions"] == alone.json()
        assert {**with_legal.json(), "legal_actions": None} == (
            await both("GET", VIEW, fast=True, headers=seat(n))
        ).json()
    spectator = {"authorization": bearer(STRANGER)}
    assert (await both("GET", VIEW, fast=True, headers=spectator, params=include)).json()[
        "legal_actions"
    ] is None
    for params in (
        {"min_version": 11, "include": "legal_actions"},
        [("include", "legal_actions"), ("min_version", "11")],
    ):
        await both("GET", VIEW, fast=True, headers=seat(1), params=params)
    for params in (
        {"include": "view"},
        {"include": ""},
        {"include": "LEGAL_ACTIONS"},
        [("include", "legal_actions")] * 2,
        {"include": "legal_actions", "x": 1},
    ):
        await both("GET", VIEW, fast=False, headers=seat(0), params=params)
    assert (
        await both("GET", VIEW, fast=False, headers=seat(0), params={"include": "view"})
    ).json()["status"] == 400
    with_at = await both("GET", VIEW, fast=False, headers=seat(0), params={**include, "at": 3})
    assert with_at.json()["code"] == "include_with_at"
    # the legal-actions route reads no `include`: Litestar's answer, not the fast route's
    await both("GET", LEGAL, fast=False, headers=seat(0), params=include)
    await both("GET", LEGAL, fast=True, headers=seat(2), params={"min_version": 11})
    stranger = {"authorization": bearer(STRANGER)}
    assert (await both("GET", LEGAL, fast=True, headers=stranger)).status_code == 403
    assert (await both("GET", LEGAL, fast=False)).status_code == 401
    await both("GET", LEGAL, fast=False, headers=seat(0), params={"min_version": "x"})


async def test_moves_and_their_refusals_answer_as_litestar_does(twins: Twins) -> None:
    both = twins.both

    async def version() -> int:
        view = (await both("GET", VIEW, fast=True, headers=seat(0))).json()
        return int(view["version"])

    legal = [(await both("GET", LEGAL, fast=True, headers=seat(n))).json() for n in range(3)]
    first = [game["actions"][0] for game in legal]
    plain = {"action": {k: v for k, v in first[0].items() if k != "text"}, "expected_version": 11}

    # what only Litestar reads, or refuses in its own words
    for body in (
        b"not json",
        b"",
        b"[]",
        b'{"action": {"type": "x"}}',
        b'{"action": {"type": "x"}, "expected_version": 11, "extra": 1}',
        b'{"action": {"type": "x"}, "expected_version": "11"}',
        b'{"action": {"type": "x"}, "expected_version": true}',
        b'{"action": {"type": "x"}, "expected_version": -1}',
        b'{"action": {"type": "x"}, "expected_version": 1e16}',  # whole, but past 2**53
        b'{"action": {"type": "x"}, "expected_version": 4.611686018427388e18}',
    ):
        refused = await both("POST", ACT, fast=False, headers=seat(0), content=body)
        assert refused.status_code == 400, body
    # the missing token is refused first (by Edge), before the body is read
    past = b'{"action": {"type": "x"}, "expected_version": 1e16}'
    assert (await both("POST", ACT, fast=False, content=past)).status_code == 401
    long_key = {**seat(0), "idempotency-key": "k" * 201}
    assert (await both("POST", ACT, fast=False, headers=long_key, json=plain)).status_code == 400

    # refusals the move's own rules give
    assert (await both("POST", ACT, fast=False, json=plain)).status_code == 401
    stranger = {"authorization": bearer(STRANGER)}
    assert (await both("POST", ACT, fast=True, headers=stranger, json=plain)).status_code == 403
    stale = await both(
        "POST", ACT, fast=True, headers=seat(0), json={**plain, "expected_version": 5}
    )
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    nonsense = {"action": {"type": "nonsense"}, "expected_version": 11}
    bad = await both("POST", ACT, fast=True, headers=seat(0), json=nonsense)
    assert bad.status_code == 400, bad.text

    from_browser = {**seat(0), "origin": WEB}
    assert (
        await both("POST", ACT, fast=True, headers=from_browser, json=nonsense)
    ).status_code == 400

    # moves Litestar takes (a body declared as text, a whole-number float), and the fast
    # path's: the words a client echoes back from legal-actions, an Idempotency-Key, its replay
    as_text = {**seat(0), "content-type": "text/plain"}
    moved = await both("POST", ACT, fast=False, headers=as_text, json=plain)
    assert moved.status_code == 200, moved.text
    again = await both("POST", ACT, fast=True, headers=seat(0), json=plain)
    assert again.status_code in (409, 422), again.text  # seat 0 has chosen
    action = httpx.Request("POST", "/", json=first[1]).content
    whole = b'{"action": %s, "expected_version": %d.0}' % (action, await version())
    assert (await both("POST", ACT, fast=False, headers=seat(1), content=whole)).status_code == 200
    keyed = {**seat(2), "idempotency-key": "move-of-seat-2"}
    assert "text" in first[2]
    third = {"action": first[2], "expected_version": await version()}
    accepted = (await both("POST", ACT, fast=True, headers=keyed, json=third)).json()
    assert accepted["replayed"] is False and accepted["events"]
    replayed = (await both("POST", ACT, fast=True, headers=keyed, json=third)).json()
    assert replayed["replayed"] is True and replayed["version"] == accepted["version"]
    other = {"action": first[0], "expected_version": await version()}
    reused = await both("POST", ACT, fast=True, headers=keyed, json=other)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"

    # and the games went the same way, to the next move of whoever must play it
    for n in range(3):
        await both("GET", VIEW, fast=True, headers=seat(n))
        listed = (await both("GET", LEGAL, fast=True, headers=seat(n))).json()
        if listed["actions"]:
            move = {"action": listed["actions"][0], "expected_version": listed["version"]}
            assert (await both("POST", ACT, fast=True, headers=seat(n), json=move)).is_success
