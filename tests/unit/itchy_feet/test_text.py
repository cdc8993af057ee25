"""Itchy Feet in words (games/itchy_feet/text.py): every type has a text, texts never say
more than the caller's copy, and a few lines exactly."""

from __future__ import annotations

import pytest

from games.itchy_feet import text
from games.itchy_feet.events import (
    CardDrawn,
    CardKept,
    CardStolen,
    GameWon,
    Recycled,
    TradeOffered,
    Travelled,
)
from games.itchy_feet.model import (
    OfferTrade,
    Options,
    Recycle,
    Steal,
)
from games.itchy_feet.rules import ItchyFeet
from games.testing import check_every_type_has_words, check_words, random_playout

RULES = ItchyFeet()
NAMES = ["Ada", "Bob", "Cy", "Di", "Eve", "Fay"]
EVERYTHING = Options(
    events=True, special_items=True, forbidden_items=True, postcards=True, characters="choose"
)


def test_every_action_and_event_type_has_a_text() -> None:
    check_every_type_has_words(RULES, text, NAMES, "item-umbrella-1")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", [Options(), EVERYTHING], ids=["core", "everything"])
def test_texts_say_no_more_than_the_copy_they_are_made_from(seed: int, options: Options) -> None:
    seats = 2 + seed % 5
    playout = random_playout(RULES, seed, seats, options)
    check_words(RULES, text, playout, NAMES[:seats])


def test_actions_in_words() -> None:
    assert (
        text.describe(
            Recycle(discard=("passport-1", "item-camera-2"), take="item-umbrella-1"), NAMES
        )
        == "Recycle a Passport and a Camera to take"
        " an Umbrella from the discard"
    )
    assert (
        text.describe(OfferTrade(to=2, give=("item-camera-2",), want=("umbrella",)), NAMES)
        == "Offer Cy a Camera for Umbrella"
    )
    assert text.describe(Steal(victim=1), NAMES) == "Steal a random card from Bob"


def test_what_only_two_players_see_is_said_to_them_alone() -> None:
    stolen = CardStolen(thief=0, victim=1, card="item-umbrella-1")
    for seat in (0, 1):
        assert text.narrate(RULES.redact(stolen, seat), NAMES) == "Ada stole an Umbrella from Bob"
    for seat in (2, None):
        assert text.narrate(RULES.redact(stolen, seat), NAMES) == "Ada stole a card from Bob"
    drawn = CardDrawn(seat=2, reason="bonus", card="passport-1")
    assert text.narrate(RULES.redact(drawn, 2), NAMES) == "Cy drew a Passport as a bonus"
    assert text.narrate(RULES.redact(drawn, 0), NAMES) == "Cy drew a card as a bonus"
    kept = CardKept(seat=1, kept="item-camera-2", discarded="passport-1")
    assert (
        text.narrate(RULES.redact(kept, 0), NAMES) == "Bob kept one card and discarded a Passport"
    )
    assert (
        text.narrate(RULES.redact(kept, 1), NAMES) == "Bob kept a Camera and discarded a Passport"
    )


def test_a_copy_another_seat_played_is_said_by_its_kind() -> None:
    # identical cards: the table hears which kind was played, never which copy
    trip = Travelled(
        seat=1, destination="home", country="france", paid=("item-camera-3", "item-guidebook-1")
    )
    # its owner reads the same: copies of a kind are alike, and the text names cards alone
    for seat in (1, 0, None):
        assert text.narrate(RULES.redact(trip, seat), NAMES) == (
            "Bob travelled home to France, paying a Camera and a Guidebook"
        )
    swap = Recycled(
        seat=0, discarded=("item-umbrella-2", "postcard-postcard-4"), taken="item-umbrella-3"
    )
    assert text.narrate(RULES.redact(swap, 2), NAMES) == (
        "Ada recycled an Umbrella and a Postcard and took an Umbrella"
    )
    recycle = Recycle(discard=("item-umbrella-2",), take="passport")
    assert text.describe(recycle, NAMES) == (
        "Recycle an Umbrella to take a Passport from the discard"
    )


def test_public_moves() -> None:
    offer = TradeOffered(
        asker=0, responder=3, give=("item-camera-2",), want=("umbrella", "passport")
    )
    assert text.narrate(offer, NAMES) == "Ada offers Di a Camera for Umbrella and Passport"
    trip = Travelled(seat=1, destination="home", country="germany", paid=("passport-1",))
    assert text.narrate(trip, NAMES) == "Bob travelled home to Germany, paying a Passport"
    # what ended the game, not who won: the table's game_over says that (forfeits ranked last)
    won = GameWon(seat=2, reason="centre")
    assert text.narrate(won, NAMES) == "Game over: Cy reached the centre"
    won = GameWon(seat=0, reason="postcards")
    assert text.narrate(won, NAMES) == "Game over: Ada holds four postcards"


def test_every_card_is_in_the_catalog_once_with_a_name() -> None:
    listed = [c.id for c in text.cards()]
    assert len(listed) == len(set(listed))
    assert RULES.all_cards() <= set(listed)
    assert all(c.name and c.kind for c in text.cards())
