"""Invitations: seats a host holds for named players (services/lobby/invitations.py)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, delete, get, post
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath

from contracts.lobby import Invitation, Invitations, NewInvitation
from contracts.problems import ProblemError
from infra.http.common import strictly
from infra.http.openapi import SECURITY, problems
from services.lobby.bootstrap import announce
from services.lobby.invitations import RoomInvitations
from services.lobby.routes.common import AUTH_CODES, caller


def invitations_of(request: Request[Any, Any, Any]) -> RoomInvitations:
    invitations: RoomInvitations = request.app.state.invitations
    return invitations


@post(
    "/v1/rooms/{room_id:str}/invitations",
    operation_id="invitePlayer",
    summary="Hold a seat of your open room for a named player (host), who is told `invited` "
    "and accepts by joining, or declines; the seat frees itself after expires_after_s",
    status_code=201,
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
            404: ["unknown_room", "unknown_player"],
            409: ["room_not_open", "already_seated", "room_full", "seat_taken", "seat_reserved"],
            422: ["no_such_seat", "own_invitation", "invalid_expiry"],
        },
        body=True,
    ),
)
async def invite_player(
    room_id: FromPath[str],
    request: Request[Any, Any, Any],
    data: Annotated[
        NewInvitation,
        Body(
            examples=[
                Example(
                    value={
                        "player_id": "p-3f1c0b9e-5d7e-4a57-8f0e-3c2a1d4b5e6f",
                        "seat": 1,
                        "expires_after_s": 3600,
                    }
                )
            ]
        ),
    ],
) -> Invitation:
    who = await caller(request)
    data = await strictly(request, data)
    return await invitations_of(request).invite(room_id, who.player_id, data)


@get(
    "/v1/rooms/{room_id:str}/invitations",
    operation_id="getRoomInvitations",
    summary="The room's invitations, newest first, with their answers (host)",
    security=SECURITY,
    responses=problems(
        400, 401, 403, 404, codes={**AUTH_CODES, 403: ["not_host"], 404: ["unknown_room"]}
    ),
)
async def room_invitations(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Invitations:
    who = await caller(request)
    room = await invitations_of(request).lobby.get(room_id)
    if room.host != who.player_id:
        raise ProblemError(403, "not_host", "only the room's host sees its invitations")
    return await invitations_of(request).of_room(room_id)


@delete(
    "/v1/rooms/{room_id:str}/invitations/{player_id:str}",
    operation_id="withdrawInvitation",
    summary="Withdraw a player's invitation (host): their seat is free again",
    status_code=200,
    security=SECURITY,
    responses=problems(
        400,
        401,
        403,
        404,
        codes={**AUTH_CODES, 403: ["not_host"], 404: ["unknown_room", "no_invitation"]},
    ),
)
async def withdraw_invitation(
    room_id: FromPath[str], player_id: FromPath[str], request: Request[Any, Any, Any]
) -> Invitation:
    who = await caller(request)
    return await invitations_of(request).withdraw(room_id, who.player_id, player_id)


@post(
    "/v1/rooms/{room_id:str}/invitations/decline",
    operation_id="declineInvitation",
    summary="Decline your invitation to the room: the seat held for you is free again",
    status_code=200,
    security=SECURITY,
    responses=problems(400, 401, 404, codes={**AUTH_CODES, 404: ["unknown_room", "no_invitation"]}),
)
async def decline_invitation(room_id: FromPath[str], request: Request[Any, Any, Any]) -> Invitation:
    """A rematch's offer too: a bot then takes the seat if the one who offered asked so."""
    who = await caller(request)
    declined, started = await invitations_of(request).decline(room_id, who.player_id)
    if started is not None:
        await announce(request.app.state.streams, request.app.state.settings, started)
    return declined


@get(
    "/v1/me/invitations",
    operation_id="getMyInvitations",
    summary="Your invitations still waiting for an answer, newest first (accept: join the "
    "room; decline: POST /v1/rooms/{room_id}/invitations/decline)",
    security=SECURITY,
    responses=problems(400, 401, codes=AUTH_CODES),
)
async def my_invitations(request: Request[Any, Any, Any]) -> Invitations:
    who = await caller(request)
    return await invitations_of(request).mine(who.player_id)


ROUTES = [invite_player, room_invitations, withdraw_invitation, decline_invitation, my_invitations]
