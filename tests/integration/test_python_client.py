"""The Python client (`turnpost.client`) against both services served in-process on real
Postgres and Redis, with the relay: whole games, a 409 re-decided, a 429 waited out, problems
as typed exceptions, the long-poll and both SSE streams as iterators, sync and async."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from contracts.game import GameView, LegalActions
from contracts.lobby import GameContent, GameSchemas, PlayerCreated, Room, RoomPage
from contracts.notifications import Deliveries, QueuedTest, Webhook, WebhookCreated, Webhooks
from infra.settings import Settings
from services.game import relay
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app
from tests.integration.serve import serving
from turnpost.client import (
    AsyncClient,
    Client,
    Conflict,
    Forbidden,
    NotFound,
    Policy,
    RateLimited,
    StaleVersion,
    Unauthorized,
    Unprocessable,
)

SECRET = secrets.token_urlsafe(48)


class Urls(msgspec.Struct, frozen=True):
    lobby: str
    game: str


@contextlib.asynccontextmanager
async def services(settings: Settings) -> AsyncIterator[Urls]:
    stop = asyncio.Event()
    relaying = asyncio.create_task(relay.run(settings, stop, poll_seconds=0.1))
    try:
        async with serving(lobby_app(settings)) as lobby, serving(game_app(settings)) as game:
            yield Urls(str(lobby.base_url), str(game.base_url))
    finally:
        stop.set()
        await relaying


@pytest.fixture
def settings(database_url: str, redis_url: str, stream_prefix: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=redis_url,
        secret=SECRET,
        stream_prefix=f"{stream_prefix}client-{uuid.uuid4().hex[:6]}:",
        sse_heartbeat_s=1.0,
    )


@pytest.fixture
async def urls(settings: Settings) -> AsyncIterator[Urls]:
    async with services(settings) as u:
        yield u


async def seated(urls: Urls, game: str, seats: int) -> tuple[list[AsyncClient], str]:
    """A room of `seats` people, each with their own client, started; the game's id."""
    players = [AsyncClient(urls.lobby, urls.game) for _ in range(seats)]
    await players[0].register("Ada")
    room = await players[0].create_room(game, seats)
    for i, p in enumerate(players[1:], 1):
        await p.register(f"P{i}")
        assert (await p.join_room(room.id)).seats[i].player_id is not None
    started = await players[0].start_room(room.id, fill=False, wait=10)
    assert started.status == "playing" and started.game_id
    return players, started.game_id


def at_random(rng: random.Random) -> Any:
    def decide(view: GameView, legal: LegalActions) -> Mapping[str, Any]:
        assert legal.version >= 1 and view.your_seat == legal.seat
        choice: Mapping[str, Any] = rng.choice(legal.actions)
        return choice

    return decide


async def test_every_route_of_both_services_is_a_method_of_both_clients(urls: Urls) -> None:
    async with httpx.AsyncClient() as http:
        ids = [
            op["operationId"]
            for base in (urls.lobby, urls.game)
            for methods in (await http.get(f"{base}/schema/openapi.json")).json()["paths"].values()
            for op in methods.values()
            if isinstance(op, dict) and "operationId" in op
        ]
    assert len(ids) >= 30
    names = ["".join(f"_{c.lower()}" if c.isupper() else c for c in i) for i in ids]
    assert [n for n in names if not callable(getattr(Client, n, None))] == []
    assert [n for n in names if not callable(getattr(AsyncClient, n, None))] == []


async def test_two_people_play_itty_bitty_to_the_end_with_the_async_client(urls: Urls) -> None:
    players, game_id = await seated(urls, "itty-bitty", 2)
    finals = await asyncio.gather(
        *(p.play_to_end(game_id, at_random(random.Random(i))) for i, p in enumerate(players))
    )
    assert {f.status for f in finals} == {"finished"} and finals[0].to_act == []
    final = finals[0]
    assert final.outcome is not None and len(final.outcome.ranks) == 2
    # the long-poll and the SSE stream tell the same story, each to its end
    polled = [e async for e in players[0].iter_events(game_id)]
    streamed = [e async for e in players[0].stream_game_events(game_id)]
    assert [e.version for e in polled] == list(range(1, final.version + 1))
    assert [(e.version, e.type, e.text) for e in streamed] == [
        (e.version, e.type, e.text) for e in polled
    ]
    assert {e.seat for e in polled} >= {0, 1} and all(e.text for e in polled)
    tail = [e async for e in players[1].stream_game_events(game_id, after=final.version - 2)]
    assert [e.version for e in tail] == [final.version - 1, final.version]
    mine = await players[0].get_my_games()
    assert [(g.id, g.status) for g in mine.items] == [(game_id, "finished")]
    for p in players:
        await p.aclose()


async def test_a_solo_footprints_game_to_the_end_with_the_sync_client(urls: Urls) -> None:
    await asyncio.to_thread(_solo_footprints, urls)  # the servers run on this loop


def _solo_footprints(urls: Urls) -> None:
    with Client(urls.lobby, urls.game) as me:
        me.register("Solo")
        catalog = me.get_catalog()
        assert "footprints" in [g.key for g in catalog.games]
        room = me.create_room("footprints", 1)
        game_id = me.start_room(room.id, wait=10).game_id
        assert game_id is not None
        assert me.get_game_map(game_id).map["spaces"]
        assert me.get_board_svg(game_id).startswith("<svg")
        moves = []
        for view in me.turns(game_id):
            assert view.your_seat == 0 and 0 in view.to_act
            moves.append(me.play(game_id, at_random(random.Random(len(moves)))))
        final = me.get_game(game_id)
        assert final.status == "finished" and final.outcome is not None
        assert len(moves) > 10 and all(m is not None and m.events for m in moves)
        events = list(me.iter_events(game_id, wait=1))
        assert [e.version for e in events] == list(range(1, final.version + 1))
        assert [e.version for e in me.stream_game_events(game_id)] == [e.version for e in events]
        assert me.get_room(room.id).game_id == game_id


async def test_a_stale_version_is_read_again_and_decided_again(urls: Urls) -> None:
    """The seat moves through a second client between `play`'s read and its post: the post
    is 409 `stale_version`, and `play` reads the game again and decides on the news."""
    players, game_id = await seated(urls, "itty-bitty", 2)
    twin = AsyncClient(urls.lobby, urls.game, players[0].token)
    rng = random.Random(3)
    seen: list[tuple[int, list[str]]] = []

    def decide(view: GameView, legal: LegalActions) -> Mapping[str, Any]:
        seen.append((legal.version, sorted({a["type"] for a in legal.actions})))
        return dict(rng.choice(legal.actions))

    async def race(view: GameView, legal: LegalActions) -> Mapping[str, Any]:
        """Draws through the twin at the version `play` read, then asks `play` to draw too."""
        seen.append((legal.version, sorted({a["type"] for a in legal.actions})))
        if len(seen) == 1:
            [draw] = [a for a in legal.actions if a["type"] == "draw_collectors"]
            await twin.post_action(game_id, draw, legal.version)
            return dict(draw)
        return dict(rng.choice(legal.actions))

    other = asyncio.create_task(players[1].play_to_end(game_id, at_random(random.Random(1))))
    try:
        async for _view in players[0].turns(game_id):
            legal = await players[0].get_legal_actions(game_id)
            if "draw_collectors" in {a["type"] for a in legal.actions}:
                break
            await players[0].play(game_id, decide)
        else:
            raise AssertionError("no turn offered a draw of collectors")
        seen.clear()
        accepted = await players[0].play(game_id, race)
        assert accepted is not None
        (first, offered), (second, answered) = seen
        assert "draw_collectors" in offered and answered == ["keep_collector"]
        assert second > first  # the twin's draw: the news `play` read and decided on
        assert "collector_kept" in [e.type for e in accepted.events]
        async for _ in players[0].turns(game_id):
            break  # seat 0 to act again
        # bounded: one attempt, and the 409 is raised with the version it stands at now
        with pytest.raises(StaleVersion) as raised:
            await players[0].play(game_id, _stale_once(twin, game_id), attempts=1)
        assert raised.value.status == 409 and raised.value.code == "stale_version"
        assert raised.value.current_version is not None and raised.value.detail
        # the blocking client alike
        async for _ in players[0].turns(game_id):
            break  # seat 0 to act again
        token = players[0].token

        def stale_in_sync() -> StaleVersion:
            with (
                Client(urls.lobby, urls.game, token) as me,
                Client(urls.lobby, urls.game, token) as twin,
            ):

                def decide(view: GameView, legal: LegalActions) -> Mapping[str, Any]:
                    twin.post_action(game_id, legal.actions[0], legal.version)
                    return dict(legal.actions[-1])

                with pytest.raises(StaleVersion) as raised:
                    me.play(game_id, decide, attempts=1)
                return raised.value

        stale = await asyncio.to_thread(stale_in_sync)
        assert stale.code == "stale_version" and stale.current_version
    finally:
        other.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await other
        for p in (*players, twin):
            await p.aclose()


def _stale_once(twin: AsyncClient, game_id: str) -> Any:
    async def decide(view: GameView, legal: LegalActions) -> Mapping[str, Any]:
        await twin.post_action(game_id, legal.actions[0], legal.version)
        return dict(legal.actions[-1])

    return decide


async def test_problems_are_typed_exceptions(urls: Urls) -> None:
    players, game_id = await seated(urls, "itty-bitty", 2)
    me = players[0]
    with pytest.raises(NotFound) as missing:
        await me.get_game("no-such-game")
    assert (missing.value.status, missing.value.code) == (404, "unknown_game")
    assert missing.value.problem.title == "Not found" and missing.value.detail
    stranger = AsyncClient(urls.lobby, urls.game)
    await stranger.register("Eve")
    with pytest.raises(Forbidden) as outside:
        await stranger.get_legal_actions(game_id)
    assert outside.value.code == "not_seated"
    legal = await me.get_legal_actions(game_id)
    with pytest.raises(Unprocessable) as refused:
        await me.post_action(game_id, {"type": "keep_collector", "card": "nope"}, legal.version)
    assert refused.value.status == 422 and refused.value.code and refused.value.detail
    with pytest.raises(Unauthorized) as nobody:
        await AsyncClient(urls.lobby, urls.game, token="not-a-token").get_my_games()
    assert nobody.value.code == "unauthorized"
    # the same key twice is the stored answer, not a second move
    first = await me.post_action(game_id, legal.actions[0], legal.version, idempotency_key="k1")
    again = await me.post_action(game_id, legal.actions[0], legal.version, idempotency_key="k1")
    assert again.replayed and again.version == first.version
    for c in (*players, stranger):
        await c.aclose()


async def test_a_429_is_waited_out_as_retry_after_says_with_the_same_idempotency_key(
    settings: Settings,
) -> None:
    tight = msgspec.structs.replace(
        settings, rate_limit_read="3/second", rate_limit_action="1/second"
    )
    sent: list[tuple[str, str | None]] = []
    answers: list[tuple[str, int, str | None]] = []

    async def on_request(request: httpx.Request) -> None:
        sent.append((request.url.path, request.headers.get("idempotency-key")))

    async def on_response(response: httpx.Response) -> None:
        path = response.request.url.path
        answers.append((path, response.status_code, response.headers.get("retry-after")))

    hooks: dict[str, list[Any]] = {"request": [on_request], "response": [on_response]}
    async with services(tight) as urls:
        players, game_id = await seated(urls, "itty-bitty", 2)
        http = httpx.AsyncClient(event_hooks=hooks, timeout=30)
        me = AsyncClient(urls.lobby, urls.game, players[0].token, http=http)
        began = time.monotonic()
        views = await asyncio.gather(*(me.get_game(game_id) for _ in range(8)))
        assert {v.id for v in views} == {game_id}  # every one answered in the end
        waited = [a for a in answers if a[1] == 429]
        assert waited and all(int(a[2] or 0) >= 1 for a in waited)
        assert time.monotonic() - began >= 1.0
        # a move refused by the limiter is sent again with its Idempotency-Key
        sent.clear()
        answers.clear()
        legal = await me.get_legal_actions(game_id)
        await me.post_action(game_id, legal.actions[0], legal.version)
        accepted = await me.resign(game_id)  # an action too: over 1/second, waits
        assert [e.type for e in accepted.events] == ["resigned"]
        resigns = [key for path, key in sent if path.endswith("/resign")]
        assert len(resigns) >= 2 and len(set(resigns)) == 1 and resigns[0]
        assert (f"/v1/games/{game_id}/resign", 429) in [(p, s) for p, s, _ in answers]
        # the blocking client waits them out alike
        waits: list[int] = []

        def read_in_sync() -> list[int]:
            hook = {"response": [lambda r: waits.append(r.status_code)]}
            with (
                httpx.Client(event_hooks=hook, timeout=30) as http,
                Client(urls.lobby, urls.game, players[1].token, http=http) as c,
            ):
                return [c.get_game(game_id).version for _ in range(6)]

        versions = await asyncio.to_thread(read_in_sync)
        assert versions == [versions[0]] * 6  # every read answered, the game standing still
        assert 429 in waits and waits.count(200) == 6
        # bounded: no retry, or a wait longer than allowed, raises RateLimited at once
        impatient = AsyncClient(
            urls.lobby, urls.game, players[1].token, policy=Policy(max_retry_after=0.1)
        )
        began = time.monotonic()
        tried = await asyncio.gather(
            *(impatient.get_game(game_id) for _ in range(8)), return_exceptions=True
        )
        limited = [e for e in tried if isinstance(e, RateLimited)]
        assert limited and time.monotonic() - began < 1.0
        assert all(e.code == "rate_limited" and (e.retry_after or 0) >= 1 for e in limited)
        for c in (*players, me, impatient):
            await c.aclose()
        await http.aclose()


async def test_my_news_stream_hears_my_turn_sync_and_async(urls: Urls) -> None:
    players, game_id = await seated(urls, "itty-bitty", 2)
    # who moves first after the collector choices is the deal's (the public first_seat)
    first = (await players[0].get_game(game_id)).view["public"]["first_seat"]
    other = 1 - first
    news = players[first].stream_my_news()
    heard = asyncio.create_task(anext(news))
    await asyncio.sleep(0.5)  # connected, listening (news is live only)
    # both keep a collector, the first seat first: then it must act, and is told (a seat
    # that acts again after its own move is not: it is at the table)
    for p in (players[first], players[other]):
        legal = await p.get_legal_actions(game_id)
        await p.post_action(game_id, legal.actions[0], legal.version)
    note = await asyncio.wait_for(heard, 10)
    view = await players[first].get_game(game_id)
    assert view.to_act == [first]
    assert (note.type, note.game_id, note.seat, note.version) == (
        "your_turn",
        game_id,
        first,
        view.version,
    )
    assert note.player_id == view.seats[first].player_id and note.links.game.endswith(game_id)
    await news.aclose()

    def listen(token: str | None) -> tuple[str, int]:
        with Client(urls.lobby, urls.game, token) as c:
            for n in c.stream_my_news():
                return n.type, n.seat
        raise AssertionError("the stream ended")

    with ThreadPoolExecutor(1) as pool:
        heard_sync = asyncio.wrap_future(pool.submit(listen, players[other].token))
        await asyncio.sleep(0.5)
        # the first seat plays until the other must act
        while other not in (await players[first].get_game(game_id)).to_act:
            await players[first].play(game_id, at_random(random.Random(5)))
        assert await asyncio.wait_for(heard_sync, 10) == ("your_turn", other)
    for p in players:
        await p.aclose()


class _Cut:
    """Where a response body breaks off: just after its `frames`-th event."""

    def __init__(self, frames: int) -> None:
        self.frames, self.read = frames, b""

    def part(self, chunk: bytes) -> tuple[bytes, bool]:
        self.read += chunk
        events = [i for i in range(len(self.read)) if self.read.startswith(b"\n\nid: ", i)]
        if len(events) <= self.frames:
            return chunk, False
        end = events[self.frames] + 2  # the end of the last whole event
        return chunk[: len(chunk) - (len(self.read) - end)], True


class _AsyncCut(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, frames: int) -> None:
        self.inner, self.cut = inner, _Cut(frames)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            part, cut = self.cut.part(chunk)
            yield part
            if cut:
                raise httpx.ReadError("the connection broke off")

    async def aclose(self) -> None:
        await self.inner.aclose()


class _SyncCut(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, frames: int) -> None:
        self.inner, self.cut = inner, _Cut(frames)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            part, cut = self.cut.part(chunk)
            yield part
            if cut:
                raise httpx.ReadError("the connection broke off")

    def close(self) -> None:
        self.inner.close()


class Cutting(httpx.AsyncBaseTransport, httpx.BaseTransport):
    """Breaks the first SSE stream off after 3 events; remembers each Last-Event-ID sent."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.sync = httpx.HTTPTransport()
        self.resumed: list[str | None] = []

    def _stream(self, request: httpx.Request) -> bool:
        if not request.url.path.endswith("/stream"):
            return False
        self.resumed.append(request.headers.get("last-event-id"))
        return len(self.resumed) == 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if self._stream(request):
            assert isinstance(response.stream, httpx.AsyncByteStream)
            response.stream = _AsyncCut(response.stream, 3)
        return response

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.sync.handle_request(request)
        if self._stream(request):
            assert isinstance(response.stream, httpx.SyncByteStream)
            response.stream = _SyncCut(response.stream, 3)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def close(self) -> None:
        self.sync.close()


async def test_a_stream_broken_off_is_resumed_after_the_last_event_nothing_lost_or_twice(
    urls: Urls,
) -> None:
    players, game_id = await seated(urls, "itty-bitty", 2)
    head = (await players[0].get_game(game_id)).version
    assert head > 4
    cutting = Cutting()
    async with (
        httpx.AsyncClient(transport=cutting) as http,
        AsyncClient(urls.lobby, urls.game, players[0].token, http=http) as me,
    ):
        stream = me.stream_game_events(game_id)
        try:
            got = [await asyncio.wait_for(anext(stream), 10) for _ in range(head)]
        finally:
            await stream.aclose()
    assert [e.version for e in got] == list(range(1, head + 1))
    assert cutting.resumed == ["0", "3"]

    def sync_stream() -> tuple[list[int], list[str | None]]:
        cut = Cutting()
        with httpx.Client(transport=cut, timeout=10) as http:
            c = Client(urls.lobby, urls.game, players[1].token, http=http)
            versions = []
            stream = c.stream_game_events(game_id, after=1)
            try:
                for event in stream:
                    versions.append(event.version)
                    if event.version == head:
                        return versions, cut.resumed
            finally:
                stream.close()
        raise AssertionError("the stream ended")

    versions, resumed = await asyncio.to_thread(sync_stream)
    assert versions == list(range(2, head + 1)) and resumed == ["1", "4"]
    for p in players:
        await p.aclose()


class LosingAnswers(httpx.AsyncBaseTransport):
    """Delivers the first move and loses its answer (the service applied it; the client
    never hears): what a dropped connection does to a POST."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.keys: list[str | None] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.path.endswith("/actions"):
            self.keys.append(request.headers.get("idempotency-key"))
            if len(self.keys) == 1:
                await response.aread()
                await response.aclose()
                raise httpx.ReadError("the answer was lost")
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_move_whose_answer_was_lost_is_sent_again_with_its_key_and_played_once(
    urls: Urls,
) -> None:
    players, game_id = await seated(urls, "itty-bitty", 2)
    losing = LosingAnswers()
    async with (
        httpx.AsyncClient(transport=losing) as http,
        AsyncClient(urls.lobby, urls.game, players[0].token, http=http) as me,
    ):
        before = await me.get_game(game_id)
        accepted = await me.play(game_id, lambda view, legal: legal.actions[0])
        assert accepted is not None and accepted.replayed  # the stored answer of the first
        assert len(losing.keys) == 2 and losing.keys[0] == losing.keys[1] and losing.keys[0]
        mine = [e for e in await _events(me, game_id, before.version) if e.seat == 0]
        assert [e.type for e in mine] == ["collector_kept"]  # one move, not two
    for p in players:
        await p.aclose()


async def _events(client: AsyncClient, game_id: str, after: int) -> list[Any]:
    return list((await client.get_events(game_id, after)).events)


class Either:
    """One player's client, blocking or asyncio, every method awaited alike (the blocking
    client's in a thread: the servers run on this loop)."""

    def __init__(self, kind: str, urls: Urls, token: str | None = None) -> None:
        self.client: Client | AsyncClient = (
            Client(urls.lobby, urls.game, token)
            if kind == "sync"
            else AsyncClient(urls.lobby, urls.game, token)
        )

    async def __call__(self, name: str, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self.client, name)
        if isinstance(self.client, Client):
            return await asyncio.to_thread(method, *args, **kwargs)
        return await method(*args, **kwargs)

    async def close(self) -> None:
        if isinstance(self.client, Client):
            self.client.close()
        else:
            await self.client.aclose()


async def _pages(c: Either, game: str, status: str) -> list[Room]:
    """Every room `list_rooms` gives for `game` and `status`: a first page of one, then on by
    its cursor (pages of 100, at most 20)."""
    page = await c("list_rooms", game, status, limit=1)
    assert isinstance(page, RoomPage) and len(page.items) == 1
    rooms = list(page.items)
    for _ in range(20):
        if page.next is None:
            return rooms
        page = await c("list_rooms", game=game, status=status, limit=100, cursor=page.next)
        rooms += page.items
    raise AssertionError("too many pages")


@pytest.mark.parametrize("kind", ["async", "sync"])
async def test_tokens_content_rooms_and_webhooks_each_route_answers_as_typed(
    settings: Settings, kind: str
) -> None:
    """The routes no game above calls, once each against the services: a wrong path, query
    parameter name or decoder fails here."""
    hooks_anywhere = msgspec.structs.replace(
        settings, webhook_allow_private=True, webhook_allow_http=True
    )
    async with services(hooks_anywhere) as urls:
        host, guest = Either(kind, urls), Either(kind, urls)
        clients = [host, guest]
        try:
            ada = await host("register", "Ada")
            bob = await guest("register", "Bob")

            # tokens: a second one for the same player, then the first ended by the second
            second = await host("issue_token")
            assert isinstance(second, PlayerCreated)
            assert (second.id, second.name) == (ada.id, "Ada") and second.token != ada.token
            renewed = Either(kind, urls, second.token)
            clients.append(renewed)
            assert await renewed("end_other_tokens") is None
            with pytest.raises(Unauthorized):
                await host("issue_token")  # the first token, ended
            third = await renewed("issue_token")
            assert third.id == ada.id  # the second still works
            host.client.token = second.token

            # the catalog's content and schemas, of the game named
            content = await host("get_game_content", "itchy-feet")
            assert isinstance(content, GameContent) and content.game == "itchy-feet"
            assert content.all_cards and content.cards and content.countries
            assert content.ittybits is None
            schemas = await host("get_game_schemas", "footprints")
            assert isinstance(schemas, GameSchemas) and schemas.game == "footprints"
            assert all((schemas.action, schemas.event, schemas.view, schemas.options))
            with pytest.raises(NotFound):
                await host("get_game_content", "no-such-game")

            # rooms: joined and left; listed by game and status, page after page
            first = await host("create_room", "itty-bitty", 3)
            other = await host("create_room", "itty-bitty", 3)
            solo = await host("create_room", "footprints", 1)
            joined = await guest("join_room", first.id)
            assert bob.id in [s.player_id for s in joined.seats]
            left = await guest("leave_room", first.id)
            assert isinstance(left, Room) and left.id == first.id and left.status == "open"
            assert bob.id not in [s.player_id for s in left.seats]
            assert [s.player_id for s in left.seats if s.player_id] == [ada.id]
            playing = await host("create_room", "itty-bitty", 2)
            assert (await host("start_room", playing.id, wait=10)).status == "playing"
            open_rooms = await _pages(host, "itty-bitty", "open")
            ids = [r.id for r in open_rooms]
            assert len(ids) == len(set(ids)) and {first.id, other.id} <= set(ids)
            assert {(r.game, r.status) for r in open_rooms} == {("itty-bitty", "open")}
            assert playing.id not in ids and solo.id not in ids
            played = await _pages(host, "itty-bitty", "playing")
            assert playing.id in [r.id for r in played] and first.id not in [r.id for r in played]

            # webhooks: made, listed, tested, disabled and enabled, deleted
            made = await host("create_webhook", "http://127.0.0.1:9/hook", ["your_turn"])
            assert isinstance(made, WebhookCreated) and made.secret.startswith("whsec_")
            assert (made.url, made.events, made.game_id) == (
                "http://127.0.0.1:9/hook",
                ["your_turn"],
                None,
            )
            listed = await host("list_webhooks")
            assert isinstance(listed, Webhooks) and [h.id for h in listed.items] == [made.id]
            assert (await guest("list_webhooks")).items == []
            tests = [await host("test_webhook", made.id) for _ in range(2)]
            assert all(isinstance(t, QueuedTest) for t in tests)
            assert tests[0].delivery_id != tests[1].delivery_id
            sent = await host("list_webhook_deliveries", made.id)
            assert isinstance(sent, Deliveries)
            assert [d.id for d in sent.items] == [t.delivery_id for t in reversed(tests)]
            assert {d.type for d in sent.items} == {"webhook_test"}
            newest = await host("list_webhook_deliveries", made.id, limit=1)
            assert [d.id for d in newest.items] == [tests[1].delivery_id]
            conn = await asyncpg.connect(settings.database_url)
            try:
                await conn.execute(
                    "UPDATE webhooks SET disabled_at = now(), disabled_reason = 'failing'"
                    " WHERE id = $1",
                    uuid.UUID(made.id),
                )
            finally:
                await conn.close()
            with pytest.raises(Conflict) as disabled:
                await host("test_webhook", made.id)
            assert disabled.value.code == "webhook_disabled"
            enabled = await host("enable_webhook", made.id)
            assert isinstance(enabled, Webhook) and enabled.id == made.id
            assert (enabled.disabled, enabled.disabled_reason) == (False, None)
            assert isinstance(await host("test_webhook", made.id), QueuedTest)
            assert await host("delete_webhook", made.id) is None
            assert (await host("list_webhooks")).items == []
            with pytest.raises(NotFound):
                await host("delete_webhook", made.id)
        finally:
            for c in clients:
                await c.close()
