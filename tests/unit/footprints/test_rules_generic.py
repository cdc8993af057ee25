"""The generic engine checks (games/testing.py) over 208 seeded random games: every seat
count 1-6 and every mix of the options (advanced, snake, two_leaders). Replay, conservation
of the fire and footprint cards, every listed action accepted and wire-safe, no fire card
leaked. Fewer games at six seats, whose checks cost the most, keep the run under a minute.
"""

from __future__ import annotations

from itertools import product

import pytest

from games.footprints.model import Options
from games.testing import check_playout, random_playout
from tests.unit.footprints.rules_helpers import REAL

MIXES = list(product([False, True], repeat=3))  # advanced, snake, two_leaders
GAMES = {1: 7, 2: 7, 3: 5, 4: 3, 5: 2, 6: 2}  # per mix: 26, so 208 games in all


@pytest.mark.parametrize("seats", sorted(GAMES))
@pytest.mark.parametrize(
    "mix", MIXES, ids=["".join("AST"[i] if on else "-" for i, on in enumerate(m)) for m in MIXES]
)
def test_random_games_pass_every_generic_check(mix: tuple[bool, bool, bool], seats: int) -> None:
    advanced, snake, two_leaders = mix
    options = Options(advanced=advanced, snake=snake, two_leaders=two_leaders)
    for n in range(GAMES[seats]):
        seed = 1000 * MIXES.index(mix) + 100 * seats + n
        playout = random_playout(REAL, seed, seats, options)
        check_playout(REAL, playout)
        outcome = REAL.outcome(playout.states[-1])
        assert outcome is not None and len(outcome.scores) == seats
        assert all(
            p.turns == playout.states[-1].players[0].turns for p in playout.states[-1].players
        )


def test_the_mixes_cover_every_seat_count_and_option() -> None:
    assert len(MIXES) * sum(GAMES.values()) >= 200
    assert set(GAMES) == set(REAL.seats)
