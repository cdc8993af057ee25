"""itty bitty in words (games/itty_bitty/text.py): every type has a text, texts never say
more than the caller's copy, and a few lines exactly."""

from __future__ import annotations

import pytest

from games.itty_bitty import text
from games.itty_bitty.model import (
    CollectorCompleted,
    CollectorKept,
    CompleteCollector,
    GameEnded,
    IttybitTaken,
    Payment,
    TakeIttybit,
)
from games.itty_bitty.rules import IttyBitty
from games.testing import check_every_type_has_words, check_words, random_playout

RULES = IttyBitty()
NAMES = ["Ada", "Bob", "Cy", "Di"]


def test_every_action_and_event_type_has_a_text() -> None:
    check_every_type_has_words(RULES, text, NAMES, "ittybit-0287")


@pytest.mark.parametrize("seed", range(6))
def test_texts_say_no_more_than_the_copy_they_are_made_from(seed: int) -> None:
    seats = 2 + seed % 3
    check_words(RULES, text, random_playout(RULES, seed, seats), NAMES[:seats])


def test_actions_in_words() -> None:
    assert (
        text.describe(TakeIttybit(card="ittybit-0287"), NAMES)
        == "Take Ittybit #287 (Female, Mohawk, Purple Eye Shadow, Cigarette) from the market"
    )
    assert text.describe(TakeIttybit(), NAMES) == "Take the top ittybit of the deck"
    pay = CompleteCollector(
        collector="collector-C01",
        payments=(Payment(grail=0, ittybits=("ittybit-0455", "ittybit-0387", "ittybit-0287")),),
    )
    assert (
        text.describe(pay, NAMES)
        == "Complete Collector C01 for 3 coins, paying Ittybit #287, Ittybit #387 and Ittybit #455"
    )


def test_a_completed_collector_as_its_owner_and_as_the_others_see_it() -> None:
    done = CollectorCompleted(
        seat=0,
        collector="collector-C01",
        payments=(Payment(grail=0, ittybits=("ittybit-0287", "ittybit-0387", "ittybit-0455")),),
        ittybits=("ittybit-0287", "ittybit-0387", "ittybit-0455"),
        coins=3,
    )
    paid = "paying Ittybit #287, Ittybit #387 and Ittybit #455"  # by the numbers printed
    assert (
        text.narrate(RULES.redact(done, 0), NAMES)
        == f"Ada completed Collector C01 (3 Earring: 3 coins) for 3 coins, {paid}"
    )
    for seat in (1, None):
        assert (
            text.narrate(RULES.redact(done, seat), NAMES)
            == f"Ada completed a collector for 3 coins, {paid}"
        )


def test_hidden_draws_stay_hidden() -> None:
    drawn = IttybitTaken(seat=1, from_market=False, card="ittybit-0287")
    assert text.narrate(RULES.redact(drawn, 0), NAMES) == "Bob took an ittybit from the deck"
    assert text.narrate(RULES.redact(drawn, 1), NAMES).startswith("Bob took Ittybit #287 (")
    kept = CollectorKept(seat=2, kept="collector-C05", discarded=None)
    assert text.narrate(RULES.redact(kept, 0), NAMES) == "Cy kept a collector"


def test_the_end() -> None:
    end = GameEnded(
        penalties=(0, 0),
        scores=(12, 9),
        ittybits_in_hand=(1, 2),
        ranks=(1, 2),
        winners=(0,),
        tie_break=None,
        reason="eight_collectors",
    )
    # the coins, not who won: the table's game_over says that (forfeits ranked last)
    assert text.narrate(end, NAMES) == "Game over (eight collectors completed): Ada 12, Bob 9"


def test_every_card_is_in_the_catalog_once_with_a_name() -> None:
    listed = [c.id for c in text.cards()]
    assert len(listed) == len(set(listed))
    assert RULES.all_cards() <= set(listed)
    assert all(c.name and c.kind for c in text.cards())
