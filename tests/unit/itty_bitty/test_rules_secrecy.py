"""The itty bitty rulebook: hidden hands (redaction, views, sampling) and the card content."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from importlib import resources
from random import Random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from games.api import View
from games.itty_bitty.content import ContentError, load, parse
from games.itty_bitty.model import (
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    GameSetUp,
    Hand,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    TakeIttybit,
)
from games.itty_bitty.scoring import final_result
from games.testing import card_ids_in, random_playout
from tests.unit.itty_bitty.test_rules import (
    BOTH,
    EARRINGS,
    FILLERS,
    HE,
    REAL,
    SMALL,
    complete,
    face_down,
    of,
    play,
    ready,
    set_up,
    table,
)

CARDS = REAL.all_cards()

# -- redaction ------------------------------------------------------------------------------------


def test_dealt_ittybits_are_seen_only_by_their_owner() -> None:
    events, _ = set_up(3)
    for event in of(IttybitsDealt, events):
        assert REAL.redact(event, event.seat) == event
        for seat in [None, *({0, 1, 2} - {event.seat})]:
            hidden = REAL.redact(event, seat)
            assert hidden == IttybitsDealt(seat=event.seat, count=3, cards=None)


def test_offered_collectors_are_seen_only_by_their_owner() -> None:
    events, _ = set_up(3)
    for event in of(CollectorsOffered, events):
        assert REAL.redact(event, event.seat) == event
        for seat in [None, *({0, 1, 2} - {event.seat})]:
            assert REAL.redact(event, seat) == CollectorsOffered(
                seat=event.seat, count=2, cards=None
            )


def test_the_kept_collector_is_hidden_and_the_discarded_one_is_public() -> None:
    _, state = set_up(2)
    kept, gone = state.hands[0].choice
    event = REAL.decide(state, 0, KeepCollector(card=kept), Random(0))[0]
    assert REAL.redact(event, 0) == CollectorKept(seat=0, kept=kept, discarded=gone)
    for seat in (1, None):
        assert REAL.redact(event, seat) == CollectorKept(seat=0, kept=None, discarded=gone)


def test_a_deck_draw_is_private_and_a_marketplace_take_is_public() -> None:
    state = ready(2)
    seat, other = state.current, 1 - state.current
    deck = play(state, seat, TakeIttybit())[0][0]
    assert isinstance(deck, IttybitTaken) and deck.card is not None
    assert REAL.redact(deck, seat) == deck
    for viewer in (other, None):
        assert REAL.redact(deck, viewer) == IttybitTaken(seat=seat, from_market=False, card=None)
    market = play(state, seat, TakeIttybit(card=state.market[0]))[0]
    for viewer in (seat, other, None):
        assert [REAL.redact(e, viewer) for e in market] == market


def test_public_events_are_not_redacted() -> None:
    events, _ = set_up(2)
    for event in of(GameSetUp, events) + of(MarketFilled, events):
        for viewer in (0, 1, None):
            assert REAL.redact(event, viewer) == event


def test_a_completed_collector_is_flipped_face_down_for_the_others() -> None:
    state = table(hands=[Hand(ittybits=(BOTH[0], EARRINGS[0]), collectors=(HE,))])
    action = complete(HE, (0, [BOTH[0]]), (1, [EARRINGS[0]]))
    event = play(state, 0, action, SMALL)[0][0]
    paid = tuple(sorted((BOTH[0], EARRINGS[0])))
    assert event == CollectorCompleted(
        seat=0, collector=HE, payments=action.payments, ittybits=paid, coins=3
    )
    assert SMALL.redact(event, 0) == event
    for viewer in (1, None):  # what the table sees: the ittybits laid down, the coins taken
        assert SMALL.redact(event, viewer) == CollectorCompleted(
            seat=0, collector=None, payments=None, ittybits=paid, coins=3
        )


def test_the_others_cannot_tell_which_of_two_alike_collectors_was_completed() -> None:
    # F01 and F02 both pay 1 coin for 1 Earring: paying one looks the same as paying the other.
    state = table(hands=[Hand(ittybits=(EARRINGS[0],), collectors=tuple(FILLERS[:2]))])
    seen: dict[int | None, list[Any]] = {}
    for collector in FILLERS[:2]:
        events, after = play(state, 0, complete(collector, (0, [EARRINGS[0]])), SMALL)
        assert [d.collector for d in after.hands[0].completed] == [collector]
        assert SMALL.view(after, 0).private["completed"] == [collector]  # type: ignore[index]
        for viewer in (1, None):
            copy = [SMALL.view(after, viewer), [SMALL.redact(e, viewer) for e in events]]
            assert copy == seen.setdefault(viewer, copy)
            assert not card_ids_in(copy, SMALL.all_cards()) & set(FILLERS[:2])
    public = SMALL.view(after, 1).public["players"][0]
    assert public["completed"] == [{"ittybits": 1, "coins": 1}]


# -- views ----------------------------------------------------------------------------------------


def mid_game(seats: int = 3, seed: int = 11, at: float = 0.5) -> Any:
    playout = random_playout(REAL, seed=seed, seats=seats)
    return playout.states[int(len(playout.states) * at)]


def test_a_seat_sees_its_own_hand_and_no_other_hand() -> None:
    _, state = set_up(3)
    for seat in range(3):
        view = REAL.view(state, seat)
        hand = state.hands[seat]
        assert view.private == {
            "ittybits": list(hand.ittybits),
            "collectors": [],
            "choice": list(hand.choice),
            "completed": [],
            "questions": [{"kind": "collector_choice", "seat": seat, "cards": hand.choice}],
        }
        seen = card_ids_in(view, CARDS)
        for other in set(range(3)) - {seat}:
            assert not seen & set(state.hands[other].ittybits + state.hands[other].choice)


def test_a_spectator_sees_no_private_card() -> None:
    state = mid_game()
    view = REAL.view(state, None)
    assert view.private is None
    held = {c for h in state.hands for c in h.ittybits + h.collectors + h.choice}
    assert not card_ids_in(view, CARDS) & held
    assert not card_ids_in(view, CARDS) & set(state.ittybit_supply + state.collector_supply)


def test_the_public_view_shows_piles_counts_coins_and_completed_collectors() -> None:
    state = mid_game(seats=2, at=0.9)
    public = REAL.view(state, 0).public
    assert REAL.view(state, 1).public == public == REAL.view(state, None).public
    assert public["market"] == list(state.market)
    assert public["supply"] == {
        "ittybits": len(state.ittybit_supply),
        "collectors": len(state.collector_supply),
    }
    assert public["discard"]["ittybits"] == list(state.ittybit_discard)
    for seat, hand in enumerate(state.hands):
        player = public["players"][seat]
        assert player["ittybits"] == len(hand.ittybits)
        assert player["collectors"] == len(hand.collectors)
        assert player["completed"] == [
            {"ittybits": len(d.ittybits), "coins": d.coins} for d in hand.completed
        ]
        assert player["coins"] == hand.coins
    assert any(hand.completed for hand in state.hands)


def test_the_whole_public_view_of_a_finished_game() -> None:
    state = table(
        hands=[
            Hand(ittybits=(BOTH[0],), collectors=(HE,), coins=2),
            Hand(collectors=(FILLERS[0],), completed=face_down(*FILLERS[1:3])),
        ],
        market=EARRINGS[:3],
        ittybit_discard=EARRINGS[3:5],
        collector_discard=FILLERS[3:4],
        result=final_result(table(), "stalemate"),
    )
    public = {
        "seats": 2,
        "first_seat": state.first_seat,
        "current": 0,
        "turn": state.turn,
        "market": [*EARRINGS[:3], None],
        "supply": {
            "ittybits": len(state.ittybit_supply),
            "collectors": len(state.collector_supply),
        },
        "discard": {"ittybits": EARRINGS[3:5], "collectors": FILLERS[3:4]},
        "players": [
            {"seat": 0, "ittybits": 1, "collectors": 1, "completed": [], "coins": 2, "choosing": 0},
            {
                "seat": 1,
                "ittybits": 0,
                "collectors": 1,
                "completed": [{"ittybits": 0, "coins": 1}] * 2,
                "coins": 0,
                "choosing": 0,
            },
        ],
        "end_triggered_by": None,
        "result": msgspec.to_builtins(state.result),
    }
    assert SMALL.view(state, None) == View(public=public)
    assert SMALL.view(state, 2) == View(public=public)  # no seat 2: a spectator's view
    assert SMALL.view(state, 1).private == {
        "ittybits": [],
        "collectors": [FILLERS[0]],
        "choice": [],
        "completed": FILLERS[1:3],
        "questions": [],  # a finished game asks nothing
    }
    assert SMALL.view(replace(state, result=None), None).public["result"] is None


def test_a_seat_s_secrets_are_its_hand_its_choice_and_its_face_down_collectors() -> None:
    _, state = set_up(2, rules=SMALL)
    state = replace(
        state,
        hands=(replace(state.hands[0], completed=face_down(FILLERS[0])), state.hands[1]),
    )
    hand = state.hands[0]
    assert SMALL.holdings(state, 0) == {*hand.ittybits, *hand.choice, FILLERS[0]}


# -- sampling for bots ----------------------------------------------------------------------------


def test_sample_while_every_seat_chooses_keeps_each_choice_s_size() -> None:
    _, state = set_up(4, seed=2)
    sampled = REAL.sample(state, 0, Random(1))
    assert [len(h.choice) for h in sampled.hands] == [2] * 4
    assert sampled.hands[0] == state.hands[0]
    assert {c for h in sampled.hands for c in h.choice} | set(sampled.collector_supply) == set(
        REAL.content.collectors
    )


@pytest.mark.parametrize("at", [0.0, 0.3, 0.8])
def test_sample_keeps_the_own_hand_and_every_pile_size(at: float) -> None:
    state = mid_game(seats=3, seed=4, at=at)
    places = REAL.inventory(state)
    differs: defaultdict[tuple[int, str], bool] = defaultdict(bool)
    for seed in range(5):
        sampled = REAL.sample(state, 1, Random(seed))
        assert sampled.hands[1] == state.hands[1]
        after = REAL.inventory(sampled)
        assert {k: len(v) for k, v in after.items()} == {k: len(v) for k, v in places.items()}
        assert Counter(c for v in after.values() for c in v) == Counter(
            c for v in places.values() for c in v
        )
        for public in ("market", "discard.ittybits", "discard.collectors"):
            assert after[public] == places[public]
        assert [h.coins for h in sampled.hands] == [h.coins for h in state.hands]
        assert [seen(h) for h in sampled.hands] == [seen(h) for h in state.hands]
        for seat in (0, 2):
            differs[seat, "hand"] |= sampled.hands[seat].ittybits != state.hands[seat].ittybits
            differs[seat, "face down"] |= (
                sampled.hands[seat].completed != state.hands[seat].completed
            )
    assert all(differs.values()) or at == 0.0  # the hidden cards are really dealt anew


def seen(hand: Hand) -> list[Any]:
    """What the table sees of a seat's face-down collectors."""
    return [(d.ittybits, d.coins) for d in hand.completed]


# -- content --------------------------------------------------------------------------------------


def raw(name: str) -> list[dict[str, Any]]:
    return json.loads(resources.files("games.itty_bitty").joinpath("data", name).read_bytes())


def test_the_decks_hold_72_ittybits_and_36_collectors_with_unique_ids() -> None:
    bits, cols = raw("ittybits.json"), raw("collectors.json")
    assert len(bits) == len({b["id"] for b in bits}) == 72
    assert len(cols) == len({c["id"] for c in cols}) == 36
    content = load()
    assert len(content.ittybits) == 72 and len(content.collectors) == 36


def test_every_ittybit_has_its_own_set_of_traits() -> None:
    # "Each ittybit card features a unique punk, each with their own unique set of traits";
    # the type counts as a trait. #1731 and #4480 were twins: #4480 gave way to #4635.
    bits = raw("ittybits.json")
    looks = Counter(frozenset((b["type"], *b["traits"])) for b in bits)
    assert max(looks.values()) == 1
    assert {"ittybit-1731", "ittybit-4635"} <= set(load().ittybits)
    assert "ittybit-4480" not in load().ittybits


def test_every_collector_has_one_to_four_achievable_grails() -> None:
    content = load()
    supply = Counter(t for b in content.ittybits.values() for t in b.all_traits)
    for col in content.collectors.values():
        assert 1 <= len(col.grails) <= 4
        assert len({g.trait for g in col.grails}) == len(col.grails)
        for grail in col.grails:
            assert grail.qty >= 1 and grail.coins >= 1
            assert supply[grail.trait] >= grail.qty, (col.id, grail)


def test_some_grail_asks_for_a_punk_type() -> None:
    content = load()
    types = {b.type for b in content.ittybits.values()}
    asked = {g.trait for c in content.collectors.values() for g in c.grails}
    assert "Zombie" in asked & types


BIT = {"id": 1, "type": "Zombie", "traits": ["Hoodie"]}
FIVE = ["Hoodie", "Pipe", "Earring", "VR", "Cap"]
COL = {"id": "A", "grails": [{"trait": "Hoodie", "qty": 1, "coins": 1}]}


def parse_raw(bits: list[Any], cols: list[Any]) -> Any:
    return parse(msgspec.json.encode(bits), msgspec.json.encode(cols))


def test_a_good_small_content_parses() -> None:
    four = {**COL, "id": "B", "grails": [{"trait": t, "qty": 1, "coins": 1} for t in FIVE[:4]]}
    bits = [BIT, {**BIT, "id": 2, "type": "Male", "traits": FIVE}]
    content = parse_raw(bits, [COL, four])  # Hoodie x1 with 2 in the deck; 4 grails
    assert set(content.ittybits) == {"ittybit-0001", "ittybit-0002"}
    assert content.ittybits["ittybit-0001"].number == 1
    assert content.traits("ittybit-0001") == {"Zombie", "Hoodie"}
    assert set(content.collectors) == {"collector-A", "collector-B"}
    assert content.collectors["collector-A"].id == "collector-A"
    exact = {**COL, "grails": [{"trait": "Pipe", "qty": 1, "coins": 1}]}
    assert parse_raw([{**BIT, "traits": ["Pipe"]}], [exact])  # a grail the deck meets just


def test_the_shipped_content_loads_from_the_package_data() -> None:
    assert load.__wrapped__() == load()  # read and parsed afresh


def grails(*grails: tuple[str, int, int]) -> list[dict[str, Any]]:
    return [{**COL, "grails": [{"trait": t, "qty": q, "coins": c} for t, q, c in grails]}]


@pytest.mark.parametrize(
    ("bits", "cols", "message"),
    [
        ([BIT, BIT], [COL], "ittybit ids are not unique"),
        ([BIT], [COL, COL], "collector ids are not unique"),
        ([BIT], grails(("Hoodie", 2, 1)), "collector-A: grail Hoodie x2 cannot be met"),
        ([BIT], grails(("Top Hat", 1, 1)), "collector-A: grail Top Hat x1 cannot be met"),
        ([BIT], grails(), "collector-A: a collector has 1-4 trait grails"),
        (
            [{**BIT, "traits": FIVE}],
            grails(*((t, 1, 1) for t in FIVE)),
            "collector-A: a collector has 1-4 trait grails",
        ),
        ([BIT], grails(("Hoodie", 0, 1)), "collector-A: grail Hoodie needs qty and coins >= 1"),
        ([BIT], grails(("Hoodie", 1, 0)), "collector-A: grail Hoodie needs qty and coins >= 1"),
        ([BIT], grails(("Hoodie", 1, 1), ("Hoodie", 1, 1)), "collector-A: two grails name"),
        (
            [BIT, {**BIT, "id": 2}],
            [COL],
            "ittybits share a set of traits: ['ittybit-0001', 'ittybit-0002']",
        ),
        (
            [BIT, {**BIT, "id": 2, "traits": ["Hoodie", "Hoodie"]}],
            [COL],
            "ittybits share a set of traits",
        ),
    ],
)
def test_a_bad_content_file_raises_content_error(
    bits: list[Any], cols: list[Any], message: str
) -> None:
    with pytest.raises(ContentError) as err:
        parse_raw(bits, cols)
    assert str(err.value).startswith(message)
