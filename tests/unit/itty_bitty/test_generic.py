"""The generic engine checks of games/testing.py over hundreds of seeded random games."""

import pytest

from games.itty_bitty.rules import IttyBitty
from games.testing import check_playout, random_playout

RULES = IttyBitty()


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("block", range(10))
def test_random_games_pass_every_generic_check(seats: int, block: int) -> None:
    for seed in range(block * 10, block * 10 + 10):  # 100 games per seat count, 300 in all
        check_playout(RULES, random_playout(RULES, seed * 7 + seats, seats))
