"""Games to watch: the games anyone may follow, being played now or over, newest first."""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

import msgspec
from litestar import Request, get
from litestar.params import FromQuery, QueryParameter

from contracts.game import WatchedGame, WatchPage, timestamp
from games.registry import get as get_rules
from infra.http.cursors import bad_cursor
from infra.http.openapi import problems
from services.game.repository import WatchKey
from services.game.routes.common import service_of


@get(
    "/v1/games",
    operation_id="listGames",
    summary="Games anyone may watch (not of an unlisted room), newest first: status=active "
    "(the default) for those being played now, finished for those over; game= one game's",
    responses=problems(400, codes={400: ["malformed_request", "bad_cursor"]}),
)
async def list_games(
    request: Request[Any, Any, Any],
    status: FromQuery[Literal["active", "finished"]] = "active",
    game: Annotated[str | None, QueryParameter(max_length=64)] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, QueryParameter(max_length=200)] = None,
) -> WatchPage:
    """Each is watched with the spectator's view (`GET /v1/games/{id}`), its feed and its
    stream; once over, its whole record (`GET /v1/games/{id}/record`)."""
    after = _key(cursor) if cursor else None
    rows = await service_of(request).games.watchable(game, status, limit + 1, after)
    more, rows = len(rows) > limit, rows[:limit]
    return WatchPage(
        items=[
            WatchedGame(
                id=r.game_id,
                game=r.game,
                title=rules.name if (rules := get_rules(r.game)) is not None else r.game,
                room_id=r.room_id,
                seats=r.seats,
                version=r.version,
                status="finished" if r.status == "finished" else "active",
                to_act=r.to_act,
                started_at=timestamp(r.created_at) if r.created_at else None,
            )
            for r in rows
        ],
        next=_cursor(rows[-1].key) if more else None,
    )


def _cursor(key: WatchKey) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(key)).decode()


def _key(cursor: str) -> WatchKey:
    try:
        at, game_id = msgspec.json.decode(base64.urlsafe_b64decode(cursor), type=WatchKey)
        if not game_id:
            raise ValueError("no game")
        return at, game_id
    except (ValueError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise bad_cursor() from exc


ROUTES = [list_games]
