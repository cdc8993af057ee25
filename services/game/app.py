"""Game service REST API v1 (Litestar): views, legal actions, actions, event feeds."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.datastructures import CacheControlHeader
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, FromQuery, HeaderParameter, QueryParameter
from litestar.types import ASGIApp, Receive, Scope, Send

import contracts.game
import contracts.notifications
from contracts.game import (
    ActionAccepted,
    Claim,
    Clock,
    EventFeed,
    GameOutcome,
    GameSummary,
    GameView,
    LegalActions,
    MyGames,
    PostAction,
    SeatClock,
    SeatStanding,
    Unavailable,
    timestamp,
)
from contracts.notifications import Notification, WebhookPayload, WebhookTest
from contracts.problems import ProblemError
from games import table as tables
from games.api import rules_version_of
from games.registry import narrator, registry
from games.schemas import openapi_components
from games.table import TableState
from infra.auth import Principal
from infra.edge import Edge
from infra.eventstore.api import command_uuid, random_command_id
from infra.fastpath import (
    FastLitestar,
    FastRoute,
    Slow,
    admit,
    answer,
    header,
    json_body,
    json_content,
    query_int,
)
from infra.http import (
    EXCEPTION_HANDLERS,
    authenticate,
    check_background,
    check_ready,
    cors,
    holding,
    strictly,
    while_held,
)
from infra.metrics import LIVE_SUBSCRIBERS, metrics_endpoint
from infra.openapi import (
    SECURITY,
    closed_structs,
    openapi_config,
    problems,
    struct_components,
)
from infra.ratelimit import rate_limits
from infra.settings import Settings
from services.game import seats
from services.game.bootstrap import lifespan
from services.game.commands import Accepted, bot_plays
from services.game.loading import Loaded, status_of
from services.game.maps import GameMap, map_components
from services.game.repository import PageKey
from services.game.service import GameService
from services.game.sse import STREAM_ITEMS, game_stream, live_feeds, my_stream
from services.game.webhooks import DELIVERIES as WEBHOOK_DELIVERIES
from services.game.webhooks import ROUTES as WEBHOOK_ROUTES
from services.game.webhooks import webhook_store

MAX_WAIT_SECONDS = 30.0
MAX_VERSION = 2**62  # fits Postgres bigint
MAX_IDEMPOTENCY_KEY = 200  # characters
# A read's `min_version`: the newest version the client has seen (a move's answer, a view, a
# feed's event). The answer is at least that recent (when the game is), and this process
# may give it from memory instead of asking the store (GameService.read_needed).
MinVersion = Annotated[
    int | None,
    QueryParameter(
        ge=0,
        le=MAX_VERSION,
        schema_extra={"minimum": 0},  # Litestar leaves a 0 out of an optional one's schema
        description="The newest version of the game you have seen (from a move's answer, a "
        "view or the feed). The answer is at least that recent, and the service may give it "
        "without asking its store: send it on every read to make reads cheaper and never see "
        "the game go back. 400 `min_version_beyond_version` when the game has not reached it.",
    ),
]
SEEN_CODES = ["malformed_request", "min_version_beyond_version"]  # a read's 400s
UNKNOWN_GAME = {404: ["unknown_game"], 503: ["game_unavailable", "rules_unknown_here"]}
SEATED = {403: ["not_seated"], **UNKNOWN_GAME}  # routes for the game's players only


# -- the move cycle's reads, behind their parameters (each handler and its fast path) ---------


async def game_view(
    svc: GameService, who: Principal, game_id: str, min_version: int | None
) -> GameView:
    """GET /v1/games/{game_id}, behind its parameters (and its fast path)."""
    record = await svc.record(game_id)
    loaded = await svc.load_seen(record, min_version)
    rules, state = loaded.rules, loaded.state
    seat = record.seat_of(who.player_id)
    return GameView(
        id=record.id,
        game=record.game,
        version=loaded.version,
        status=status_of(rules, state),
        seats=record.seats,
        to_act=sorted(rules.to_act(state)),
        your_seat=seat,
        view=msgspec.to_builtins(rules.view(state, seat)),
        outcome=_outcome(loaded),
        standings=[
            SeatStanding(seat=i, standing=s.standing, bot=s.bot)
            for i, s in enumerate(loaded.table.seats)
        ],
        clock=_clock(loaded.table),
        rules_version=rules_version_of(state),
    )


async def legal_actions_of(
    svc: GameService, who: Principal, game_id: str, min_version: int | None
) -> LegalActions:
    """GET /v1/games/{game_id}/legal-actions, behind its parameters (and its fast path)."""
    record = await svc.record(game_id)
    seat = _seat(record.seat_of(who.player_id))
    loaded = await svc.load_seen(record, min_version)
    rules, state = loaded.rules, loaded.state
    mine = loaded.table.seats[seat]
    if bot_plays(mine):  # its person's posts are refused: nothing is theirs to post
        return LegalActions(
            version=loaded.version, seat=seat, actions=[], unavailable=[], standing=mine.standing
        )
    return LegalActions(
        version=loaded.version,
        seat=seat,
        actions=_described(rules, rules.legal_actions(state, seat), record.names),
        unavailable=[
            Unavailable(type=u.type, code=u.code, message=u.message)
            for u in rules.unavailable(state, seat)
        ],
        standing=mine.standing,
    )


# -- the move cycle's routes without Litestar's request machinery (infra/fastpath.py) ---------


def _fast_read(
    core: Callable[[GameService, Principal, str, int | None], Awaitable[Any]],
) -> FastRoute:
    """A read's fast path: no query but `min_version=<digits>`, at most one Authorization."""

    async def fast(scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
        try:
            min_version = query_int(scope, b"min_version", MAX_VERSION)
            authorization = header(scope, b"authorization")
        except Slow:
            await slow(scope, receive, send)
            return
        svc: GameService = scope["litestar_app"].state.service
        game_id: str = scope["path_params"]["game_id"]

        async def read() -> Any:
            return await core(svc, await admit(scope, authorization), game_id, min_version)

        await answer(scope, receive, send, read)

    return fast


async def _fast_post_action(scope: Scope, receive: Receive, send: Send, slow: ASGIApp) -> None:
    try:
        json_content(scope)
        authorization = header(scope, b"authorization")
        key = header(scope, b"idempotency-key")
        if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
            raise Slow
        data, receive = await json_body(receive, PostAction)
    except Slow as slowly:
        await slow(scope, slowly.args[0] if slowly.args else receive, send)
        return
    svc: GameService = scope["litestar_app"].state.service
    game_id: str = scope["path_params"]["game_id"]

    async def accepted() -> ActionAccepted:
        return await act(svc, await admit(scope, authorization), game_id, data, key)

    await answer(scope, receive, send, accepted)


def _svc(request: Request[Any, Any, Any]) -> GameService:
    svc: GameService = request.app.state.service
    return svc


async def _who(request: Request[Any, Any, Any]) -> Principal:
    return await authenticate(request)  # signed by a key held here, not ended by its player


@get(
    "/v1/games/{game_id:str}",
    operation_id="getGame",
    opt={"fast": _fast_read(game_view)},
    summary="The caller's view of a game (a spectator's when not seated)",
    security=SECURITY,
    responses=problems(400, 401, 404, 503, codes={**UNKNOWN_GAME, 400: SEEN_CODES}),
)
async def get_game(
    game_id: FromPath[str], request: Request[Any, Any, Any], min_version: MinVersion = None
) -> GameView:
    return await game_view(_svc(request), await _who(request), game_id, min_version)


def _outcome(loaded: Loaded) -> GameOutcome | None:
    """The game's result as its log's `game_over` says (people who resigned or timed out
    ranked last); for a game that ended before that event, the same made from the engine's.
    Field by field: a field the engines' Outcome gains and the contract lacks fails here."""
    result = tables.result(loaded.rules.outcome(loaded.state), loaded.table)
    if result is None:
        return None
    return GameOutcome(**msgspec.structs.asdict(result))


def _clock(table: TableState) -> Clock | None:
    if not table.timing.clocked:
        return None
    return Clock(
        timing=msgspec.to_builtins(table.timing),
        seats=[
            SeatClock(
                seat=i,
                deadline=timestamp(s.deadline) if s.deadline else None,
                bank_s=round(s.bank_s, 3) if s.bank_s is not None else None,
                overdue=s.overdue,
            )
            for i, s in enumerate(table.seats)
        ],
    )


@get(
    "/v1/games/{game_id:str}/legal-actions",
    operation_id="getLegalActions",
    opt={"fast": _fast_read(legal_actions_of)},
    summary="Every action the caller may post now, and the answers refused it now with why",
    security=SECURITY,
    responses=problems(400, 401, 403, 404, 503, codes={**SEATED, 400: SEEN_CODES}),
)
async def legal_actions(
    game_id: FromPath[str], request: Request[Any, Any, Any], min_version: MinVersion = None
) -> LegalActions:
    return await legal_actions_of(_svc(request), await _who(request), game_id, min_version)


def _described(rules: Any, actions: Sequence[Any], names: Sequence[str]) -> list[Any]:
    """The actions as the wire has them, each with its `text` (games/<game>/text.py)."""
    words = narrator(rules.key)
    wire: list[Any] = msgspec.to_builtins(actions)  # one call for all: fresh dicts to add to
    for action, out in zip(actions, wire, strict=True):
        out["text"] = words.describe(action, names)
    return wire


@post(
    "/v1/games/{game_id:str}/actions",
    operation_id="postAction",
    opt={"fast": _fast_post_action},
    summary="Play an action against expected_version",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        503,
        codes={
            **SEATED,
            400: ["malformed_request", "invalid_action_format"],
            409: ["stale_version", "seat_played_by_bot", "game_finished"],
            422: ["not_your_turn", "idempotency_key_reused"],
        },
        body=True,
    ),
)
async def post_action(
    game_id: FromPath[str],
    data: Annotated[
        PostAction,
        Body(
            description="`action` is one of the game's actions (`legal-actions` lists them)",
            examples=[
                Example(
                    summary="itty-bitty: take a marketplace card",
                    value={
                        "action": {"type": "take_ittybit", "card": "ittybit-0287"},
                        "expected_version": 12,
                    },
                )
            ],
        ),
    ],
    request: Request[Any, Any, Any],
    idempotency_key: Annotated[
        str | None,
        HeaderParameter(name="Idempotency-Key", max_length=MAX_IDEMPOTENCY_KEY, required=False),
    ] = None,
) -> ActionAccepted:
    who = await _who(request)
    data = await strictly(request, data)
    return await act(_svc(request), who, game_id, data, idempotency_key)


async def act(
    svc: GameService,
    who: Principal,
    game_id: str,
    data: PostAction,
    idempotency_key: str | None,
) -> ActionAccepted:
    """POST /v1/games/{game_id}/actions, behind its parameters (and its fast path)."""
    record = await svc.record(game_id)
    seat = _seat(record.seat_of(who.player_id))
    command_id = (
        command_uuid("http", game_id, who.player_id, idempotency_key)
        if idempotency_key
        else random_command_id()
    )
    action = {k: v for k, v in data.action.items() if k != "text"}  # words, not the move
    accepted = await svc.submit(
        game_id, seat, action, data.expected_version, command_id, bool(idempotency_key)
    )
    return _answer(svc, record, accepted, seat)


def _answer(svc: GameService, record: Any, accepted: Accepted, seat: int) -> ActionAccepted:
    return ActionAccepted(
        version=accepted.version,
        events=svc.feed(svc.rules_for(record), accepted.events, seat, record.names),
        replayed=accepted.replayed,
    )


@post(
    "/v1/games/{game_id:str}/resign",
    operation_id="resign",
    summary="Hand your seat to a bot for the rest of the game; you are ranked last",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400, 401, 403, 404, 409, 503, codes={**SEATED, 409: ["game_finished", "stale_version"]}
    ),
)
async def resign(game_id: FromPath[str], request: Request[Any, Any, Any]) -> ActionAccepted:
    who = await _who(request)
    svc = _svc(request)
    record = await svc.record(game_id)
    seat = _seat(record.seat_of(who.player_id))
    return _answer(svc, record, await seats.resign(svc, record.id, seat), seat)


@post(
    "/v1/games/{game_id:str}/claim",
    operation_id="claim",
    summary="Hand another seat whose deadline has passed (policy wait) to a bot",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        503,
        codes={
            **SEATED,
            409: [
                "deadline_not_passed",
                "not_claimable",
                "seat_played_by_bot",
                "game_finished",
                "stale_version",
            ],
            422: ["no_such_seat", "own_seat"],
        },
        body=True,
    ),
)
async def claim(
    game_id: FromPath[str],
    data: Annotated[Claim, Body(examples=[Example(value={"seat": 2})])],
    request: Request[Any, Any, Any],
) -> ActionAccepted:
    who = await _who(request)
    data = await strictly(request, data)
    svc = _svc(request)
    record = await svc.record(game_id)
    seat = _seat(record.seat_of(who.player_id))
    return _answer(svc, record, await seats.claim(svc, record.id, seat, data.seat), seat)


@get(
    "/v1/games/{game_id:str}/events",
    operation_id="getEvents",
    summary="The caller's event feed, redacted for them; long-polls up to `wait` seconds",
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        503,
        codes={**UNKNOWN_GAME, 400: ["malformed_request", "after_beyond_version"]},
    ),
)
async def events(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_VERSION)] = 0,
    wait: Annotated[float, QueryParameter(ge=0, le=MAX_WAIT_SECONDS)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 500,
) -> EventFeed:
    who = await _who(request)
    svc = _svc(request)
    record = await svc.record(game_id)
    seat = record.seat_of(who.player_id)
    with LIVE_SUBSCRIBERS.labels("long_poll").track_inprogress():
        # a long-poll holds its token: 401 as soon as it ends meanwhile (infra.tokens.Held)
        held = await holding(request) if wait > 0 else None
        polled = svc.events_since(record, after, wait, limit)
        loaded, stored = await (polled if held is None else while_held(held, polled))
    to_act = sorted(svc.to_act(loaded.rules, loaded.state))
    return EventFeed(
        events=svc.feed(loaded.rules, stored, seat, record.names),
        last_version=(last := stored[-1].version if stored else after),
        version=loaded.version,
        has_more=last < loaded.version,
        status=status_of(loaded.rules, loaded.state),
        to_act=to_act,
        your_turn=seat is not None and seat in to_act and loaded.table.seats[seat].bot is None,
        outcome=_outcome(loaded),
    )


@get(
    "/v1/games/{game_id:str}/board.svg",
    operation_id="getBoardSvg",
    summary="The board drawn from the caller's view (games with a map)",
    media_type="image/svg+xml",
    security=SECURITY,
    responses=problems(
        400, 401, 404, 503, codes={**UNKNOWN_GAME, 404: ["unknown_game", "no_board"]}
    ),
)
async def board_svg(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
    who = await _who(request)
    loaded = await _svc(request).load(game_id)
    draw = getattr(loaded.rules, "board_svg", None)
    if draw is None:
        raise ProblemError(404, "no_board", f"{loaded.record.game} has no board to draw")
    seat = loaded.record.seat_of(who.player_id)
    return Response(draw(loaded.state, seat), media_type="image/svg+xml")


@get(
    "/v1/games/{game_id:str}/map",
    operation_id="getGameMap",
    summary=(
        "The assembled map (games with a map): every space with its position, terrains, bonus,"
        " caves and neighbours, and the houses; fixed once set up, so fetched once"
    ),
    security=SECURITY,
    cache_control=CacheControlHeader(private=True, max_age=86400, immutable=True),
    responses=problems(
        400, 401, 404, 503, codes={**UNKNOWN_GAME, 404: ["unknown_game", "no_board"]}
    ),
)
async def game_map(game_id: FromPath[str], request: Request[Any, Any, Any]) -> GameMap:
    await _who(request)
    loaded = await _svc(request).load(game_id)
    build = getattr(loaded.rules, "board_map", None)
    if build is None:
        raise ProblemError(404, "no_board", f"{loaded.record.game} has no map")
    return GameMap(
        id=loaded.record.id, game=loaded.record.game, map=msgspec.to_builtins(build(loaded.state))
    )


@get(
    "/v1/me/games",
    operation_id="getMyGames",
    summary="Games the caller sits in, newest first; awaiting=true: where they must act, "
    "nearest deadline first",
    security=SECURITY,
    responses=problems(400, 401, codes={400: ["malformed_request", "bad_cursor"]}),
)
async def my_games(
    request: Request[Any, Any, Any],
    awaiting: FromQuery[bool] = False,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, QueryParameter(max_length=200)] = None,
) -> MyGames:
    who = await _who(request)
    after = _page_key(cursor) if cursor else None
    rows = await _svc(request).games.of_player(who.player_id, awaiting, limit + 1, after)
    more, rows = len(rows) > limit, rows[:limit]
    return MyGames(
        next=_cursor(rows[-1].key) if more else None,
        items=[
            GameSummary(
                id=r.game_id,
                game=r.game,
                version=r.version,
                status="finished" if r.status == "finished" else "active",
                your_seat=r.seat,
                to_act=r.to_act,
                your_turn=r.seat in r.to_act and not r.bot,
                deadline=timestamp(r.deadline) if r.deadline else None,
            )
            for r in rows
        ],
    )


def _cursor(key: PageKey) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(key)).decode()


def _page_key(cursor: str) -> PageKey:
    try:
        return msgspec.json.decode(base64.urlsafe_b64decode(cursor), type=PageKey)
    except (ValueError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ProblemError(400, "bad_cursor", "the cursor is not one this API returned") from exc


@get("/health", operation_id="health", include_in_schema=False)
async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Liveness: no Postgres, no Redis; only this process' own loops."""
    return check_background(request)


@get("/ready", operation_id="ready", include_in_schema=False)
async def ready(request: Request[Any, Any, Any]) -> dict[str, str]:
    return await check_ready(request)


def _seat(seat: int | None) -> int:
    if seat is None:
        raise ProblemError(403, "not_seated", "you have no seat in this game")
    return seat


def _components() -> dict[str, Any]:
    games = list(registry().values())
    components = openapi_components(games)
    described = {  # what legal-actions lists: an action and its words
        "allOf": [
            {"$ref": "#/components/schemas/AnyAction"},
            {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The action in words"}},
                "required": ["text"],
            },
        ],
        "description": "A legal action (`AnyAction`) with its `text`, for a person to read",
    }
    # what the service sends beside its answers: webhooks' bodies, /v1/me/stream's news
    sent = struct_components(WebhookPayload, WebhookTest, Notification)
    return {
        **components,
        "DescribedAction": described,
        **map_components(games, components),
        **sent,
    }


def create_app(settings: Settings | None = None, embedded: bool = False) -> Litestar:
    app = FastLitestar(  # the move cycle's routes past Litestar's outer layers: infra/fastpath.py
        route_handlers=[
            get_game,
            legal_actions,
            post_action,
            resign,
            claim,
            events,
            game_stream,
            board_svg,
            game_map,
            my_games,
            my_stream,
            *WEBHOOK_ROUTES,
            health,
            ready,
            metrics_endpoint,
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        cors_config=cors(settings),  # browsers: infra/http.py
        # the service's own first: the others read its settings (and live_feeds its service)
        lifespan=[lifespan, rate_limits, live_feeds, webhook_store],
        middleware=[Edge],  # ids, metrics, rate limits, body bounds, Allow: infra/edge.py
        openapi_config=openapi_config(
            "Turnpost game service",
            _components(),
            closed=closed_structs(contracts.game, contracts.notifications),
            webhooks=WEBHOOK_DELIVERIES,
            stream_items=STREAM_ITEMS,
        ),
        debug=False,
        logging_config=None,  # infra.logging configures the process (LOG_LEVEL, LOG_FORMAT)
    )
    app.state.settings = settings
    app.state.embedded = embedded
    return app
