"""What each seat sees: `view` (the table and its own hand) and `redact` (its copy of an
event), and the shape of a view, for the JSON Schema clients build on (catalog)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

import msgspec
from msgspec.structs import replace

from games.api import View as TableView
from games.itchy_feet import questions
from games.itchy_feet.content import Content
from games.itchy_feet.events import (
    CardDrawn,
    CardKept,
    CardPassed,
    CardsDealt,
    CardsDiscarded,
    CardStolen,
    Event,
    ForbiddenDisposed,
    HandLimitMet,
    PlannerChoice,
    Recycled,
    SpecialPlayed,
    StealAttempted,
    StealCancelled,
    TradeAccepted,
    TradeOffered,
    Travelled,
)
from games.itchy_feet.model import (
    AnyQuestion,
    BonusOffer,
    CardId,
    CharacterPick,
    DiscardDown,
    KeepOne,
    Options,
    Pending,
    State,
    StealAnswer,
    TradeOffer,
)


class KeepOneShown(Pending, frozen=True, tag="keep_one"):
    """Everyone sees who keeps one card of several; which cards, only that seat."""

    seat: int


ShownPending = TradeOffer | BonusOffer | StealAnswer | DiscardDown | KeepOneShown | CharacterPick


class Public(TypedDict):
    seats: int
    options: Options
    centre: str
    homes: list[str]  # each seat's home country
    visited_home: list[bool]
    characters: list[str | None]
    country_pile: list[str]
    first_seat: int
    current: int | None
    turn: int
    actions_left: int
    trade_declined: bool
    hand_sizes: list[int]
    draw_pile: int  # cards left
    discard: list[CardId]  # face up, newest last
    revealed: list[CardId]  # events drawn, not yet resolved (left only by a win mid-event)
    skips: list[int]
    pending: ShownPending | None  # what the game waits for besides the current seat's turn
    winner: int | None
    end: Literal["centre", "postcards", "turn_limit", "no_cards"] | None


class Private(TypedDict):
    hand: list[CardId]
    # what this seat must answer now (at most one), whole: its answers name it
    questions: list[AnyQuestion]
    keep_one_of: NotRequired[list[CardId]]  # while this seat keeps one card of several


class View(TypedDict):
    """`public` for everyone; `private` for the seat asking (null for a spectator)."""

    public: Public
    private: Private | None


def view(content: Content, state: State, seat: int | None) -> TableView:
    """What `seat` sees (None: a spectator): the public table, and its own hand and questions."""
    alike = content.alike
    pending: Any = msgspec.to_builtins(state.pending) if state.pending is not None else None
    if isinstance(state.pending, KeepOne):
        pending = {"kind": "keep_one", "seat": state.pending.seat}
    elif isinstance(state.pending, TradeOffer):  # the offer as the table sees it: kinds
        pending["give"] = tuple(alike[x] for x in state.pending.give)
    public = {
        "seats": state.seats,
        "options": msgspec.to_builtins(state.options),
        "centre": state.centre,
        "homes": list(state.homes),
        "visited_home": list(state.visited_home),
        "characters": list(state.characters),
        "country_pile": list(state.country_pile),
        "first_seat": state.first_seat,
        "current": state.current,
        "turn": state.turn,
        "actions_left": state.actions_left,
        "trade_declined": state.trade_declined,
        "hand_sizes": [len(h) for h in state.hands],
        "draw_pile": len(state.draw_pile),
        "discard": [alike[x] for x in state.discard],  # face up: each by its kind
        "revealed": list(state.revealed),
        "skips": list(state.skips),
        "pending": pending,
        "winner": state.winner,
        "end": state.end,
    }
    if seat is None or not 0 <= seat < state.seats:
        return TableView(public=public)
    private: dict[str, Any] = {
        "hand": list(state.hands[seat]),
        "questions": [msgspec.to_builtins(q) for q in questions.asked(content, state, seat)],
    }
    if isinstance(state.pending, KeepOne) and state.pending.seat == seat:
        private["keep_one_of"] = list(state.pending.cards)
    return TableView(public=public, private=private)


def redact(content: Content, event: Event, seat: int | None) -> Event | None:
    """A seat's copy of an event: the cards of a hand not its own hidden, or, where the
    table sees them go, named by their kind (`Content.alike`: nobody can tell which of
    identical copies a hand played); the seats a card leaves or joins see its id."""
    alike = content.alike

    def kinds(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(alike[x] for x in cards)

    match event:
        case CardsDealt(seat=owner) | PlannerChoice(seat=owner) if owner != seat:
            return replace(event, cards=None)
        case CardDrawn(seat=owner) if owner != seat:
            return replace(event, card=None)
        case CardKept(seat=owner, discarded=gone) if owner != seat:
            return replace(event, kept=None, discarded=alike[gone])
        case CardPassed(from_seat=a, to_seat=b) | CardStolen(thief=a, victim=b) if seat not in (
            a,
            b,
        ):
            return replace(event, card=None)
        case CardsDiscarded(seat=owner, cards=cards) | HandLimitMet(seat=owner, cards=cards) if (
            owner != seat
        ):
            return replace(event, cards=kinds(cards))
        case Recycled(seat=owner, discarded=paid, taken=taken) if owner != seat:
            return replace(event, discarded=kinds(paid), taken=alike[taken])
        case TradeOffered(asker=owner, give=give) if owner != seat:
            return replace(event, give=kinds(give))
        case TradeAccepted(asker=a, responder=b, given=given, received=got) if seat not in (
            a,
            b,
        ):
            return replace(event, given=kinds(given), received=kinds(got))
        case StealAttempted(thief=owner, discarded=str(paid)) if owner != seat:
            return replace(event, discarded=alike[paid])
        case StealCancelled(victim=owner, card=card) | SpecialPlayed(seat=owner, card=card) if (
            owner != seat
        ):
            return replace(event, card=alike[card])
        case Travelled(seat=owner, paid=paid) if owner != seat:
            return replace(event, paid=kinds(paid))
        case ForbiddenDisposed(seat=owner, card=card, with_card=other) if owner != seat:
            return replace(event, card=alike[card], with_card=alike[other])
    return event
