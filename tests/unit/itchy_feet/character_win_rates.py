"""How often each character wins seeded greedy games of Itchy Feet (not a test: a measure).

    .venv/bin/python -m tests.unit.itchy_feet.character_win_rates [games] [seats] [--no-extensions]

Every seat plays the greedy bot, characters dealt at random, seeds 0 .. games-1. RULES.md
("Characters") quotes its numbers for 400 four-seat games.
"""

from __future__ import annotations

import sys
from collections import Counter
from random import Random

import msgspec

from games.api import fold
from games.itchy_feet.model import (
    Options,
)
from games.itchy_feet.rules import ItchyFeet
from services.bots.observe import Observation
from services.bots.policies.itchy_feet import greedy


def win_rates(games: int, seats: int, extensions: bool) -> dict[str, tuple[int, int]]:
    """Character -> (games won, games played)."""
    rules = ItchyFeet()
    on = extensions
    options = Options(
        events=on, special_items=on, forbidden_items=on, postcards=on, characters="random"
    )
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for seed in range(games):
        rng = Random(seed)
        state = fold(rules, rules.setup(options, seats, rng))
        while rules.to_act(state):
            seat = min(rules.to_act(state))
            view = msgspec.to_builtins(rules.view(state, seat))
            legal = list(rules.legal_actions(state, seat))
            obs = Observation(
                game=rules.key, seat=seat, version=0, view=view, legal=legal, to_act=[]
            )
            state = fold(rules, rules.decide(state, seat, greedy(obs, rng), rng), state)
        played.update(c for c in state.characters if c)
        if state.winner is not None and (winner := state.characters[state.winner]):
            won[winner] += 1
    return {c: (won[c], played[c]) for c in sorted(played)}


def main(argv: list[str]) -> None:
    numbers = [int(a) for a in argv if a.isdigit()]
    games, seats = (numbers + [400, 4][len(numbers) :])[:2]
    extensions = "--no-extensions" not in argv
    for character, (w, n) in win_rates(games, seats, extensions).items():
        print(f"{character:13} {w:4} / {n:4} = {w / n:4.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
