"""Words beside the engines (games/text.py): every game has them, and the table's events are
told the same in every game."""

from __future__ import annotations

from datetime import UTC, datetime

from games.registry import narrator, registry
from games.table import AnyTableEvent, Resigned, SeatClaimed, TimedOut, TimeUsed, TurnStarted
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


def test_seats_without_a_name() -> None:
    assert who(NAMES, 3) == "Seat 3"
    assert who(["", "Bob"], 0) == "Seat 0"
    assert listing([]) == "" and listing(["a"]) == "a" and listing(["a", "b", "c"]) == "a, b and c"


def test_the_legal_actions_words_are_remembered_as_they_were_made() -> None:
    """services/game/app.py remembers each action's wire form and text by (game, action,
    names): the same as made afresh, made once, and apart for other names."""
    from random import Random

    import msgspec

    from games.api import fold
    from services.game import app

    for key, rules in registry().items():
        state = fold(rules, rules.setup(rules.options_type(), 2, Random(7)))
        seat = sorted(rules.to_act(state))[0]
        actions = rules.legal_actions(state, seat)
        fresh = [
            {**msgspec.to_builtins(a), "text": narrator(key).describe(a, NAMES)} for a in actions
        ]
        first = app._described(rules, actions, NAMES)
        again = app._described(rules, actions, list(NAMES))
        assert first == fresh and again == fresh, key
        hashable = [a for a in actions if _hashable(a)]
        held = [w for a, w in zip(actions, again, strict=True) if _hashable(a)]
        assert held and all(
            w is app._WIRE_ACTIONS[(key, a, tuple(NAMES))]
            for a, w in zip(hashable, held, strict=True)
        ), key
        others = app._described(rules, actions, ["Cy", "Di"])
        assert others == [
            {**msgspec.to_builtins(a), "text": narrator(key).describe(a, ["Cy", "Di"])}
            for a in actions
        ]


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
