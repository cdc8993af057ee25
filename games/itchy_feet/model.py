"""Options, questions, actions, what the game waits for and state of Itchy Feet (all frozen
Structs); the events are in `events.py`."""

from __future__ import annotations

from typing import Literal

import msgspec

CardId = str


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Room options: which extensions are shuffled in, and how characters are handed out."""

    events: bool = False
    special_items: bool = False
    forbidden_items: bool = False
    postcards: bool = False
    characters: Literal["off", "random", "choose"] = "off"


# -- questions: what one seat must answer (games/questions.py) -----------------------------


class Question(msgspec.Struct, frozen=True, tag_field="kind"):
    """What a seat is asked, in its `view.private.questions`; its answers name it."""

    seat: int  # who answers


class TradeQuestion(Question, frozen=True, kw_only=True, tag="trade"):
    """Seat `asker` offers its cards `give` for cards of the kinds `want`."""

    asker: int
    give: tuple[CardId, ...]
    want: tuple[str, ...]


class BonusQuestion(Question, frozen=True, kw_only=True, tag="bonus"):
    """Draw the bonus card a trade earned? `declined`: the Haggler's card after a declined
    trade, drawn in place of the new action."""

    declined: bool


class StealQuestion(Question, frozen=True, kw_only=True, tag="steal"):
    """Seat `thief` steals a random card of yours: allow it, or cancel it with a Travel
    Insurance."""

    thief: int


class DiscardQuestion(Question, frozen=True, kw_only=True, tag="discard_down"):
    """Over the hand limit: discard `count` cards."""

    count: int


class KeepOneQuestion(Question, frozen=True, kw_only=True, tag="keep_one"):
    """The Planner keeps one of the cards drawn (shown to that seat alone)."""

    cards: tuple[CardId, ...]


class CharacterQuestion(Question, frozen=True, kw_only=True, tag="character"):
    """Choose a character among those left."""

    options: tuple[str, ...]


AnyQuestion = (
    TradeQuestion
    | BonusQuestion
    | StealQuestion
    | DiscardQuestion
    | KeepOneQuestion
    | CharacterQuestion
)


# -- actions -------------------------------------------------------------------------------


class Action(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class Draw(Action, frozen=True, tag="draw"):
    """Take the top card of the draw pile (the Planner draws two and keeps one)."""


class Recycle(Action, frozen=True, tag="recycle"):
    """Discard two cards (the Backpacker one: rules 3, for the newest) and take a discard card."""

    discard: tuple[CardId, ...]
    take: CardId


class OfferTrade(Action, frozen=True, tag="offer_trade"):
    """Offer named cards of yours for cards of the named kinds from one player."""

    to: int
    give: tuple[CardId, ...]
    want: tuple[str, ...]  # card kinds: "umbrella", "passport", "postcard", ...


class AcceptTrade(Action, frozen=True, tag="accept_trade"):
    """Hand over exactly what was asked; `cards` picks the copies (default: any).
    `question`: the offer accepted (every answer names its question; none: the open one)."""

    cards: tuple[CardId, ...] | None = None
    question: TradeQuestion | None = None


class DeclineTrade(Action, frozen=True, tag="decline_trade"):
    question: TradeQuestion | None = None


class DrawBonus(Action, frozen=True, tag="draw_bonus"):
    """Draw the bonus card a trade earned you ("both players can draw one bonus card")."""

    question: BonusQuestion | None = None


class SkipBonus(Action, frozen=True, tag="skip_bonus"):
    """Leave the bonus card (the Haggler, after a declined trade: take a new action instead)."""

    question: BonusQuestion | None = None


class Steal(Action, frozen=True, tag="steal"):
    """Discard one card (rules 1-2: the Pickpocket none) and take a random card (the Pickpocket two: rules 3, from anyone; rules 4, from a bigger hand)."""

    victim: int
    discard: CardId | None = None


class AllowSteal(Action, frozen=True, tag="allow_steal"):
    question: StealQuestion | None = None


class CancelSteal(Action, frozen=True, tag="cancel_steal"):
    """Discard a Travel Insurance to cancel a steal against you."""

    card: CardId
    question: StealQuestion | None = None


class Travel(Action, frozen=True, tag="travel"):
    """Travel home (first) or to the centre, paying the country's items (a map is any one)."""

    pay: tuple[CardId, ...]


class PlaySpecial(Action, frozen=True, tag="play_special"):
    """Play a special item on your turn (does not use your action)."""

    card: CardId


class DisposeForbidden(Action, frozen=True, tag="dispose_forbidden"):
    """Discard a forbidden item with one other card (does not use your action)."""

    card: CardId
    with_card: CardId


class Discard(Action, frozen=True, tag="discard"):
    """Discard down to your hand limit."""

    cards: tuple[CardId, ...]
    question: DiscardQuestion | None = None


class KeepCard(Action, frozen=True, tag="keep_card"):
    """The Planner keeps one of the two cards drawn."""

    card: CardId
    question: KeepOneQuestion | None = None


class ChooseCharacter(Action, frozen=True, tag="choose_character"):
    character: str
    question: CharacterQuestion | None = None


class PassTurn(Action, frozen=True, tag="pass_turn"):
    """Only when no other action is possible (our ruling: the rulebook has no pass)."""


AnyAction = (
    Draw
    | Recycle
    | OfferTrade
    | AcceptTrade
    | DeclineTrade
    | DrawBonus
    | SkipBonus
    | Steal
    | AllowSteal
    | CancelSteal
    | Travel
    | PlaySpecial
    | DisposeForbidden
    | Discard
    | KeepCard
    | ChooseCharacter
    | PassTurn
)


# -- what the game waits for ---------------------------------------------------------------


class Pending(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    pass


class TradeOffer(Pending, frozen=True, tag="trade"):
    asker: int
    responder: int
    give: tuple[CardId, ...]
    want: tuple[str, ...]


class BonusOffer(Pending, frozen=True, tag="bonus"):
    """Each seat in turn may draw a bonus card; `declined`: the Haggler's card after a declined
    trade, drawn instead of taking a new action."""

    seats: tuple[int, ...]  # still to answer, the first answers now
    declined: bool = False


class StealAnswer(Pending, frozen=True, tag="steal"):
    thief: int
    victim: int


class DiscardDown(Pending, frozen=True, tag="discard_down"):
    counts: tuple[tuple[int, int], ...]  # (seat, cards to discard), only seats still owing


class KeepOne(Pending, frozen=True, tag="keep_one"):
    seat: int
    cards: tuple[CardId, ...]


class CharacterPick(Pending, frozen=True, tag="character"):
    seat: int
    options: tuple[str, ...]


AnyPending = TradeOffer | BonusOffer | StealAnswer | DiscardDown | KeepOne | CharacterPick


# -- state ---------------------------------------------------------------------------------


class State(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    options: Options
    rules: int = 1  # the rules version it began under: decide keeps to it
    centre: str
    homes: tuple[str, ...]
    first_seat: int
    country_pile: tuple[str, ...]  # countries set aside (sorted); events may draw from it
    visited_home: tuple[bool, ...]
    characters: tuple[str | None, ...]
    hands: tuple[tuple[CardId, ...], ...]
    draw_pile: tuple[CardId, ...]  # sorted: the order is drawn at random in decide
    discard: tuple[CardId, ...] = ()  # face up, newest last
    revealed: tuple[CardId, ...] = ()  # events drawn, face up, resolved in this order
    box: tuple[CardId, ...] = ()  # not in play: spare passports, extensions not chosen
    current: int | None = None
    turn: int = 0
    actions_left: int = 0
    trade_declined: bool = False  # this turn: a declined trade cannot be offered again
    skips: tuple[int, ...] = ()
    pending: AnyPending | None = None
    winner: int | None = None
    end: Literal["centre", "postcards", "turn_limit", "no_cards"] | None = None
