"""Every refusal: its stable code and the words a client shows, and the engine's own guards
(an event evolve cannot fold, a deck too small to set up)."""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

import msgspec
import pytest

from games.api import IllegalAction
from games.itty_bitty.content import parse
from games.itty_bitty.model import (
    CollectorChoice,
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    DrawCollectors,
    Hand,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    Options,
    PassTurn,
    State,
    TakeIttybit,
    TurnBegan,
    TurnPassed,
)
from games.itty_bitty.rules import IttyBitty
from tests.unit.itty_bitty.test_rules import (
    BOTH,
    EARRINGS,
    EX,
    FILLERS,
    H1,
    HE,
    HOODIES,
    SMALL,
    complete,
    play,
    table,
)
from tests.unit.itty_bitty.test_rules_scoring import last_turn_table, trigger_table


def hand_table() -> State:
    return table(hands=[Hand(ittybits=(HOODIES[0], EARRINGS[0]), collectors=(H1, HE, EX))])


def offered() -> State:
    """Seat 0 drew two collectors; seat 1 holds FILLERS[11]."""
    return play(table(hands=[Hand(), Hand(collectors=(FILLERS[11],))]), 0, DrawCollectors(), SMALL)[
        1
    ]


def finished() -> State:
    state = play(trigger_table(2, 0), 0, complete(H1, (0, [HOODIES[0]])), SMALL)[1]
    return play(state, 1, PassTurn(), SMALL)[1]


def nothing_left() -> State:
    bits = tuple(sorted(SMALL.content.ittybits))
    cols = tuple(c for c in sorted(SMALL.content.collectors) if c != H1)
    return table(hands=[Hand(collectors=(H1,)), Hand(ittybits=bits, collectors=cols)], market=[])


REFUSALS: list[tuple[str, Callable[[], State], int, Any, str]] = [
    ("game_over", finished, 0, TakeIttybit(), "the game has ended"),
    ("not_seated", table, 2, TakeIttybit(), "there is no seat 2"),
    ("not_your_turn", table, 1, TakeIttybit(), "seat 1 is not to act now"),
    (
        "choose_collector_first",
        offered,
        0,
        TakeIttybit(),
        "keep one of the offered collectors first",
    ),
    (
        "last_turn_completes_only",
        lambda: last_turn_table(),
        1,
        DrawCollectors(),
        "the last turn is for completing collectors; pass to end it",
    ),
    (
        "not_offered",
        offered,
        0,
        KeepCollector(card=FILLERS[11]),
        f"{FILLERS[11]} is not one of the collectors offered to you",
    ),
    (
        "stale_question",
        offered,
        0,
        KeepCollector(card=FILLERS[11], question=CollectorChoice(seat=0, cards=(FILLERS[11],))),
        f'this answers {{"kind":"collector_choice","seat":0,"cards":["{FILLERS[11]}"]}}, but you'
        " are asked "
        + msgspec.json.encode(CollectorChoice(seat=0, cards=offered().hands[0].choice)).decode()
        + " now",
    ),
    (
        "not_in_marketplace",
        table,
        0,
        TakeIttybit(card=BOTH[7]),
        f"{BOTH[7]} is not in the marketplace",
    ),
    ("supply_empty", nothing_left, 0, TakeIttybit(), "no ittybits are left to take"),
    ("no_collectors_left", nothing_left, 0, DrawCollectors(), "no collectors are left to draw"),
    ("cannot_pass", table, 0, PassTurn(), "you cannot skip your turn while you can act"),
    ("unknown_action", table, 0, TurnPassed(seat=0), "TurnPassed is not a move here"),
    (
        "collector_not_in_hand",
        hand_table,
        0,
        complete(FILLERS[0], (0, [EARRINGS[0]])),
        f"{FILLERS[0]} is not in your hand",
    ),
    ("no_grails_paid", hand_table, 0, complete(H1), "pay at least one trait grail"),
    (
        "grail_paid_twice",
        hand_table,
        0,
        complete(HE, (0, [HOODIES[0]]), (0, [EARRINGS[0]])),
        "each trait grail is paid at most once",
    ),
    (
        "ittybit_used_twice",
        hand_table,
        0,
        complete(HE, (0, [HOODIES[0]]), (1, [HOODIES[0]])),
        "an ittybit pays for one grail unit only",
    ),
    ("unknown_grail", hand_table, 0, complete(H1, (1, [HOODIES[0]])), f"{H1} has no grail 1"),
    (
        "wrong_quantity",
        hand_table,
        0,
        complete(EX, (0, [HOODIES[0]])),
        "grail 0 (Hoodie) takes exactly 4 ittybits",
    ),
    (
        "ittybit_not_in_hand",
        hand_table,
        0,
        complete(H1, (0, [HOODIES[1]])),
        f"{HOODIES[1]} is not in your hand",
    ),
    (
        "trait_missing",
        hand_table,
        0,
        complete(H1, (0, [EARRINGS[0]])),
        f"{EARRINGS[0]} has no Hoodie",
    ),
]


@pytest.mark.parametrize(("code", "position", "seat", "action", "message"), REFUSALS)
def test_every_refusal_has_its_code_and_says_why(
    code: str, position: Callable[[], State], seat: int, action: Any, message: str
) -> None:
    with pytest.raises(IllegalAction) as err:
        SMALL.decide(position(), seat, action, Random(0))
    assert (err.value.code, err.value.message, str(err.value)) == (code, message, message)


def test_a_bad_seat_count_says_how_many_may_play() -> None:
    with pytest.raises(IllegalAction) as err:
        SMALL.setup(Options(), 5, Random(0))
    assert err.value.code == "bad_seat_count"
    assert err.value.message == "The itty bitty card game seats 2 to 4 players"


# -- the engine's own guards ------------------------------------------------------------------


def test_a_game_starts_with_game_set_up() -> None:
    with pytest.raises(ValueError, match=r"^a game starts with game_set_up, not TurnBegan$"):
        SMALL.evolve(None, TurnBegan(seat=0))


def test_evolve_refuses_what_is_not_an_event() -> None:
    with pytest.raises(ValueError, match=r"^unexpected event TakeIttybit$"):
        SMALL.evolve(table(), TakeIttybit())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "event",
    [
        IttybitsDealt(seat=0, count=3, cards=None),
        IttybitTaken(seat=0, from_market=False, card=None),
        CollectorsOffered(seat=0, count=2, cards=None),
        CollectorKept(seat=0, kept=None, discarded=None),
        CollectorCompleted(seat=0, collector=None, payments=None, ittybits=(), coins=1),
    ],
)
def test_evolve_needs_the_unredacted_event(event: Any) -> None:
    with pytest.raises(AssertionError, match=r"^evolve needs the unredacted event$"):
        SMALL.evolve(table(), event)


def test_a_deck_too_small_to_deal_from_stops_the_setup() -> None:
    bits = [{"id": n, "type": "Male", "traits": [f"Mark {n}"]} for n in range(1, 10)]
    cols = [{"id": f"C{i}", "grails": [{"trait": "Male", "qty": 1, "coins": 1}]} for i in range(4)]
    tiny = IttyBitty(parse(msgspec.json.encode(bits), msgspec.json.encode(cols)))
    with pytest.raises(RuntimeError, match=r"^deck ran out during setup$"):
        tiny.setup(Options(), 2, Random(0))  # 2 x 3 dealt + 4 in the marketplace: 10 > 9
