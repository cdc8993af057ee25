"""A game's board: the SVG picture and the map's data (the games that have one)."""

from __future__ import annotations

import gzip
import hashlib
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromPath, QueryParameter

from contracts.problems import ProblemError
from infra.http.openapi import SECURITY, problems
from services.game.maps import GameMap
from services.game.routes.common import MAX_VERSION, UNKNOWN_GAME, caller, service_of


@get(
    "/v1/games/{game_id:str}/board.svg",
    operation_id="getBoardSvg",
    summary="The board drawn from the caller's view (games with a map)",
    media_type="image/svg+xml",
    security=SECURITY,
    responses=problems(
        400,
        401,
        404,
        503,
        codes={
            **UNKNOWN_GAME,
            400: ["malformed_request", "at_beyond_version"],
            404: ["unknown_game", "no_board"],
        },
    ),
)
async def board_svg(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    at: Annotated[
        int | None,
        QueryParameter(
            ge=1,
            le=MAX_VERSION,
            description="The board as it stood at this version (a replay). 400 "
            "`at_beyond_version` past the game's version.",
        ),
    ] = None,
    pieces: Annotated[
        bool,
        QueryParameter(
            description="false: the map as set up, without figures, engravings, paintings or "
            "arrivals on the cairn track: fixed for the whole game, so cached for a day "
            "(`immutable`); a client draws the pieces over it from the view, by each cave's "
            "`data-site`, each track slot's `data-slot` and each space's `data-pos`.",
        ),
    ] = True,
) -> Response[bytes]:
    who = await caller(request)
    svc = service_of(request)
    loaded = await svc.load(game_id)
    draw = getattr(loaded.rules, "board_svg", None)
    if draw is None:
        raise ProblemError(404, "no_board", f"{loaded.record.game} has no board to draw")
    if at is not None:  # as GET /v1/games/{id}?at= has it
        loaded = await svc.as_of(loaded, at)
    seat = loaded.record.seat_of(who.player_id)
    if pieces:
        return svg_response(draw(loaded.state, seat).encode(), request.headers)
    fixed = "private, max-age=86400, immutable"
    return svg_response(draw(loaded.state, seat, pieces=False).encode(), request.headers, fixed)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding takes gzip: named with a q above 0, or else `*` so."""
    q_of: dict[str, float] = {}
    for part in accept_encoding.lower().split(","):
        name, *params = (x.strip() for x in part.split(";"))
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if name:
            q_of[name] = q
    return q_of["gzip"] > 0 if "gzip" in q_of else q_of.get("*", 0.0) > 0


def svg_response(body: bytes, headers: Any, cache: str = "private, no-cache") -> Response[bytes]:
    """The drawing, named by a hash of it (ETag: the browser asks again with If-None-Match and
    gets a bodiless 304 while nothing on the map moved), gzipped for a client that takes it
    (a drawing is ~40 KB of repetitive text, ~6 KB gzipped)."""
    gzipped = accepts_gzip(headers.get("accept-encoding", ""))
    tag = f'W/"{hashlib.blake2b(body, digest_size=12).hexdigest()}{"-gz" if gzipped else ""}"'
    out = {"ETag": tag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
    # compared weakly, as RFC 9110 has If-None-Match compare (W/ or not; * is any)
    asked = {t.strip().removeprefix("W/") for t in headers.get("if-none-match", "").split(",")}
    if tag.removeprefix("W/") in asked or "*" in asked:
        return Response(b"", status_code=304, headers=out, media_type="image/svg+xml")
    if gzipped:
        body = gzip.compress(body, compresslevel=6)
        out["Content-Encoding"] = "gzip"
    return Response(body, headers=out, media_type="image/svg+xml")


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
