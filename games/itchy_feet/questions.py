"""What each seat is asked (games/questions.py), and the answers the rules refuse it now.

Each question is the seat's own part of what the game waits for: one seat's count of a
discard-down, not the others', so another seat's answer never makes it stale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from games.api import Unavailable
from games.itchy_feet.content import Content
from games.itchy_feet.model import (
    AnyQuestion,
    BonusOffer,
    BonusQuestion,
    CharacterPick,
    CharacterQuestion,
    DiscardDown,
    DiscardQuestion,
    KeepOne,
    KeepOneQuestion,
    State,
    StealAnswer,
    StealQuestion,
    TradeOffer,
    TradeQuestion,
)


def asked(c: Content, state: State, seat: int) -> tuple[AnyQuestion, ...]:
    """The question `seat` must answer now (none, or one: the game waits for one thing). A
    trade names the cards offered as the table sees them (`Content.alike`: their kinds)."""
    if state.end is not None:
        return ()
    match state.pending:
        case TradeOffer(asker=asker, responder=responder, give=give, want=want) if (
            responder == seat
        ):
            shown = tuple(c.alike[x] for x in give)
            return (TradeQuestion(seat=seat, asker=asker, give=shown, want=want),)
        case BonusOffer(seats=seats, declined=declined) if seats[:1] == (seat,):
            return (BonusQuestion(seat=seat, declined=declined),)
        case StealAnswer(thief=thief, victim=victim) if victim == seat:
            return (StealQuestion(seat=seat, thief=thief),)
        case DiscardDown(counts=counts) if seat in dict(counts):
            return (DiscardQuestion(seat=seat, count=dict(counts)[seat]),)
        case KeepOne(seat=chooser, cards=cards) if chooser == seat:
            return (KeepOneQuestion(seat=seat, cards=cards),)
        case CharacterPick(seat=chooser, options=options) if chooser == seat:
            return (CharacterQuestion(seat=seat, options=options),)
    return ()


def by_kind(c: Content, action: Any) -> Any:
    """The answer with the trade question it names shown as the table sees it, the offered
    cards by kind: an answer naming them by id (as a client read the question before they
    were shown by kind) names the same question whichever copies it names, so no guess of
    which copy is offered is ever told apart from another (RULES.md, "Identical cards")."""
    named = getattr(action, "question", None)
    if not isinstance(named, TradeQuestion):
        return action
    give = tuple(c.alike.get(x, x) for x in named.give)
    return replace(action, question=replace(named, give=give))


def shortfall(c: Content, hand: Sequence[str], want: Sequence[str]) -> tuple[str, int] | None:
    """The first kind asked (and how many) the hand cannot hand over; None if it can."""
    have = Counter(c.kind(x) for x in hand)
    return next(((k, n) for k, n in Counter(want).items() if have[k] < n), None)


def cannot_fulfil(kind: str, n: int) -> str:
    return f"you do not hold {n} x {kind}: decline"


NOTHING_TO_DRAW = "no card is left to draw: skip the bonus"


def unavailable(c: Content, state: State, seat: int, can_draw: bool) -> list[Unavailable]:
    """The answers to the seat's question the rules refuse now, each with why."""
    out: list[Unavailable] = []
    for question in asked(c, state, seat):
        match question:
            case TradeQuestion(want=want):
                if (short := shortfall(c, state.hands[seat], want)) is not None:
                    message = cannot_fulfil(*short)
                    out.append(
                        Unavailable(
                            type="accept_trade", code="cannot_fulfil_trade", message=message
                        )
                    )
            case BonusQuestion() if not can_draw:
                out.append(
                    Unavailable(type="draw_bonus", code="nothing_to_draw", message=NOTHING_TO_DRAW)
                )
            case StealQuestion() if not any(
                c.kind(x) == "travel-insurance" for x in state.hands[seat]
            ):
                out.append(
                    Unavailable(
                        type="cancel_steal",
                        code="no_travel_insurance",
                        message="you hold no Travel Insurance to cancel the steal with",
                    )
                )
    return out
