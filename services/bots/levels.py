"""What the search levels spend (the ladder and its words: contracts/levels.py).

The `expert` level searches as `mcts` does (services/bots/search.py) with four times the
playouts over two more moves, and with time to match: its seconds a move grow with the room's
clock (`expert_seconds`), from `bot_expert_min_s` with no clock or a fast one, to
`bot_expert_max_s` at most (settings), so a worker's CPU per move stays bounded whatever the
clock.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import asyncpg

from contracts.lobby import Timing
from games.table import timing_of
from infra.settings import Settings

EXPERT_SHARE = 0.05  # of a person's time per move (or a bank's increment) the expert may take


def expert_seconds(timing: Timing | None, least: float, most: float) -> float:
    """The expert's seconds for one move at a table with this clock: a twentieth of the
    people's time per move (a bank: of its increment, or of a thirtieth of the bank without
    one), never below `least` nor above `most`."""
    if timing is None:
        return least
    if timing.per_move_s is not None:
        turn = float(timing.per_move_s)
    elif timing.bank_s is not None:
        turn = float(timing.increment_s or timing.bank_s / 30)
    else:
        return least
    return min(most, max(least, EXPERT_SHARE * turn))


def seconds_for(level: str, timing: Timing | None, settings: Settings) -> float | None:
    """A turn's seconds of search: `mcts` its setting's, `expert` from the room's clock;
    None for a level that does not search."""
    if level == "mcts":
        return settings.bot_mcts_s
    if level == "expert":
        return expert_seconds(timing, settings.bot_expert_min_s, settings.bot_expert_max_s)
    return None


async def room_clock(pool: Callable[[], Awaitable[asyncpg.Pool]], game_id: str) -> Timing:
    """The clock of a game's room, as the game service stored it (no clock: `Timing()`)."""
    async with (await pool()).acquire() as conn:
        raw = await conn.fetchval("SELECT timing::text FROM games WHERE id = $1", game_id)
    return timing_of(json.loads(raw)) if raw else Timing()
