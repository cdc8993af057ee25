"""The live streams' timing (services/game/sse.py): how often a quiet stream wakes."""

from __future__ import annotations

import pytest

from services.game.sse import tick


@pytest.mark.parametrize(("heartbeat_s", "check_s"), [(3, 2.5), (15, 2.5), (2, 2.5), (20, 3)])
def test_a_quiet_stream_wakes_often_enough_for_its_token_and_on_time_for_its_heartbeat(
    heartbeat_s: float, check_s: float
) -> None:
    """The token is checked at least every `check_s`, and the heartbeat falls on a wake-up:
    waking every `check_s` alone sent a 3 s heartbeat after 5 s (a gateway timed it out)."""
    idle = tick(heartbeat_s, check_s)
    assert idle <= check_s
    wakes = heartbeat_s / idle
    assert abs(wakes - round(wakes)) < 1e-9  # the heartbeat falls on a wake-up
    assert idle > check_s / 2 or idle == heartbeat_s  # no more wake-ups than that needs
