"""The brute-force oracle's candidates for `check_listing`, and what counts as one result.

`candidates` makes every action shape with every choice of cards over the seat's hand (and
every card of the discard to take), whatever the rules say; `decide` sorts out the legal
ones. Trade offers are made within the listing's bound (one card for one card: RULES.md,
"Legal actions"); `over_the_bound` makes the larger offers `decide` must still accept.

`Same` compares two results with each card id replaced by its kind and every pile or hand
read as a multiset: copies of a kind are interchangeable (RULES.md, "Content"), and the rules
never look at the order of a hand or of the face-up discard (every random pick is made from
a sorted hand, every reshuffle sorts), so paying `umbrella-1` or `umbrella-2`, or naming
the two cards of a recycle in either order, is one move.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from random import Random
from typing import Any

from msgspec.structs import replace

from games.itchy_feet.model import (
    AcceptTrade,
    Action,
    AllowSteal,
    CancelSteal,
    ChooseCharacter,
    DeclineTrade,
    Discard,
    DiscardDown,
    DisposeForbidden,
    Draw,
    DrawBonus,
    KeepCard,
    KeepOne,
    OfferTrade,
    PassTurn,
    PlaySpecial,
    Recycle,
    SkipBonus,
    State,
    Steal,
    TradeOffer,
    Travel,
)
from games.itchy_feet.rules import CHARACTERS, ItchyFeet

RULES = ItchyFeet()
C = RULES.content
# every kind a hand card can have, and three no hand can: an event, a character, a stranger
KINDS = sorted({C.kind(c) for c in RULES.all_cards()} | {"hoarder", "actions", "snorkel"})


def candidates(state: State, seat: int, rng: Random) -> Iterator[Action]:
    """Every move of every shape, paid in every way the seat's hand allows (up to 3 cards)."""
    hand = state.hands[seat]
    yield from (Draw(), PassTurn(), DeclineTrade(), AcceptTrade(), AllowSteal())
    yield from (DrawBonus(), SkipBonus())
    yield from (ChooseCharacter(character=x) for x in (*CHARACTERS, "tourist"))
    for card in hand:
        yield from (PlaySpecial(card=card), KeepCard(card=card), CancelSteal(card=card))
        yield from (DisposeForbidden(card=card, with_card=other) for other in hand)
    if isinstance(state.pending, KeepOne):
        yield from (KeepCard(card=card) for card in state.pending.cards)
    if isinstance(state.pending, TradeOffer):
        for n in {len(state.pending.want), len(state.pending.want) + 1}:
            yield from (AcceptTrade(cards=x) for x in combinations(hand, n))
    if isinstance(state.pending, DiscardDown):
        owed = dict(state.pending.counts).get(seat, 1)
        for n in {owed - 1, owed, owed + 1} - {0}:
            yield from (Discard(cards=x) for x in combinations(hand, n))
    if state.pending is not None:
        return  # what follows is only ever a move on one's own turn: refused as `answer_first`
    pays = [x for n in (1, 2, 3) for x in combinations(hand, n)]
    yield from (Travel(pay=x) for x in pays)
    takes = sorted(set(state.discard))
    yield from (Recycle(discard=x, take=t) for x in pays if len(x) < 3 for t in takes)
    for victim in range(-1, state.seats + 1):
        yield from (Steal(victim=victim, discard=x) for x in (None, *hand))
    yield from offers(state, seat, rng)


def offers(state: State, seat: int, rng: Random) -> Iterator[Action]:
    """One card for one kind: every card and kind, with every partner at up to four seats and
    two partners picked at random beyond (the full product is thousands at six seats)."""
    partners = [p for p in range(state.seats) if p != seat]
    if len(partners) > 3:
        partners = rng.sample(partners, 2)
    for to in [-1, seat, state.seats, *partners]:
        for card in state.hands[seat]:
            yield from (OfferTrade(to=to, give=(card,), want=(kind,)) for kind in KINDS)


def over_the_bound(state: State, seat: int, rng: Random) -> list[Action]:
    """Offers of more than one card either way, which `legal_actions` does not list."""
    hand = state.hands[seat]
    out: list[Action] = []
    for to in range(state.seats):
        for _ in range(3):
            give = tuple(rng.sample(hand, min(len(hand), rng.randrange(1, 4))))
            want = tuple(rng.choice(KINDS) for _ in range(rng.randrange(1, 4)))
            if len(give) + len(want) > 2:
                out.append(OfferTrade(to=to, give=give, want=want))
    return out


def canonical(state: State) -> State:
    """The state with ids read as kinds and hands and piles as multisets."""

    def kinds(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(C.kind(c) for c in cards))

    pending: Any = state.pending
    if isinstance(pending, TradeOffer):
        pending = replace(pending, give=kinds(pending.give))
    if isinstance(pending, KeepOne):
        pending = replace(pending, cards=kinds(pending.cards))
    return replace(
        state,
        hands=tuple(kinds(h) for h in state.hands),
        draw_pile=kinds(state.draw_pile),
        discard=kinds(state.discard),
        revealed=kinds(state.revealed),
        box=kinds(state.box),
        pending=pending,
    )


class Same:
    """`same` for check_listing: equal once canonical (each state made canonical once)."""

    def __init__(self) -> None:
        self.keys: dict[int, State] = {}  # id of a state -> its canonical form
        self.kept: list[State] = []  # the states keyed, kept alive so no id is reused

    def __call__(self, a: State, b: State) -> bool:
        ka, kb = self.keys.get(id(a)), self.keys.get(id(b))
        return (ka or self.key(a)) == (kb or self.key(b))

    def key(self, state: State) -> State:
        self.kept.append(state)
        key = self.keys[id(state)] = canonical(state)
        return key
