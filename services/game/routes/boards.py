"""A game's board: the SVG picture and the map's data (the games that have one)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromPath

from contracts.problems import ProblemError
from infra.http.openapi import SECURITY, problems
from services.game.maps import GameMap
from services.game.routes.common import UNKNOWN_GAME, caller, service_of


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
    who = await caller(request)
    loaded = await service_of(request).load(game_id)
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
    await caller(request)
    loaded = await service_of(request).load(game_id)
    build = getattr(loaded.rules, "board_map", None)
    if build is None:
        raise ProblemError(404, "no_board", f"{loaded.record.game} has no map")
    return GameMap(
        id=loaded.record.id, game=loaded.record.game, map=msgspec.to_builtins(build(loaded.state))
    )


ROUTES = [board_svg, game_map]
