"""The itty bitty rulebook, rule by rule: setup, the three actions, turns, no skipping.

Completing collectors, reshuffles, the end of the game and scoring are in
test_rules_scoring.py; secrecy (redaction, views, sampling) and content validation in
test_rules_secrecy.py. The map from each rule to its code and tests is
games/itty_bitty/RULES.md. The helpers here are shared by those two modules.

Positions are built by folding `setup` with a seeded Random, then crafted with
`msgspec.structs.replace` (`table` below checks every crafted position conserves the cards).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from games.api import IllegalAction, fold
from games.itty_bitty.content import collector_id, ittybit_id, load, parse
from games.itty_bitty.model import (
    CollectorChoice,
    CollectorKept,
    CollectorsOffered,
    CompleteCollector,
    Completed,
    DrawCollectors,
    Event,
    GameSetUp,
    Hand,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    Options,
    PassTurn,
    Payment,
    State,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.itty_bitty.rules import IttyBitty
from games.itty_bitty.supply import Supply
from games.testing import check_conservation

REAL = IttyBitty()

# -- a small custom deck, so positions are exact --------------------------------------------------

ZOMBIES = [ittybit_id(n) for n in range(1, 7)]  # type Zombie, trait Pipe
HOODIES = [ittybit_id(n) for n in range(7, 15)]  # type Male, trait Hoodie
EARRINGS = [ittybit_id(n) for n in range(15, 23)]  # type Female, trait Earring
BOTH = [ittybit_id(n) for n in range(23, 31)]  # type Male, traits Hoodie and Earring
PIPES = [ittybit_id(n) for n in range(31, 33)]  # type Female, trait Pipe
EX, E2, H1, P1, HE, EH = (collector_id(c) for c in ("EX", "E2", "H1", "P1", "HE", "EH"))
FILLERS = [collector_id(f"F{i:02d}") for i in range(1, 13)]


def _small_content() -> Any:
    kinds = [(range(1, 7), "Zombie", ["Pipe"]), (range(7, 15), "Male", ["Hoodie"])]
    kinds += [
        (range(15, 23), "Female", ["Earring"]),
        (range(23, 31), "Male", ["Hoodie", "Earring"]),
    ]
    kinds += [(range(31, 33), "Female", ["Pipe"])]
    # "Mark n", asked for by no grail, gives each punk its own unique set of traits (rulebook).
    bits = [
        {"id": n, "type": kind, "traits": [*traits, f"Mark {n}"]}
        for numbers, kind, traits in kinds
        for n in numbers
    ]
    cols = [
        # The rulebook's example: x4 ittybits for 3 coins, plus x3 ittybits for 4 coins.
        {
            "id": "EX",
            "grails": [
                {"trait": "Hoodie", "qty": 4, "coins": 3},
                {"trait": "Zombie", "qty": 3, "coins": 4},
            ],
        },
        {"id": "E2", "grails": [{"trait": "Earring", "qty": 2, "coins": 2}]},
        {"id": "H1", "grails": [{"trait": "Hoodie", "qty": 1, "coins": 1}]},
        {"id": "P1", "grails": [{"trait": "Pipe", "qty": 1, "coins": 5}]},
        {
            "id": "HE",
            "grails": [
                {"trait": "Hoodie", "qty": 1, "coins": 1},
                {"trait": "Earring", "qty": 1, "coins": 2},
            ],
        },
        {
            "id": "EH",
            "grails": [
                {"trait": "Earring", "qty": 1, "coins": 1},
                {"trait": "Hoodie", "qty": 1, "coins": 1},
            ],
        },
    ] + [
        {"id": f"F{i:02d}", "grails": [{"trait": "Earring", "qty": 1, "coins": 1}]}
        for i in range(1, 13)
    ]
    return parse(msgspec.json.encode(bits), msgspec.json.encode(cols))


SMALL = IttyBitty(_small_content())


# -- helpers --------------------------------------------------------------------------------------


def set_up(seats: int = 2, seed: int = 0, rules: IttyBitty = REAL) -> tuple[list[Event], State]:
    events = rules.setup(Options(), seats, Random(seed))
    return events, fold(rules, events)


def ready(seats: int = 2, seed: int = 0, rules: IttyBitty = REAL) -> State:
    """Set up, then every seat keeps the first collector offered: play has begun."""
    _, state = set_up(seats, seed, rules)
    for seat in range(seats):
        state = play(state, seat, KeepCollector(card=state.hands[seat].choice[0]), rules)[1]
    return state


def play(
    state: State, seat: int, action: Any, rules: IttyBitty = REAL, seed: int = 0
) -> tuple[list[Event], State]:
    events = rules.decide(state, seat, action, Random(seed))
    return events, fold(rules, events, state)


def refused(state: State, seat: int, action: Any, rules: IttyBitty = SMALL) -> str:
    with pytest.raises(IllegalAction) as err:
        rules.decide(state, seat, action, Random(0))
    return err.value.code


def table(
    seats: int = 2,
    *,
    hands: Sequence[Hand] = (),
    market: Sequence[str | None] | None = None,
    ittybit_supply: Sequence[str] | None = None,
    collector_supply: Sequence[str] | None = None,
    ittybit_discard: Sequence[str] = (),
    collector_discard: Sequence[str] = (),
    current: int = 0,
    rules: IttyBitty = SMALL,
    **fields: Any,
) -> State:
    """A crafted position in play: cards not placed explicitly lie in the supply."""
    all_hands = tuple(hands) + tuple(Hand() for _ in range(seats - len(hands)))
    held = {c for h in all_hands for c in h.ittybits} | set(ittybit_discard)
    free = [b for b in sorted(rules.content.ittybits) if b not in held]
    if market is None:
        market = free[:4]
    market = tuple(market) + (None,) * (4 - len(market))
    if ittybit_supply is None:
        ittybit_supply = [b for b in free if b not in market]
    placed = {c for h in all_hands for c in h.collectors + h.choice}
    placed |= {d.collector for h in all_hands for d in h.completed}
    placed |= set(collector_discard)
    if collector_supply is None:
        collector_supply = [c for c in sorted(rules.content.collectors) if c not in placed]
    state = replace(
        ready(seats, rules=rules),
        hands=all_hands,
        market=market,
        ittybit_supply=tuple(sorted(ittybit_supply)),
        collector_supply=tuple(sorted(collector_supply)),
        ittybit_discard=tuple(ittybit_discard),
        collector_discard=tuple(collector_discard),
        current=current,
        **fields,
    )
    check_conservation(rules, state, seed=0)  # the crafted position is a real one
    assert_restocked(state)
    return state


def assert_restocked(state: State) -> None:
    """A supply is empty only if its discard is too: it is restocked the moment it runs out."""
    assert state.ittybit_supply or not state.ittybit_discard, "ittybit supply not restocked"
    assert state.collector_supply or not state.collector_discard, "collector supply not restocked"


def face_down(*collectors: str) -> tuple[Completed, ...]:
    """Collectors completed earlier (crafted: their paid ittybits have left the game's view)."""
    return tuple(Completed(collector=c, ittybits=(), coins=1) for c in collectors)


def complete(collector: str, *payments: tuple[int, Sequence[str]]) -> CompleteCollector:
    return CompleteCollector(
        collector=collector,
        payments=tuple(Payment(grail=g, ittybits=tuple(c)) for g, c in payments),
    )


def of(kind: type, events: Sequence[Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# -- setup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_setup_deals_three_ittybits_to_each_player(seats: int) -> None:
    events, state = set_up(seats)
    dealt = of(IttybitsDealt, events)
    assert [e.seat for e in dealt] == list(range(seats))
    assert all(e.count == 3 and len(e.cards) == 3 for e in dealt)
    assert [len(h.ittybits) for h in state.hands] == [3] * seats
    assert len(state.ittybit_supply) == 72 - 3 * seats - 4


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_setup_offers_two_collectors_to_each_player_to_keep_one(seats: int) -> None:
    events, state = set_up(seats)
    assert [(e.seat, len(e.cards)) for e in of(CollectorsOffered, events)] == [
        (s, 2) for s in range(seats)
    ]
    assert all(len(h.choice) == 2 and h.collectors == () for h in state.hands)
    assert len(state.collector_supply) == 36 - 2 * seats
    for seat in range(seats):
        assert state.hands[seat].choice  # keep one of these two
        actions = REAL.legal_actions(state, seat)
        asked = CollectorChoice(seat=seat, cards=state.hands[seat].choice)
        assert actions == [KeepCollector(card=c, question=asked) for c in asked.cards]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_setup_flips_four_ittybits_face_up_as_the_marketplace(seats: int) -> None:
    events, state = set_up(seats)
    filled = of(MarketFilled, events)
    assert [e.slot for e in filled] == [0, 1, 2, 3]
    assert state.market == tuple(e.card for e in filled)
    assert not set(state.market) & set(state.ittybit_supply)
    check_conservation(REAL, state, seed=0)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_seat_chooses_its_starting_collector_at_the_same_time(seats: int) -> None:
    _, state = set_up(seats)
    assert state.current is None
    assert REAL.to_act(state) == frozenset(range(seats))
    # Any order works; the last seat to choose may even go first.
    for seat in reversed(range(1, seats)):
        state = play(state, seat, KeepCollector(card=state.hands[seat].choice[1]))[1]
        assert seat not in REAL.to_act(state)
        assert 0 in REAL.to_act(state)


def test_keeping_a_starting_collector_discards_the_other_face_up() -> None:
    _, state = set_up(3)
    kept, other = state.hands[1].choice
    events, after = play(state, 1, KeepCollector(card=other))
    assert events == [CollectorKept(seat=1, kept=other, discarded=kept)]
    assert after.hands[1].collectors == (other,)
    assert after.hands[1].choice == ()
    assert after.collector_discard == (kept,)
    assert kept in REAL.view(after, None).public["discard"]["collectors"]  # face up


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_play_begins_at_first_seat_only_after_every_seat_has_kept(seats: int) -> None:
    _, state = set_up(seats, seed=5)
    for seat in range(seats):
        events, state = play(state, seat, KeepCollector(card=state.hands[seat].choice[0]))
        if seat < seats - 1:
            assert not of(TurnBegan, events)
            assert state.current is None
    assert of(TurnBegan, events) == [TurnBegan(seat=state.first_seat)]
    assert state.current == state.first_seat
    assert REAL.to_act(state) == frozenset({state.first_seat})


def test_a_seat_must_keep_its_starting_collector_before_anything_else() -> None:
    _, state = set_up(2)
    assert refused(state, 0, TakeIttybit(card=state.market[0]), REAL) == "choose_collector_first"
    assert refused(state, 0, DrawCollectors(), REAL) == "choose_collector_first"
    assert refused(state, 0, PassTurn(), REAL) == "choose_collector_first"


def test_a_seat_keeps_only_a_collector_it_was_offered() -> None:
    _, state = set_up(2)
    theirs = state.hands[1].choice[0]
    assert refused(state, 0, KeepCollector(card=theirs), REAL) == "not_offered"
    assert refused(state, 0, KeepCollector(card=state.collector_supply[0]), REAL) == "not_offered"


def test_a_seat_that_has_kept_waits_for_the_others() -> None:
    _, state = set_up(2)
    state = play(state, 0, KeepCollector(card=state.hands[0].choice[0]))[1]
    assert refused(state, 0, KeepCollector(card=state.hands[1].choice[0]), REAL) == "not_your_turn"
    assert REAL.legal_actions(state, 0) == []


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_the_game_seats_two_to_four_players(seats: int) -> None:
    with pytest.raises(IllegalAction) as err:
        REAL.setup(Options(), seats, Random(0))
    assert err.value.code == "bad_seat_count"


def test_the_first_player_is_picked_at_random_by_the_seeded_rng() -> None:
    firsts = {set_up(3, seed)[1].first_seat for seed in range(40)}
    assert firsts == {0, 1, 2}
    assert set_up(3, 7)[0] == set_up(3, 7)[0]  # same seed, same game


def test_a_draw_names_one_of_the_two_decks() -> None:
    supply = Supply(ready(2), Random(0))
    assert supply.draw("ittybits") and supply.draw("collectors")
    with pytest.raises(ValueError, match="no deck 'collector'"):
        supply.draw("collector")  # type: ignore[arg-type]


def test_the_deck_order_is_not_stored_each_draw_is_made_in_decide() -> None:
    events, state = set_up(2)
    assert not hasattr(of(GameSetUp, events)[0], "ittybits")  # no order, not even a list
    assert state.ittybit_supply == tuple(sorted(state.ittybit_supply))
    state = ready(2)
    seat = state.current
    drawn = {play(state, seat, TakeIttybit(), seed=s)[0][0].card for s in range(10)}
    assert len(drawn) > 1  # the card comes from the rng given to decide...
    assert play(state, seat, TakeIttybit(), seed=3) == play(state, seat, TakeIttybit(), seed=3)


# -- the three actions ----------------------------------------------------------------------------


def test_take_from_the_marketplace_refills_the_slot_at_once_from_the_deck() -> None:
    state = ready(3, seed=2)
    seat = state.current
    card = state.market[2]
    events, after = play(state, seat, TakeIttybit(card=card))
    taken, filled = of(IttybitTaken, events), of(MarketFilled, events)
    assert taken == [IttybitTaken(seat=seat, from_market=True, card=card)]
    assert len(filled) == 1 and filled[0].slot == 2
    assert filled[0].card in state.ittybit_supply
    assert after.market == (*state.market[:2], filled[0].card, state.market[3])
    assert after.hands[seat].ittybits == (*state.hands[seat].ittybits, card)
    assert len(after.ittybit_supply) == len(state.ittybit_supply) - 1


def test_take_from_the_marketplace_needs_a_card_in_the_marketplace() -> None:
    state = ready(2)
    seat = state.current
    assert refused(state, seat, TakeIttybit(card=state.ittybit_supply[0]), REAL) == (
        "not_in_marketplace"
    )
    other = state.hands[1 - seat].ittybits[0]
    assert refused(state, seat, TakeIttybit(card=other), REAL) == "not_in_marketplace"


def test_take_from_the_top_of_the_deck() -> None:
    state = ready(2, seed=4)
    seat = state.current
    events, after = play(state, seat, TakeIttybit())
    assert len(events) == 2 and isinstance(events[0], IttybitTaken)
    card = events[0].card
    assert events[0] == IttybitTaken(seat=seat, from_market=False, card=card)
    assert card in state.ittybit_supply and card not in after.ittybit_supply
    assert after.hands[seat].ittybits[-1] == card
    assert after.market == state.market
    # private to the taker: the other seat's copy of the event does not name the card
    assert REAL.redact(events[0], seat) == events[0]
    assert REAL.redact(events[0], 1 - seat).card is None  # type: ignore[union-attr]


def test_draw_two_collectors_then_keep_one_and_discard_the_other() -> None:
    state = ready(3, seed=1)
    seat = state.current
    events, offered = play(state, seat, DrawCollectors())
    assert len(events) == 1 and isinstance(events[0], CollectorsOffered)
    a, b = events[0].cards
    assert {a, b} <= set(state.collector_supply)
    assert REAL.to_act(offered) == frozenset({seat})  # the same turn goes on
    asked = CollectorChoice(seat=seat, cards=(a, b))
    assert REAL.legal_actions(offered, seat) == [
        KeepCollector(card=a, question=asked),
        KeepCollector(card=b, question=asked),
    ]
    assert refused(offered, seat, TakeIttybit(), REAL) == "choose_collector_first"
    assert refused(offered, seat, KeepCollector(card=offered.collector_supply[0]), REAL) == (
        "not_offered"
    )
    events, after = play(offered, seat, KeepCollector(card=b))
    assert events[0] == CollectorKept(seat=seat, kept=b, discarded=a)
    assert after.hands[seat].collectors == (*state.hands[seat].collectors, b)
    assert after.collector_discard == (*state.collector_discard, a)
    assert events[1:] == [TurnBegan(seat=(seat + 1) % 3)]


def test_draw_with_a_single_collector_left_offers_just_that_one() -> None:
    rest = tuple(c for c in sorted(SMALL.content.collectors) if c != FILLERS[0])
    state = table(hands=[Hand(), Hand(collectors=rest)], collector_supply=[FILLERS[0]])
    events, offered = play(state, 0, DrawCollectors(), SMALL)
    assert events == [CollectorsOffered(seat=0, count=1, cards=(FILLERS[0],))]
    events, after = play(offered, 0, KeepCollector(card=FILLERS[0]), SMALL)
    assert events[0] == CollectorKept(seat=0, kept=FILLERS[0], discarded=None)
    assert after.collector_discard == ()
    assert after.hands[0].collectors == (FILLERS[0],)


def test_no_collectors_left_to_draw() -> None:
    everything = tuple(sorted(SMALL.content.collectors))
    state = table(hands=[Hand(), Hand(collectors=everything)])
    assert DrawCollectors() not in SMALL.legal_actions(state, 0)
    assert refused(state, 0, DrawCollectors()) == "no_collectors_left"


def test_no_ittybits_left_to_take_from_the_deck() -> None:
    everything = tuple(sorted(SMALL.content.ittybits))
    state = table(hands=[Hand(), Hand(ittybits=everything)], market=[])
    assert TakeIttybit() not in SMALL.legal_actions(state, 0)
    assert refused(state, 0, TakeIttybit()) == "supply_empty"


# -- turns ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_one_action_per_turn_then_the_next_seat_plays(seats: int) -> None:
    state = ready(seats, seed=9)
    order = []
    for _ in range(seats + 1):
        seat = state.current
        order.append(seat)
        events, state = play(state, seat, TakeIttybit())
        assert events[-1] == TurnBegan(seat=(seat + 1) % seats)
        assert refused(state, seat, TakeIttybit(), REAL) == "not_your_turn"
        assert REAL.legal_actions(state, seat) == []
    first = order[0]
    assert order == [(first + i) % seats for i in range(seats + 1)]  # wraps around the table


def test_only_the_current_seat_may_act() -> None:
    state = ready(3)
    for seat in {0, 1, 2} - {state.current}:
        assert refused(state, seat, TakeIttybit(), REAL) == "not_your_turn"
        assert refused(state, seat, PassTurn(), REAL) == "not_your_turn"
    assert refused(state, 7, TakeIttybit(), REAL) == "not_seated"


def test_an_action_that_is_not_a_move_is_refused() -> None:
    state = ready(2)
    assert refused(state, state.current, TurnPassed(seat=state.current), REAL) == "unknown_action"


def test_there_is_no_hand_size_limit() -> None:
    bits = tuple(HOODIES + EARRINGS + ZOMBIES)
    cols = tuple(FILLERS)
    state = table(hands=[Hand(ittybits=bits, collectors=cols)])
    assert TakeIttybit() in SMALL.legal_actions(state, 0)
    assert DrawCollectors() in SMALL.legal_actions(state, 0)
    after = play(state, 0, TakeIttybit(card=state.market[0]), SMALL)[1]
    assert len(after.hands[0].ittybits) == len(bits) + 1
    offered = play(state, 0, DrawCollectors(), SMALL)[1]
    kept = play(offered, 0, KeepCollector(card=offered.hands[0].choice[0]), SMALL)[1]
    assert len(kept.hands[0].collectors) == len(cols) + 1


# -- you cannot skip your turn --------------------------------------------------------------------


def test_pass_turn_is_illegal_while_any_other_action_exists() -> None:
    state = ready(2)
    assert PassTurn() not in REAL.legal_actions(state, state.current)
    assert refused(state, state.current, PassTurn(), REAL) == "cannot_pass"
    # Even with only the top of the deck to take, the seat must take it.
    everything = tuple(sorted(SMALL.content.collectors))
    stuck = table(hands=[Hand(), Hand(ittybits=(*BOTH, *PIPES), collectors=everything)], market=[])
    assert SMALL.legal_actions(stuck, 0) == [TakeIttybit()]
    assert refused(stuck, 0, PassTurn()) == "cannot_pass"


def stuck_table(seats: int = 2) -> State:
    """Every ittybit in seat 0's hand, every collector in the last seat's: nobody can act."""
    hands = [Hand() for _ in range(seats)]
    hands[0] = Hand(ittybits=tuple(sorted(SMALL.content.ittybits)))
    hands[-1] = Hand(collectors=tuple(sorted(SMALL.content.collectors)))
    return table(seats, hands=hands, market=[])


def test_pass_turn_is_the_only_legal_action_when_nothing_else_is() -> None:
    state = stuck_table()
    assert SMALL.legal_actions(state, 0) == [PassTurn()]
    events, after = play(state, 0, PassTurn(), SMALL)
    assert events == [TurnPassed(seat=0), TurnBegan(seat=1)]
    assert after.passes_in_row == 1
    assert SMALL.legal_actions(after, 1) == [PassTurn()]


# -- bookkeeping ----------------------------------------------------------------------------------


def test_the_turn_counter_counts_every_turn_begun() -> None:
    state = ready(2)
    assert state.turn == 1 and REAL.view(state, None).public["turn"] == 1
    state = play(state, state.current, TakeIttybit())[1]
    assert state.turn == 2


@pytest.mark.parametrize("move", ["market", "deck", "keep"])
def test_any_move_but_a_pass_ends_a_run_of_passes(move: str) -> None:
    state = table(passes_in_row=1)
    action: Any = TakeIttybit(card=state.market[0]) if move == "market" else TakeIttybit()
    if move == "keep":
        state = play(state, 0, DrawCollectors(), SMALL)[1]
        assert state.passes_in_row == 1  # the turn goes on
        action = KeepCollector(card=state.hands[0].choice[0])
    assert play(state, 0, action, SMALL)[1].passes_in_row == 0


def test_the_default_deck_is_the_shipped_content() -> None:
    rules = IttyBitty()
    assert rules.content is load()
    assert rules.traits("ittybit-1731") == frozenset({"Male", "Cap Forward", "Eye Patch"})


def test_every_card_has_a_named_place() -> None:
    state = ready(3)
    places = REAL.inventory(state)
    assert set(places) == {
        "supply.ittybits",
        "supply.collectors",
        "discard.ittybits",
        "discard.collectors",
        "market",
        *(f"hand.{s}.{pile}" for s in range(3) for pile in PILES),
    }
    assert places["supply.ittybits"] == state.ittybit_supply
    assert places["supply.collectors"] == state.collector_supply
    assert places["hand.1.collectors"] == state.hands[1].collectors


PILES = ("ittybits", "collectors", "choice", "completed")


def test_the_catalog_describes_every_card() -> None:
    described = REAL.describe()
    assert described["ittybits"] == [msgspec.to_builtins(b) for b in REAL.content.ittybits.values()]
    assert described["collectors"] == [
        msgspec.to_builtins(c) for c in REAL.content.collectors.values()
    ]
