"""A player's record: who I am (and renaming), anyone's profile and finished games, my rooms,
and the leaderboards (services/lobby/profiles.py reads what ratings.py writes)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get, patch
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath, QueryParameter

from contracts.lobby import RoomPage
from contracts.players import History, Leaderboard, Profile, Rename
from contracts.problems import ProblemError
from games.registry import keys
from infra.http.common import strictly
from infra.http.openapi import SECURITY, problems
from services.lobby.profiles import Profiles
from services.lobby.routes.common import AUTH_CODES, caller, lobby_of
from services.lobby.routes.rooms import RoomStatusFilter

Limit = Annotated[int, QueryParameter(ge=1, le=100)]
Cursor = Annotated[str | None, QueryParameter(max_length=200)]
PAGED = {400: ["malformed_request", "bad_cursor"]}


def profiles_of(request: Request[Any, Any, Any]) -> Profiles:
    profiles: Profiles = request.app.state.profiles
    return profiles


@get(
    "/v1/players/me",
    operation_id="getMe",
    summary="Who I am: my name, since when, and per game my games played, won and current, "
    "and my rating",
    security=SECURITY,
    responses=problems(400, 401, codes=AUTH_CODES),
)
async def get_me(request: Request[Any, Any, Any]) -> Profile:
    who = await caller(request)
    return await profiles_of(request).profile(who.player_id)


@patch(
    "/v1/players/me",
    operation_id="renameMe",
    summary="Rename myself (1 to 40 characters); tokens issued from now on carry the new name",
    security=SECURITY,
    responses=problems(400, 401, 422, codes={**AUTH_CODES, 422: ["invalid_name"]}, body=True),
)
async def rename_me(
    data: Annotated[Rename, Body(examples=[Example(value={"name": "Ada L."})])],
    request: Request[Any, Any, Any],
) -> Profile:
    who = await caller(request)
    data = await strictly(request, data)
    name = data.name.strip()
    if not 1 <= len(name) <= 40:
        raise ProblemError(422, "invalid_name", "a name has 1 to 40 characters")
    await profiles_of(request).rename(who.player_id, name)
    return await profiles_of(request).profile(who.player_id)


@get(
    "/v1/players/{player_id:str}",
    operation_id="getPlayer",
    summary="A player's profile (a bot player's too)",
    security=SECURITY,
    responses=problems(400, 401, 404, codes={**AUTH_CODES, 404: ["unknown_player"]}),
)
async def get_player(player_id: FromPath[str], request: Request[Any, Any, Any]) -> Profile:
    await caller(request)
    return await profiles_of(request).profile(player_id)


@get(
    "/v1/players/{player_id:str}/games",
    operation_id="getPlayerGames",
    summary="A player's finished games, newest first: the result, every seat with its rank "
    "and rating change, the player's own rank and change (another's: none of unlisted rooms)",
    security=SECURITY,
    responses=problems(400, 401, codes={**AUTH_CODES, **PAGED}),
)
async def player_games(
    player_id: FromPath[str],
    request: Request[Any, Any, Any],
    limit: Limit = 20,
    cursor: Cursor = None,
) -> History:
    who = await caller(request)
    return await profiles_of(request).history(player_id, limit, cursor, who.player_id)


@get(
    "/v1/me/rooms",
    operation_id="getMyRooms",
    summary="Rooms I host or sit in, newest first",
    security=SECURITY,
    responses=problems(400, 401, codes={**AUTH_CODES, **PAGED}),
)
async def my_rooms(
    request: Request[Any, Any, Any],
    status: Annotated[RoomStatusFilter | None, QueryParameter()] = None,
    limit: Limit = 20,
    cursor: Cursor = None,
) -> RoomPage:
    who = await caller(request)
    return await lobby_of(request).list(None, status, limit, cursor, player=who.player_id)


@get(
    "/v1/leaderboards/{game:str}",
    operation_id="getLeaderboard",
    summary="A game's players and bot levels by rating (mu - 3 sigma); settled ratings (10 "
    "games or more), or with `provisional` the others",
    responses=problems(400, 404, codes={**PAGED, 404: ["unknown_game"]}),
)
async def leaderboard(
    game: FromPath[str],
    request: Request[Any, Any, Any],
    provisional: Annotated[bool, QueryParameter()] = False,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> Leaderboard:
    if game not in keys():
        raise ProblemError(404, "unknown_game", f"no game {game!r} here")
    return await profiles_of(request).leaderboard(game, provisional, limit, cursor)


ROUTES = [get_me, rename_me, get_player, player_games, my_rooms, leaderboard]
