"""The itty bitty rulebook: hidden hands (redaction, views, sampling) and the card content."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from random import Random
from typing import Any

import msgspec
import pytest

from games.itty_bitty.content import ContentError, load, parse
from games.itty_bitty.model import (
    CollectorCompleted,
    CollectorKept,
    CollectorsOffered,
    GameSetUp,
    IttybitsDealt,
    IttybitTaken,
    KeepCollector,
    MarketFilled,
    TakeIttybit,
)
from games.testing import card_ids_in, random_playout
from tests.unit.itty_bitty.test_rules import REAL, of, play, ready, set_up

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


def test_a_completed_collector_and_its_payment_are_public() -> None:
    playout = random_playout(REAL, seed=3, seats=2, keep_states=False)
    done = of(CollectorCompleted, playout.events)
    assert done
    for event in done:
        for viewer in (0, 1, None):
            assert REAL.redact(event, viewer) == event


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
        assert player["completed"] == list(hand.completed)
        assert player["coins"] == hand.coins


# -- sampling for bots ----------------------------------------------------------------------------


@pytest.mark.parametrize("at", [0.0, 0.3, 0.8])
def test_sample_keeps_the_own_hand_and_every_pile_size(at: float) -> None:
    state = mid_game(seats=3, seed=4, at=at)
    places = REAL.inventory(state)
    differs = False
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
        assert [h.completed for h in sampled.hands] == [h.completed for h in state.hands]
        differs |= sampled.hands[0] != state.hands[0] or sampled.hands[2] != state.hands[2]
    assert differs  # the hidden cards are really dealt anew


# -- content --------------------------------------------------------------------------------------


def raw(name: str) -> list[dict[str, Any]]:
    return json.loads(resources.files("games.itty_bitty").joinpath("data", name).read_bytes())


def test_the_decks_hold_72_ittybits_and_36_collectors_with_unique_ids() -> None:
    bits, cols = raw("ittybits.json"), raw("collectors.json")
    assert len(bits) == len({b["id"] for b in bits}) == 72
    assert len(cols) == len({c["id"] for c in cols}) == 36
    content = load()
    assert len(content.ittybits) == 72 and len(content.collectors) == 36


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
    content = parse_raw([BIT, {**BIT, "id": 2}], [COL])
    assert set(content.ittybits) == {"ittybit-0001", "ittybit-0002"}
    assert content.traits("ittybit-0001") == {"Zombie", "Hoodie"}


@pytest.mark.parametrize(
    ("bits", "cols"),
    [
        ([BIT, BIT], [COL]),  # duplicate ittybit id
        ([BIT], [COL, COL]),  # duplicate collector id
        ([BIT], [{**COL, "grails": [{"trait": "Hoodie", "qty": 2, "coins": 1}]}]),  # unmeetable
        ([BIT], [{**COL, "grails": [{"trait": "Top Hat", "qty": 1, "coins": 1}]}]),  # no such
        ([BIT], [{**COL, "grails": []}]),  # no grail
        (
            [{**BIT, "traits": FIVE}],
            [{**COL, "grails": [{"trait": t, "qty": 1, "coins": 1} for t in FIVE]}],
        ),  # five grails
        ([BIT], [{**COL, "grails": [{"trait": "Hoodie", "qty": 0, "coins": 1}]}]),
        ([BIT], [{**COL, "grails": [{"trait": "Hoodie", "qty": 1, "coins": 0}]}]),
        ([BIT], [{**COL, "grails": [{"trait": "Hoodie", "qty": 1, "coins": 1}] * 2}]),
    ],
)
def test_a_bad_content_file_raises_content_error(bits: list[Any], cols: list[Any]) -> None:
    with pytest.raises(ContentError):
        parse_raw(bits, cols)
