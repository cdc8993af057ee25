"""The bot levels a person may seat, weakest first, and what the catalog says of each: its
words, and its rating as `make tournament` last measured it (`ladder.json` beside this file,
written by `python -m tests.bench.tournament --out`). Shared by the lobby (the catalog, the
first rating of a level) and the bots (services/bots/levels.py: what each level does)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

LADDER = ("random", "greedy", "mcts", "expert")

WORDS = {
    "random": "A beginner: any legal move, at random.",
    "greedy": "Plays the move that looks best right now, by the game's own reckoning, with no"
    " look ahead.",
    "mcts": "Looks ahead: plays its likely moves on to the end over many guessed deals (what it"
    " cannot see is guessed from what it can), a fraction of a second to 2 s a move.",
    "expert": "Looks ahead as the search level does, four times as long over more moves, and"
    " longer when the table's clock gives time (4 to 20 s a move).",
}

RATINGS = Path(__file__).with_name("ladder.json")


@cache
def measured() -> dict[str, Any]:
    """The last tournament's figures: `games` (game -> level -> {mu, sigma, ordinal}) and
    `measured` (when and how); `{}` if none was written."""
    if not RATINGS.is_file():
        return {}
    found: dict[str, Any] = json.loads(RATINGS.read_text(encoding="utf-8"))
    return found


def measured_rating(game: str, level: str) -> dict[str, float] | None:
    """A level's rating in a game as the tournament measured it ({mu, sigma, ordinal})."""
    found: dict[str, float] | None = measured().get("games", {}).get(game, {}).get(level)
    return found
