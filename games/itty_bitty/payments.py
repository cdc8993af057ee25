"""Which ittybits can pay which grails: a small bipartite matching, deterministic."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from games.itty_bitty.content import Collector
from games.itty_bitty.model import CardId, Payment


def find_payment(
    collector: Collector,
    grails: Sequence[int],
    hand: Sequence[CardId],
    traits: Callable[[CardId], frozenset[str]],
) -> tuple[Payment, ...] | None:
    """One way to pay exactly the given grails from `hand`, or None if there is none.

    Each grail unit is a slot; Kuhn's augmenting paths match slots to cards. Cards are tried
    least-versatile first, so the canonical payment keeps the most useful punks in hand.
    """
    slots = [g for g in grails for _ in range(collector.grails[g].qty)]
    if len(slots) > len(hand):
        return None
    wanted = {collector.grails[g].trait for g in grails}
    order = sorted(hand, key=lambda c: (len(traits(c)), len(traits(c) & wanted), c))
    fits = [[c for c in order if collector.grails[g].trait in traits(c)] for g in slots]
    owner: dict[CardId, int] = {}

    def augment(slot: int, seen: set[CardId]) -> bool:
        for card in fits[slot]:
            if card in seen:
                continue
            seen.add(card)
            if card not in owner or augment(owner[card], seen):
                owner[card] = slot
                return True
        return False

    for slot in range(len(slots)):
        if not augment(slot, set()):
            return None
    paid: dict[int, list[CardId]] = {g: [] for g in grails}
    for card, slot in owner.items():
        paid[slots[slot]].append(card)
    return tuple(Payment(grail=g, ittybits=tuple(sorted(paid[g]))) for g in sorted(grails))


def payable_subsets(
    collector: Collector,
    hand: Sequence[CardId],
    traits: Callable[[CardId], frozenset[str]],
) -> list[tuple[Payment, ...]]:
    """A canonical payment for every non-empty set of grails the hand can pay at once."""
    n = len(collector.grails)
    found: list[tuple[Payment, ...]] = []
    for size in range(n, 0, -1):
        for subset in combinations(range(n), size):
            payment = find_payment(collector, subset, hand, traits)
            if payment is not None:
                found.append(payment)
    return found


def coins_for(collector: Collector, payments: Sequence[Payment]) -> int:
    return sum(collector.grails[p.grail].coins for p in payments)
