"""The events of Itchy Feet: what happened, as the log keeps it (all frozen Structs)."""

from __future__ import annotations

from typing import Literal

import msgspec

from games.itchy_feet.model import CardId, Options


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class GameSetUp(Event, frozen=True, tag="game_set_up"):
    seats: int
    options: Options
    centre: str
    homes: tuple[str, ...]
    first_seat: int  # whose home capital is closest to the centre's
    rules: int = 1  # the rules version the game plays under (games/api.Rules.rules_version)


class CharactersDealt(Event, frozen=True, tag="characters_dealt"):
    characters: tuple[str, ...]


class CharacterOffered(Event, frozen=True, tag="character_offered"):
    seat: int
    options: tuple[str, ...]


class CharacterChosen(Event, frozen=True, tag="character_chosen"):
    seat: int
    character: str


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    seat: int
    count: int
    cards: tuple[CardId, ...] | None  # None in another seat's copy


class ExtensionsShuffledIn(Event, frozen=True, tag="extensions_shuffled_in"):
    count: int


class TurnBegan(Event, frozen=True, tag="turn_began"):
    seat: int


class TurnSkipped(Event, frozen=True, tag="turn_skipped"):
    seat: int


class ActionTaken(Event, frozen=True, tag="action_taken"):
    """The turn's action is spent (a declined trade or an espresso gives one back)."""

    seat: int
    action: str


Reason = Literal[
    "draw", "bonus", "empty_hand", "duty_free", "lucky_find", "planner", "globetrotter", "haggler"
]


class CardDrawn(Event, frozen=True, tag="card_drawn"):
    seat: int
    reason: Reason
    card: CardId | None  # None in another seat's copy


class PileReshuffled(Event, frozen=True, tag="pile_reshuffled"):
    count: int


class EventRevealed(Event, frozen=True, tag="event_revealed"):
    """A drawn event card, face up on the table until it is resolved (events drawn while
    another resolves wait their turn, in the order drawn)."""

    seat: int
    card: CardId


class EventResolved(Event, frozen=True, tag="event_resolved"):
    """The event's effects are over: the card goes to the discard."""

    seat: int  # who drew it
    card: CardId


class CentreChanged(Event, frozen=True, tag="centre_changed"):
    old: str
    new: str


class SkipScheduled(Event, frozen=True, tag="skip_scheduled"):
    seat: int


class CardsDiscarded(Event, frozen=True, tag="cards_discarded"):
    seat: int
    cards: tuple[CardId, ...]
    reason: Literal[
        "hand_limit", "lost_luggage", "currency_crash", "customs_sweep", "planner", "steal_cost"
    ]


class CardPassed(Event, frozen=True, tag="card_passed"):
    from_seat: int
    to_seat: int
    card: CardId | None  # seen only by the two players


class DiscardShuffledIn(Event, frozen=True, tag="discard_shuffled_in"):
    count: int


class Recycled(Event, frozen=True, tag="recycled"):
    seat: int
    discarded: tuple[CardId, ...]
    taken: CardId


class TradeOffered(Event, frozen=True, tag="trade_offered"):
    asker: int
    responder: int
    give: tuple[CardId, ...]
    want: tuple[str, ...]


class TradeAccepted(Event, frozen=True, tag="trade_accepted"):
    asker: int
    responder: int
    given: tuple[CardId, ...]
    received: tuple[CardId, ...]


class TradeDeclined(Event, frozen=True, tag="trade_declined"):
    asker: int
    responder: int


class TradePassed(Event, frozen=True, tag="trade_passed"):
    """Rules 4: `decliner` declined the Haggler's offer, which goes on to `responder`, the
    next player in turn order who can hold the cards asked for (`characters.next_partner`)."""

    asker: int
    decliner: int
    responder: int


class BonusOffered(Event, frozen=True, tag="bonus_offered"):
    seats: tuple[int, ...]  # who may draw a bonus card, in order
    declined: bool  # the Haggler's card after a declined trade (instead of a new action)


class BonusAnswered(Event, frozen=True, tag="bonus_answered"):
    seat: int
    draw: bool


class StealAttempted(Event, frozen=True, tag="steal_attempted"):
    thief: int
    victim: int
    discarded: CardId | None
    answer_needed: bool  # the victim may hold a Travel Insurance (special items are in play)


class StealCancelled(Event, frozen=True, tag="steal_cancelled"):
    thief: int
    victim: int
    card: CardId


class CardStolen(Event, frozen=True, tag="card_stolen"):
    thief: int
    victim: int
    card: CardId | None  # seen only by thief and victim


class Travelled(Event, frozen=True, tag="travelled"):
    seat: int
    destination: Literal["home", "centre"]
    country: str
    paid: tuple[CardId, ...]


class SpecialPlayed(Event, frozen=True, tag="special_played"):
    seat: int
    card: CardId


class HomeChanged(Event, frozen=True, tag="home_changed"):
    seat: int
    old: str
    new: str


class ForbiddenDisposed(Event, frozen=True, tag="forbidden_disposed"):
    seat: int
    card: CardId
    with_card: CardId


class DiscardRequired(Event, frozen=True, tag="discard_required"):
    counts: tuple[tuple[int, int], ...]


class HandLimitMet(Event, frozen=True, tag="hand_limit_met"):
    seat: int
    cards: tuple[CardId, ...]


class PlannerChoice(Event, frozen=True, tag="planner_choice"):
    seat: int
    cards: tuple[CardId, ...] | None


class CardKept(Event, frozen=True, tag="card_kept"):
    seat: int
    kept: CardId | None
    discarded: CardId


class GameWon(Event, frozen=True, tag="game_won"):
    seat: int
    reason: Literal["centre", "postcards"]


class GameDrawn(Event, frozen=True, tag="game_drawn"):
    reason: Literal["turn_limit", "no_cards"]


AnyEvent = (
    GameSetUp
    | CharactersDealt
    | CharacterOffered
    | CharacterChosen
    | CardsDealt
    | ExtensionsShuffledIn
    | TurnBegan
    | TurnSkipped
    | ActionTaken
    | CardDrawn
    | PileReshuffled
    | EventRevealed
    | EventResolved
    | CentreChanged
    | SkipScheduled
    | CardsDiscarded
    | CardPassed
    | DiscardShuffledIn
    | Recycled
    | TradeOffered
    | TradeAccepted
    | TradeDeclined
    | TradePassed
    | BonusOffered
    | BonusAnswered
    | StealAttempted
    | StealCancelled
    | CardStolen
    | Travelled
    | SpecialPlayed
    | HomeChanged
    | ForbiddenDisposed
    | DiscardRequired
    | HandLimitMet
    | PlannerChoice
    | CardKept
    | GameWon
    | GameDrawn
)
