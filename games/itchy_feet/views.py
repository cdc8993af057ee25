"""The shape of what `view` shows a seat, for the JSON Schema clients build on (catalog)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from games.itchy_feet.model import (
    AnyQuestion,
    BonusOffer,
    CardId,
    CharacterPick,
    DiscardDown,
    Options,
    Pending,
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
