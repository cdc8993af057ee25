"""`legal_actions` lists every move: each payment with its own result once, up to a bound.

The same property is checked by brute force over random games in test_generic.py; these
are the cases that shaped it, on the small deck of test_rules.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest

from games.itty_bitty.model import (
    Action,
    CompleteCollector,
    Hand,
    PassTurn,
    Payment,
    State,
    TakeIttybit,
)
from games.itty_bitty.payments import MAX_PAYMENTS_LISTED, find_payment, payments
from games.testing import check_listing
from tests.unit.itty_bitty.candidates import split
from tests.unit.itty_bitty.test_rules import (
    BOTH,
    E2,
    EARRINGS,
    EH,
    EX,
    FILLERS,
    H1,
    HE,
    HOODIES,
    P1,
    PIPES,
    REAL,
    SMALL,
    ZOMBIES,
    complete,
    face_down,
    play,
    refused,
    stuck_table,
    table,
)
from tests.unit.itty_bitty.test_rules_scoring import last_turn_table


def completions(state: State, seat: int, collector: str) -> list[CompleteCollector]:
    return [
        a
        for a in SMALL.legal_actions(state, seat)
        if isinstance(a, CompleteCollector) and a.collector == collector
    ]


def test_a_payment_that_keeps_another_collector_completable_is_listed() -> None:
    # P1 wants one Pipe. Paying it with the Female Pipe keeps three Zombies for EX.
    state = table(hands=[Hand(ittybits=(*ZOMBIES[:3], PIPES[0]), collectors=(P1, EX))])
    listed = completions(state, 0, P1)
    assert complete(P1, (0, [PIPES[0]])) in listed
    assert {a.payments[0].ittybits for a in listed} == {(c,) for c in (*ZOMBIES[:3], PIPES[0])}
    after = play(state, 0, complete(P1, (0, [PIPES[0]])), SMALL)[1]
    assert after.hands[0].ittybits == tuple(ZOMBIES[:3])  # EX's Zombie grail is still payable


def test_paying_the_same_ittybits_for_the_same_coins_is_listed_once() -> None:
    # EH pays 1 coin for an Earring or for a Hoodie; BOTH[0] has both: one move, not two.
    state = table(hands=[Hand(ittybits=(BOTH[0],), collectors=(EH,))])
    assert len(completions(state, 0, EH)) == 1
    one, other = complete(EH, (0, [BOTH[0]])), complete(EH, (1, [BOTH[0]]))
    assert play(state, 0, one, SMALL)[1] == play(state, 0, other, SMALL)[1]


def test_the_same_ittybits_for_different_coins_are_two_moves() -> None:
    state = table(hands=[Hand(ittybits=(BOTH[0],), collectors=(HE,))])
    listed = completions(state, 0, HE)
    assert sorted(a.payments[0].grail for a in listed) == [0, 1]  # 1 coin or 2


def test_each_way_to_pay_is_listed_whichever_grails_it_pays() -> None:
    state = table(hands=[Hand(ittybits=(*HOODIES[:5], *ZOMBIES[:3]), collectors=(EX,))])
    listed = {(a.payments[0].grail, a.payments[0].ittybits) for a in completions(state, 0, EX)}
    hoodies = {(0, c) for c in combinations(HOODIES[:5], 4)}
    assert len(completions(state, 0, EX)) == 5 + 1 + 5  # both grails, hoodies, zombies
    assert hoodies | {(1, tuple(ZOMBIES[:3]))} == listed


def test_a_collector_with_more_payments_than_the_bound_lists_that_many() -> None:
    hand = (*HOODIES, *BOTH)  # 16 Hoodies: C(16, 4) = 1820 ways to pay EX's Hoodie grail
    state = table(hands=[Hand(ittybits=hand, collectors=(EX,))])
    listed = completions(state, 0, EX)
    assert len(listed) == MAX_PAYMENTS_LISTED
    assert len({a.payments for a in listed}) == MAX_PAYMENTS_LISTED
    canonical = find_payment(SMALL.content.collectors[EX], (0,), hand, SMALL.traits)
    assert listed[0].payments == canonical  # least-versatile punks first: the Hoodies
    unlisted = complete(EX, (0, BOTH[-4:]))
    assert unlisted not in listed
    assert play(state, 0, unlisted, SMALL)[1].hands[0].coins == 3  # decide accepts the rest


def test_the_canonical_payment_of_every_payable_set_of_grails_comes_first() -> None:
    collector = SMALL.content.collectors[EX]
    hand = (*HOODIES, *ZOMBIES)
    found = payments(collector, hand, SMALL.traits, limit=3)
    assert [tuple(p.grail for p in f) for f in found] == [(0, 1), (0,), (1,)]
    assert found == [find_payment(collector, g, hand, SMALL.traits) for g in ((0, 1), (0,), (1,))]
    assert len(payments(collector, hand, SMALL.traits, limit=4)) == 4


def test_the_canonical_payment_spends_the_least_versatile_punks() -> None:
    earrings = REAL.content.collectors["collector-C01"]  # Earring x3
    hand = ("ittybit-1890", "ittybit-2708", "ittybit-4724", "ittybit-9035")  # 5, 3, 4, 4 traits
    found = find_payment(earrings, (0,), hand, REAL.traits)
    assert found == (Payment(grail=0, ittybits=hand[1:]),)  # not the lowest ids


def test_the_canonical_payment_moves_a_punk_to_another_grail_when_it_must() -> None:
    # C23: Zombie, Earring. #2708 is a Zombie with an Earring, tried first for the Zombie
    # grail; only it can pay the Earring, so the Zombie grail takes #2132 instead.
    zombie_earring = REAL.content.collectors["collector-C23"]
    found = find_payment(zombie_earring, (0, 1), ("ittybit-2708", "ittybit-2132"), REAL.traits)
    assert found == (
        Payment(grail=0, ittybits=("ittybit-2132",)),
        Payment(grail=1, ittybits=("ittybit-2708",)),
    )


def test_an_unpayable_collector_lists_no_payment() -> None:
    state = table(hands=[Hand(ittybits=(HOODIES[0], EARRINGS[0]), collectors=(EX, E2))])
    assert completions(state, 0, EX) == completions(state, 0, E2) == []


def positions() -> list[tuple[State, int]]:
    crafted = [
        table(hands=[Hand(ittybits=(*ZOMBIES[:4], PIPES[0], *HOODIES[:5]), collectors=(P1, EX))]),
        table(
            hands=[Hand(ittybits=(*BOTH[:3], *EARRINGS[:2], HOODIES[0]), collectors=(EH, HE, E2))]
        ),
        table(hands=[Hand(ittybits=(*HOODIES, *BOTH), collectors=(EX, H1))]),
        stuck_table(3),
    ]
    return [(s, 0) for s in crafted] + [(last_turn_table(), 1)]


@pytest.mark.parametrize("at", range(5))
def test_every_move_decide_accepts_is_listed_once(at: int) -> None:
    state, seat = positions()[at]
    candidates, over = split(SMALL, state, seat)
    check_listing(SMALL, state, seat, candidates)
    assert set(over) == ({EX} if at == 2 else set())


@pytest.mark.parametrize("left", ["market", "deck", "collectors", "payable"])
def test_pass_turn_is_refused_while_any_one_other_move_is_left(left: str) -> None:
    everything = tuple(sorted(SMALL.content.ittybits))
    cols = tuple(sorted(SMALL.content.collectors))
    mine = (ZOMBIES[0],) if left == "payable" else ()
    others = tuple(c for c in everything if c not in mine)
    market = [others[0]] if left == "market" else []
    supply = [others[1]] if left == "deck" else []
    spare = tuple(c for c in cols if c not in (P1, FILLERS[0]))
    state = table(
        hands=[
            Hand(ittybits=mine, collectors=(P1,)),
            Hand(
                ittybits=tuple(c for c in others if c not in (*market, *supply)),
                collectors=spare + ((FILLERS[0],) if left != "collectors" else ()),
            ),
        ],
        market=market,
        ittybit_supply=supply,
    )
    assert PassTurn() not in SMALL.legal_actions(state, 0)
    assert refused(state, 0, PassTurn()) == "cannot_pass"


def test_after_the_end_is_triggered_only_completions_and_pass_are_listed() -> None:
    state = last_turn_table()
    assert TakeIttybit() not in SMALL.legal_actions(state, 1)
    assert SMALL.legal_actions(state, 1)[-1] == PassTurn()
    seat2 = table(
        3,
        hands=[Hand(completed=face_down(*FILLERS[:8])), Hand(), Hand(ittybits=(EARRINGS[0],))],
        current=2,
        end_triggered_by=0,
    )
    assert SMALL.legal_actions(seat2, 2) == [PassTurn()]  # nothing to complete
    assert play(seat2, 2, PassTurn(), SMALL)[1].result is not None


def test_without_every_payment_the_canonical_payments_alone_are_listed() -> None:
    collector = SMALL.content.collectors[EX]
    hand = (*HOODIES, *ZOMBIES)
    canonical = payments(collector, hand, SMALL.traits, every=False)
    assert canonical == payments(collector, hand, SMALL.traits, limit=3)
    assert payments(collector, hand, SMALL.traits, limit=2, every=False) == canonical[:2]


def test_with_one_grail_payable_only_its_payments_are_listed() -> None:
    # EX with no Zombie in hand: only the Hoodie grail can be paid
    collector = SMALL.content.collectors[EX]
    found = payments(collector, HOODIES, SMALL.traits)
    assert found and all([p.grail for p in f] == [0] for f in found)


@pytest.mark.parametrize("at", range(5))
def test_a_playouts_listing_offers_every_move_with_one_payment_per_set_of_grails(
    at: int,
) -> None:
    # bots' playouts (services/bots/policies/itty_bitty.py) choose among these
    state, seat = positions()[at]
    every = SMALL.legal_actions(state, seat)
    few = SMALL.moves(state, seat, every_payment=False)
    assert set(few) <= set(every)
    assert [a for a in few if not isinstance(a, CompleteCollector)] == [
        a for a in every if not isinstance(a, CompleteCollector)
    ]

    def grails(actions: Sequence[Action]) -> list[tuple[str, tuple[int, ...]]]:
        return sorted(
            (a.collector, tuple(p.grail for p in a.payments))
            for a in actions
            if isinstance(a, CompleteCollector)
        )

    assert grails(few) == sorted(set(grails(every)))
