"""The caller's games, newest first, keyset-paged."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, get
from litestar.params import FromQuery, QueryParameter

from contracts.game import GameSummary, MyGames, timestamp
from infra.http.cursors import bad_cursor, word
from infra.http.openapi import SECURITY, problems
from services.game.repository import PageKey
from services.game.routes.common import caller, service_of


@get(
    "/v1/me/games",
    operation_id="getMyGames",
    summary="Games the caller sits in, newest first; awaiting=true: where they must act, "
    "nearest deadline first; status=active|finished: those only (a finished game's result, "
    "ranks and rating changes: GET /v1/players/{id}/games at the lobby)",
    security=SECURITY,
    responses=problems(400, 401, codes={400: ["malformed_request", "bad_cursor"]}),
)
async def my_games(
    request: Request[Any, Any, Any],
    awaiting: FromQuery[bool] = False,
    status: FromQuery[Literal["active", "finished"] | None] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 50,
    cursor: Annotated[str | None, QueryParameter(max_length=200)] = None,
) -> MyGames:
    who = await caller(request)
    after = _page_key(cursor) if cursor else None
    rows = await service_of(request).games.of_player(
        who.player_id, awaiting, limit + 1, after, status
    )
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
        deadline, created, game_id = msgspec.json.decode(
            base64.urlsafe_b64decode(cursor), type=PageKey
        )
    except (ValueError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise bad_cursor() from exc
    return deadline, created, word(game_id)


ROUTES = [my_games]
