"""Itchy Feet in words: its legal actions and events (games/text.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.itchy_feet.content import load
from games.itchy_feet.events import (
    ActionTaken,
    AnyEvent,
    BonusAnswered,
    BonusOffered,
    CardDrawn,
    CardKept,
    CardPassed,
    CardsDealt,
    CardsDiscarded,
    CardStolen,
    CentreChanged,
    CharacterChosen,
    CharacterOffered,
    CharactersDealt,
    DiscardRequired,
    DiscardShuffledIn,
    EventResolved,
    EventRevealed,
    ExtensionsShuffledIn,
    ForbiddenDisposed,
    GameDrawn,
    GameSetUp,
    GameWon,
    HandLimitMet,
    HomeChanged,
    PileReshuffled,
    PlannerChoice,
    Recycled,
    SkipScheduled,
    SpecialPlayed,
    StealAttempted,
    StealCancelled,
    TradeAccepted,
    TradeDeclined,
    TradeOffered,
    TradePassed,
    Travelled,
    TurnBegan,
    TurnSkipped,
)
from games.itchy_feet.model import (
    AcceptTrade,
    AllowSteal,
    AnyAction,
    CancelSteal,
    CardId,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    OfferTrade,
    PassTurn,
    PlaySpecial,
    Recycle,
    SkipBonus,
    Steal,
    Travel,
)
from games.text import CardInfo, a, listing, plural, who

REASONS = {
    "draw": "",
    "bonus": " as a bonus",
    "empty_hand": " (an empty hand)",
    "duty_free": " (Duty Free)",
    "lucky_find": " (Lucky Find)",
    "planner": " (the Planner)",
    "globetrotter": " (the Globetrotter)",
    "haggler": " (the Haggler)",
}
DISCARD_REASONS = {
    "hand_limit": "down to the hand limit",
    "lost_luggage": "to Lost Luggage",
    "currency_crash": "to a Currency Crash",
    "customs_sweep": "to a Customs Sweep",
    "planner": "(the Planner)",
    "steal_cost": "to steal",
}


def card(card_id: CardId) -> str:
    """A card as a person sees it, by its name: "an Umbrella" (item-umbrella-1, or the kind
    "umbrella" a copy another seat played is known by). Copies of one kind read alike, as
    the rules make them alike."""
    content = load()
    if found := content.cards.get(card_id):
        name = found.name
    elif card_id in content.copies:
        name = content.kind_name(card_id)
    else:
        return card_id
    return a(name)


def named(ids: Iterable[CardId]) -> str:
    return listing(card(c) for c in ids) or "nothing"


def country(key: str) -> str:
    found = load().countries.get(key)
    return found.name if found else key


def character(key: str) -> str:
    found = load().cards.get(f"character-{key}")
    return found.name if found else key


def kind(key: str) -> str:
    """A card kind a trade asks for, by the name its cards carry ("Umbrella", "Postcard")."""
    return load().kind_name(key) if key in load().copies else key


SUITS = {"spades": "\u2660", "hearts": "\u2665", "diamonds": "\u2666", "clubs": "\u2663"}


def glyph(corner: str | None) -> str | None:
    """A playing-card corner as drawn: "A spades" -> "A\u2660"; a joker stays a word."""
    if not corner:
        return None
    rank, _, suit = corner.partition(" ")
    return f"{rank}{SUITS[suit]}" if suit in SUITS else corner


def cards() -> list[CardInfo]:
    content = load()
    wanted_in = {
        k: tuple(c.name for c in content.countries.values() if k in c.items)
        for k in content.kinds.get("item", ())
    }
    return [
        CardInfo(
            id=c.id,
            kind=c.type,
            name=c.name,
            traits=tuple(f"needed in {place}" for place in wanted_in.get(c.kind, ())),
            text=c.text,
            glyph=glyph(c.corner),
        )
        for c in content.cards.values()
    ]


def describe(action: AnyAction, names: Sequence[str]) -> str:
    match action:
        case Draw():
            return "Draw a card"
        case Recycle(discard=discard, take=take):
            return f"Recycle {named(discard)} to take {card(take)} from the discard"
        case OfferTrade(to=to, give=give, want=want):
            return f"Offer {who(names, to)} {named(give)} for {listing(kind(k) for k in want)}"
        case AcceptTrade(cards=None):
            return "Accept the trade"
        case AcceptTrade(cards=given):
            return f"Accept the trade, giving {named(given or ())}"
        case DeclineTrade():
            return "Decline the trade"
        case DrawBonus():
            return "Draw the bonus card"
        case SkipBonus():
            return "Leave the bonus card"
        case Steal(victim=victim, discard=None):
            return f"Steal a random card from {who(names, victim)}"
        case Steal(victim=victim, discard=discard):
            return (
                f"Discard {card(discard or '?')} to steal a random card from {who(names, victim)}"
            )
        case AllowSteal():
            return "Let the steal happen"
        case CancelSteal(card=insurance):
            return f"Cancel the steal with {card(insurance)}"
        case Travel(pay=pay):
            return f"Travel, paying {named(pay)}"
        case PlaySpecial(card=special):
            return f"Play {card(special)}"
        case DisposeForbidden(card=forbidden, with_card=other):
            return f"Get rid of {card(forbidden)} with {card(other)}"
        case Discard(cards=discard):
            return f"Discard {named(discard)}"
        case KeepCard(card=kept):
            return f"Keep {card(kept)}"
        case ChooseCharacter(character=chosen):
            return f"Play as {character(chosen)}"
        case PassTurn():
            return "Pass"
    raise TypeError(f"not an Itchy Feet action: {action!r}")


def narrate(event: AnyEvent, names: Sequence[str]) -> str:
    match event:
        case GameSetUp(seats=seats, centre=centre, homes=homes, first_seat=first):
            home = ", ".join(f"{who(names, s)} {country(h)}" for s, h in enumerate(homes))
            return (
                f"A trip for {seats}: the centre is {country(centre)}; homes: {home};"
                f" {who(names, first)} starts"
            )
        case CharactersDealt(characters=dealt):
            return "Characters: " + ", ".join(
                f"{who(names, s)} {character(c)}" for s, c in enumerate(dealt)
            )
        case CharacterOffered(seat=seat, options=options):
            return f"{who(names, seat)} chooses among {listing(character(c) for c in options)}"
        case CharacterChosen(seat=seat, character=chosen):
            return f"{who(names, seat)} plays as {character(chosen)}"
        case CardsDealt(seat=seat, count=count, cards=None):
            return f"{who(names, seat)} was dealt {plural(count, 'card')}"
        case CardsDealt(seat=seat, cards=dealt):
            return f"{who(names, seat)} was dealt {named(dealt or ())}"
        case ExtensionsShuffledIn(count=count):
            return f"{plural(count, 'extension card')} shuffled into the draw pile"
        case TurnBegan(seat=seat):
            return f"{who(names, seat)}'s turn"
        case TurnSkipped(seat=seat):
            return f"{who(names, seat)} misses a turn"
        case ActionTaken(seat=seat, action=action):
            return f"{who(names, seat)} used their action ({action})"
        case CardDrawn(seat=seat, reason=reason, card=None):
            return f"{who(names, seat)} drew a card{REASONS.get(reason, '')}"
        case CardDrawn(seat=seat, reason=reason, card=drawn):
            return f"{who(names, seat)} drew {card(drawn or '?')}{REASONS.get(reason, '')}"
        case PileReshuffled(count=count):
            return f"The discard ({plural(count, 'card')}) is shuffled into a new draw pile"
        case EventRevealed(seat=seat, card=revealed):
            return f"{who(names, seat)} revealed the event {card(revealed)}"
        case EventResolved(card=resolved):
            return f"The event {card(resolved)} is over"
        case CentreChanged(old=old, new=new):
            return f"The centre moves from {country(old)} to {country(new)}"
        case SkipScheduled(seat=seat):
            return f"{who(names, seat)} will miss their next turn"
        case CardsDiscarded(seat=seat, cards=discarded, reason=reason):
            why = DISCARD_REASONS.get(reason, f"({reason})")
            return f"{who(names, seat)} discarded {named(discarded)} {why}"
        case CardPassed(from_seat=giver, to_seat=taker, card=None):
            return f"{who(names, giver)} passed a card to {who(names, taker)}"
        case CardPassed(from_seat=giver, to_seat=taker, card=passed):
            return f"{who(names, giver)} passed {card(passed or '?')} to {who(names, taker)}"
        case DiscardShuffledIn(count=count):
            return f"The discard ({plural(count, 'card')}) is shuffled into the draw pile"
        case Recycled(seat=seat, discarded=discarded, taken=taken):
            return f"{who(names, seat)} recycled {named(discarded)} and took {card(taken)}"
        case TradeOffered(asker=asker, responder=responder, give=give, want=want):
            return (
                f"{who(names, asker)} offers {who(names, responder)} {named(give)}"
                f" for {listing(kind(k) for k in want)}"
            )
        case TradeAccepted(asker=asker, responder=responder, given=given, received=received):
            return (
                f"{who(names, responder)} accepted: {who(names, asker)} gave {named(given)}"
                f" for {named(received)}"
            )
        case TradePassed(asker=asker, decliner=decliner, responder=responder):
            return (
                f"{who(names, decliner)} declined {who(names, asker)}'s trade: "
                f"it goes on to {who(names, responder)}"
            )
        case TradeDeclined(asker=asker, responder=responder):
            return f"{who(names, responder)} declined {who(names, asker)}'s trade"
        case BonusOffered(seats=seats):
            return f"A bonus card for {listing(who(names, s) for s in seats)}"
        case BonusAnswered(seat=seat, draw=True):
            return f"{who(names, seat)} takes the bonus card"
        case BonusAnswered(seat=seat):
            return f"{who(names, seat)} leaves the bonus card"
        case StealAttempted(thief=thief, victim=victim, discarded=discarded):
            paying = f", discarding {card(discarded)}" if discarded else ""
            return f"{who(names, thief)} tries to steal from {who(names, victim)}{paying}"
        case StealCancelled(thief=thief, victim=victim, card=insurance):
            return (
                f"{who(names, victim)} cancelled {who(names, thief)}'s steal with {card(insurance)}"
            )
        case CardStolen(thief=thief, victim=victim, card=None):
            return f"{who(names, thief)} stole a card from {who(names, victim)}"
        case CardStolen(thief=thief, victim=victim, card=stolen):
            return f"{who(names, thief)} stole {card(stolen or '?')} from {who(names, victim)}"
        case Travelled(seat=seat, destination=destination, country=place, paid=paid):
            where = "home to" if destination == "home" else "to the centre,"
            return f"{who(names, seat)} travelled {where} {country(place)}, paying {named(paid)}"
        case SpecialPlayed(seat=seat, card=special):
            return f"{who(names, seat)} played {card(special)}"
        case HomeChanged(seat=seat, old=old, new=new):
            return f"{who(names, seat)}'s home moves from {country(old)} to {country(new)}"
        case ForbiddenDisposed(seat=seat, card=forbidden, with_card=other):
            return f"{who(names, seat)} got rid of {card(forbidden)} with {card(other)}"
        case DiscardRequired(counts=counts):
            owed = ", ".join(f"{who(names, s)} {n}" for s, n in counts)
            return f"Over the hand limit, to discard: {owed}"
        case HandLimitMet(seat=seat, cards=discarded):
            return f"{who(names, seat)} discarded {named(discarded)} down to the hand limit"
        case PlannerChoice(seat=seat, cards=None):
            return f"{who(names, seat)} drew two cards to keep one (the Planner)"
        case PlannerChoice(seat=seat, cards=drawn):
            return f"{who(names, seat)} drew {named(drawn or ())} to keep one (the Planner)"
        case CardKept(seat=seat, kept=None, discarded=discarded):
            return f"{who(names, seat)} kept one card and discarded {card(discarded)}"
        case CardKept(seat=seat, kept=kept, discarded=discarded):
            return f"{who(names, seat)} kept {card(kept or '?')} and discarded {card(discarded)}"
        # what ended the game, not who won: that is the table's `game_over` (a seat that
        # resigned and whose bot got there first does not win)
        case GameWon(seat=seat, reason="postcards"):
            return f"Game over: {who(names, seat)} holds four postcards"
        case GameWon(seat=seat):
            return f"Game over: {who(names, seat)} reached the centre"
        case GameDrawn(reason=reason):
            why = "the turn limit passed" if reason == "turn_limit" else "no cards are left"
            return f"A draw: {why}"
    raise TypeError(f"not an Itchy Feet event: {event!r}")
