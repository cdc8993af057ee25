"""Actions, events, options and state of the itty bitty card game (all frozen Structs)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

CardId = str


LastTurn = Literal["one_collector", "any_collectors"]


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Room options. The end threshold is the rulebook's 8.

    `last_turn`: what each other seat's last turn after the end is triggered allows:
    `one_collector` (the rulebook's general rule, "You may only complete one collector card
    per turn": one completion ends the turn) or `any_collectors` (the turn's words, "one
    more turn to complete any collector cards", read as lifting that limit: complete one at
    a time, then pass). RULES.md, "End of game"."""

    last_turn: Annotated[
        LastTurn,
        msgspec.Meta(
            description="After the end is triggered, each other player's last turn may "
            "complete one collector (the rulebook's general rule) or any number of them"
        ),
    ] = "one_collector"


# Games begun under rules version 1 (before the option) read "any collectors" there.
BEFORE_LAST_TURN_OPTION = Options(last_turn="any_collectors")


# -- questions: what one seat must answer (games/questions.py) -----------------------------


class Question(msgspec.Struct, frozen=True, tag_field="kind"):
    """What a seat is asked, in its `view.private.questions`; its answers name it."""

    seat: int  # who answers


class CollectorChoice(Question, frozen=True, kw_only=True, tag="collector_choice"):
    """Keep one of the collectors drawn (`cards`, shown to that seat alone): the starting
    choice, or after `draw_collectors`."""

    cards: tuple[CardId, ...]


AnyQuestion = CollectorChoice


# -- actions -------------------------------------------------------------------------------


class Action(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class TakeIttybit(Action, frozen=True, tag="take_ittybit"):
    """Take one punk: `card` names a marketplace card; no card means the top of the deck."""

    card: CardId | None = None


class DrawCollectors(Action, frozen=True, tag="draw_collectors"):
    """Draw two collectors; you then keep one (`keep_collector`)."""


class KeepCollector(Action, frozen=True, tag="keep_collector"):
    """Keep `card` of the collectors offered; `question`: the choice it answers (every
    listed answer names it; none: the open one)."""

    card: CardId
    question: CollectorChoice | None = None


class Payment(msgspec.Struct, frozen=True, kw_only=True):
    grail: int  # index into the collector's grails
    ittybits: tuple[CardId, ...]


class CompleteCollector(Action, frozen=True, tag="complete_collector"):
    collector: CardId
    payments: tuple[Payment, ...]


class PassTurn(Action, frozen=True, tag="pass_turn"):
    """End the turn doing nothing more: in the last turn at any time; otherwise only when no
    other action is legal (our rulings: the rulebook forbids skipping)."""


AnyAction = TakeIttybit | DrawCollectors | KeepCollector | CompleteCollector | PassTurn


# -- events --------------------------------------------------------------------------------


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class GameSetUp(Event, frozen=True, tag="game_set_up"):
    """Both decks start whole: the cards are the game's content, not listed here."""

    seats: int
    first_seat: int
    rules: int = 1  # the rules version the game plays under (games/api.Rules.rules_version)
    # the room's options (since rules version 2; a version 1 game: BEFORE_LAST_TURN_OPTION)
    options: Options = Options()


class IttybitsDealt(Event, frozen=True, tag="ittybits_dealt"):
    seat: int
    count: int
    cards: tuple[CardId, ...] | None  # None in another seat's copy


class MarketFilled(Event, frozen=True, tag="market_filled"):
    slot: int
    card: CardId


class SupplyReshuffled(Event, frozen=True, tag="supply_reshuffled"):
    deck: Literal["ittybits", "collectors"]
    count: int


class IttybitTaken(Event, frozen=True, tag="ittybit_taken"):
    seat: int
    from_market: bool
    card: CardId | None  # None in another seat's copy of a deck draw


class CollectorsOffered(Event, frozen=True, tag="collectors_offered"):
    seat: int
    count: int
    cards: tuple[CardId, ...] | None


class CollectorKept(Event, frozen=True, tag="collector_kept"):
    seat: int
    kept: CardId | None  # None in another seat's copy
    discarded: CardId | None  # face up on the discard pile; None if only one was offered


class CollectorCompleted(Event, frozen=True, tag="collector_completed"):
    """The card is flipped face down: another seat's copy shows only what the table sees,
    the ittybits laid down and the coins taken, not the collector nor which grails were paid."""

    seat: int
    collector: CardId | None  # None in another seat's copy
    payments: tuple[Payment, ...] | None  # None in another seat's copy
    ittybits: tuple[CardId, ...]  # every ittybit paid, sorted
    coins: int


class TurnPassed(Event, frozen=True, tag="turn_passed"):
    seat: int


class EndTriggered(Event, frozen=True, tag="end_triggered"):
    seat: int
    last_turn: LastTurn | None = None  # what the others' last turns allow (None: before v2)


class TurnBegan(Event, frozen=True, tag="turn_began"):
    seat: int
    last_round: bool = False


class GameEnded(Event, frozen=True, tag="game_ended"):
    penalties: tuple[int, ...]
    scores: tuple[int, ...]
    ittybits_in_hand: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    tie_break: str | None
    reason: Literal["eight_collectors", "stalemate"]


AnyEvent = (
    GameSetUp
    | IttybitsDealt
    | MarketFilled
    | SupplyReshuffled
    | IttybitTaken
    | CollectorsOffered
    | CollectorKept
    | CollectorCompleted
    | TurnPassed
    | EndTriggered
    | TurnBegan
    | GameEnded
)


# -- state ---------------------------------------------------------------------------------


class Completed(msgspec.Struct, frozen=True, kw_only=True):
    """A completed collector, face down in front of its seat, with what the table saw paid."""

    collector: CardId
    ittybits: tuple[CardId, ...]  # sorted
    coins: int


class Hand(msgspec.Struct, frozen=True, kw_only=True):
    ittybits: tuple[CardId, ...] = ()
    collectors: tuple[CardId, ...] = ()
    completed: tuple[Completed, ...] = ()
    coins: int = 0
    choice: tuple[CardId, ...] = ()  # collectors offered, one to keep


class State(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    first_seat: int
    rules: int = 1  # the rules version it began under: decide keeps to it
    options: Options = BEFORE_LAST_TURN_OPTION
    # Kept sorted: the order is drawn at random in decide. A supply is empty only while its
    # discard is empty too (it is restocked the moment it runs out: supply.py).
    ittybit_supply: tuple[CardId, ...]
    collector_supply: tuple[CardId, ...]
    ittybit_discard: tuple[CardId, ...] = ()
    collector_discard: tuple[CardId, ...] = ()
    market: tuple[CardId | None, ...] = (None, None, None, None)
    hands: tuple[Hand, ...] = ()
    current: int | None = None  # None until every seat has kept its starting collector
    turn: int = 0
    end_triggered_by: int | None = None
    passes_in_row: int = 0
    result: GameEnded | None = None
