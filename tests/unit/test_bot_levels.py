"""The bot ladder's levels: what a search level may spend at a table (services/bots/levels.py),
and where a level's rating starts (services/lobby/ratings.py `first`, contracts/levels.py)."""

from __future__ import annotations

from random import Random

import pytest

from contracts.levels import LADDER, measured_rating
from contracts.lobby import Timing
from infra.settings import Settings
from services.bots.levels import expert_seconds, seconds_for
from services.bots.policies import SEARCHED, expert_policy
from services.bots.search import TURN_SECONDS, Budget
from services.lobby.ratings import FIRST_SIGMA_FLOOR, first, fresh


def test_the_expert_thinks_longer_at_a_slower_table_within_its_bounds() -> None:
    least, most = 4.0, 20.0
    assert expert_seconds(None, least, most) == 4.0  # no clock: the least
    assert expert_seconds(Timing(), least, most) == 4.0
    assert expert_seconds(Timing(per_move_s=30), least, most) == 4.0  # a fast table
    assert expert_seconds(Timing(per_move_s=200), least, most) == pytest.approx(10.0)
    assert expert_seconds(Timing(per_move_s=86400), least, most) == 20.0  # a day: capped
    bank = Timing(bank_s=600, increment_s=100, on_timeout="wait")
    assert expert_seconds(bank, least, most) == pytest.approx(5.0)  # a twentieth of 100 s
    slow = Timing(bank_s=259200, on_timeout="wait")  # 3 days, no increment: a thirtieth
    assert expert_seconds(slow, least, most) == 20.0


def test_each_level_searches_for_its_settings_seconds() -> None:
    s = Settings(bot_mcts_s=1.5, bot_expert_min_s=3.0, bot_expert_max_s=9.0)
    assert seconds_for("random", None, s) is None and seconds_for("greedy", None, s) is None
    assert seconds_for("mcts", Timing(per_move_s=86400), s) == 1.5  # whatever the clock
    assert seconds_for("expert", None, s) == 3.0
    assert seconds_for("expert", Timing(per_move_s=86400), s) == 9.0


def test_the_expert_spends_more_seconds_on_more_playouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Given twice its budget's seconds, the expert plays twice its budget's playouts."""
    import services.bots.policies as policies

    asked: list[int] = []
    real = policies.search

    def counting(*args: object, **kwargs: object) -> object:
        asked.append(args[5].simulations)  # type: ignore[attr-defined]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(policies, "search", counting)
    from games.registry import registry
    from services.bots.observe import observation
    from tests.unit.test_search import midgame

    state, seat = midgame("itty-bitty", 3)
    obs = observation(registry()["itty-bitty"], state, seat, 0)
    small = Budget(simulations=8, seconds=1.0, rollout=4, width=3)
    policy = expert_policy("itty-bitty", small)
    policy(obs, Random(0))
    token = TURN_SECONDS.set(2.0)
    try:
        policy(obs, Random(0))
    finally:
        TURN_SECONDS.reset(token)
    assert asked == [8, 16]
    assert "itty-bitty" in SEARCHED


def test_a_bot_levels_first_rating_is_what_the_tournament_measured() -> None:
    for level in LADDER:
        known = measured_rating("itty-bitty", level)
        start = first("itty-bitty", f"bot:{level}")
        if known is None:
            assert start == fresh()
        else:
            assert start.mu == known["mu"]
            assert start.sigma == max(known["sigma"], FIRST_SIGMA_FLOOR) >= 25 / 6
    assert first("itty-bitty", "a-person") == fresh()
    assert first("itty-bitty", "bot:no-such-level") == fresh()


def test_a_measured_level_starts_with_at_least_half_a_newcomers_sigma(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import services.lobby.ratings as ratings

    sure = {"mu": 31.5, "sigma": 0.8, "ordinal": 29.1}
    monkeypatch.setattr(ratings, "measured_rating", lambda game, level: sure)
    start = ratings.first("footprints", "bot:expert")
    assert (start.mu, start.sigma) == (31.5, 25 / 6)
    loose = {"mu": 20.0, "sigma": 6.0, "ordinal": 2.0}
    monkeypatch.setattr(ratings, "measured_rating", lambda game, level: loose)
    assert ratings.first("footprints", "bot:random").sigma == 6.0
    assert ratings.first("footprints", "p-someone") == fresh()  # a person: never measured
