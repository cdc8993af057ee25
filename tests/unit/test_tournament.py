"""The tournament's arithmetic (tests/bench/tournament.py): Wilson intervals and the paired
measure of duplicate play."""

from __future__ import annotations

import pytest

from tests.bench.tournament import Result, paired, t975, wilson


def table(seed: int, levels: tuple[str, ...], winner: int) -> Result:
    shares = [1.0 if s == winner else 0.0 for s in range(len(levels))]
    return Result(game="g", levels=levels, shares=shares, margins=[0.0] * len(levels), seed=seed)


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
