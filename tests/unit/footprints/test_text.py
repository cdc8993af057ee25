"""Footprints in words (games/footprints/text.py): every type has a text, texts never say
more than the caller's copy, and a few lines exactly."""

from __future__ import annotations

import pytest

from games.footprints import text
from games.footprints.events import (
    CardPlayed,
    FireDrawn,
    GameEnded,
    LeaderChosen,
    StartingFootprints,
)
from games.footprints.model import Bottom, Options, Play, Top
from games.footprints.rules import Footprints
from games.testing import check_every_type_has_words, check_words, random_playout

RULES = Footprints()
NAMES = ["Ada", "Bob", "Cy", "Di", "Eve", "Fay"]


def test_every_action_and_event_type_has_a_text() -> None:
    check_every_type_has_words(RULES, text, NAMES, "fire-01")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [Options(), Options(advanced=True)], ids=["basic", "advanced"])
def test_texts_say_no_more_than_the_copy_they_are_made_from(seed: int, options: Options) -> None:
    seats = 1 + seed % 6 if seed else 1  # the solo mode first
    playout = random_playout(RULES, seed, seats, options)
    check_words(RULES, text, playout, NAMES[:seats])


def test_actions_in_words() -> None:
    assert (
        text.describe(Play(card="clan-1-f01", fire="fire-01"), NAMES)
        == "Play an ice follower (+1 mountain move) with fire card 1 (move 3 mountain)"
    )
    assert (
        text.describe(Top(path=((2, 0), (2, 1)), fire_at=1, fire_path=((3, 1),)), NAMES)
        == "Top action: move to [2, 1] (2 steps), the fire card after 1 step, then on to [3, 1]"
    )
    assert (
        text.describe(Bottom(to=(2, 15), fire_during="after_advance"), NAMES)
        == "Bottom action: advance, moving to [2, 15], the fire card after the advance"
    )
    assert text.describe(Bottom(to=(2, 15), fire_during="after_move"), NAMES).endswith(
        "the fire card after the move"
    )


def test_secret_cards_stay_secret() -> None:
    chosen = LeaderChosen(seat=1, leader="clan-1-leader-b")
    assert text.narrate(RULES.redact(chosen, 1), NAMES) == (
        "Bob chose the Scout (leader) as their leader"
    )
    assert text.narrate(RULES.redact(chosen, 0), NAMES) == "Bob chose a secret leader"
    drawn = FireDrawn(seat=0, card="fire-02")
    assert text.narrate(RULES.redact(drawn, 0), NAMES) == "Ada drew fire card 2 (move 3 ice)"
    assert text.narrate(RULES.redact(drawn, None), NAMES) == "Ada drew a fire card"
    dealt = StartingFootprints(seat=2, cards=("footprint-01", "footprint-02", "footprint-03"))
    assert text.narrate(RULES.redact(dealt, 1), NAMES) == (
        "Cy was dealt footprint cards to keep one"
    )
    played = CardPlayed(seat=0, card="clan-1-leader-b", fire=None)
    assert text.narrate(played, NAMES) == "Ada played the Scout (leader)"


def test_the_end() -> None:
    end = GameEnded(scores=(30, 41), parts=({}, {}), ranks=(2, 1), winners=(1,), solo=None)
    # the points, not who won: the table's game_over says that (forfeits ranked last)
    assert text.narrate(end, NAMES) == "Game over: Ada 30, Bob 41"
    solo = GameEnded(scores=(52,), parts=({},), ranks=(1,), winners=(0,), solo=(52, True, "Chief"))
    assert text.narrate(solo, NAMES) == "Game over: Ada won the solo game with 52 points (Chief)"


def test_every_card_is_in_the_catalog_once_with_a_name() -> None:
    listed = [c.id for c in text.cards()]
    assert len(listed) == len(set(listed))
    assert RULES.all_cards() <= set(listed)
    assert all(c.name and c.kind for c in text.cards())
    clan_cards = {
        c.id for clan in RULES.content.clans.values() for c in (*clan.followers, *clan.leaders)
    }
    assert clan_cards <= set(listed)
    token = next(c for c in text.cards() if c.id == "cave-01")
    assert (token.name, token.glyph, token.text) == (
        "Cave token 01",
        "2xM",
        "twice one skill's level (mountain)",
    )
