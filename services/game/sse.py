"""Live feeds over Server-Sent Events: a game's events as they are appended (redacted for the
caller exactly as GET /v1/games/{id}/events redacts them), resumable with Last-Event-ID; and a
player's news across their games (services/game/news.py)."""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

import msgspec
from litestar import Litestar, Request, Response, get
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from contracts.notifications import NOTIFICATION_TYPES, Notification, RoomNews
from contracts.problems import ProblemError
from contracts.streams import FINISHED, NEWS
from infra.auth.tokens import Held
from infra.eventstore import StoredEvent
from infra.http.common import holding
from infra.http.openapi import SECURITY, problems, sse_item
from infra.observability.metrics import LIVE_SUBSCRIBERS
from infra.settings import Settings
from services.game.chat import ChatView
from services.game.live import Feeds, follow_envelopes, follow_stream
from services.game.loading import beyond_version, status_of
from services.game.news import PlayerNews
from services.game.repository import GameRecord, PostgresGamesRepository, stream_id
from services.game.routes.chat import prefs_of
from services.game.service import GameService

log = logging.getLogger(__name__)
MAX_VERSION = 2**62  # as the feed's `after`
EVENT_STREAM = "text/event-stream"
STREAM_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # nginx: pass each event on as it is written
}
HEARTBEAT = b": heartbeat\n\n"
RENDERED_KEPT = 8192  # (game, version, seat) frames: a thousand feeds of a game redact once

TOKEN_ENDS_DOC = (
    "When the token it was opened with ends (its player ended it, or its `exp` passed), the"
    " stream ends within the service's token check (`TOKEN_CHECK_TTL_S`, 5 s) after a comment"
    " naming why (`: token_revoked: ...`, `: token_expired: ...`); nothing is sent after that"
    " check. Opened again, it is 401 with that code (an EventSource stops there)."
)
STREAM_DOC = (
    "Server-Sent Events (`text/event-stream`): one event per game event, `id:` its version,"
    " `event:` its type, `data:` the event as `GET /v1/games/{id}/events` gives it to the"
    " caller (one item of its `events`); events the caller may not see at all are left out."
    " A comment (`: heartbeat`) after every quiet `SSE_HEARTBEAT_S` seconds (15 by default)."
    " The stream ends after the event that finishes the game. Resume with the `Last-Event-ID`"
    " header (what EventSource sends on reconnecting; it wins over `after`) or `?after=`."
    " " + TOKEN_ENDS_DOC
)
STREAM_EXAMPLE = (
    ": game 6f1c0b9e-5d7e-5a57-8f0e-3c2a1d4b5e6f after version 11\n\n"
    "id: 12\nevent: collector_kept\ndata: "
    '{"version":12,"type":"collector_kept","data":{"type":"collector_kept","seat":0,"kept":null},'
    '"seat":0,"recorded_at":"2026-01-05T10:00:00.123Z","text":"Ada kept a collector"}\n\n'
    ": heartbeat\n\n"
)


class Frames:
    """Each stored event as one seat sees it, as an SSE frame, made once per process."""

    def __init__(self, svc: GameService, kept: int = RENDERED_KEPT) -> None:
        self._svc = svc
        self._kept = kept
        self._frames: OrderedDict[tuple[str, int, int | None], bytes] = OrderedDict()

    def frame(
        self, rules: Any, event: StoredEvent, seat: int | None, names: Sequence[str]
    ) -> bytes:
        key = (event.stream_id, event.version, seat)
        made = self._frames.get(key)
        if made is None:
            visible = self._svc.feed(rules, [event], seat, names)  # the feed's own redaction
            made = b"".join(
                b"id: %d\nevent: %s\ndata: %s\n\n"
                % (f.version, f.type.encode(), msgspec.json.encode(f))
                for f in visible
            )
            self._frames[key] = made
            if len(self._frames) > self._kept:
                self._frames.popitem(last=False)
        return made


def _ends(event: StoredEvent, final: int | None) -> bool:
    """The event that finishes the game (the last of its command), or the last one stored
    when the stream began with the game over."""
    m = event.metadata
    finishing = m.get("status") == "finished" and m.get("batch_end", True)
    return bool(finishing) or (final is not None and event.version >= final)


def _start(last_event_id: str | None, after: int) -> int:
    if last_event_id is None:
        return after
    text = last_event_id.strip()
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_VERSION:
        raise ProblemError(
            400,
            "bad_last_event_id",
            "Last-Event-ID must be the id of an event of this stream (a version: 0 or more)",
        )
    return int(text)


async def _ended(held: Held) -> bytes | None:
    """The comment that ends a stream whose token no longer holds, why in it (or that it
    could not be checked for too long); None while it holds."""
    try:
        refused = await held.refusal()
    except Exception:
        log.exception("a stream's token could not be checked; the stream ends")
        return b": service_unavailable: the token could not be checked\n\n"
    if refused is None:
        return None
    return b": %s: %s\n\n" % (refused.code.encode(), str(refused).encode())


def tick(heartbeat_s: float, check_s: float) -> float:
    """How long a quiet stream waits between wake-ups: the token checked at least every
    `check_s`, and a whole number of them to a heartbeat, so the heartbeat comes on time
    (waking every `check_s` alone put it up to `check_s` late: 5 s for a 3 s heartbeat)."""
    return heartbeat_s / math.ceil(heartbeat_s / check_s)


class Quiet:
    """When a stream woken more often than its heartbeat (to check its token) is due one."""

    def __init__(self, heartbeat_s: float) -> None:
        self.heartbeat_s = heartbeat_s
        self.since = time.monotonic()

    def sent(self) -> None:
        self.since = time.monotonic()

    def heartbeat_due(self) -> bool:
        if time.monotonic() - self.since < self.heartbeat_s * 0.99:  # a timer fires early
            return False
        self.sent()
        return True


async def _game_frames(
    feeds: Feeds,
    frames: Frames,
    record: GameRecord,
    rules: Any,
    seat: int | None,
    after: int,
    head: int,
    final: int | None,
    heartbeat_s: float,
    held: Held,
    chat: ChatView | None = None,
) -> AsyncIterator[bytes]:
    """`chat`: what the reader chose not to read of the table chat (left out)."""
    yield b": game %s after version %d\n\n" % (record.id.encode(), after)  # headers out now
    names = record.names
    quiet = Quiet(heartbeat_s)
    idle_s = tick(heartbeat_s, held.every)
    with LIVE_SUBSCRIBERS.labels("sse").track_inprogress():
        async with contextlib.aclosing(feeds.follow(record.id, after, head, idle_s)) as news:
            async for batch in news:
                if (end := await _ended(held)) is not None:  # before anything more is sent
                    yield end
                    return
                if not batch:
                    if quiet.heartbeat_due():
                        yield HEARTBEAT
                    continue
                quiet.sent()
                chunk = []
                for event in batch:
                    if chat is None or not chat.hides(event):
                        chunk.append(frames.frame(rules, event, seat, names))
                    if _ends(event, final):
                        yield b"".join(chunk)
                        return
                yield b"".join(chunk)


@get(
    "/v1/games/{game_id:str}/stream",
    operation_id="streamGameEvents",
    summary="The caller's event feed as Server-Sent Events, live, resumable",
    description=STREAM_DOC,
    security=SECURITY,
    media_type=EVENT_STREAM,
    responses={
        200: ResponseSpec(
            str,
            description="The events, then more as they come (`text/event-stream`)",
            media_type=EVENT_STREAM,
            generate_examples=False,
            examples=[Example(summary="itty-bitty, as seat 1 sees it", value=STREAM_EXAMPLE)],
        ),
        204: ResponseSpec(
            None,
            description="The game is over and the caller has every event (EventSource stops)",
            media_type=EVENT_STREAM,
        ),
        **problems(
            400,
            401,
            404,
            503,
            codes={
                404: ["unknown_game"],
                503: ["game_unavailable"],
                400: ["malformed_request", "bad_last_event_id", "after_beyond_version"],
            },
        ),
    },
)
async def game_stream(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_VERSION)] = 0,
    last_event_id: Annotated[
        str | None, HeaderParameter(name="Last-Event-ID", max_length=40, required=False)
    ] = None,
) -> Response[Any]:
    held = await holding(request)  # checked again while the stream lasts
    who = held.who
    svc: GameService = request.app.state.service
    record = await svc.record(game_id)
    seat = record.seat_of(who.player_id)  # a spectator reads the public feed, as /events
    start = _start(last_event_id, after)
    loaded = await svc.load(record.id, record)
    if start > loaded.version:
        raise beyond_version(loaded.version, "the stream can start at most there")
    finished = status_of(loaded.rules, loaded.state) == "finished"
    if finished and start >= loaded.version:
        return Response(b"", status_code=204, media_type=EVENT_STREAM)
    settings: Settings = request.app.state.settings
    content = _game_frames(
        request.app.state.feeds,
        request.app.state.frames,
        record,
        loaded.rules,
        seat,
        start,
        loaded.version,
        loaded.version if finished else None,
        settings.sse_heartbeat_s,
        held,
        await prefs_of(request).view(who.player_id),  # as it is when the stream opens
    )
    return Stream(content, media_type=EVENT_STREAM, headers=STREAM_HEADERS)


NEWS_DOC = (
    "Server-Sent Events (`text/event-stream`) of the caller's news across all their games:"
    " `event:` `your_turn`, `deadline_soon`, `game_started`, `game_finished` or `match_found`, `data:` the"
    " notification a webhook carries (game, title, version, seat, deadline, links; nothing"
    " private). Live only: news from while no stream was open is not replayed (read"
    " `GET /v1/me/games?awaiting=true` on connecting). A comment (`: heartbeat`) after every"
    " quiet `SSE_HEARTBEAT_S` seconds. " + TOKEN_ENDS_DOC
)
NEWS_EXAMPLE = (
    ": news of player 0b6c…\n\nevent: your_turn\ndata: "
    '{"type":"your_turn","game_id":"6f1c0b9e-5d7e-5a57-8f0e-3c2a1d4b5e6f","game":"itty-bitty",'
    '"title":"The itty bitty card game","version":14,"seat":0,"player_id":"0b6c…",'
    '"deadline":null,"links":{"game":"/v1/games/6f1c…","legal_actions":"/v1/games/6f1c…/legal-actions"}}'
    "\n\n"
)
_note = msgspec.json.Encoder()
_room_news = msgspec.json.Decoder(RoomNews)
# Each stream's events, for the document (infra/http/openapi.py: sse_item); comments (`:
# heartbeat`, `: token_revoked: ...`) are not events.
STREAM_ITEMS = {
    "streamGameEvents": sse_item(
        "FeedEvent",
        "One game event, as one item of `GET /v1/games/{game_id}/events`' `events`",
        {"type": "string", "description": "The event's type (`data.type`)"},
        has_id=True,
    ),
    "streamMyNews": sse_item(
        ["Notification", "RoomNews"],
        "One piece of news: what a webhook's delivery carries as `data` (a game's news, "
        "`Notification`; a room's, `RoomNews`)",
        {"enum": list(NOTIFICATION_TYPES), "description": "The notification's `type`"},
        has_id=False,
    ),
}


def _news_frame(note: Notification | RoomNews) -> bytes:
    return b"event: %s\ndata: %s\n\n" % (note.type.encode(), _note.encode(note))


async def _news_frames(
    news: PlayerNews, player_id: str, heartbeat_s: float, held: Held
) -> AsyncIterator[bytes]:
    yield b": news of player %s\n\n" % player_id.encode()
    quiet = Quiet(heartbeat_s)
    idle_s = tick(heartbeat_s, held.every)
    with LIVE_SUBSCRIBERS.labels("sse").track_inprogress():
        async with contextlib.aclosing(news.follow(player_id, idle_s)) as notes:
            async for batch in notes:
                if (end := await _ended(held)) is not None:  # before anything more is sent
                    yield end
                    return
                if batch:
                    quiet.sent()
                    yield b"".join(_news_frame(n) for n in batch)
                elif quiet.heartbeat_due():
                    yield HEARTBEAT


@get(
    "/v1/me/stream",
    operation_id="streamMyNews",
    summary="The caller's news across their games as Server-Sent Events: your turn, a deadline"
    " near, a game started or finished",
    description=NEWS_DOC,
    security=SECURITY,
    media_type=EVENT_STREAM,
    responses={
        200: ResponseSpec(
            str,
            description="The news as it comes (`text/event-stream`)",
            media_type=EVENT_STREAM,
            generate_examples=False,
            examples=[Example(summary="your turn in a game", value=NEWS_EXAMPLE)],
        ),
        **problems(401),
    },
)
async def my_stream(request: Request[Any, Any, Any]) -> Stream:
    held = await holding(request)  # checked again while the stream lasts
    settings: Settings = request.app.state.settings
    content = _news_frames(
        request.app.state.news, held.who.player_id, settings.sse_heartbeat_s, held
    )
    return Stream(content, media_type=EVENT_STREAM, headers=STREAM_HEADERS)


@contextlib.asynccontextmanager
async def live_feeds(app: Litestar) -> AsyncIterator[None]:
    """Lifespan, after the service's own (it reads the service and the settings)."""
    svc: GameService = app.state.service
    settings: Settings = app.state.settings

    async def read(game_id: str, after: int, limit: int) -> list[StoredEvent]:
        return await svc.store.read(stream_id(game_id), after=after, limit=limit)

    feeds = Feeds(read, svc.waiters, settings.sse_heartbeat_s)
    pool = svc.games.pool if isinstance(svc.games, PostgresGamesRepository) else None
    news = PlayerNews(svc, pool, settings.deadline_soon_s, settings.sse_heartbeat_s)
    followers = []
    if pool is not None:  # news (and rooms' games) only where Postgres keeps the games
        streams = app.state.streams
        followers = [
            follow_envelopes(streams, settings.stream(FINISHED), news.recorded),
            follow_stream(streams, settings.stream(NEWS), _room_news, news.room_news),
        ]
    news.start(svc.waiters, *followers)
    app.state.feeds, app.state.frames, app.state.news = feeds, Frames(svc), news
    try:
        yield
    finally:
        await news.close()
        await feeds.close()
