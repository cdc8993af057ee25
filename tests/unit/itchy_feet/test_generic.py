"""The generic engine checks over hundreds of seeded random games, every extension mix."""

from itertools import product

import pytest

from games.itchy_feet.model import Options
from games.itchy_feet.rules import ItchyFeet
from games.testing import check_playout, random_playout

RULES = ItchyFeet()
MIXES = list(product([False, True], repeat=4))  # events, special, forbidden, postcards
CHARACTERS = ("off", "random", "choose")


@pytest.mark.parametrize(
    "mix", MIXES, ids=["".join("ESFP"[i] if on else "-" for i, on in enumerate(m)) for m in MIXES]
)
def test_random_games_pass_every_generic_check(mix: tuple[bool, bool, bool, bool]) -> None:
    events, special, forbidden, postcards = mix
    for n in range(13):  # 16 mixes x 13 = 208 games, every seat count and character mode
        seed = 100 * MIXES.index(mix) + n
        options = Options(
            events=events,
            special_items=special,
            forbidden_items=forbidden,
            postcards=postcards,
            characters=CHARACTERS[n % 3],
        )
        check_playout(RULES, random_playout(RULES, seed, 2 + n % 5, options))
