"""The itty bitty rulebook: completing collectors, reshuffles, the end, penalties and scoring."""

from __future__ import annotations

from random import Random

import pytest
from msgspec.structs import replace

from games.api import IllegalAction
from games.itty_bitty.model import (
    CollectorCompleted,
    CollectorsOffered,
    CompleteCollector,
    DrawCollectors,
    EndTriggered,
    GameEnded,
    Hand,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    PassTurn,
    State,
    SupplyReshuffled,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.itty_bitty.scoring import final_result
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
    complete,
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
    assert events[0] == CollectorCompleted(seat=0, collector=EX, payments=action.payments, coins=7)
    assert after.hands[0].coins == 7
    assert after.hands[0].completed == (EX,)
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
    assert after.hands[0].completed == (EX,)
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
            Hand(ittybits=(HOODIES[0],), collectors=(E2,), completed=(P1,)),
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


def test_an_empty_ittybit_supply_reshuffles_the_discard_to_take_from_the_deck() -> None:
    discard = ZOMBIES + EARRINGS[:2]
    rest = tuple(b for b in sorted(SMALL.content.ittybits) if b not in discard)
    state = table(
        hands=[Hand(), Hand(ittybits=rest[4:])],
        market=rest[:4],
        ittybit_supply=[],
        ittybit_discard=discard,
    )
    events, after = play(state, 0, TakeIttybit(), SMALL)
    assert events[0] == SupplyReshuffled(deck="ittybits", count=len(discard))
    assert isinstance(events[1], IttybitTaken) and events[1].card in discard
    assert after.ittybit_discard == ()
    assert sorted(after.ittybit_supply) == sorted(set(discard) - {events[1].card})


def test_a_marketplace_refill_reshuffles_the_discard_when_the_supply_is_empty() -> None:
    discard = EARRINGS[:3]
    rest = tuple(b for b in sorted(SMALL.content.ittybits) if b not in discard)
    state = table(
        hands=[Hand(), Hand(ittybits=rest[4:])],
        market=rest[:4],
        ittybit_supply=[],
        ittybit_discard=discard,
    )
    card = state.market[1]
    events, after = play(state, 0, TakeIttybit(card=card), SMALL)
    assert events[0] == IttybitTaken(seat=0, from_market=True, card=card)
    assert events[1] == SupplyReshuffled(deck="ittybits", count=3)
    assert isinstance(events[2], MarketFilled) and events[2].slot == 1
    assert events[2].card in discard
    assert after.market[1] == events[2].card and None not in after.market


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
    assert of(SupplyReshuffled, events) and of(MarketFilled, events)[0].slot == 0
    assert state.market[0] in EARRINGS[:2] and None not in state.market
    assert len(state.ittybit_supply) == 1 and state.ittybit_discard == ()
    assert [type(e) for e in events][-1] is TurnBegan


def test_an_empty_collector_supply_reshuffles_the_collector_discard() -> None:
    discard = FILLERS[:3]
    rest = tuple(c for c in sorted(SMALL.content.collectors) if c not in discard)
    state = table(
        hands=[Hand(), Hand(collectors=rest)], collector_supply=[], collector_discard=discard
    )
    events, after = play(state, 0, DrawCollectors(), SMALL)
    assert events[0] == SupplyReshuffled(deck="collectors", count=3)
    assert isinstance(events[1], CollectorsOffered) and set(events[1].cards) < set(discard)
    assert after.collector_discard == ()
    assert len(after.collector_supply) == 1


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
    """Seat `trigger` has 7 collectors done and can complete H1; the others hold E2."""
    hands = [Hand(ittybits=(EARRINGS[s],), collectors=(FILLERS[8 + s],)) for s in range(seats)]
    hands[trigger] = Hand(ittybits=(HOODIES[0],), collectors=(H1,), completed=tuple(FILLERS[:7]))
    return table(seats, hands=hands, current=trigger)


def take(state: State, seat: int) -> list:
    return play(state, seat, TakeIttybit(), SMALL)[0]


@pytest.mark.parametrize(("seats", "trigger"), [(2, 0), (2, 1), (3, 0), (3, 2), (4, 1)])
def test_completing_the_eighth_collector_gives_each_other_player_one_more_turn(
    seats: int, trigger: int
) -> None:
    state = trigger_table(seats, trigger)
    events, state = play(state, trigger, complete(H1, (0, [HOODIES[0]])), SMALL)
    assert of(EndTriggered, events) == [EndTriggered(seat=trigger)]
    assert state.end_triggered_by == trigger
    turns = []
    while state.result is None:
        began = of(TurnBegan, events)
        assert len(began) == 1 and began[0].last_round
        turns.append(began[0].seat)
        events, state = play(state, began[0].seat, TakeIttybit(), SMALL)
    assert turns == [(trigger + i) % seats for i in range(1, seats)]  # not the trigger's
    assert of(GameEnded, events)[0].reason == "eight_collectors"
    assert SMALL.to_act(state) == frozenset()


def test_the_seventh_collector_does_not_end_the_game() -> None:
    state = trigger_table(2, 0)
    state = replace(
        state,
        hands=(replace(state.hands[0], completed=FILLERS[:6]), state.hands[1]),
        collector_supply=(*state.collector_supply, FILLERS[6]),
    )
    events, after = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)
    assert not of(EndTriggered, events)
    assert events[-1] == TurnBegan(seat=1, last_round=False)
    assert after.end_triggered_by is None


def test_another_eighth_collector_in_the_last_round_does_not_retrigger() -> None:
    hands = [
        Hand(ittybits=(HOODIES[0],), collectors=(H1,), completed=tuple(FILLERS[:7])),
        Hand(
            ittybits=(EARRINGS[0],),
            collectors=(E2, FILLERS[11]),
            completed=(*FILLERS[7:11], P1, HE, EX),
        ),
    ]
    state = table(3, hands=hands)
    events, state = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)
    events, state = play(state, 1, complete(FILLERS[11], (0, [EARRINGS[0]])), SMALL)
    assert len(state.hands[1].completed) == 8
    assert not of(EndTriggered, events)
    assert events[-1] == TurnBegan(seat=2, last_round=True)
    events, state = play(state, 2, TakeIttybit(), SMALL)
    assert of(GameEnded, events) and state.end_triggered_by == 0


def test_the_last_turn_is_a_normal_turn() -> None:
    state = trigger_table(2, 0)
    state = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    assert DrawCollectors() in SMALL.legal_actions(state, 1)
    state = play(state, 1, DrawCollectors(), SMALL)[1]
    assert state.result is None  # the seat still keeps one, within its last turn
    state = play(state, 1, KeepCollector(card=state.hands[1].choice[0]), SMALL)[1]
    assert state.result is not None and state.result.penalties[1] == 2


# -- paying for uncompleted collectors, scoring ---------------------------------------------------


def test_each_uncompleted_collector_in_hand_costs_one_coin() -> None:
    state = trigger_table(2, 0)
    state = replace(
        state, hands=(replace(state.hands[0], coins=5), replace(state.hands[1], coins=4))
    )
    state = play(state, 0, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    state = play(state, 1, DrawCollectors(), SMALL)[1]
    result = play(state, 1, KeepCollector(card=state.hands[1].choice[0]), SMALL)[1].result
    assert result is not None
    assert result.penalties == (0, 2)
    assert result.scores == (6, 2)  # 5 + 1 for H1; 4 - 2
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
    state = play(state, 0, TakeIttybit(), SMALL)[1]
    outcome = SMALL.outcome(state)
    assert outcome is not None and state.result is not None
    assert outcome.scores == list(state.result.scores) == [-1, 1]
    assert outcome.winners == [1] and outcome.ranks == [2, 1]
    assert outcome.detail == {"penalties": [1, 0], "reason": "eight_collectors"}


def test_no_action_after_the_game_has_ended() -> None:
    state = trigger_table(2, 1)
    state = play(state, 1, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    state = play(state, 0, TakeIttybit(), SMALL)[1]
    assert SMALL.legal_actions(state, 0) == [] and SMALL.legal_actions(state, 1) == []
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
