"""The itty bitty search's estimate (services/bots/policies/itty_bitty.py): time tells."""

from __future__ import annotations

import msgspec
import pytest

from games.itty_bitty.content import load
from games.itty_bitty.model import Completed, GameSetUp, Hand, State
from games.itty_bitty.rules import COLLECTORS_TO_END, IttyBitty
from services.bots.policies import itty_bitty
from services.bots.search import win_chances


def table(completed: tuple[int, int], coins: tuple[int, int], held: int = 0) -> State:
    """Two seats with `completed` collectors done, `coins` and `held` empty-handed
    collectors each (no ittybits: a held collector is worth only its hope)."""
    content = load()
    done = sorted(content.collectors)[: COLLECTORS_TO_END * 2]
    cols = sorted(content.collectors)[-held * 2 :] if held else []
    base = IttyBitty().evolve(None, GameSetUp(seats=2, first_seat=0))
    hands = tuple(
        Hand(
            coins=coins[s],
            collectors=tuple(cols[s * held : (s + 1) * held]),
            completed=tuple(
                Completed(collector=c, ittybits=(), coins=0)
                for c in done[s * COLLECTORS_TO_END :][: completed[s]]
            ),
        )
        for s in range(2)
    )
    return msgspec.structs.replace(base, hands=hands, current=0)


@pytest.mark.parametrize("lead", range(COLLECTORS_TO_END))
def test_a_held_collectors_prospects_fade_over_the_last_collectors(lead: int) -> None:
    """An empty-handed collector: its hope while time remains, less its coin; the hope
    fades as the leader nears the end, over the last `FADING` collectors."""
    left = COLLECTORS_TO_END - lead
    time = min(1.0, left / itty_bitty.FADING)
    state = table((lead, 0), (0, 0), held=1)
    expected = time * itty_bitty.POTENTIAL * itty_bitty.HOPE - 1
    assert itty_bitty.points(state) == pytest.approx([expected, expected])


def test_a_lead_counts_for_more_as_the_end_nears() -> None:
    """The same two coins of lead: a better chance late than early, and surest once the
    end is triggered."""
    chances = [
        itty_bitty.estimate(table((lead, lead), (2, 0)))[0] for lead in range(COLLECTORS_TO_END)
    ]
    assert chances == sorted(chances) and chances[0] < chances[-1]
    start = itty_bitty.estimate(table((0, 0), (2, 0)))
    assert start == pytest.approx(win_chances([2, 0], itty_bitty.POINTS_SCALE))
    half = itty_bitty.estimate(table((4, 4), (2, 0)))
    assert half == pytest.approx(win_chances([2, 0], itty_bitty.POINTS_SCALE * 0.5**0.25))
    triggered = msgspec.structs.replace(table((7, 7), (2, 0)), end_triggered_by=1)
    settled = itty_bitty.POINTS_SCALE * itty_bitty.SETTLED
    assert itty_bitty.estimate(triggered) == pytest.approx(win_chances([2, 0], settled))
