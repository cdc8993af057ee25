"""The catalog: the games served, their seats, options and bot levels, their content and schemas."""

from __future__ import annotations

import functools
import logging
from typing import Any

import msgspec
from litestar import Request, get
from litestar.params import FromPath

from contracts.levels import WORDS, measured_rating
from contracts.lobby import (
    BotLevel,
    Catalog,
    CatalogGame,
    GameContent,
    GameSchemas,
    MeasuredRating,
    Rating,
)
from contracts.problems import ProblemError
from games.how_to_play import how_to_play
from games.registry import get as get_rules
from games.registry import narrator, package_of, registry
from games.schemas import game_schemas
from infra.http.openapi import problems
from infra.servers.errors import is_transient
from services.lobby.routes.profiles import profiles_of

log = logging.getLogger(__name__)


@get(
    "/v1/catalog",
    operation_id="getCatalog",
    summary="Games, seat ranges, bot levels (their words and ratings), options; where each"
    " game's JSON Schemas are",
    responses=problems(),
)
async def catalog(request: Request[Any, Any, Any]) -> Catalog:
    games = registry().values()
    try:
        live = await profiles_of(request).bot_ratings({r.key: r.bot_levels for r in games})
    except Exception as exc:
        if not is_transient(exc):
            raise
        # the database away: the catalog still serves (the games, the measured ratings), the
        # live ratings left out until it is back
        log.warning("the catalog without the bots' live ratings: the database did not answer")
        live = {}
    return Catalog(
        games=[
            CatalogGame(
                key=r.key,
                name=r.name,
                min_seats=r.seats.start,
                max_seats=r.seats.stop - 1,
                bot_levels=list(r.bot_levels),
                bots=[_level(r.key, level, live.get((r.key, level))) for level in r.bot_levels],
                options_schema=msgspec.json.schema(r.options_type),
                schemas=f"/v1/catalog/{r.key}/schemas",
                content=f"/v1/catalog/{r.key}/content",
            )
            for r in games
        ]
    )


def _level(game: str, level: str, live: Rating | None) -> BotLevel:
    """A bot level as the catalog shows it: its words, the tournament's rating, the live one."""
    known = measured_rating(game, level)
    return BotLevel(
        level=level,
        description=WORDS.get(level, level),
        measured=MeasuredRating(rating=known["ordinal"], mu=known["mu"], sigma=known["sigma"])
        if known
        else None,
        rating=live,
    )


@get(
    "/v1/catalog/{game:str}/content",
    operation_id="getGameContent",
    summary="A game's cards: every card in one shape (`all_cards`), its rules for players"
    " (`how_to_play`), and the game's own content",
    responses=problems(400, 404, codes={404: ["unknown_game"]}),
)
async def game_content(game: FromPath[str]) -> GameContent:
    return _content(_rules(game).key)


@functools.cache
def _content(key: str) -> GameContent:
    """Content never changes while a process runs: made once per game."""
    rules = _rules(key)
    own: dict[str, Any] = rules.describe()
    every = [msgspec.to_builtins(c) for c in narrator(key).cards()]
    rules_for_players = how_to_play(package_of()[key])
    return msgspec.convert(
        {**own, "game": key, "all_cards": every, "how_to_play": rules_for_players},
        GameContent,
        from_attributes=True,
    )


@get(
    "/v1/catalog/{game:str}/schemas",
    operation_id="getGameSchemas",
    summary="JSON Schemas of a game's actions, events (with the clock's), views and options",
    responses=problems(400, 404, codes={404: ["unknown_game"]}),
)
async def game_schemas_of(game: FromPath[str]) -> GameSchemas:
    rules = _rules(game)
    return GameSchemas(game=rules.key, **game_schemas(rules))


def _rules(game: str) -> Any:
    rules = get_rules(game)
    if rules is None:
        raise ProblemError(404, "unknown_game", f"no game {game!r}")
    return rules


ROUTES = [catalog, game_content, game_schemas_of]
