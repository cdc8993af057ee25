"""The balance runner's arithmetic (tests/bench/balance.py): games split over seat counts,
each seat's share credited to its clan and its place in turn order, and z against the
fair share."""

from __future__ import annotations

import math

import pytest

from tests.bench.balance import Game, Played, games, play, tally


def played(seats: int, labels: list[str], winner: int, first: int = 0) -> Played:
    return Played(
        seats=seats,
        seed=0,
        labels=labels,
        places=[(s - first) % seats + 1 for s in range(seats)],
        shares=[1.0 if s == winner else 0.0 for s in range(seats)],
        scores=[10 * (s == winner) for s in range(seats)],
    )


def test_the_games_are_split_evenly_over_the_seat_counts_and_seeded_apart() -> None:
    todo = games("footprints", 11, [2, 3, 4], {})
    assert [sum(g.seats == n for g in todo) for n in (2, 3, 4)] == [4, 4, 3]
    assert len({g.seed for g in todo}) == 11


def test_wins_are_credited_to_clans_and_places_against_the_fair_share() -> None:
    results = [
        played(2, ["clan-1", "clan-2"], 0),
        played(2, ["clan-2", "clan-1"], 1, first=1),
        played(4, ["clan-1", "clan-3", "clan-4", "clan-5"], 2),
    ]
    rows = {r.label: r for r in tally(results)}
    one = rows["clan-1"]
    assert (one.seat_games, one.wins) == (3, 2.0)
    assert one.expected == pytest.approx(0.5 + 0.5 + 0.25)
    assert one.variance == pytest.approx(0.25 + 0.25 + 0.1875)
    assert one.z == pytest.approx((2 - 1.25) / math.sqrt(0.6875))
    assert one.rate == pytest.approx(2 / 3) and one.score == pytest.approx(20 / 3)
    lo, hi = one.interval
    assert lo < one.rate < hi
    places = {r.label: r for r in tally(results, by="places")}
    assert (places["1"].seat_games, places["1"].wins) == (3, 2.0)  # the first player won twice
    assert places["4"].wins == 0.0


def test_a_greedy_game_credits_each_seat_to_its_clan() -> None:
    result = play(Game("footprints", 3, 7))
    assert sorted(result.labels) == sorted(set(result.labels))
    assert all(label.startswith("clan-") for label in result.labels)
    assert sum(result.shares) == pytest.approx(1.0)
    assert sorted(result.places) == [1, 2, 3] and result.ended in ("a cairn reached", "no cairn")
