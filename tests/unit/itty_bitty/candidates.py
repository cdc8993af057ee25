"""Every move a seat could send in a position: the brute-force oracle for `check_listing`.

Takes, draws, keeps and passes are tried with every card id of the game. Completions are
tried for every collector id: for each collector in hand, every set of its grails with
every choice of that grail's quantity among the hand's ittybits that show its trait (cards
may repeat across grails: decide must refuse those), plus variants decide must refuse (a
card without the trait, one card too many or too few, a grail the card does not have).

A hand has no size limit, so a collector may have more distinct payments than the engine
lists (`MAX_PAYMENTS_LISTED`). `split` tells those collectors apart, counting payments by
their result as the rules see it (the ittybits paid and the coins), independently of the
engine's code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, islice, product

from games.itty_bitty.content import Collector
from games.itty_bitty.model import (
    Action,
    CardId,
    CompleteCollector,
    DrawCollectors,
    KeepCollector,
    PassTurn,
    Payment,
    State,
    TakeIttybit,
)
from games.itty_bitty.payments import MAX_PAYMENTS_LISTED
from games.itty_bitty.rules import IttyBitty


def moves(rules: IttyBitty, state: State, seat: int) -> list[Action]:
    """Every action but completions, with every card id of the game."""
    out: list[Action] = [TakeIttybit(), DrawCollectors(), PassTurn()]
    out += [TakeIttybit(card=c) for c in sorted(rules.content.ittybits)]
    out += [KeepCollector(card=c) for c in sorted(rules.content.collectors)]
    return out


def completions(
    rules: IttyBitty, collector: Collector, hand: Sequence[CardId]
) -> Iterator[CompleteCollector]:
    """Every choice of cards for every set of grails (the trait picks the cards to try)."""
    n = len(collector.grails)
    for size in range(1, n + 1):
        for grails in combinations(range(n), size):
            choices = [
                combinations([c for c in hand if g.trait in rules.traits(c)], g.qty)
                for g in (collector.grails[i] for i in grails)
            ]
            for cards in product(*choices):
                payments = tuple(
                    Payment(grail=i, ittybits=c) for i, c in zip(grails, cards, strict=True)
                )
                yield CompleteCollector(collector=collector.id, payments=payments)
                if size > 1:  # the same payment named in another order
                    yield CompleteCollector(collector=collector.id, payments=payments[::-1])


def refusals(rules: IttyBitty, collector: Collector, hand: Sequence[CardId]) -> list[Action]:
    """Payments decide must refuse: wrong cards, wrong quantity, no grail, unknown grail."""
    n = len(collector.grails)
    out: list[Action] = [CompleteCollector(collector=collector.id, payments=())]
    for i, grail in enumerate(collector.grails):
        lacking = [c for c in hand if grail.trait not in rules.traits(c)]
        having = [c for c in hand if grail.trait in rules.traits(c)]
        tries = [lacking[: grail.qty], having[: grail.qty + 1], having[: grail.qty - 1]]
        if grail.qty > 1:
            tries.append(having[:1] * grail.qty)  # one card twice
        for cards in tries:
            out.append(complete(collector.id, (i, cards)))
        out.append(complete(collector.id, (n, having[: grail.qty])))  # no such grail
        out.append(complete(collector.id, (i, having[: grail.qty]), (i, having[: grail.qty])))
    return out


def complete(collector: CardId, *payments: tuple[int, Sequence[CardId]]) -> CompleteCollector:
    return CompleteCollector(
        collector=collector,
        payments=tuple(Payment(grail=g, ittybits=tuple(c)) for g, c in payments),
    )


def result(rules: IttyBitty, action: CompleteCollector) -> tuple[frozenset[CardId], int] | None:
    """What a valid payment does as the rules see it: the ittybits paid, the coins taken."""
    collector = rules.content.collectors[action.collector]
    paid = [c for p in action.payments for c in p.ittybits]
    if len(set(paid)) != len(paid):
        return None
    return frozenset(paid), sum(collector.grails[p.grail].coins for p in action.payments)


def split(
    rules: IttyBitty, state: State, seat: int
) -> tuple[list[Action], dict[CardId, list[CompleteCollector]]]:
    """All candidates for `check_listing`, and apart from them the candidates of each
    collector with more distinct payments than the engine lists."""
    hand = state.hands[seat]
    out = moves(rules, state, seat)
    over: dict[CardId, list[CompleteCollector]] = {}
    for col_id in sorted(rules.content.collectors):
        collector = rules.content.collectors[col_id]
        if col_id not in hand.collectors:  # refused whatever it pays: one try is enough
            out += islice(completions(rules, collector, hand.ittybits), 1)
            continue
        tries = list(completions(rules, collector, hand.ittybits))
        results = {r for r in (result(rules, a) for a in tries) if r is not None}
        if len(results) > MAX_PAYMENTS_LISTED:
            over[col_id] = tries
        else:
            out += tries
        out += refusals(rules, collector, hand.ittybits)
    return out, over
