"""tests/bench/compare_actions.py's paired ratio: each round's own ratio, then their median."""

from __future__ import annotations

import math

from tests.bench.compare_actions import paired_ratio


def test_a_paired_ratio_is_the_median_of_each_round_s_ratio() -> None:
    # a machine twice as slow in the middle round moves both sides of that round alike
    assert paired_ratio([2.0, 4.0, 2.2], [1.0, 2.0, 0.88]) == 0.5
    # rounds 0.4, 0.4, 0.455, 0.5: 0.427, where the ratio of the medians reads 1.025 / 2.15
    assert round(paired_ratio([2.0, 4.0, 2.2, 2.1], [0.8, 1.6, 1.0, 1.05]), 3) == 0.427


def test_a_round_with_nothing_measured_on_the_baseline_is_left_out() -> None:
    assert paired_ratio([0.0, 2.0], [1.0, 1.0]) == 0.5
    assert math.isnan(paired_ratio([0.0], [1.0]))
