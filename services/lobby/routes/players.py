"""Players: registering, and the tokens a player holds."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, delete, post
from litestar.openapi.spec import Example
from litestar.params import Body

from contracts.lobby import NewPlayer, PlayerCreated
from contracts.problems import ProblemError
from infra.auth.bearer import InvalidToken
from infra.http.common import strictly
from infra.http.openapi import SECURITY, problems
from services.lobby.routes.common import AUTH_CODES, caller, lobby_of, tokens_of


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
    player_id = await lobby_of(request).new_player(name)
    return PlayerCreated(id=player_id, name=name, token=tokens_of(request).issue(player_id, name))


@post(
    "/v1/players/me/tokens",
    operation_id="issueToken",
    summary="Another token for the caller; the caller's own keeps working",
    security=SECURITY,
    responses=problems(401, codes=AUTH_CODES),
)
async def issue_token(request: Request[Any, Any, Any]) -> PlayerCreated:
    """A fresh token for the same player (with `DELETE` after it: replace a leaked token)."""
    who = await caller(request)
    try:
        token = await tokens_of(request).renew(who)
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
    who = await caller(request)
    try:
        await tokens_of(request).end_others(who)
    except InvalidToken as exc:
        raise ProblemError(401, exc.code, str(exc)) from exc


ROUTES = [create_player, issue_token, end_other_tokens]
