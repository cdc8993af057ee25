"""The itty bitty rulebook: completing collectors, reshuffles, the end, penalties and scoring."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

import pytest
from msgspec.structs import replace

from games.api import IllegalAction
from games.itty_bitty.model import (
    CollectorCompleted,
    CollectorKept,
    CompleteCollector,
    Completed,
    DrawCollectors,
    EndTriggered,
    GameEnded,
    GameSetUp,
    Hand,
    IttybitTaken,
    KeepCollector,
    LastTurn,
    MarketFilled,
    Options,
    PassTurn,
    State,
    SupplyReshuffled,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.itty_bitty.scoring import final_result
from games.testing import random_playout
from tests.unit.itty_bitty.test_rules import (
    BOTH,
    E2,
    EARRINGS,
    EX,
    FILLERS,
    H1,
    HE,
    HOODIES,
    P1,
    REAL,
    SMALL,
    ZOMBIES,
    assert_restocked,
    complete,
    face_down,
    of,
    play,
    refused,
    stuck_table,
    table,
)

# -- completing a collector card ------------------------------------------------------------------


def example_table() -> State:
    """The rulebook's example: 4 Hoodie ittybits and 3 Zombies for collector EX."""
    return table(hands=[Hand(ittybits=(*HOODIES[:4], *ZOMBIES[:3], EARRINGS[0]), collectors=(EX,))])


def test_the_rulebook_example_pays_three_plus_four_coins() -> None:
    state = example_table()
    action = complete(EX, (0, HOODIES[:4]), (1, ZOMBIES[:3]))
    events, after = play(state, 0, action, SMALL)
    paid = tuple(sorted((*HOODIES[:4], *ZOMBIES[:3])))
    assert events[0] == CollectorCompleted(
        seat=0, collector=EX, payments=action.payments, ittybits=paid, coins=7
    )
    assert after.hands[0].coins == 7
    assert after.hands[0].completed == (Completed(collector=EX, ittybits=paid, coins=7),)
    assert after.hands[0].collectors == ()
    assert after.hands[0].ittybits == (EARRINGS[0],)  # the unused ittybit stays in hand


def test_paid_ittybits_go_face_up_to_the_discard() -> None:
    state = example_table()
    after = play(state, 0, complete(EX, (0, HOODIES[:4]), (1, ZOMBIES[:3])), SMALL)[1]
    assert set(after.ittybit_discard) == set(HOODIES[:4]) | set(ZOMBIES[:3])
    assert set(SMALL.view(after, None).public["discard"]["ittybits"]) == set(after.ittybit_discard)


def test_completing_some_of_the_grails_pays_those_and_forfeits_the_rest() -> None:
    state = example_table()
    events, after = play(state, 0, complete(EX, (1, ZOMBIES[:3])), SMALL)
    assert events[0].coins == 4  # type: ignore[attr-defined]
    assert after.hands[0].completed == (
        Completed(collector=EX, ittybits=tuple(ZOMBIES[:3]), coins=4),
    )
    assert set(after.hands[0].ittybits) == {*HOODIES[:4], EARRINGS[0]}
    back = replace(after, current=0)
    assert refused(back, 0, complete(EX, (0, HOODIES[:4]))) == "collector_not_in_hand"


def test_every_payable_set_of_grails_is_offered() -> None:
    state = example_table()
    offers = [a for a in SMALL.legal_actions(state, 0) if isinstance(a, CompleteCollector)]
    assert sorted(tuple(p.grail for p in a.payments) for a in offers) == [(0,), (0, 1), (1,)]
    for action in offers:
        play(state, 0, action, SMALL)  # each is accepted as listed


def test_a_grail_takes_exactly_its_quantity() -> None:
    state = table(hands=[Hand(ittybits=tuple(HOODIES[:5]), collectors=(EX,))])
    assert refused(state, 0, complete(EX, (0, HOODIES[:5]))) == "wrong_quantity"
    assert refused(state, 0, complete(EX, (0, HOODIES[:3]))) == "wrong_quantity"
    assert refused(state, 0, complete(EX, (0, ()))) == "wrong_quantity"
    assert play(state, 0, complete(EX, (0, HOODIES[:4])), SMALL)[0][0].coins == 3  # type: ignore[attr-defined]


def test_each_ittybit_must_have_the_grail_trait() -> None:
    state = table(
        hands=[Hand(ittybits=(*HOODIES[:3], EARRINGS[0], *ZOMBIES[:3]), collectors=(EX,))]
    )
    assert refused(state, 0, complete(EX, (0, (*HOODIES[:3], EARRINGS[0])))) == "trait_missing"
    assert refused(state, 0, complete(EX, (1, (*ZOMBIES[:2], HOODIES[0])))) == "trait_missing"
    assert not [
        a
        for a in SMALL.legal_actions(state, 0)
        if isinstance(a, CompleteCollector) and any(p.grail == 0 for p in a.payments)
    ]


def test_the_punk_type_counts_as_a_trait() -> None:
    assert "Zombie" in SMALL.content.traits(ZOMBIES[0])
    assert "Male" in SMALL.content.traits(HOODIES[0])
    state = table(hands=[Hand(ittybits=tuple(ZOMBIES[:3]), collectors=(EX,))])
    assert play(state, 0, complete(EX, (1, ZOMBIES[:3])), SMALL)[1].hands[0].coins == 4
    real_zombie = next(b for b in REAL.content.ittybits.values() if b.type == "Zombie")
    assert "Zombie" not in real_zombie.traits and "Zombie" in REAL.content.traits(real_zombie.id)


def test_an_ittybit_pays_for_one_grail_unit_only() -> None:
    state = table(hands=[Hand(ittybits=(BOTH[0],), collectors=(HE,))])
    both_ways = complete(HE, (0, [BOTH[0]]), (1, [BOTH[0]]))
    assert refused(state, 0, both_ways) == "ittybit_used_twice"
    offers = [a for a in SMALL.legal_actions(state, 0) if isinstance(a, CompleteCollector)]
    assert sorted(tuple(p.grail for p in a.payments) for a in offers) == [(0,), (1,)]
    twice = table(hands=[Hand(ittybits=tuple(HOODIES[:3]), collectors=(EX,))])
    repeat = complete(EX, (0, (HOODIES[0], HOODIES[0], HOODIES[1], HOODIES[2])))
    assert refused(twice, 0, repeat) == "ittybit_used_twice"


def test_each_grail_is_paid_once() -> None:
    state = table(hands=[Hand(ittybits=(HOODIES[0], HOODIES[1]), collectors=(HE,))])
    assert refused(state, 0, complete(HE, (0, [HOODIES[0]]), (0, [HOODIES[1]]))) == (
        "grail_paid_twice"
    )


def test_a_payment_names_a_grail_of_the_collector() -> None:
    state = table(hands=[Hand(ittybits=(HOODIES[0],), collectors=(H1,))])
    assert refused(state, 0, complete(H1, (1, [HOODIES[0]]))) == "unknown_grail"
    assert refused(state, 0, complete(H1, (-1, [HOODIES[0]]))) == "unknown_grail"


def test_at_least_one_grail_must_be_paid() -> None:
    state = table(hands=[Hand(ittybits=(HOODIES[0],), collectors=(H1,))])
    assert refused(state, 0, complete(H1)) == "no_grails_paid"


def test_the_collector_must_be_in_your_hand() -> None:
    state = table(
        hands=[
            Hand(ittybits=(HOODIES[0],), collectors=(E2,), completed=face_down(P1)),
            Hand(collectors=(HE,)),
        ]
    )
    assert H1 in state.collector_supply
    assert refused(state, 0, complete(H1, (0, [HOODIES[0]]))) == "collector_not_in_hand"
    assert refused(state, 0, complete(HE, (0, [HOODIES[0]]))) == "collector_not_in_hand"
    assert refused(state, 0, complete(P1, (0, [HOODIES[0]]))) == "collector_not_in_hand"


def test_the_ittybits_must_be_in_your_hand() -> None:
    state = table(
        hands=[Hand(ittybits=(HOODIES[0],), collectors=(E2,)), Hand(ittybits=(EARRINGS[0],))]
    )
    assert refused(state, 0, complete(E2, (0, [EARRINGS[0], EARRINGS[1]]))) == (
        "ittybit_not_in_hand"
    )


def test_only_one_collector_per_turn_completing_ends_the_turn() -> None:
    state = table(
        hands=[Hand(ittybits=(HOODIES[0], EARRINGS[0], EARRINGS[1]), collectors=(H1, E2))]
    )
    events, after = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)
    assert events[-1] == TurnBegan(seat=1)
    assert refused(after, 0, complete(E2, (0, EARRINGS[:2]))) == "not_your_turn"
    assert after.hands[0].collectors == (E2,)


# -- reshuffling the discards ---------------------------------------------------------------------


def last_ittybit_table(discard: Sequence[str]) -> State:
    """Seat 0 to play; one ittybit left in the supply, `discard` face up beside it."""
    rest = tuple(b for b in sorted(SMALL.content.ittybits) if b not in discard)
    return table(
        hands=[Hand(), Hand(ittybits=rest[5:], collectors=(E2,))],
        market=rest[:4],
        ittybit_supply=[rest[4]],
        ittybit_discard=discard,
    )


def test_taking_the_last_ittybit_of_the_deck_restocks_it_from_the_discard_at_once() -> None:
    discard = (*ZOMBIES, *HOODIES[:2])
    state = last_ittybit_table(discard)
    last = state.ittybit_supply[0]
    events, after = play(state, 0, TakeIttybit(), SMALL)
    assert events[:2] == [
        SupplyReshuffled(deck="ittybits", count=len(discard)),
        IttybitTaken(seat=0, from_market=False, card=last),
    ]
    assert after.ittybit_supply == tuple(sorted(discard)) and after.ittybit_discard == ()


def test_ittybits_paid_after_the_deck_ran_out_wait_for_the_next_restock() -> None:
    # "If the supply deck runs out, shuffle the discard pile and restock the deck": the
    # restock is made with the discard of that moment; cards paid later are not in it.
    older = (*ZOMBIES[:2],)
    state = last_ittybit_table(older)
    state = play(state, 0, TakeIttybit(), SMALL)[1]  # the deck runs out: restocked
    state = play(state, 1, complete(E2, (0, EARRINGS[:2])), SMALL)[1]
    assert state.ittybit_discard == tuple(EARRINGS[:2])  # face up, waiting
    drawn = {play(state, 0, TakeIttybit(), SMALL, seed=s)[0][0].card for s in range(20)}
    assert drawn == set(older)


def test_a_marketplace_refill_that_empties_the_deck_restocks_it_at_once() -> None:
    discard = tuple(EARRINGS[:3])
    state = last_ittybit_table(discard)
    last, card = state.ittybit_supply[0], state.market[1]
    events, after = play(state, 0, TakeIttybit(card=card), SMALL)
    assert events[:3] == [
        IttybitTaken(seat=0, from_market=True, card=card),
        SupplyReshuffled(deck="ittybits", count=3),
        MarketFilled(slot=1, card=last),
    ]
    assert after.market[1] == last and after.ittybit_supply == discard


def test_a_taken_marketplace_card_with_nothing_left_to_refill_leaves_the_slot_empty() -> None:
    rest = tuple(sorted(SMALL.content.ittybits))
    state = table(hands=[Hand(), Hand(ittybits=rest[4:])], market=rest[:4], ittybit_supply=[])
    events, after = play(state, 0, TakeIttybit(card=rest[0]), SMALL)
    assert not of(MarketFilled, events)
    assert after.market == (None, *rest[1:4])
    assert TakeIttybit(card=None) not in SMALL.legal_actions(after, 1)


def test_an_emptied_marketplace_slot_is_refilled_at_the_end_of_a_turn_once_ittybits_are_back() -> (
    None
):
    # Our ruling (RULES.md): empty slots are refilled at the end of every turn when they can be.
    rest = tuple(sorted(SMALL.content.ittybits))
    state = table(
        hands=[Hand(), Hand(ittybits=rest[4:], collectors=(E2,))],
        market=rest[:4],
        ittybit_supply=[],
    )
    state = play(state, 0, TakeIttybit(card=rest[0]), SMALL)[1]
    assert state.market[0] is None  # nothing could refill it
    events, state = play(state, 1, complete(E2, (0, EARRINGS[:2])), SMALL)
    # the two paid ittybits reach the discard, are reshuffled, and one fills the slot
    assert of(SupplyReshuffled, events) == [SupplyReshuffled(deck="ittybits", count=2)]
    assert of(MarketFilled, events)[0].slot == 0
    assert state.market[0] in EARRINGS[:2] and None not in state.market
    assert len(state.ittybit_supply) == 1 and state.ittybit_discard == ()
    assert [type(e) for e in events][-1] is TurnBegan


def test_a_collector_discarded_while_the_deck_is_out_restocks_it_at_once() -> None:
    rest = tuple(c for c in sorted(SMALL.content.collectors) if c not in FILLERS[:2])
    state = table(hands=[Hand(), Hand(collectors=rest)], collector_supply=FILLERS[:2])
    events, offered = play(state, 0, DrawCollectors(), SMALL)
    assert not of(SupplyReshuffled, events)  # nothing was discarded to restock it with
    assert offered.collector_supply == offered.collector_discard == ()
    keep, other = offered.hands[0].choice
    events, after = play(offered, 0, KeepCollector(card=keep), SMALL)
    assert events[:2] == [
        CollectorKept(seat=0, kept=keep, discarded=other),
        SupplyReshuffled(deck="collectors", count=1),
    ]
    assert after.collector_supply == (other,) and after.collector_discard == ()


def test_a_supply_is_never_left_empty_beside_its_discard() -> None:
    for seed in range(12):
        for state in random_playout(SMALL, seed, 2 + seed % 3).states:
            assert_restocked(state)


def test_drawing_past_the_last_collector_reshuffles_midway() -> None:
    rest = tuple(c for c in sorted(SMALL.content.collectors) if c not in (*FILLERS[:3],))
    state = table(
        hands=[Hand(), Hand(collectors=rest)],
        collector_supply=[FILLERS[0]],
        collector_discard=FILLERS[1:3],
    )
    events, _ = play(state, 0, DrawCollectors(), SMALL)
    assert events[0] == SupplyReshuffled(deck="collectors", count=2)
    assert events[1].cards[0] == FILLERS[0]  # type: ignore[attr-defined]
    assert events[1].cards[1] in FILLERS[1:3]  # type: ignore[attr-defined]


# -- the end: 8 completed collectors --------------------------------------------------------------


def trigger_table(seats: int, trigger: int) -> State:
    """Seat `trigger` has 7 collectors done and can complete H1; each other seat can complete
    one Earring collector with the Earring ittybit it holds."""
    hands = [Hand(ittybits=(EARRINGS[s],), collectors=(FILLERS[8 + s],)) for s in range(seats)]
    hands[trigger] = Hand(
        ittybits=(HOODIES[0],), collectors=(H1,), completed=face_down(*FILLERS[:7])
    )
    return table(seats, hands=hands, current=trigger)


@pytest.mark.parametrize(("seats", "trigger"), [(2, 0), (2, 1), (3, 0), (3, 2), (4, 1)])
def test_completing_the_eighth_collector_gives_each_other_player_one_more_turn(
    seats: int, trigger: int
) -> None:
    state = trigger_table(seats, trigger)
    events, state = play(state, trigger, complete(H1, (0, [HOODIES[0]])), SMALL)
    assert of(EndTriggered, events) == [EndTriggered(seat=trigger, last_turn="one_collector")]
    assert state.end_triggered_by == trigger
    turns = []
    while state.result is None:
        began = of(TurnBegan, events)
        assert len(began) == 1 and began[0].last_round
        turns.append(began[0].seat)
        events, state = play(state, began[0].seat, PassTurn(), SMALL)
    assert turns == [(trigger + i) % seats for i in range(1, seats)]  # not the trigger's
    assert of(GameEnded, events)[0].reason == "eight_collectors"
    assert SMALL.to_act(state) == frozenset()


def test_the_seventh_collector_does_not_end_the_game() -> None:
    state = trigger_table(2, 0)
    state = replace(
        state,
        hands=(replace(state.hands[0], completed=face_down(*FILLERS[:6])), state.hands[1]),
        collector_supply=(*state.collector_supply, FILLERS[6]),
    )
    events, after = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)
    assert not of(EndTriggered, events)
    assert events[-1] == TurnBegan(seat=1, last_round=False)
    assert after.end_triggered_by is None


def test_another_eighth_collector_in_the_last_round_does_not_retrigger() -> None:
    hands = [
        Hand(ittybits=(HOODIES[0],), collectors=(H1,), completed=face_down(*FILLERS[:7])),
        Hand(
            ittybits=(EARRINGS[0],),
            collectors=(E2, FILLERS[11]),
            completed=face_down(*FILLERS[7:11], P1, HE, EX),
        ),
    ]
    state = table(3, hands=hands)
    events, state = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)
    events, state = play(state, 1, complete(FILLERS[11], (0, [EARRINGS[0]])), SMALL)
    assert len(state.hands[1].completed) == 8
    assert not of(EndTriggered, events)
    assert events[-1] == TurnBegan(seat=2, last_round=True)  # one completion ends the turn
    events, state = play(state, 2, PassTurn(), SMALL)
    assert of(GameEnded, events) and state.end_triggered_by == 0


def last_turn_table(seats: int = 3, last_turn: LastTurn = "one_collector") -> State:
    """Seat 0 has just triggered the end; seat 1, in its last turn, can complete FILLERS[9]
    with any of its Earrings, E2 with two, and HE with BOTH[0] and an Earring."""
    hands = [Hand(ittybits=(EARRINGS[4 + s],), collectors=(FILLERS[8 + s],)) for s in range(seats)]
    hands[0] = Hand(ittybits=(HOODIES[0],), collectors=(H1,), completed=face_down(*FILLERS[:7]))
    hands[1] = Hand(ittybits=(*EARRINGS[1:4], BOTH[0]), collectors=(FILLERS[9], E2, HE))
    state = table(seats, hands=hands, options=Options(last_turn=last_turn))
    return play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)[1]


@pytest.mark.parametrize("last_turn", ["one_collector", "any_collectors"])
def test_the_last_turn_is_for_completing_collectors_only(last_turn: LastTurn) -> None:
    # "gets one more turn to complete any collector cards": the turn is for completing.
    state = last_turn_table(last_turn=last_turn)
    assert state.current == 1 and state.end_triggered_by == 0
    legal = SMALL.legal_actions(state, 1)
    assert {type(a) for a in legal} == {CompleteCollector, PassTurn}
    for action in (TakeIttybit(), TakeIttybit(card=state.market[0]), DrawCollectors()):
        assert refused(state, 1, action) == "last_turn_completes_only"


def test_by_default_the_last_turn_completes_one_collector_which_ends_it() -> None:
    # "You may only complete one collector card per turn", with no exception for the last.
    assert Options().last_turn == "one_collector"
    state = last_turn_table()
    events, state = play(state, 1, complete(E2, (0, EARRINGS[2:4])), SMALL)
    assert [type(e) for e in events] == [CollectorCompleted, TurnBegan]
    assert events[-1] == TurnBegan(seat=2, last_round=True)
    assert SMALL.to_act(state) == frozenset({2})
    assert refused(state, 1, complete(HE, (0, [BOTH[0]]), (1, [EARRINGS[1]]))) == "not_your_turn"
    assert [d.collector for d in state.hands[1].completed] == [E2]


def test_the_last_completion_of_the_last_seat_ends_the_game_by_default() -> None:
    state = play(last_turn_table(), 1, PassTurn(), SMALL)[1]
    events, state = play(state, 2, complete(FILLERS[10], (0, [EARRINGS[6]])), SMALL)
    assert of(GameEnded, events) and state.result is not None
    assert state.result.penalties == (0, 3, 0)


def test_any_collectors_the_last_turn_may_complete_several_one_at_a_time_then_pass() -> None:
    # "...to complete any collector cards" read as lifting the one-per-turn limit.
    state = last_turn_table(last_turn="any_collectors")
    events, state = play(state, 1, complete(E2, (0, EARRINGS[2:4])), SMALL)
    assert [type(e) for e in events] == [CollectorCompleted]  # the turn goes on
    assert SMALL.to_act(state) == frozenset({1})
    events, state = play(state, 1, complete(HE, (0, [BOTH[0]]), (1, [EARRINGS[1]])), SMALL)
    assert [type(e) for e in events] == [CollectorCompleted]
    assert SMALL.legal_actions(state, 1) == [PassTurn()]  # nothing left to pay FILLERS[9]
    assert [d.collector for d in state.hands[1].completed] == [E2, HE]
    assert state.hands[1].coins == 2 + 3
    events, state = play(state, 1, PassTurn(), SMALL)
    assert events == [TurnPassed(seat=1), TurnBegan(seat=2, last_round=True)]


@pytest.mark.parametrize("last_turn", ["one_collector", "any_collectors"])
def test_the_last_turn_may_end_without_completing_anything(last_turn: LastTurn) -> None:
    state = last_turn_table(last_turn=last_turn)
    assert PassTurn() in SMALL.legal_actions(state, 1)
    events, state = play(state, 1, PassTurn(), SMALL)
    assert events == [TurnPassed(seat=1), TurnBegan(seat=2, last_round=True)]
    assert state.hands[1].completed == ()


def test_a_game_keeps_the_last_turn_it_began_with() -> None:
    """Version 2 records the room's option in the setup; a game of version 1 (no option then)
    completes any collectors in its last turn, as it began."""
    for last_turn in ("one_collector", "any_collectors"):
        events = SMALL.setup(Options(last_turn=last_turn), 2, Random(1))
        [set_up] = of(GameSetUp, events)
        assert set_up.rules == 2 and set_up.options == Options(last_turn=last_turn)
        state = SMALL.evolve(None, set_up)
        assert state.rules == 2 and state.options.last_turn == last_turn
    for old in (GameSetUp(seats=2, first_seat=0), GameSetUp(seats=2, first_seat=0, rules=1)):
        assert SMALL.evolve(None, old).options.last_turn == "any_collectors"
    # and its end trigger says nothing of a last turn, as version 1's did (its log unchanged)
    state = replace(trigger_table(2, 0), rules=1, options=Options(last_turn="any_collectors"))
    events = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)[0]
    assert of(EndTriggered, events) == [EndTriggered(seat=0, last_turn=None)]


def test_any_collectors_the_last_turn_of_the_last_seat_ends_the_game_when_it_passes() -> None:
    state = last_turn_table(last_turn="any_collectors")
    state = play(state, 1, PassTurn(), SMALL)[1]
    events, state = play(state, 2, complete(FILLERS[10], (0, [EARRINGS[6]])), SMALL)
    assert state.result is None and SMALL.to_act(state) == frozenset({2})
    events, state = play(state, 2, PassTurn(), SMALL)
    assert of(GameEnded, events) and state.result is not None
    assert state.result.penalties == (0, 3, 0)


# -- paying for uncompleted collectors, scoring ---------------------------------------------------


def test_each_uncompleted_collector_in_hand_costs_one_coin() -> None:
    state = trigger_table(2, 0)
    state = replace(
        state, hands=(replace(state.hands[0], coins=5), replace(state.hands[1], coins=4))
    )
    state = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    result = play(state, 1, PassTurn(), SMALL)[1].result
    assert result is not None
    assert result.penalties == (0, 1)
    assert result.scores == (6, 3)  # 5 + 1 for H1; 4 - 1
    assert result.winners == (0,)


def test_an_uncompleted_collector_costs_one_even_if_it_could_be_paid() -> None:
    state = table(
        hands=[Hand(coins=3), Hand(ittybits=(EARRINGS[0], EARRINGS[1]), collectors=(E2,), coins=3)]
    )
    result = final_result(state, "eight_collectors")
    assert result.penalties == (0, 1)
    assert result.scores == (3, 2)


def test_coins_may_go_negative() -> None:
    state = table(hands=[Hand(), Hand(collectors=(E2, H1, P1), coins=1)])
    assert final_result(state, "eight_collectors").scores == (0, -2)


def test_the_highest_total_of_coins_wins() -> None:
    state = table(3, hands=[Hand(coins=3), Hand(coins=9), Hand(coins=5, ittybits=tuple(BOTH))])
    result = final_result(state, "eight_collectors")
    assert result.winners == (1,)
    assert result.ranks == (3, 1, 2)
    assert result.tie_break is None


def test_a_tie_goes_to_the_most_ittybits_still_in_hand() -> None:
    state = table(
        3,
        hands=[
            Hand(coins=7, ittybits=(BOTH[0],)),
            Hand(coins=7, ittybits=(BOTH[1], BOTH[2])),
            Hand(coins=2),
        ],
    )
    result = final_result(state, "eight_collectors")
    assert result.winners == (1,)
    assert result.ranks == (2, 1, 3)
    assert result.tie_break == "most_ittybits_in_hand"
    assert result.ittybits_in_hand == (1, 2, 0)


def test_a_tie_on_coins_and_ittybits_is_shared() -> None:
    state = table(
        3,
        hands=[
            Hand(coins=7, ittybits=(BOTH[0],)),
            Hand(coins=1),
            Hand(coins=7, ittybits=(BOTH[1],)),
        ],
    )
    result = final_result(state, "eight_collectors")
    assert result.winners == (0, 2)
    assert result.ranks == (1, 3, 1)
    assert result.tie_break == "shared"


def test_the_outcome_reports_the_final_result() -> None:
    state = trigger_table(2, 1)
    assert SMALL.outcome(state) is None
    state = play(state, 1, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    state = play(state, 0, PassTurn(), SMALL)[1]
    outcome = SMALL.outcome(state)
    assert outcome is not None and state.result is not None
    assert outcome.scores == list(state.result.scores) == [-1, 1]
    assert outcome.winners == [1] and outcome.ranks == [2, 1]
    assert outcome.detail == {"penalties": [1, 0], "reason": "eight_collectors"}


def test_no_action_after_the_game_has_ended() -> None:
    state = trigger_table(2, 1)
    state = play(state, 1, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    state = play(state, 0, PassTurn(), SMALL)[1]
    assert SMALL.legal_actions(state, 0) == [] and SMALL.legal_actions(state, 1) == []
    assert state.current is None
    for seat in (0, 1):
        with pytest.raises(IllegalAction) as err:
            SMALL.decide(state, seat, TakeIttybit(), Random(0))
        assert err.value.code == "game_over"
    assert refused(state, 0, PassTurn()) == "game_over"


# -- stalemate ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_full_round_of_passes_ends_the_game(seats: int) -> None:
    state = stuck_table(seats)
    for seat in range(seats - 1):
        events, state = play(state, seat, PassTurn(), SMALL)
        assert events == [TurnPassed(seat=seat), TurnBegan(seat=seat + 1)]
    events, state = play(state, seats - 1, PassTurn(), SMALL)
    assert events[0] == TurnPassed(seat=seats - 1)
    assert isinstance(events[1], GameEnded) and events[1].reason == "stalemate"
    assert state.result is not None
    assert state.result.penalties[-1] == len(SMALL.content.collectors)
    assert state.result.winners == (0,)  # a tie on 0 coins: seat 0 holds every ittybit
    outcome = SMALL.outcome(state)
    assert outcome is not None  # seat 0 ties on 0 coins with the middle seats, if any
    assert outcome.tie_break == ("most_ittybits_in_hand" if seats > 2 else None)
    assert outcome.detail["reason"] == "stalemate"


def test_any_other_action_breaks_a_run_of_passes() -> None:
    everything = tuple(sorted(SMALL.content.ittybits))
    rest = tuple(c for c in sorted(SMALL.content.collectors) if c != P1)
    hands = [Hand(ittybits=everything[1:]), Hand(ittybits=(ZOMBIES[0],), collectors=(*rest, P1))]
    assert everything[0] == ZOMBIES[0]
    state = table(hands=hands, market=[])
    state = play(state, 0, PassTurn(), SMALL)[1]
    assert state.passes_in_row == 1
    state = play(state, 1, complete(P1, (0, [ZOMBIES[0]])), SMALL)[1]
    assert state.passes_in_row == 0 and state.result is None
    assert refused(state, 0, PassTurn()) == "cannot_pass"  # the discard can be drawn now
