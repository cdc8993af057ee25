"""The generic engine checks of games/testing.py over hundreds of seeded random games, with
the oracle that `legal_actions` lists every move (`check_listing`, candidates.py)."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from games.api import IllegalAction
from games.itty_bitty.model import CompleteCollector, State
from games.itty_bitty.payments import MAX_PAYMENTS_LISTED
from games.itty_bitty.rules import IttyBitty
from games.testing import Playout, check_listing, check_playout, check_sample, random_playout
from tests.unit.itty_bitty.candidates import result, split

RULES = IttyBitty()
GAMES_PER_BLOCK = 10
BLOCKS = 30  # 300 games per seat count
SAMPLED = 8  # positions per game for the oracle, besides the first of the last round


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("block", range(BLOCKS))
def test_random_games_pass_every_generic_check(seats: int, block: int) -> None:
    for game in range(block * GAMES_PER_BLOCK, (block + 1) * GAMES_PER_BLOCK):
        playout = random_playout(RULES, game * 7 + seats, seats)
        check_playout(RULES, playout)
        for state in positions(playout):
            for seat in sorted(RULES.to_act(state)):
                check_every_move_is_listed(state, seat, playout.seed)
            check_sample(RULES, state, game % seats, Random(game))


def positions(playout: Playout) -> list[Any]:
    """A few positions of the game at random, and the first turn of its last round."""
    live = [s for s in playout.states if RULES.to_act(s)]
    picked = Random(playout.seed).sample(live, min(SAMPLED, len(live)))
    last = next((s for s in live if s.end_triggered_by is not None), None)
    return picked + ([last] if last is not None else [])


def check_every_move_is_listed(state: State, seat: int, seed: int) -> None:
    candidates, over = split(RULES, state, seat)
    check_listing(RULES, state, seat, candidates, seed=seed)
    # A collector with more payments than the bound lists that many, all different, and
    # decide still accepts the others (when completing is legal here at all).
    listed = [a for a in RULES.legal_actions(state, seat) if isinstance(a, CompleteCollector)]
    for collector, tries in over.items():
        mine = [a for a in listed if a.collector == collector]
        valid = [a for a in tries if result(RULES, a) is not None]
        tried = valid[:: max(1, len(valid) // 10)]
        accepted = [a for a in tried if accepts(state, seat, a, seed)]
        assert accepted in ([], tried)
        assert len(mine) == len({result(RULES, a) for a in mine})
        assert len(mine) == (MAX_PAYMENTS_LISTED if accepted else 0)


def accepts(state: State, seat: int, action: CompleteCollector, seed: int) -> bool:
    try:
        RULES.decide(state, seat, action, Random(seed))
    except IllegalAction:
        return False
    return True
