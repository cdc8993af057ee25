"""The generic engine checks (games/testing.py) over seeded random games.

- `test_random_games_pass_every_generic_check`: `check_playout` (replay, conservation of the
  fire and footprint cards in every state, every listed action accepted and wire-safe, no
  secret card leaked) on one game of every seat count 1-6 with each of four mixes of the
  options (advanced, snake, two_leaders), each option on in two of them: 24 games.
- `test_every_move_is_listed_over_300_games_per_seat_count`: 300 games per seat count, the
  eight mixes in turn. Every game plays to the end with an outcome, its events replay to
  its final state, every state conserves the cards, and every player ends on the same
  number of turns. The listing oracle (`check_listing`, candidates from candidates.py) runs
  on positions sampled from each game: one act step (the richest listing) of every game,
  and one position at random of every fourth game, each with 200 candidates drawn from the
  full brute-force range (each position tries another part of it). A position whose listing
  a bound cut short (RULES.md, "Legal actions") is counted and skipped; there are none in
  these games.
"""

from __future__ import annotations

from itertools import product
from random import Random

import pytest

from games.api import fold
from games.footprints import legal
from games.footprints.model import Options
from games.footprints.state import State
from games.footprints.table import Table
from games.testing import (
    check_conservation,
    check_listing,
    check_playout,
    check_sample,
    random_playout,
)
from tests.unit.footprints.candidates import candidates
from tests.unit.footprints.playouts import quick_playout
from tests.unit.footprints.rules_helpers import REAL

MIXES = list(product([False, True], repeat=3))  # advanced, snake, two_leaders
FULL = [(False, False, False), (True, True, True), (True, False, True), (False, True, False)]
IDS = ["".join("AST"[i] if on else "-" for i, on in enumerate(m)) for m in FULL]
ORACLE_GAMES = 300  # per seat count
CANDIDATES = 200  # per position


@pytest.mark.parametrize("seats", sorted(REAL.seats))
@pytest.mark.parametrize("mix", FULL, ids=IDS)
def test_random_games_pass_every_generic_check(mix: tuple[bool, bool, bool], seats: int) -> None:
    advanced, snake, two_leaders = mix
    options = Options(advanced=advanced, snake=snake, two_leaders=two_leaders)
    playout = random_playout(REAL, 1000 * MIXES.index(mix) + 100 * seats, seats, options)
    check_playout(REAL, playout)
    _ends_well(playout.states[-1], seats)


def _ends_well(final: State, seats: int) -> None:
    outcome = REAL.outcome(final)
    assert outcome is not None and len(outcome.scores) == seats
    assert len({p.turns for p in final.players}) == 1


def _same(seat: int) -> object:
    """States compared where they differ first: the mover, then the whole."""
    return lambda a, b: a.players[seat] == b.players[seat] and a == b


@pytest.mark.parametrize("seats", sorted(REAL.seats))
def test_every_move_is_listed_over_300_games_per_seat_count(seats: int) -> None:
    checked = cut = 0
    for n in range(ORACLE_GAMES):
        seed = 10_000 * seats + n
        advanced, snake, two_leaders = MIXES[n % len(MIXES)]
        options = Options(advanced=advanced, snake=snake, two_leaders=two_leaders)
        playout = quick_playout(REAL, seed, seats, options)
        final = playout.states[-1]
        assert fold(REAL, playout.events) == final, f"seed {seed}: replay differs"
        _ends_well(final, seats)
        for state in playout.states:
            check_conservation(REAL, state, seed)
        pick = Random(seed)
        acts = [
            s for s in playout.states[:-1] if s.turn and s.turn.phase == "act" and not s.pending
        ]
        positions = [pick.choice(acts)] if acts else []
        if n % 4 == 0:
            positions.append(pick.choice(playout.states[:-1]))
        for state in positions:
            check_sample(REAL, state, n % seats, Random(n))
            seat = pick.choice(sorted(REAL.to_act(state)))
            if not legal.listing(Table(REAL.content, state, None), seat).complete:
                cut += 1
                continue
            found = candidates(REAL, state, seat, pick, CANDIDATES)
            check_listing(REAL, state, seat, found, seed, _same(seat))  # type: ignore[arg-type]
            checked += 1
    assert cut == 0 and checked >= ORACLE_GAMES
