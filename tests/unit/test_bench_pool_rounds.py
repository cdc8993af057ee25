"""tests/bench/pool_rounds.py: several compare_actions runs' rounds, pooled."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.pool_rounds import main, pairs, pool

RUN = """\
post_action_c16_base_r1_game_service_cpu_per_action 2.000 ms (3 requests)
post_action_c16_this_r1_game_service_cpu_per_action 0.800 ms (3 requests)
post_action_c16_this_r1_postgres_cpu_per_action 0.300 ms
post_action_c16_this_r2_game_service_cpu_per_action 1.000 ms (3 requests)
post_action_c16_base_r2_game_service_cpu_per_action 2.500 ms (3 requests)
post_action_c64_base_r3_game_service_cpu_per_action 9.000 ms (another level)
post_action_c16_base_r3_game_service_cpu_per_action 3.000 ms (3 requests)
c16_game_service_cpu_per_action_this_vs_base_ratio 0.4 x
"""


def test_rounds_are_paired_by_number_and_level_and_a_half_round_is_left_out() -> None:
    assert pairs(RUN, "game_service_cpu_per_action") == [(2.0, 0.8), (2.5, 1.0)]
    assert pairs(RUN, "postgres_cpu_per_action") == []  # no baseline for it
    assert pairs(RUN, "game_service_cpu_per_action", clients=64) == []


def test_pooled_ratios_and_their_intervals() -> None:
    rounds = [(2.0, 0.8), (2.5, 1.0), (3.0, 0.9), (2.0, 1.0), (4.0, 1.0)]
    pooled = pool(rounds)
    assert pooled.rounds == 5
    assert (pooled.base_median, pooled.this_median) == (2.5, 1.0)
    assert pooled.ratio == pytest.approx(0.4)  # of the medians
    assert pooled.paired == pytest.approx(0.4)  # 0.4, 0.4, 0.3, 0.5, 0.25
    low, high = pooled.paired_interval
    assert 0.25 <= low <= 0.4 <= high <= 0.5 and low < high
    low, high = pooled.ratio_interval
    assert low < 0.4 < high
    assert pool(rounds) == pooled  # seeded: the same rounds, the same interval
    with pytest.raises(ValueError):
        pool([])


def test_the_command_pools_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(RUN)
    second.write_text(RUN.replace("0.800", "1.200"))
    assert main([str(first), str(second), "--target", "0.45"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pooled_rounds 4"
    assert "pooled_game_service_cpu_per_action_this_median 1.000" in out
    assert out[-1] == "pooled_game_service_cpu_per_action_rounds_under_0.45 3 of 4"
    assert main([str(first), "--key", "nothing"]) == 1
