"""The itty bitty card game in words: its legal actions and events (games/text.py)."""

from __future__ import annotations

from collections.abc import Sequence

from games.itty_bitty.content import Collector, load
from games.itty_bitty.model import (
    AnyAction,
    AnyEvent,
    CardId,
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    CompleteCollector,
    DrawCollectors,
    EndTriggered,
    GameEnded,
    GameSetUp,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    PassTurn,
    Payment,
    SupplyReshuffled,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.text import CardInfo, listing, plural, who


def number(card: CardId) -> str:
    """ "Ittybit #4229": an ittybit by the number printed on it (its card's name)."""
    bit = load().ittybits.get(card)
    return f"Ittybit #{bit.number}" if bit else card


def ittybit(card: CardId) -> str:
    """ "Ittybit #4229 (Alien, Earring)": its number as printed, its type and its traits."""
    bit = load().ittybits.get(card)
    return f"{number(card)} ({', '.join((bit.type, *bit.traits))})" if bit else card


def collector_name(card: CardId) -> str:
    """ "Collector C05": a collector card's name."""
    return f"Collector {card.removeprefix('collector-')}"


def grails(collector: Collector) -> str:
    return ", ".join(f"{g.qty} {g.trait}: {plural(g.coins, 'coin')}" for g in collector.grails)


def collector(card: CardId) -> str:
    """ "Collector C05 (3 Earring: 3 coins)": its name and its trait grails."""
    found = load().collectors.get(card)
    return f"{collector_name(card)} ({grails(found)})" if found else card


def cards() -> list[CardInfo]:
    content = load()
    return [
        *(
            CardInfo(id=b.id, kind="ittybit", name=number(b.id), traits=(b.type, *b.traits))
            for b in content.ittybits.values()
        ),
        *(
            CardInfo(
                id=c.id,
                kind="collector",
                name=collector_name(c.id),
                traits=tuple(f"{g.qty} {g.trait}: {plural(g.coins, 'coin')}" for g in c.grails),
            )
            for c in content.collectors.values()
        ),
    ]


def _coins(card: CardId, payments: Sequence[Payment]) -> int:
    found = load().collectors.get(card)
    if found is None:
        return 0
    return sum(found.grails[p.grail].coins for p in payments if 0 <= p.grail < len(found.grails))


def describe(action: AnyAction, names: Sequence[str]) -> str:
    match action:
        case TakeIttybit(card=None):
            return "Take the top ittybit of the deck"
        case TakeIttybit(card=card):
            return f"Take {ittybit(card or '?')} from the market"
        case DrawCollectors():
            return "Draw two collectors and keep one"
        case KeepCollector(card=card):
            return f"Keep {collector(card)}"
        case CompleteCollector(collector=card, payments=payments):
            paid = sorted(c for p in payments for c in p.ittybits)
            return (
                f"Complete {collector_name(card)} for"
                f" {plural(_coins(card, payments), 'coin')}, paying {listing(map(number, paid))}"
            )
        case PassTurn():
            return "Pass"
    raise TypeError(f"not an itty bitty action: {action!r}")


def narrate(event: AnyEvent, names: Sequence[str]) -> str:
    match event:
        case GameSetUp(seats=seats, first_seat=first):
            return f"A game for {seats} players: {who(names, first)} plays first"
        case IttybitsDealt(seat=seat, count=count, cards=None):
            return f"{who(names, seat)} was dealt {plural(count, 'ittybit')}"
        case IttybitsDealt(seat=seat, cards=cards):
            return f"{who(names, seat)} was dealt {listing(ittybit(c) for c in cards or ())}"
        case MarketFilled(slot=slot, card=card):
            return f"{ittybit(card)} goes to the market (slot {slot + 1})"
        case SupplyReshuffled(deck=deck, count=count):
            return f"The {deck} discard ({count} cards) is shuffled into a new deck"
        case IttybitTaken(seat=seat, from_market=True, card=card):
            return f"{who(names, seat)} took {ittybit(card or '?')} from the market"
        case IttybitTaken(seat=seat, card=None):
            return f"{who(names, seat)} took an ittybit from the deck"
        case IttybitTaken(seat=seat, card=card):
            return f"{who(names, seat)} took {ittybit(card or '?')} from the deck"
        case CollectorsOffered(seat=seat, count=count, cards=None):
            return f"{who(names, seat)} draws {plural(count, 'collector')} to keep one"
        case CollectorsOffered(seat=seat, cards=cards):
            offered = listing(collector(c) for c in cards or ())
            return f"{who(names, seat)} draws {offered} to keep one"
        case CollectorKept(seat=seat, kept=kept, discarded=discarded):
            text = f"{who(names, seat)} kept {collector(kept) if kept else 'a collector'}"
            return f"{text} and discarded {collector(discarded)}" if discarded else text
        case CollectorCompleted(seat=seat, collector=None, ittybits=paid, coins=coins):
            return (
                f"{who(names, seat)} completed a collector for {plural(coins, 'coin')},"
                f" paying {listing(map(number, paid))}"
            )
        case CollectorCompleted(seat=seat, collector=card, ittybits=paid, coins=coins):
            return (
                f"{who(names, seat)} completed {collector(card or '?')} for"
                f" {plural(coins, 'coin')}, paying {listing(map(number, paid))}"
            )
        case TurnPassed(seat=seat):
            return f"{who(names, seat)} passed"
        case EndTriggered(seat=seat, last_turn=last_turn):
            to_do = {
                "one_collector": " to complete one collector",
                "any_collectors": " to complete any collectors",
            }.get(last_turn or "", "")
            return f"{who(names, seat)} triggered the end: everyone else has one last turn{to_do}"
        case TurnBegan(seat=seat, last_round=True):
            return f"{who(names, seat)}'s last turn"
        case TurnBegan(seat=seat):
            return f"{who(names, seat)}'s turn"
        case GameEnded(scores=scores, reason=reason):
            # the coins only: who won is the table's `game_over` (a seat that resigned and
            # whose bot scored most does not win)
            why = "eight collectors completed" if reason == "eight_collectors" else "stalemate"
            board = ", ".join(f"{who(names, s)} {n}" for s, n in enumerate(scores))
            return f"Game over ({why}): {board}"
    raise TypeError(f"not an itty bitty event: {event!r}")
