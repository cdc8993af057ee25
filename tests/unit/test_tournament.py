"""The tournament's arithmetic (tests/bench/tournament.py): Wilson intervals, the paired
measure of duplicate play, and the ladder's ratings."""

from __future__ import annotations

import itertools
import math

import pytest

from tests.bench.tournament import MATCHUPS, Result, paired, ratings, t975, tables, wilson


def table(seed: int, levels: tuple[str, ...], winner: int) -> Result:
    shares = [1.0 if s == winner else 0.0 for s in range(len(levels))]
    ranks = [1 if s == winner else 2 for s in range(len(levels))]
    return Result(
        game="g", levels=levels, shares=shares, margins=[0.0] * len(levels), seed=seed, ranks=ranks
    )


def test_the_paired_measure_is_per_deal_and_per_seat() -> None:
    rows = [
        table(1, ("a", "b"), 0),  # deal 1: a wins both tables
        table(1, ("b", "a"), 1),
        table(2, ("a", "b", "a"), 1),  # deal 2: b wins one, a the other
        table(2, ("b", "a", "b"), 1),
    ]
    mean, half, deals = paired(rows, "a", "b")
    # deal 1: +1 twice; deal 2: (0 - 1) = -1 and (1 - 0) = +1 -> 0
    assert deals == 2
    assert mean == pytest.approx(0.5)
    assert half == pytest.approx(t975(1) * (2**0.5 / 2) / 2**0.5)


def test_one_deal_has_no_interval() -> None:
    assert paired([table(1, ("a", "b"), 0)], "a", "b") == (1.0, float("inf"), 1)


def test_t_quantiles_are_students() -> None:
    for df, t in ((5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert t975(df) == pytest.approx(t, rel=0.01)


def test_wilson_intervals() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(30, 45)
    assert lo == pytest.approx(0.521, abs=0.001) and hi == pytest.approx(0.786, abs=0.001)


def test_the_ladder_is_each_step_up_one_level() -> None:
    assert MATCHUPS == (("greedy", "random"), ("mcts", "greedy"), ("expert", "mcts"))


def ladder(wins: dict[tuple[str, str], int], tables: int = 40) -> list[Result]:
    """Two-seat tables of each step: the stronger level wins `wins[step]` of each `tables`."""
    out = []
    for (strong, weak), won in wins.items():
        for n in range(tables):
            seats = (strong, weak) if n % 2 == 0 else (weak, strong)
            winner = seats.index(strong if n < won else weak)
            out.append(table(1000 * len(out) + n, seats, winner))
    return out


def test_the_ratings_follow_the_ladder_end_to_end() -> None:
    """Each step won 3 tables in 4: every level above the one below it by the same gap, the
    gap a 3-in-4 chance on the players' scale; a step that goes the other way, a rating
    below."""
    fitted = ratings(ladder(dict.fromkeys(MATCHUPS, 30)))["g"]
    mus = [fitted[level].mu for level in ("random", "greedy", "mcts", "expert")]
    assert mus == sorted(mus)
    gaps = [b - a for a, b in itertools.pairwise(mus)]
    assert max(gaps) == pytest.approx(min(gaps), rel=0.05), gaps
    # 30.5 wins in 41 (the prior's half) at each step: e^(gap/c) = 30.5/10.5
    c = 2**0.5 * 25 / 6
    assert gaps[0] == pytest.approx(c * math.log(30.5 / 10.5), rel=0.1)
    assert fitted["greedy"].mu == pytest.approx(25)  # the anchor: a new player's mu
    assert all(0 < fitted[x].sigma < 4 for x in fitted)
    upset = ratings(ladder({**dict.fromkeys(MATCHUPS, 30), ("expert", "mcts"): 10}))["g"]
    assert upset["expert"].mu < upset["mcts"].mu
    # never a win: still a finite rating, below
    swept = ratings(ladder(dict.fromkeys(MATCHUPS, 40)))["g"]
    assert math.isfinite(swept["random"].mu) and swept["random"].mu < swept["greedy"].mu


def test_the_tables_can_be_of_some_seat_counts_only() -> None:
    every = tables(["itty-bitty"], 4, None, None)
    assert sorted({len(t.levels) for t in every}) == [2, 3, 4] and len(every) == 3 * 3 * 4
    two = tables(["itty-bitty"], 4, None, None, matchups=(("mcts", "greedy"),), counts=(2,))
    assert [len(t.levels) for t in two] == [2] * 4
    assert {t.seed for t in two} == {
        t.seed for t in every if t.levels in (("mcts", "greedy"), ("greedy", "mcts"))
    }
