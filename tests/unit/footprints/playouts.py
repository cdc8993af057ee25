"""Seeded random games played quickly, for the listing oracle's 300 games per seat count.

`games.testing.random_playout` draws every move from the full listing, whose act steps
(every top action's every result) cost the most. Here an act step of a follower is drawn
more cheaply: a random walk over the card's terrain (with the fire card used after it, at
random) or a random bottom move, each posted to `decide` like any client's move; a refused
one (an end on a figure, a cost not paid) is drawn again, and after a few the full listing
is used. Every other step draws from the full listing, as `random_playout` does.
"""

from __future__ import annotations

from random import Random

from games.api import IllegalAction, fold
from games.footprints.board import bottom_destinations
from games.footprints.content import Follower, clan_card
from games.footprints.model import Action, Bottom, Options, Top
from games.footprints.rules import Footprints
from games.footprints.state import State
from games.footprints.table import board_of
from games.testing import Playout

TRIES = 6


def quick_playout(rules: Footprints, seed: int, seats: int, options: Options) -> Playout:
    rng = Random(seed)
    events = list(rules.setup(options, seats, rng))
    state = fold(rules, events)
    states = [state]
    steps = 0
    while rules.to_act(state):
        assert steps < 5_000, f"seed {seed}: no end"
        seat = rng.choice(sorted(rules.to_act(state)))
        new = None
        for action in _drawn(rules, state, seat, rng):
            try:
                new = rules.decide(state, seat, action, rng)
                break
            except IllegalAction:
                continue
        if new is None:
            new = rules.decide(state, seat, rng.choice(list(rules.legal_actions(state, seat))), rng)
        events.extend(new)
        state = fold(rules, new, state)
        states.append(state)
        steps += 1
    return Playout(seed=seed, seats=seats, events=events, states=states, steps=steps)


def _drawn(rules: Footprints, state: State, seat: int, rng: Random) -> list[Action]:
    """A few random follower moves to try (none for any other step)."""
    turn = state.turn
    if state.pending is not None or turn is None or turn.phase != "act" or turn.card is None:
        return []
    card = clan_card(rules.content, turn.card)
    here = state.players[seat].position
    if not isinstance(card, Follower) or here is None:
        return []
    board = board_of(rules.content, state)
    others = {p.position for s, p in enumerate(state.players) if s != seat and p.position}
    fire = turn.fire if not turn.both else None
    level = state.players[seat].skills[("mountain", "ice", "forest", "swamp").index(card.terrain)]
    ends = sorted(bottom_destinations(board, here, others))
    out: list[Action] = []
    for _ in range(TRIES):
        if rng.random() < 0.5 and "top" not in turn.done_actions:
            path: list[tuple[int, int]] = []
            for _ in range(rng.randint(0, level)):
                steps = [
                    q
                    for q in board.adjacent(path[-1] if path else here)
                    if board.has(q, card.terrain)
                ]
                if not steps:
                    break
                path.append(rng.choice(steps))
            use = fire is not None and rng.random() < 0.5
            out.append(Top(path=tuple(path), fire_at=len(path) if use else None))
        elif "bottom" not in turn.done_actions and ends:
            use = fire is not None and rng.random() < 0.5
            out.append(Bottom(to=rng.choice(ends), fire_at=1 if use else None))
    return out
