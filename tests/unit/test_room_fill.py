"""The timed fill's settings on their own: which go together, and the bounds of the wait."""

from __future__ import annotations

import msgspec
import pytest

from contracts.lobby import FILL_AFTER_MAX_S, FILL_AFTER_MIN_S, NewRoom


def room(**fill: object) -> NewRoom:
    return msgspec.convert({"game": "itty-bitty", "seats": 2, **fill}, NewRoom)


@pytest.mark.parametrize(
    "fill",
    [
        {},
        {"fill_with_bots_after_s": None},
        {"fill_with_bots_after_s": FILL_AFTER_MIN_S},
        {"fill_with_bots_after_s": FILL_AFTER_MAX_S, "auto_start": True},
        {"fill_with_bots_after_s": 600, "fill_level": "random", "auto_start": False},
    ],
)
def test_settings_that_go_together(fill: dict[str, object]) -> None:
    assert room(**fill).fill_problem() is None


@pytest.mark.parametrize(
    ("fill", "said"),
    [
        ({"fill_with_bots_after_s": FILL_AFTER_MIN_S - 1}, "5 to 2592000 seconds"),
        ({"fill_with_bots_after_s": FILL_AFTER_MAX_S + 1}, "not 2592001"),
        ({"fill_with_bots_after_s": 0}, "or null for never"),
        ({"fill_with_bots_after_s": -5}, "not -5"),
        ({"auto_start": True}, "auto_start goes with fill_with_bots_after_s"),
        ({"fill_level": "greedy"}, "fill_level goes with fill_with_bots_after_s"),
    ],
)
def test_settings_that_do_not(fill: dict[str, object], said: str) -> None:
    why = room(**fill).fill_problem()
    assert why is not None and said in why


def test_the_bounds_are_five_seconds_to_thirty_days() -> None:
    assert (FILL_AFTER_MIN_S, FILL_AFTER_MAX_S) == (5, 30 * 86400)
    # out of range still decodes: the lobby answers 422 invalid_fill, not a generic 400
    assert room(fill_with_bots_after_s=1).fill_with_bots_after_s == 1
