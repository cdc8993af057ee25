"""tests/bench/decisions.py: the budgets it compares and its paired evaluation."""

from __future__ import annotations

from services.bots.policies import SEARCHED, expert_budget
from tests.bench.decisions import budget_of, paired_gain, positions


def test_a_variants_budget_is_its_levels_with_the_fields_set() -> None:
    assert budget_of("itty-bitty", "mcts", []) == SEARCHED["itty-bitty"].budget
    variant = budget_of("itty-bitty", "expert", ["width=7", "seconds=1.5"])
    expert = expert_budget("itty-bitty")
    assert (variant.width, variant.seconds) == (7, 1.5)
    assert (variant.simulations, variant.rollout) == (expert.simulations, expert.rollout)


def test_the_positions_have_a_choice_and_a_move_evaluated_against_itself_gains_nothing() -> None:
    taken = positions("itty-bitty", 4)
    assert len(taken) == 4 and all(len(obs.legal) > 1 for obs in taken)
    obs = taken[0]
    assert paired_gain("itty-bitty", obs, obs.legal[0], obs.legal[0], 6, 30) == 0.0
    # two different moves on the same guesses and draws: a gain in [-1, 1], not always zero
    gains = [paired_gain("itty-bitty", o, o.legal[0], o.legal[-1], 12, 30) for o in taken]
    assert all(-1.0 <= g <= 1.0 for g in gains) and any(g != 0.0 for g in gains)
