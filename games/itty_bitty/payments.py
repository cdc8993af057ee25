"""Which ittybits can pay which grails: every distinct way to pay a collector, up to a bound.

Two payments are the same move when they discard the same ittybits for the same coins: the
card is flipped face down, so which grail each punk paid for is forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain, combinations

from games.itty_bitty.content import Collector
from games.itty_bitty.model import CardId, Payment

Traits = Callable[[CardId], frozenset[str]]

# A hand has no size limit, so the ways to pay one collector grow combinatorially (a
# "Male x3" grail with 15 males in hand alone has 455). Most collectors have fewer than 10;
# past this many, only the first are listed (RULES.md), and decide still accepts the rest.
MAX_PAYMENTS_LISTED = 64


def _least_versatile_first(
    collector: Collector, grails: Sequence[int], hand: Sequence[CardId], traits: Traits
) -> list[CardId]:
    wanted = {collector.grails[g].trait for g in grails}
    return sorted(hand, key=lambda c: (len(traits(c)), len(traits(c) & wanted), c))


def find_payment(
    collector: Collector, grails: Sequence[int], hand: Sequence[CardId], traits: Traits
) -> tuple[Payment, ...] | None:
    """One way to pay exactly the given grails from `hand`, or None if there is none.

    Each grail unit is a slot; Kuhn's augmenting paths match slots to cards. Cards are tried
    least-versatile first, so the canonical payment keeps the most useful punks in hand.
    """
    slots = [g for g in grails for _ in range(collector.grails[g].qty)]
    if len(slots) > len(hand):
        return None
    order = _least_versatile_first(collector, grails, hand, traits)
    fits = [[c for c in order if collector.grails[g].trait in traits(c)] for g in slots]
    owner: dict[CardId, int] = {}
    for slot in range(len(slots)):
        if not _augment(slot, set(), fits, owner):
            return None
    paid: dict[int, list[CardId]] = {g: [] for g in grails}
    for card, slot in owner.items():
        paid[slots[slot]].append(card)
    return tuple(Payment(grail=g, ittybits=tuple(sorted(paid[g]))) for g in sorted(grails))


def _augment(
    slot: int, seen: set[CardId], fits: list[list[CardId]], owner: dict[CardId, int]
) -> bool:
    """Kuhn's augmenting path from `slot`: a card for it, moving the cards' owners along.

    A function of the module, not a closure of find_payment: a nested function that calls
    itself holds itself in its closure, a reference cycle that only the garbage collector
    frees (with the lists it holds). Two such closures made most of the game service's
    collector work under the move-cycle load."""
    for card in fits[slot]:
        if card in seen:
            continue
        seen.add(card)
        if card not in owner or _augment(owner[card], seen, fits, owner):
            owner[card] = slot
            return True
    return False


def every_payment(
    collector: Collector, grails: Sequence[int], hand: Sequence[CardId], traits: Traits
) -> Iterator[tuple[Payment, ...]]:
    """Every assignment of cards from `hand` to exactly the given grails, least-versatile
    cards first (repeats: the same cards may fill the grails in several ways)."""
    yield from _fill(
        collector, grails, traits, 0, _least_versatile_first(collector, grails, hand, traits)
    )


def _fill(
    collector: Collector, grails: Sequence[int], traits: Traits, i: int, left: list[CardId]
) -> Iterator[tuple[Payment, ...]]:
    """The assignments of grails[i:] from `left` (a function of the module: see _augment)."""
    if i == len(grails):
        yield ()
        return
    grail = collector.grails[grails[i]]
    fits = [c for c in left if grail.trait in traits(c)]
    for cards in combinations(fits, grail.qty):
        rest = [c for c in left if c not in cards]
        for tail in _fill(collector, grails, traits, i + 1, rest):
            yield (Payment(grail=grails[i], ittybits=tuple(sorted(cards))), *tail)


def payments(
    collector: Collector,
    hand: Sequence[CardId],
    traits: Traits,
    limit: int = MAX_PAYMENTS_LISTED,
    every: bool = True,
) -> list[tuple[Payment, ...]]:
    """Every distinct payment of the collector from `hand`, at most `limit` of them.

    First the canonical payment (`find_payment`) of every payable set of grails, most grails
    first, so that each set stays on offer; then every other way, in the same order. With
    `every` false, only the canonical ones: one payment per set of grails (each set's coins),
    not each choice of cards.
    """
    grails = collector.grails
    # A card that fits no grail is in no payment: the searches below need only the others
    # (with a large hand, most of the work of listing was sorting cards that never fit).
    wanted = {grail.trait for grail in grails}
    fitting = [c for c in hand if not wanted.isdisjoint(traits(c))]
    # a grail with too few fitting cards on its own is in no payable set: skip those sets
    alone = [
        g
        for g, grail in enumerate(grails)
        if sum(grail.trait in traits(c) for c in fitting) >= grail.qty
    ]
    subsets = [s for size in range(len(alone), 0, -1) for s in combinations(alone, size)]
    canonical = [p for s in subsets if (p := find_payment(collector, s, fitting, traits))]
    if not every:
        return canonical[:limit]
    others = (
        payment
        for first in canonical
        for payment in every_payment(collector, [p.grail for p in first], fitting, traits)
    )
    found: dict[tuple[frozenset[CardId], int], tuple[Payment, ...]] = {}
    for payment in chain(canonical, others):
        if len(found) == limit:
            break
        found.setdefault(_result(collector, payment), payment)
    return list(found.values())


def can_pay(collector: Collector, hand: Sequence[CardId], traits: Traits) -> bool:
    """Whether some grail of the collector can be paid (then it can be completed)."""
    return any(sum(g.trait in traits(c) for c in hand) >= g.qty for g in collector.grails)


def paid_ittybits(payments: Sequence[Payment]) -> tuple[CardId, ...]:
    return tuple(sorted(c for p in payments for c in p.ittybits))


def coins_for(collector: Collector, payments: Sequence[Payment]) -> int:
    return sum(collector.grails[p.grail].coins for p in payments)


def _result(collector: Collector, payment: Sequence[Payment]) -> tuple[frozenset[CardId], int]:
    return frozenset([c for p in payment for c in p.ittybits]), coins_for(collector, payment)
