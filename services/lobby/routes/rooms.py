"""Rooms: opened, listed, joined, left, filled with bots, started and rematched."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from litestar import Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, FromQuery, QueryParameter

from contracts.lobby import AddBot, JoinRoom, NewRoom, Rematch, Room, RoomPage, StartRoom
from infra.http.common import strictly
from infra.http.openapi import SECURITY, OptionalBody, problems
from services.lobby.bootstrap import announce
from services.lobby.rematches import Rematches
from services.lobby.routes.common import (
    AUTH_CODES,
    ROOM_SETTINGS_CODES,
    caller,
    lobby_of,
    maybe_caller,
)

MAX_START_WAIT_S = 30.0


RoomStatusFilter = Literal["open", "starting", "playing", "finished", "cancelled"]


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
            422: ROOM_SETTINGS_CODES,
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
    who = await caller(request)
    data = await strictly(request, data)
    return await lobby_of(request).create_room(who.player_id, data)


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
    return await lobby_of(request).list(game, status, limit, cursor)


@get(
    "/v1/rooms/{room_id:str}",
    operation_id="getRoom",
    summary="A room (with a token: its invite code, when you host it or sit in it)",
    responses=problems(400, 401, 404, codes={**AUTH_CODES, 404: ["unknown_room"]}),
)
async def get_room(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Room:
    who = await maybe_caller(request)
    return await lobby_of(request).get(room_id, who.player_id if who else None)


@post(
    "/v1/rooms/{room_id:str}/join",
    operation_id="joinRoom",
    summary="Take a seat: the one named, the one held for you (accepting an invitation), or "
    "the first free (the body is optional); an unlisted room wants its invite_code; restarts "
    "the wait of the room's timed fill",
    status_code=200,
    operation_class=OptionalBody,
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
            403: ["bad_invite_code"],
            404: ["unknown_room"],
            409: [
                "room_not_open",
                "already_seated",
                "room_full",
                "seat_taken",
                "seat_reserved",
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
    who = await caller(request)
    data = await strictly(request, data)
    data = data or JoinRoom()
    room, started = await lobby_of(request).join(
        room_id, who.player_id, data.seat, data.invite_code
    )
    if started is not None:  # a quick match's table or a rematch: full, so started
        await announce(request.app.state.streams, request.app.state.settings, started)
    return room


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
    who = await caller(request)
    return await lobby_of(request).leave(room_id, who.player_id)


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
            409: ["room_not_open", "room_full", "seat_taken", "seat_reserved"],
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
    who = await caller(request)
    data = await strictly(request, data)
    return await lobby_of(request).add_bot(room_id, who.player_id, data.level, data.seat)


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
    who = await caller(request)
    data = await strictly(request, data)
    fill_bots = (data or StartRoom()).fill_bots
    lobby = lobby_of(request)
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
    summary="Play a finished room again (same game, settings, bots and people): the first "
    "call offers it to the others, a later one accepts; it starts once every seat is taken",
    operation_class=OptionalBody,
    security=SECURITY,
    responses={
        200: ResponseSpec(Room, description="Accepted: the rematch an earlier call offered"),
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
                # room_full: the caller declined and another took the seat; room_not_open:
                # the rematch started meanwhile; stale_version: made meanwhile, ask again
                409: [
                    "room_not_finished",
                    "too_many_open_rooms",
                    "room_full",
                    "room_not_open",
                    "stale_version",
                ],
            },
            body=True,
        ),
    },
)
async def rematch_room(
    room_id: FromPath[str],
    request: Request[Any, Any, Any],
    data: Annotated[
        Rematch | None, Body(examples=[Example(value={"bots_for_declined": True})])
    ] = None,
) -> Response[Room]:
    """The one rematch of a finished room, for any of its people.

    201 when this call made it: the caller sits in their old seat, new bots of the same
    levels in theirs, and each other person's seat is held for them a day while they are told
    `rematch_offered`; with `bots_for_declined`, a bot takes the seat of each who declines
    (`POST /v1/rooms/{new}/invitations/decline`). 200 when an earlier call had made it: the
    caller's seat is taken (they accept). The room starts by itself once every seat is taken.
    """
    who = await caller(request)
    data = await strictly(request, data)
    rematches: Rematches = request.app.state.rematches
    room, made, started = await rematches.rematch(
        room_id, who.player_id, (data or Rematch()).bots_for_declined
    )
    if started is not None:
        await announce(request.app.state.streams, request.app.state.settings, started)
    return Response(room, status_code=201 if made else 200)


ROUTES = [
    create_room,
    list_rooms,
    get_room,
    join_room,
    leave_room,
    add_bot,
    start_room,
    rematch_room,
]
