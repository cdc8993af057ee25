"""What holds in every state the Itchy Feet rules can reach (the hook of `check_sample`)."""

from __future__ import annotations

from games.itchy_feet.flow import HAND_LIMIT, POSTCARDS_TO_WIN
from games.itchy_feet.model import (
    BonusOffer,
    DiscardDown,
    KeepOne,
    State,
    StealAnswer,
    TradeOffer,
)
from games.itchy_feet.rules import ItchyFeet

C = ItchyFeet().content


def reachable(state: State) -> None:
    """Raise AssertionError where `state` is one no game of Itchy Feet can come to."""
    held = [c for hand in state.hands for c in hand]
    assert not [c for c in held if C.type(c) == "event"], "an event is played, never held"
    assert state.draw_pile == tuple(sorted(state.draw_pile)), "the pile's order is not stored"
    if state.end is not None:
        return
    assert not state.revealed, "every event drawn is resolved within the move"
    pending = state.pending
    undecided = set(pending.cards) if isinstance(pending, KeepOne) else set()
    if state.options.postcards:
        for seat, hand in enumerate(state.hands):
            mine = [c for c in hand if C.type(c) == "postcard" and c not in undecided]
            assert len(mine) < POSTCARDS_TO_WIN, f"seat {seat} would have won already"
    limits = [HAND_LIMIT + (c == "hoarder") for c in state.characters]
    over = {s: len(h) - limits[s] for s, h in enumerate(state.hands) if len(h) > limits[s]}
    if isinstance(pending, DiscardDown):
        assert over == dict(pending.counts), "every seat over its limit, and only those, owes"
    elif not isinstance(pending, BonusOffer | KeepOne):  # those wait inside a move
        assert not over, "a hand over its limit is cut down as soon as the move is over"
    match pending:
        case KeepOne(seat=seat, cards=cards):
            assert len(set(cards)) == 2 and set(cards) <= set(state.hands[seat])
        case TradeOffer(asker=asker, give=give):
            assert set(give) <= set(state.hands[asker])
        case StealAnswer(victim=victim):
            assert state.hands[victim], "one steals only from a hand with cards"
