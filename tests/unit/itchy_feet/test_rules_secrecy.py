"""The Itchy Feet rulebook: the card content, hidden hands (redaction, views, sampling), codes."""

from __future__ import annotations

import inspect
import json
import re
from collections import Counter
from importlib import resources
from pathlib import Path
from random import Random
from typing import Any

import pytest

from games.itchy_feet import rules as rules_module
from games.itchy_feet.content import ContentError, load, parse
from games.itchy_feet.model import (
    CardDrawn,
    CardKept,
    CardPassed,
    CardsDealt,
    CardStolen,
    Draw,
    KeepCard,
    Options,
    PlannerChoice,
    Steal,
)
from games.itchy_feet.rules import CHARACTERS
from games.testing import card_ids_in, random_playout
from tests.unit.itchy_feet.test_rules_setup import (
    ALL,
    GERMANY,
    INSURANCE,
    REAL,
    C,
    Picks,
    event,
    item,
    of,
    play,
    set_up,
    table,
)

CARDS = REAL.all_cards()
CAM, SUN, BOOTS, GUIDE = item("camera"), item("sunscreen"), item("hiking-boots"), item("guidebook")
PRIVATE = (CardsDealt, CardDrawn, CardPassed, CardStolen, PlannerChoice, CardKept)

# -- content ----------------------------------------------------------------------------------


def test_the_content_has_the_rulebooks_counts() -> None:
    types = Counter(c.type for c in C.cards.values())
    assert (types["passport"], types["actions"], types["item"], len(C.countries)) == (7, 6, 32, 13)
    ext = {t: types[t] for t in ("event", "special", "forbidden", "postcard", "character")}
    assert ext == {"event": 8, "special": 7, "forbidden": 5, "postcard": 5, "character": 6}
    assert sum(ext.values()) == 31  # "Extension cards x 31"
    kinds = Counter(c.kind for c in C.of_type("item"))
    assert len(kinds) == 8 and set(kinds.values()) == {4}
    assert {c.kind for c in C.of_type("character")} == set(CHARACTERS)
    assert [c.name for c in C.of_type("event") if c.kind == "civil-unrest"] == ["Civil Unrest"]
    assert Counter(c.kind for c in C.of_type("special"))["poorly-drawn-map"] == 2


def test_the_cornered_cards_make_a_standard_deck_and_mouse_traps_have_no_corner() -> None:
    corners = [c.corner for c in C.cards.values() if c.corner]
    assert len(corners) == len(set(corners)) == 54
    assert {"Joker red", "Joker black"} <= set(corners)
    traps = [c for c in C.of_type("forbidden") if c.kind == "mouse-trap"]
    assert len(traps) == 3 and all(c.corner is None for c in traps)
    for card in C.of_type("item", "event", "special", "postcard"):
        assert card.corner


def test_every_country_needs_three_different_items_of_the_deck_and_no_two_alike() -> None:
    kinds = {c.kind for c in C.of_type("item")}
    for country in C.countries.values():
        assert len(set(country.items)) == 3 and set(country.items) <= kinds
        assert -90 <= country.capital.lat <= 90 and -180 <= country.capital.lon <= 180
    assert len({frozenset(c.items) for c in C.countries.values()}) == 13


def _raw() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    data = resources.files("games.itchy_feet").joinpath("data")
    return (
        json.loads(data.joinpath("cards.json").read_text()),
        json.loads(data.joinpath("countries.json").read_text()),
    )


def _drop(cards: list[dict[str, Any]], card_id: str) -> None:
    cards[:] = [c for c in cards if c["id"] != card_id]


def _set(cards: list[dict[str, Any]], card_id: str, **values: Any) -> None:
    next(c for c in cards if c["id"] == card_id).update(values)


BAD_CONTENT = {
    "seven passports": (lambda k, n: _drop(k, "passport-7"), "7 passport"),
    "six actions cards": (lambda k, n: _drop(k, "action-6"), "6 actions"),
    "32 items": (lambda k, n: _drop(k, item("camera", 4)), "32 item"),
    "31 extension cards": (lambda k, n: _drop(k, "character-hoarder"), "31 extension"),
    "13 countries": (lambda k, n: n.pop(), "13 countries"),
    "unique ids": (lambda k, n: k.append(dict(k[0])), "unique"),
    "three different items": (
        lambda k, n: n[0].update(items=["umbrella", "umbrella", "camera"]),
        "three different",
    ),
    "items of the deck": (
        lambda k, n: n[0].update(items=["umbrella", "snorkel", "camera"]),
        "three different",
    ),
    "even copies": (lambda k, n: _set(k, item("umbrella", 4), kind="camera"), "same number"),
    "no two countries alike": (lambda k, n: n[1].update(items=n[0]["items"]), "no two"),
    "extension text": (lambda k, n: _set(k, event("strike"), text=""), "says what it does"),
    "corner": (lambda k, n: _set(k, item("umbrella"), corner=None), "corner"),
    "one standard deck": (
        lambda k, n: _set(k, "postcard-postcard-5", corner="Joker red"),
        "standard deck",
    ),
}


@pytest.mark.parametrize("case", list(BAD_CONTENT))
def test_bad_content_raises_content_error(case: str) -> None:
    cards, countries = _raw()
    parse(json.dumps(cards).encode(), json.dumps(countries).encode())  # the shipped data is good
    mutate, message = BAD_CONTENT[case]
    mutate(cards, countries)
    with pytest.raises(ContentError, match=message):
        parse(json.dumps(cards).encode(), json.dumps(countries).encode())
    assert load() is C  # loaded once, at import


# -- redaction --------------------------------------------------------------------------------


def test_dealt_cards_are_seen_only_by_their_owner() -> None:
    events, _ = set_up(3, seed=2)
    for dealt in of(CardsDealt, events):
        assert REAL.redact(dealt, dealt.seat) == dealt
        for viewer in [None, *({0, 1, 2} - {dealt.seat})]:
            assert REAL.redact(dealt, viewer) == CardsDealt(seat=dealt.seat, count=4, cards=None)


def test_a_drawn_card_is_seen_only_by_the_drawer_whoever_drew_it() -> None:
    state = table(3, hands=[[CAM], [SUN], [BOOTS]], options=ALL)
    events = play(state, 0, Draw(), Picks(event("duty-free")))[0]
    drawn = of(CardDrawn, events)
    assert [d.seat for d in drawn] == [1, 2, 0, 0]
    for card in drawn:
        assert REAL.redact(card, card.seat) == card
        for viewer in [None, *({0, 1, 2} - {card.seat})]:
            assert REAL.redact(card, viewer) == CardDrawn(
                seat=card.seat, reason=card.reason, card=None
            )


def test_a_passed_card_is_seen_only_by_the_two_players() -> None:
    state = table(3, hands=[[CAM], [SUN], [BOOTS]], options=ALL)
    events = play(state, 0, Draw(), Picks(event("pickpockets")))[0]
    passed = of(CardPassed, events)
    assert len(passed) == 3
    for card in passed:
        for viewer in (card.from_seat, card.to_seat):
            assert REAL.redact(card, viewer) == card
        third = ({0, 1, 2} - {card.from_seat, card.to_seat}).pop()
        for viewer in (third, None):
            assert REAL.redact(card, viewer).card is None  # type: ignore[union-attr]


def test_a_stolen_card_is_seen_only_by_the_thief_and_the_victim() -> None:
    state = table(3, hands=[[CAM, SUN], [BOOTS, GUIDE], [item("umbrella")]])
    events = play(state, 0, Steal(victim=1, discard=CAM), Picks(GUIDE))[0]
    stolen = of(CardStolen, events)[0]
    assert REAL.redact(stolen, 0) == stolen and REAL.redact(stolen, 1) == stolen
    for viewer in (2, None):
        assert REAL.redact(stolen, viewer) == CardStolen(thief=0, victim=1, card=None)
    assert CAM in card_ids_in(REAL.redact(events[1], 2), CARDS)  # the payment is face up


def test_the_planners_cards_are_hidden_and_the_one_let_go_is_public() -> None:
    state = table(hands=[[CAM], [SUN]], characters=["planner", None])
    events, choosing = play(state, 0, Draw(), Picks(BOOTS, GUIDE))
    choice = of(PlannerChoice, events)[0]
    assert REAL.redact(choice, 0) == choice
    assert REAL.redact(choice, 1) == REAL.redact(choice, None) == PlannerChoice(seat=0, cards=None)
    for viewer in (1, None):
        view = REAL.view(choosing, viewer)
        assert view.public["pending"] == {"kind": "keep_one", "seat": 0}
        assert not card_ids_in(view, CARDS) & {BOOTS, GUIDE}
    assert REAL.view(choosing, 0).private == {
        "hand": [CAM, BOOTS, GUIDE],
        "keep_one_of": [BOOTS, GUIDE],
    }
    kept = play(choosing, 0, KeepCard(card=GUIDE))[0][0]
    assert REAL.redact(kept, 0) == kept
    assert REAL.redact(kept, 1) == CardKept(seat=0, kept=None, discarded=BOOTS)


def _owners(e: object) -> set[int]:
    if isinstance(e, CardPassed):
        return {e.from_seat, e.to_seat}
    if isinstance(e, CardStolen):
        return {e.thief, e.victim}
    return {e.seat} if isinstance(e, PRIVATE) else set()  # type: ignore[union-attr]


def test_every_other_event_is_public_and_the_owner_sees_everything() -> None:
    options = Options(
        events=True, special_items=True, forbidden_items=True, postcards=True, characters="random"
    )
    seen: set[str] = set()
    for seed in range(6):
        playout = random_playout(REAL, seed, 3 + seed % 4, options, keep_states=False)
        for e in playout.events:
            seen.add(type(e).__name__)
            for viewer in [None, *range(playout.seats)]:
                copy = REAL.redact(e, viewer)
                if not isinstance(e, PRIVATE) or viewer in _owners(e):
                    assert copy == e
                else:
                    assert not card_ids_in(copy, CARDS) - card_ids_in(
                        getattr(copy, "discarded", None), CARDS
                    )
    assert {"TradeOffered", "TradeAccepted", "Recycled", "EventRevealed", "CardStolen"} <= seen


# -- views ------------------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_only_and_a_spectator_no_hand() -> None:
    state = table(3, hands=[[*GERMANY, CAM], [SUN], [BOOTS, GUIDE]], discard=[item("camera", 2)])
    public = REAL.view(state, None).public
    assert REAL.view(state, None).private is None and REAL.view(state, 7).private is None
    assert public["hand_sizes"] == [4, 1, 2] and public["discard"] == [item("camera", 2)]
    assert public["draw_pile"] == len(state.draw_pile)  # a count, not the cards
    assert public["homes"] == ["germany", "france", "italy"] and public["centre"] == "japan"
    held = {c for h in state.hands for c in h}
    assert not card_ids_in(public, CARDS) & held
    for seat in range(3):
        view = REAL.view(state, seat)
        assert view.public == public and view.private == {"hand": list(state.hands[seat])}


def test_the_steal_interrupt_does_not_tell_who_holds_travel_insurance() -> None:
    asked = []
    for card in (INSURANCE, GUIDE):
        state = table(3, hands=[[CAM, SUN], [BOOTS, card], [item("umbrella")]], options=ALL)
        events, after = play(state, 0, Steal(victim=1, discard=CAM))
        asked.append(([REAL.redact(e, 2) for e in events], REAL.view(after, 2)))
    assert asked[0] == asked[1]


def test_sample_keeps_the_own_hand_and_every_hand_size() -> None:
    state = table(3, hands=[[*GERMANY, CAM], [SUN], [BOOTS, GUIDE]])
    for seed in range(5):
        guess = REAL.sample(state, 0, Random(seed))
        assert guess.hands[0] == state.hands[0] and guess.discard == state.discard
        assert [len(h) for h in guess.hands] == [4, 1, 2]
        assert len(guess.draw_pile) == len(state.draw_pile)


# -- every illegal-action code has a test ----------------------------------------------------


def test_every_illegal_action_code_is_tested() -> None:
    codes = set(re.findall(r'_illegal\(\s*"(\w+)"', inspect.getsource(rules_module)))
    assert len(codes) > 25
    here = Path(__file__).parent
    tests = "".join(p.read_text() for p in here.glob("test_rules*.py"))
    assert sorted(c for c in codes if f'"{c}"' not in tests) == []


def test_sample_keeps_another_seats_pending_choice_among_its_cards() -> None:
    from msgspec.structs import replace

    from games.itchy_feet.model import KeepOne
    from games.testing import check_conservation

    state = table(
        hands=[[item("camera")], [item("umbrella"), item("sunscreen"), item("guidebook")]]
    )
    state = replace(state, pending=KeepOne(seat=1, cards=(item("sunscreen"), item("guidebook"))))
    for seed in range(5):
        guess = REAL.sample(state, 0, Random(seed))
        assert isinstance(guess.pending, KeepOne) and guess.pending.seat == 1
        assert set(guess.pending.cards) <= set(guess.hands[1]) and len(guess.pending.cards) == 2
        check_conservation(REAL, guess, seed)
