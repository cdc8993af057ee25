"""The moves a seat can make now, each postable as-is.

Where a move also names cards to pay with, one sensible payment is listed per choice that
matters (the card taken, the victim, the partner and kind wanted, the destination); decide
accepts any payment the rules allow.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from msgspec.structs import replace

from games.itchy_feet.content import Content
from games.itchy_feet.model import (
    AcceptTrade,
    Action,
    AllowSteal,
    CancelSteal,
    CharacterPick,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DiscardDown,
    DisposeForbidden,
    Draw,
    KeepCard,
    KeepOne,
    OfferTrade,
    PassTurn,
    PlaySpecial,
    Recycle,
    State,
    Steal,
    StealAnswer,
    TradeOffer,
    Travel,
)
from games.itchy_feet.travel import missing_kinds, needed_items, payment, spare

PLAYABLE = ("espresso", "lucky-find", "change-of-plans")


def actions(c: Content, state: State, seat: int) -> list[Action]:
    """For a seat that is to act: its answer to what the game waits for, or its turn."""
    hand = state.hands[seat]
    match state.pending:
        case TradeOffer(want=want):
            have = Counter(c.kind(x) for x in hand)
            ok = all(have[k] >= n for k, n in Counter(want).items())
            return [AcceptTrade(), DeclineTrade()] if ok else [DeclineTrade()]
        case StealAnswer():
            insurance = sorted(x for x in hand if c.kind(x) == "travel-insurance")
            return [AllowSteal()] + [CancelSteal(card=x) for x in insurance[:1]]
        case DiscardDown(counts=counts):
            # every choice among the cards best spared, plus three (any other is accepted)
            owed = dict(counts)[seat]
            ranked = spare(c, state, seat, min(len(hand), owed + 3), usable=False) or ()
            return [Discard(cards=tuple(sorted(x))) for x in combinations(ranked, owed)]
        case KeepOne(cards=cards):
            return [KeepCard(card=x) for x in cards]
        case CharacterPick(options=options):
            return [ChooseCharacter(character=x) for x in options]
    return turn_actions(c, state, seat) or [PassTurn()]


def playable(c: Content, state: State, seat: int, card: str) -> bool:
    kind = c.kind(card)
    if kind == "change-of-plans":
        return not state.visited_home[seat] and bool(state.country_pile)
    return kind in PLAYABLE


def can_draw(c: Content, state: State) -> bool:
    return any(c.type(x) != "event" for x in state.draw_pile + state.discard)


def turn_actions(c: Content, state: State, seat: int) -> list[Action]:
    hand = state.hands[seat]
    out: list[Action] = []
    for card in sorted({c.kind(x): x for x in sorted(hand, reverse=True)}.values()):
        if playable(c, state, seat, card):
            out.append(PlaySpecial(card=card))
        if c.type(card) == "forbidden":
            rest = tuple(
                tuple(x for x in h if x != card) if i == seat else h
                for i, h in enumerate(state.hands)
            )
            other = spare(c, replace(state, hands=rest), seat, 1)
            if other:
                out.append(DisposeForbidden(card=card, with_card=other[0]))
    if can_draw(c, state):
        out.append(Draw())
    paid = spare(c, state, seat, 1 if state.characters[seat] == "backpacker" else 2)
    if paid:
        takes = {c.kind(x): x for x in sorted(state.discard, reverse=True)}
        out += [
            Recycle(discard=paid, take=x) for x in sorted(takes.values()) if c.type(x) != "event"
        ]
    give = spare(c, state, seat, 1, usable=False)
    if not state.trade_declined and give:
        for kind in missing_kinds(c, state, seat):
            out += [
                OfferTrade(to=partner, give=give, want=(kind,))
                for partner in range(state.seats)
                if partner != seat
            ]
    pickpocket = state.characters[seat] == "pickpocket"
    cost = None if pickpocket else spare(c, state, seat, 1)
    if pickpocket or cost:
        out += [
            Steal(victim=victim, discard=cost[0] if cost else None)
            for victim in range(state.seats)
            if victim != seat and state.hands[victim]
        ]
    has_passport = any(c.kind(x) == "passport" for x in hand)
    clean = not any(c.type(x) == "forbidden" for x in hand)
    pay = payment(c, hand, needed_items(c, state, seat))
    if has_passport and clean and pay is not None:
        out.append(Travel(pay=pay))
    return out
