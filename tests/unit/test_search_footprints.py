"""The Footprints search's estimate (services/bots/policies/footprints_estimate.py): a playout
cut short is scored by each seat's projected final points, so it must follow the points a
seat has, its figure's way to the cairn and its turns to come, and grow surer as the clan
cards run out; and the search cuts its playouts with it."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from msgspec.structs import replace

from games.footprints.events import GameEnded
from games.footprints.state import State
from games.registry import registry
from games.testing import random_playout
from services.bots.policies import SEARCHED
from services.bots.policies import footprints_estimate as fe
from services.bots.search import win_chances
from tests.bench.footprints_estimate import least_squares


def midgame(seed: int = 3, seats: int = 2) -> State:
    rules = registry()["footprints"]
    states = [
        s
        for s in random_playout(rules, seed, seats).states
        if rules.to_act(s) and all(p.position is not None for p in s.players)
    ]
    state = states[len(states) // 3]
    assert isinstance(state, State)
    return state


def with_player(state: State, seat: int, **changes: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def test_the_features_are_the_points_now_the_way_to_the_cairn_and_the_turns_to_come() -> None:
    from games.footprints.content import load
    from games.footprints.table import Table
    from games.footprints.turn import game_ended
    from services.bots.policies.footprints_seat import _map

    state = midgame()
    rows = fe.features(state)
    now = game_ended(Table(load(), state, None)).scores
    _, distance, _ = _map(state.tiles, state.turned, state.houses, state.options.snake)
    for seat, (p, row) in enumerate(zip(state.players, rows, strict=True)):
        other = state.players[1 - seat]
        cards = len(p.panel) + len(p.deck_top) + len(p.deck_bottom)
        assert row == [now[seat], distance[p.position], cards, 0.0, distance[other.position], 1]
    on_track = with_player(state, 0, position=None, cairn_points=15)
    assert fe.features(on_track)[0][1:4] == [0.0, rows[0][2], 1.0]
    assert fe.features(on_track)[1][4] == 0.0  # the game is about to end
    assert fe.features(on_track)[0][0] == rows[0][0] + 15  # the track's points count now


def test_more_points_a_shorter_way_and_more_turns_each_raise_a_seats_chance() -> None:
    state = midgame()
    base = fe.estimate(state)
    assert all(0.0 < c < 1.0 for c in base)
    p = state.players[0]
    richer = with_player(state, 0, resources=tuple(r + 4 for r in p.resources))  # +8 points
    assert fe.estimate(richer)[0] > base[0] and fe.estimate(richer)[1] < base[1]
    more_cards = with_player(state, 0, deck_bottom=(*p.deck_bottom, *p.panel[:1]))
    assert fe.estimate(more_cards)[0] > base[0]
    _, distance, _ = fe._map(state.tiles, state.turned, state.houses, state.options.snake)
    board, _, _ = fe._map(state.tiles, state.turned, state.houses, state.options.snake)
    nearer = next(
        q for q, d in distance.items() if d < distance[p.position] and q not in board.houses
    )
    closer = with_player(state, 0, position=nearer)
    assert fe.estimate(closer)[0] > base[0]
    # its own projection gains, and the other's loses (the game may end sooner)
    before, after = fe.projected(fe.features(state)), fe.projected(fe.features(closer))
    assert after[0] > before[0] and after[1] < before[1]


def test_the_same_lead_is_surer_as_the_clan_cards_run_out() -> None:
    state = midgame()
    rows = fe.features(state)
    late = [[*r[:2], 0.0, *r[3:]] for r in rows]  # no clan card left to anyone
    assert fe.scale(rows) > fe.scale(late) == fe.SCALE_END
    assert fe.scale([[0, 0, 40, 0, 0, 1]]) == fe.SCALE_MOST
    lead = [30.0, 20.0]
    assert win_chances(lead, fe.scale(late))[0] > win_chances(lead, fe.scale(rows))[0]


def test_an_ended_game_is_scored_by_its_winners() -> None:
    state = midgame()
    ended = GameEnded(scores=(40, 40), parts=({}, {}), ranks=(1, 1), winners=(0, 1), solo=None)
    assert fe.estimate(replace(state, result=ended)) == [0.5, 0.5]
    won = replace(ended, ranks=(2, 1), winners=(1,))
    assert fe.estimate(replace(state, result=won)) == [0.0, 1.0]


def test_a_solo_game_is_scored_against_the_solo_win() -> None:
    solo = midgame(seed=5, seats=1)
    (chance,) = fe.estimate(solo)
    assert 0.0 < chance < 1.0
    p = solo.players[0]
    richer = with_player(solo, 0, resources=tuple(r + 10 for r in p.resources))  # +20 points
    assert fe.estimate(richer)[0] > chance
    # judged against the solo win's bar (no other seat): above it, better than even
    (projected,) = fe.projected(fe.features(solo))
    assert (chance > 0.5) == (projected > fe.SOLO_WIN)


def test_the_search_cuts_footprints_playouts_with_the_estimate() -> None:
    searched = SEARCHED["footprints"]
    assert searched.estimate is fe.estimate
    assert searched.budget.rollout == 30  # a whole game is 100-200 moves


def test_the_fit_recovers_known_weights() -> None:
    rng = Random(7)
    truth = [0.5, -2.0, 3.0, 1.0]
    rows = []
    for _ in range(200):
        f = [[rng.uniform(0, 50), rng.uniform(0, 20), rng.uniform(0, 12), 1.0] for _ in range(2)]
        scores = [round(sum(w * x for w, x in zip(truth, r, strict=True)), 6) for r in f]
        rows.append((0, f, scores, [0]))
    fitted = least_squares(rows)  # type: ignore[arg-type]
    assert fitted == pytest.approx(truth, abs=1e-4)
