"""Words beside the engines (games/text.py): every game has them, and the table's events are
told the same in every game."""

from __future__ import annotations

from datetime import UTC, datetime

from games.api import Outcome
from games.registry import narrator, registry
from games.table import (
    AnyTableEvent,
    GameOver,
    Resigned,
    SeatClaimed,
    TimedOut,
    TimeUsed,
    TurnStarted,
)
from games.testing import example_of, union_members
from games.text import listing, narrate_table, who

NAMES = ["Ada", "Bob"]
AT = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


def test_every_game_has_words() -> None:
    for key in registry():
        assert callable(narrator(key).describe) and callable(narrator(key).narrate)


def test_every_table_event_has_a_text() -> None:
    for member in union_members(AnyTableEvent):
        event = _example(member)
        assert narrate_table(event, NAMES).strip()


def _example(member: type) -> AnyTableEvent:
    event: AnyTableEvent = example_of(member, "greedy")
    return event


def test_table_events_in_words() -> None:
    started = TurnStarted(seat=0, at=AT, deadline=datetime(2026, 1, 6, 10, 0, tzinfo=UTC))
    assert narrate_table(started, NAMES) == "Ada's clock runs: to act by 2026-01-06 10:00:00 UTC"
    assert narrate_table(TimeUsed(seat=1, used_s=42.4), NAMES) == "Bob took 42 s"
    banked = TimeUsed(seat=1, used_s=3.25, bank_s=7200.0)
    assert narrate_table(banked, NAMES) == "Bob took 3.2 s (2.0 h left)"
    out = TimedOut(seat=1, deadline=AT, at=AT, on_timeout="bot_move", bot="greedy")
    assert narrate_table(out, NAMES) == "Bob ran out of time: a greedy bot makes this move"
    assert (
        narrate_table(Resigned(seat=0, at=AT, bot="mcts"), NAMES)
        == "Ada resigned: an mcts bot plays the seat to the end"
    )
    claimed = SeatClaimed(seat=1, by=0, at=AT, bot="greedy")
    assert narrate_table(claimed, NAMES) == "Ada handed Bob's overdue seat to a greedy bot"


def test_the_result_in_words_says_who_won_as_ranked_and_why_a_seat_is_last() -> None:
    def over(winners: list[int], standings: tuple[str, ...], forfeited: list[int]) -> str:
        ranks = [1 if s in winners else 2 for s in range(len(standings))]
        detail = {"forfeited": forfeited} if forfeited else {}
        result = Outcome(scores=[0] * len(ranks), ranks=ranks, winners=winners, detail=detail)
        names = ["Ada", "Bob", "Cy"][: len(standings)]
        return narrate_table(GameOver(outcome=result, standings=standings), names)  # type: ignore[arg-type]

    assert over([1], ("playing", "playing"), []) == "Bob wins"
    assert over([0, 1], ("playing", "bot"), []) == "Ada and Bob win"
    assert over([], ("playing", "playing"), []) == "Nobody wins"
    assert over([0], ("playing", "resigned"), [1]) == "Ada wins: Bob resigned (ranked last)"
    three = ("playing", "timed_out", "resigned")
    assert over([0], three, [1, 2]) == (
        "Ada wins: Cy resigned and Bob ran out of time (ranked last)"
    )
    assert over([], ("resigned", "playing"), [0]) == "Nobody wins: Ada resigned (ranked last)"
    # everyone forfeited: the engine's order stands, nobody is ranked below anyone for it
    assert over([1], ("resigned", "resigned"), [0, 1]) == "Bob wins: Ada and Bob resigned"


def test_seats_without_a_name() -> None:
    assert who(NAMES, 3) == "Seat 3"
    assert who(["", "Bob"], 0) == "Seat 0"
    assert listing([]) == "" and listing(["a"]) == "a" and listing(["a", "b", "c"]) == "a, b and c"
