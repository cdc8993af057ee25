"""The generic engine checks of games/testing.py over 300 seeded games per seat count (2-6),
every extension mix and character mode, with the oracle that `legal_actions` lists every
move (`check_listing`, candidates.py) and the check that `sample` guesses only reachable
states (`check_sample`, reachable.py).

Uniformly random play over the full list is nearly all trade offers and runs to the turn
limit (some 600 moves a game), so the games are played by the greedy bot with a random
move of a random kind one time in four: they end (in 85 to 200 moves), travel, trade and
hit every extension. Every game is replayed, every state checked for conservation and
reachability; one position in each is put to the oracle and to `sample`; and one game in
thirty goes through `check_playout` in full (every listed action of every state decided,
secrecy of every event and view).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import product
from random import Random
from typing import Any, Literal

import msgspec
import pytest
from msgspec.structs import replace

from games.api import fold
from games.itchy_feet.model import (
    Action,
    OfferTrade,
    Options,
    Recycle,
    State,
    Steal,
)
from games.itchy_feet.rules import ItchyFeet
from games.testing import (
    Playout,
    check_conservation,
    check_listing,
    check_playout,
    check_sample,
)
from services.bots.observe import Observation
from services.bots.policies.itchy_feet import greedy
from tests.unit.itchy_feet.candidates import Same, candidates
from tests.unit.itchy_feet.reachable import reachable
from tests.unit.itchy_feet.test_rules_setup import GERMANY, item, table

RULES = ItchyFeet()
MIXES = list(product([False, True], repeat=4))  # events, special, forbidden, postcards
CHARACTERS: tuple[Literal["off", "random", "choose"], ...] = ("off", "random", "choose")
GAMES, BLOCK = 300, 25  # per seat count
FULL_EVERY = 30  # one game in thirty: check_playout over every state
RANDOM_MOVE = 0.25
MAX_MOVES = 3000  # the turn limit ends any game in far fewer


def options(seed: int) -> Options:
    events, special, forbidden, postcards = MIXES[seed % len(MIXES)]
    return Options(
        events=events,
        special_items=special,
        forbidden_items=forbidden,
        postcards=postcards,
        characters=CHARACTERS[seed // len(MIXES) % len(CHARACTERS)],
    )


def move(state: State, seat: int, actions: list[Action], rng: Random) -> Action:
    """The greedy bot's move, or one time in four a random move of a random kind."""
    if rng.random() < RANDOM_MOVE:
        kinds: dict[str, list[Action]] = defaultdict(list)
        for one in actions:
            kinds[type(one).__name__].append(one)
        return rng.choice(kinds[rng.choice(sorted(kinds))])
    view = msgspec.to_builtins(RULES.view(state, seat))
    obs = Observation(game=RULES.key, seat=seat, version=0, view=view, legal=actions, to_act=[])
    chosen: Action = greedy(obs, rng)
    return chosen


def play(seed: int, seats: int) -> Playout:
    rng = Random(seed)
    events: list[Any] = list(RULES.setup(options(seed), seats, rng))
    state = fold(RULES, events)
    states = [state]
    while RULES.to_act(state):
        assert len(states) < MAX_MOVES, f"seed {seed}: no end after {MAX_MOVES} moves"
        seat = rng.choice(sorted(RULES.to_act(state)))
        new = RULES.decide(
            state, seat, move(state, seat, list(RULES.legal_actions(state, seat)), rng), rng
        )
        events += new
        state = fold(RULES, new, state)
        states.append(state)
    return Playout(seed=seed, seats=seats, events=events, states=states, steps=len(states) - 1)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("block", range(GAMES // BLOCK))
def test_seeded_games_pass_every_generic_check(seats: int, block: int) -> None:
    for game in range(block * BLOCK, (block + 1) * BLOCK):
        playout = play(1000 * seats + game, seats)
        if game % FULL_EVERY == 0:
            check_playout(RULES, playout)
        else:
            assert RULES.outcome(playout.states[-1]) is not None
            assert fold(RULES, playout.events) == playout.states[-1], "replay differs"
            for state in playout.states:
                check_conservation(RULES, state, playout.seed)
        for state in playout.states:
            reachable(state)
        check_a_position(playout)


def check_a_position(playout: Playout) -> None:
    """The oracle and `sample` at one position of the game picked at random."""
    rng = Random(playout.seed)
    live = [s for s in playout.states if RULES.to_act(s)]
    state = rng.choice(live)
    seat = rng.choice(sorted(RULES.to_act(state)))
    check_listing(RULES, state, seat, candidates(state, seat, rng), playout.seed, Same())
    listed = list(RULES.legal_actions(state, seat))
    wire = msgspec.json.encode(listed)
    assert msgspec.json.decode(wire, type=list[RULES.action_type]) == listed  # type: ignore[name-defined]
    check_sample(RULES, state, rng.randrange(playout.seats), rng, reachable)


class Lister(ItchyFeet):
    """The real rules with a listing made wrong on purpose, to check the oracle sees it."""

    def __init__(self, change: Any) -> None:
        super().__init__()
        self.change = change

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        return list(self.change(list(super().legal_actions(state, seat))))


def drop_first(kind: type) -> Any:
    def change(actions: list[Action]) -> list[Action]:
        first = next(i for i, a in enumerate(actions) if isinstance(a, kind))
        return actions[:first] + actions[first + 1 :]

    return change


def with_the_other_umbrella(actions: list[Action]) -> list[Action]:
    steal = next(a for a in actions if isinstance(a, Steal) and a.discard == item("umbrella"))
    return [*actions, replace(steal, discard=item("umbrella", 2))]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (drop_first(Recycle), "accepted but not listed"),
        (drop_first(OfferTrade), "accepted but not listed"),
        (drop_first(Steal), "accepted but not listed"),
        (with_the_other_umbrella, "have the same result"),
    ],
    ids=["recycle left out", "offer left out", "steal left out", "steal listed twice"],
)
def test_the_oracle_finds_a_move_left_out_and_one_listed_twice(change: Any, message: str) -> None:
    hand = [*GERMANY, item("camera"), item("umbrella", 2)]
    state = table(3, hands=[hand, [item("sunscreen")], []], discard=[item("guidebook")])
    check_listing(RULES, state, 0, candidates(state, 0, Random(0)), 0, Same())  # as it is
    with pytest.raises(AssertionError, match=message):
        check_listing(Lister(change), state, 0, candidates(state, 0, Random(0)), 0, Same())
