"""Lobby REST API v1 (Litestar)."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Annotated, Any, Literal

import msgspec
from litestar import Litestar, Request, Response, delete, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, FromQuery, QueryParameter

import contracts.lobby
from contracts.lobby import (
    AddBot,
    Catalog,
    CatalogGame,
    GameContent,
    GameSchemas,
    JoinRoom,
    NewPlayer,
    NewRoom,
    PlayerCreated,
    Room,
    RoomPage,
    StartRoom,
)
from contracts.problems import ProblemError
from games.registry import get as get_rules
from games.registry import narrator, registry
from games.schemas import game_schemas
from infra.auth import InvalidToken, Principal
from infra.edge import Edge
from infra.http import (
    EXCEPTION_HANDLERS,
    authenticate,
    check_background,
    check_ready,
    cors,
    strictly,
)
from infra.metrics import metrics_endpoint
from infra.openapi import SECURITY, OptionalBody, closed_structs, openapi_config, problems
from infra.ratelimit import rate_limits
from infra.settings import Settings
from infra.tokens import Tokens
from services.lobby.bootstrap import announce, lifespan
from services.lobby.rooms import Lobby
from services.lobby.web import web_routes

log = logging.getLogger(__name__)
MAX_START_WAIT_S = 30.0
RoomStatusFilter = Literal["open", "starting", "playing", "finished", "cancelled"]
# Every route that takes a token: 401 when it is not valid here (README, "Keys, rotation and
# tokens").
AUTH_CODES = {
    401: ("unauthorized", "token_expired", "unknown_key", "token_revoked", "unknown_player")
}


def _lobby(request: Request[Any, Any, Any]) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def _tokens(request: Request[Any, Any, Any]) -> Tokens:
    tokens: Tokens = request.app.state.tokens
    return tokens


async def _who(request: Request[Any, Any, Any]) -> Principal:
    return await authenticate(request)  # signed here, not ended, names a player of this lobby


@post(
    "/v1/players",
    operation_id="createPlayer",
    summary="Register; returns a bearer token",
    responses=problems(400, 422, codes={422: ["invalid_name"]}, body=True),
)
async def create_player(
    data: Annotated[NewPlayer, Body(examples=[Example(value={"name": "Ada"})])],
    request: Request[Any, Any, Any],
) -> PlayerCreated:
    data = await strictly(request, data)
    name = data.name.strip()
    if not 1 <= len(name) <= 40:
        raise ProblemError(422, "invalid_name", "a name has 1 to 40 characters")
    player_id = await _lobby(request).new_player(name)
    return PlayerCreated(id=player_id, name=name, token=_tokens(request).issue(player_id, name))


@post(
    "/v1/players/me/tokens",
    operation_id="issueToken",
    summary="Another token for the caller; the caller's own keeps working",
    security=SECURITY,
    responses=problems(401, codes=AUTH_CODES),
)
async def issue_token(request: Request[Any, Any, Any]) -> PlayerCreated:
    """A fresh token for the same player (with `DELETE` after it: replace a leaked token)."""
    who = await _who(request)
    try:
        token = await _tokens(request).renew(who)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc
    return PlayerCreated(id=who.player_id, name=who.name, token=token)


@delete(
    "/v1/players/me/tokens",
    operation_id="endOtherTokens",
    summary="End every token of the caller but the one this request carries",
    security=SECURITY,
    responses=problems(401, codes=AUTH_CODES),
)
async def end_other_tokens(request: Request[Any, Any, Any]) -> None:
    """At once here; at the game service within TOKEN_CHECK_TTL_S (5 s)."""
    who = await _who(request)
    try:
        await _tokens(request).end_others(who)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc


@get(
    "/v1/catalog",
    operation_id="getCatalog",
    summary="Games, seat ranges, bot levels, options; where each game's JSON Schemas are",
    responses=problems(),
)
async def catalog() -> Catalog:
    return Catalog(
        games=[
            CatalogGame(
                key=r.key,
                name=r.name,
                min_seats=r.seats.start,
                max_seats=r.seats.stop - 1,
                bot_levels=list(r.bot_levels),
                options_schema=msgspec.json.schema(r.options_type),
                schemas=f"/v1/catalog/{r.key}/schemas",
                content=f"/v1/catalog/{r.key}/content",
            )
            for r in registry().values()
        ]
    )


@get(
    "/v1/catalog/{game:str}/content",
    operation_id="getGameContent",
    summary="A game's cards: every card in one shape (`all_cards`), and the game's own content",
    responses=problems(400, 404, codes={404: ["unknown_game"]}),
)
async def game_content(game: FromPath[str]) -> GameContent:
    return _content(_rules(game).key)


@functools.cache
def _content(key: str) -> GameContent:
    """Content never changes while a process runs: made once per game."""
    rules = _rules(key)
    own: dict[str, Any] = rules.describe()
    every = [msgspec.to_builtins(c) for c in narrator(key).cards()]
    return msgspec.convert({**own, "game": key, "all_cards": every}, GameContent)


@get(
    "/v1/catalog/{game:str}/schemas",
    operation_id="getGameSchemas",
    summary="JSON Schemas of a game's actions, events (with the clock's), views and options",
    responses=problems(400, 404, codes={404: ["unknown_game"]}),
)
async def game_schemas_of(game: FromPath[str]) -> GameSchemas:
    rules = _rules(game)
    return GameSchemas(game=rules.key, **game_schemas(rules))


def _rules(game: str) -> Any:
    rules = get_rules(game)
    if rules is None:
        raise ProblemError(404, "unknown_game", f"no game {game!r}")
    return rules


@post(
    "/v1/rooms",
    operation_id="createRoom",
    summary="Open a room; the creator takes seat 0",
    security=SECURITY,
    responses=problems(
        400,
        401,
        409,
        422,
        codes={
            **AUTH_CODES,
            409: ["too_many_open_rooms"],
            422: [
                "unknown_game",
                "bad_seat_count",
                "invalid_options",
                "invalid_timing",
                "invalid_fill",
                "unknown_bot_level",
            ],
        },
        body=True,
    ),
)
async def create_room(
    data: Annotated[
        NewRoom,
        Body(
            examples=[
                Example(value={"game": "itty-bitty", "seats": 2}),
                Example(
                    value={
                        "game": "itchy-feet",
                        "seats": 3,
                        "options": {"events": True},
                        "timing": {"per_move_s": 86400, "on_timeout": "bot_move"},
                    },
                ),
                Example(
                    summary="Bots fill the empty seats after 10 minutes without a join, "
                    "and the room starts",
                    value={
                        "game": "itty-bitty",
                        "seats": 4,
                        "fill_with_bots_after_s": 600,
                        "fill_level": "random",
                        "auto_start": True,
                    },
                ),
            ]
        ),
    ],
    request: Request[Any, Any, Any],
) -> Room:
    """With `fill_with_bots_after_s`, bots of `fill_level` (default `greedy`) take the empty
    seats once that many seconds pass without a join (each join restarts the wait; the room
    shows when in `fill_due_at`), and with `auto_start` the room then starts as its host's
    start would; without it the host starts the room, full of bots. The wait ends when the
    room starts or is cancelled."""
    who = await _who(request)
    data = await strictly(request, data)
    return await _lobby(request).create_room(who.player_id, data)


@get(
    "/v1/rooms",
    operation_id="listRooms",
    summary="Rooms, newest first",
    responses=problems(400, codes={400: ["malformed_request", "bad_cursor"]}),
)
async def list_rooms(
    request: Request[Any, Any, Any],
    game: FromQuery[str | None] = None,
    status: FromQuery[RoomStatusFilter | None] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: FromQuery[str | None] = None,
) -> RoomPage:
    return await _lobby(request).list(game, status, limit, cursor)


@get(
    "/v1/rooms/{room_id:str}",
    operation_id="getRoom",
    summary="A room",
    responses=problems(400, 404, codes={404: ["unknown_room"]}),
)
async def get_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    return await _lobby(request).get(room_id)


@post(
    "/v1/rooms/{room_id:str}/join",
    operation_id="joinRoom",
    summary="Take a seat: the one named, or the first free (the body is optional); restarts "
    "the wait of the room's timed fill",
    status_code=200,
    operation_class=OptionalBody,
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        409,
        422,
        codes={
            **AUTH_CODES,
            404: ["unknown_room"],
            409: [
                "room_not_open",
                "already_seated",
                "room_full",
                "seat_taken",
                "too_many_open_rooms",
            ],
            422: ["no_such_seat"],
        },
        body=True,
    ),
)
async def join_room(
    room_id: FromPath[str],
    request: Request[Any, Any, Any],
    data: Annotated[JoinRoom | None, Body(examples=[Example(value={"seat": 1})])] = None,
) -> Room:
    who = await _who(request)
    data = await strictly(request, data)
    return await _lobby(request).join(room_id, who.player_id, (data or JoinRoom()).seat)


@post(
    "/v1/rooms/{room_id:str}/leave",
    operation_id="leaveRoom",
    summary="Give up your seat in an open room (the last person out cancels it)",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        409,
        codes={**AUTH_CODES, 404: ["unknown_room"], 409: ["not_in_room", "room_not_open"]},
    ),
)
async def leave_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    who = await _who(request)
    return await _lobby(request).leave(room_id, who.player_id)


@post(
    "/v1/rooms/{room_id:str}/bots",
    operation_id="addBot",
    summary="Seat a bot (host): in the seat named, or the first free",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        409,
        422,
        codes={
            **AUTH_CODES,
            403: ["not_host"],
            404: ["unknown_room"],
            409: ["room_not_open", "room_full", "seat_taken"],
            422: ["unknown_bot_level", "no_such_seat"],
        },
        body=True,
    ),
)
async def add_bot(
    room_id: FromPath[str],
    data: Annotated[AddBot, Body(examples=[Example(value={"level": "random"})])],
    request: Request[Any, Any, Any],
) -> Room:
    who = await _who(request)
    data = await strictly(request, data)
    return await _lobby(request).add_bot(room_id, who.player_id, data.level, data.seat)


@post(
    "/v1/rooms/{room_id:str}/start",
    operation_id="startRoom",
    status_code=202,
    summary="Start (host): empty seats get bots of fill_bots level (default greedy); "
    "?wait=S answers 200 with the game_id once the game exists",
    operation_class=OptionalBody,
    security=SECURITY,
    response_headers=[
        ResponseHeader(
            name="Location",
            description="On 202: the room, to follow until it carries game_id",
            documentation_only=True,
            value="/v1/rooms/{room_id}",  # what the document needs: its schema (a string)
        )
    ],
    responses={
        200: ResponseSpec(Room, description="Started: the game exists (`game_id` set)"),
        **problems(
            400,
            401,
            403,
            404,
            409,
            422,
            codes={
                **AUTH_CODES,
                403: ["not_host"],
                404: ["unknown_room"],
                409: ["room_not_open", "seats_empty"],
                422: ["unknown_bot_level"],
            },
            body=True,
        ),
    },
)
async def start_room(
    room_id: FromPath[str],
    request: Request[Any, Any, Any],
    data: Annotated[
        StartRoom | None, Body(examples=[Example(value={"fill_bots": "random"})])
    ] = None,
    wait: Annotated[float, QueryParameter(ge=0, le=MAX_START_WAIT_S)] = 0,
) -> Response[Room]:
    """202 with `Location` (the room, which carries `game_id` once the game exists); with
    `?wait=S`, 200 as soon as the game exists within S seconds, with its `game_id`."""
    who = await _who(request)
    data = await strictly(request, data)
    fill_bots = (data or StartRoom()).fill_bots
    lobby = _lobby(request)
    # no body: the room's own fill_level (set at creation), else greedy
    room, message = await lobby.start(room_id, who.player_id, fill_bots, room_level=data is None)
    # The room is committed as starting either way, so the answer is still 202.
    await announce(request.app.state.streams, request.app.state.settings, message)
    deadline = asyncio.get_running_loop().time() + wait
    while wait and room.game_id is None and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
        room = await lobby.get(room_id)
    if room.game_id is not None:
        return Response(room, status_code=200)
    return Response(room, status_code=202, headers={"Location": f"/v1/rooms/{room.id}"})


@post(
    "/v1/rooms/{room_id:str}/rematch",
    operation_id="rematchRoom",
    summary="Play a finished room again: same game, settings, bots and people",
    security=SECURITY,
    responses={
        200: ResponseSpec(Room, description="The rematch an earlier call made"),
        **problems(
            400,
            401,
            403,
            404,
            409,
            codes={
                **AUTH_CODES,
                403: ["not_seated"],
                404: ["unknown_room"],
                409: ["room_not_finished"],
            },
        ),
    },
)
async def rematch_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[Room]:
    """The one rematch of a finished room, for any of its players.

    201 when this call made the room, 200 when an earlier call had: every player who asks gets
    the same room, already seated in it (leave to decline).
    """
    who = await _who(request)
    room, made = await _lobby(request).rematch(room_id, who.player_id)
    return Response(room, status_code=201 if made else 200)


@get("/health", operation_id="health", include_in_schema=False)
async def health(request: Request[Any, Any, Any]) -> dict[str, str]:
    """Liveness: no Postgres, no Redis; only this process' own loops."""
    return check_background(request)


@get("/ready", operation_id="ready", include_in_schema=False)
async def ready(request: Request[Any, Any, Any]) -> dict[str, str]:
    return await check_ready(request)


def create_app(settings: Settings | None = None) -> Litestar:
    app = Litestar(
        route_handlers=[
            create_player,
            issue_token,
            end_other_tokens,
            catalog,
            game_content,
            game_schemas_of,
            create_room,
            list_rooms,
            get_room,
            join_room,
            leave_room,
            add_bot,
            start_room,
            rematch_room,
            health,
            ready,
            metrics_endpoint,
            *web_routes(),  # the reference web client at /play/ (clients/web)
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        cors_config=cors(settings),  # browsers: infra/http.py
        lifespan=[lifespan, rate_limits],  # rate_limits after: it reads the settings
        middleware=[Edge],  # ids, metrics, rate limits, body bounds, Allow: infra/edge.py
        openapi_config=openapi_config("Turnpost lobby", closed=closed_structs(contracts.lobby)),
        logging_config=None,  # infra.logging configures the process from LOG_LEVEL
    )
    app.state.settings = settings
    return app
