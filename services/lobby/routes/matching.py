"""Quick match: a seat at a waiting table with the same settings, or a new one
(services/lobby/matching.py)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from litestar import Request, delete, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, QueryParameter

from contracts.lobby import Match, NewMatch
from infra.http.common import strictly
from infra.http.openapi import SECURITY, problems
from services.lobby.bootstrap import announce
from services.lobby.matching import Matchmaker
from services.lobby.routes.common import AUTH_CODES, ROOM_SETTINGS_CODES, caller

MAX_MATCH_WAIT_S = 30.0
POLL_S = 0.1


def matchmaker_of(request: Request[Any, Any, Any]) -> Matchmaker:
    matchmaker: Matchmaker = request.app.state.matchmaker
    return matchmaker


@post(
    "/v1/match",
    operation_id="quickMatch",
    summary="Quick match: a seat at a waiting table with these settings (the nearest in "
    "rating first), or a new table; ?wait=S answers once the game exists, within S seconds",
    status_code=200,
    security=SECURITY,
    responses={
        200: ResponseSpec(
            Match, description="Seated: `waiting` for the table to fill, or `matched` (game_id)"
        ),
        **problems(
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
    },
)
async def quick_match(
    request: Request[Any, Any, Any],
    data: Annotated[
        NewMatch,
        Body(
            examples=[
                Example(value={"game": "itty-bitty"}),
                Example(
                    summary="Four seats, unrated, random bots after 30 s",
                    value={
                        "game": "itty-bitty",
                        "seats": 4,
                        "rated": False,
                        "fill_with_bots_after_s": 30,
                        "fill_level": "random",
                    },
                ),
            ]
        ),
    ],
    wait: Annotated[float, QueryParameter(ge=0, le=MAX_MATCH_WAIT_S)] = 0,
) -> Match:
    """Tables fill with people as they come; `fill_with_bots_after_s` (default 60) after a
    table opened, bots of `fill_level` (default greedy) take its empty seats and it starts.
    A second call with the same settings while waiting gives the same table. `match_found`
    (webhooks, `/v1/me/stream`) tells each person when the game exists; `GET /v1/match`
    shows the table; `DELETE /v1/match` leaves it."""
    who = await caller(request)
    data = await strictly(request, data)
    matchmaker = matchmaker_of(request)
    match, started = await matchmaker.match(who.player_id, data)
    if started is not None:
        await announce(request.app.state.streams, request.app.state.settings, started)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while match.game_id is None and loop.time() < deadline:
        await asyncio.sleep(POLL_S)
        match = await matchmaker.state(match.room.id)
    return match


@get(
    "/v1/match",
    operation_id="getMatch",
    summary="The caller's quick match: the table waited at, or the newest one playing",
    security=SECURITY,
    responses=problems(400, 401, 404, codes={**AUTH_CODES, 404: ["not_matching"]}),
)
async def get_match(request: Request[Any, Any, Any]) -> Match:
    who = await caller(request)
    return await matchmaker_of(request).current(who.player_id)


@delete(
    "/v1/match",
    operation_id="leaveMatch",
    summary="Leave the quick-match queue: give up the seat at every table still waiting",
    status_code=204,
    security=SECURITY,
    responses=problems(
        400, 401, 404, 409, codes={**AUTH_CODES, 404: ["not_matching"], 409: ["room_not_open"]}
    ),
)
async def leave_match(request: Request[Any, Any, Any]) -> None:
    """409 `room_not_open` when the table started meanwhile: the match was found."""
    who = await caller(request)
    await matchmaker_of(request).leave(who.player_id)


ROUTES = [quick_match, get_match, leave_match]
