"""Lobby REST API v1 (Litestar)."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from redis.exceptions import RedisError

from contracts.lobby import (
    AddBot,
    Catalog,
    CatalogGame,
    JoinRoom,
    NewPlayer,
    NewRoom,
    PlayerCreated,
    Room,
    RoomPage,
    StartRoom,
)
from contracts.problems import ProblemError
from contracts.streams import LOBBY
from games.registry import get as get_rules
from games.registry import registry
from infra.auth import Principal, issue
from infra.http import EXCEPTION_HANDLERS, check_background, decode_body, principal_from
from infra.settings import Settings
from services.lobby.bootstrap import lifespan
from services.lobby.rooms import Lobby

log = logging.getLogger(__name__)
RoomStatusFilter = Literal["open", "starting", "playing", "finished", "cancelled"]


def _lobby(request: Request[Any, Any, Any]) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def _who(request: Request[Any, Any, Any]) -> Principal:
    settings: Settings = request.app.state.settings
    who = principal_from(request, settings.secret)
    if not await _lobby(request).player_exists(who.player_id):
        raise ProblemError(401, "unknown_player", "this token names no player of this lobby")
    return who


@post("/v1/players", operation_id="createPlayer", summary="Register; returns a bearer token")
async def create_player(
    data: JSONBody[NewPlayer], request: Request[Any, Any, Any]
) -> PlayerCreated:
    name = data.name.strip()
    if not 1 <= len(name) <= 40:
        raise ProblemError(422, "invalid_name", "a name has 1 to 40 characters")
    settings: Settings = request.app.state.settings
    player_id = await _lobby(request).new_player(name)
    return PlayerCreated(id=player_id, name=name, token=issue(settings.secret, player_id, name))


@get("/v1/catalog", operation_id="getCatalog", summary="Games, seat ranges, bot levels, options")
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
            )
            for r in registry().values()
        ]
    )


@get("/v1/catalog/{game:str}/content", operation_id="getGameContent", summary="A game's cards")
async def game_content(game: FromPath[str]) -> dict[str, Any]:
    rules = get_rules(game)
    if rules is None:
        raise ProblemError(404, "unknown_game", f"no game {game!r}")
    content: dict[str, Any] = rules.describe()  # type: ignore[attr-defined]
    return content


@post("/v1/rooms", operation_id="createRoom", summary="Open a room; the creator takes seat 0")
async def create_room(data: JSONBody[NewRoom], request: Request[Any, Any, Any]) -> Room:
    who = await _who(request)
    return await _lobby(request).create_room(
        who.player_id, data.game, data.seats, data.options, data.timing
    )


@get("/v1/rooms", operation_id="listRooms", summary="Rooms, newest first")
async def list_rooms(
    request: Request[Any, Any, Any],
    game: FromQuery[str | None] = None,
    status: FromQuery[RoomStatusFilter | None] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: FromQuery[str | None] = None,
) -> RoomPage:
    return await _lobby(request).list(game, status, limit, cursor)


@get("/v1/rooms/{room_id:str}", operation_id="getRoom")
async def get_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    return await _lobby(request).get(room_id)


@post("/v1/rooms/{room_id:str}/join", operation_id="joinRoom", status_code=200)
async def join_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    who = await _who(request)
    body = await request.body()
    data = decode_body(body, JoinRoom) if body.strip() else JoinRoom()
    return await _lobby(request).join(room_id, who.player_id, data.seat)


@post("/v1/rooms/{room_id:str}/leave", operation_id="leaveRoom", status_code=200)
async def leave_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    who = await _who(request)
    return await _lobby(request).leave(room_id, who.player_id)


@post("/v1/rooms/{room_id:str}/bots", operation_id="addBot", status_code=200)
async def add_bot(
    room_id: FromPath[str], data: JSONBody[AddBot], request: Request[Any, Any, Any]
) -> Room:
    who = await _who(request)
    return await _lobby(request).add_bot(room_id, who.player_id, data.level, data.seat)


@post(
    "/v1/rooms/{room_id:str}/start",
    operation_id="startRoom",
    status_code=202,
    summary="Start: empty seats get bots of fill_bots level (default greedy)",
)
async def start_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    who = await _who(request)
    body = await request.body()
    data = decode_body(body, StartRoom) if body.strip() else StartRoom()
    room, message = await _lobby(request).start(room_id, who.player_id, data.fill_bots)
    settings: Settings = request.app.state.settings
    # If this publish fails or is lost, the lobby's sweep publishes again (the game side is
    # idempotent): the room is committed as starting either way, so the answer is still 202.
    try:
        await request.app.state.streams.publish(
            settings.stream(LOBBY), msgspec.json.encode(message)
        )
    except RedisError as exc:
        log.warning("RoomStarted for %s not published yet (%r); the sweep will retry", room_id, exc)
    return room


@post(
    "/v1/rooms/{room_id:str}/rematch",
    operation_id="rematchRoom",
    summary="Play a finished room again: same game, settings, bots and people",
    responses={200: ResponseSpec(Room, description="The rematch an earlier call made")},
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
    return check_background(request)


def create_app(settings: Settings | None = None) -> Litestar:
    app = Litestar(
        route_handlers=[
            create_player,
            catalog,
            game_content,
            create_room,
            list_rooms,
            get_room,
            join_room,
            leave_room,
            add_bot,
            start_room,
            rematch_room,
            health,
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=[lifespan],
        openapi_config=OpenAPIConfig(title="Turnpost lobby", version="1.0.0", path="/schema"),
        logging_config=None,  # infra.logging configures the process from LOG_LEVEL
    )
    app.state.settings = settings
    return app
