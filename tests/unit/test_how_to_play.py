"""Each game's rules for players (its package's HOW_TO_PLAY.md, games/how_to_play.py), as the
catalog serves them with the game's content and its page shows them."""

from __future__ import annotations

import re

import pytest

from games.how_to_play import how_to_play, parse
from games.registry import keys, package_of
from services.lobby.routes.catalog import _content

SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")


@pytest.mark.parametrize("key", keys())
def test_every_game_served_has_its_rules_for_players(key: str) -> None:
    rules = how_to_play(package_of()[key])
    assert rules is not None, f"{key}: no HOW_TO_PLAY.md"
    ids = [s.id for s in rules.sections]
    assert {"goal", "table", "turn", "end", "scoring", "rulings"} <= set(ids), ids
    items = [item for s in rules.sections for item in s.items]
    assert 15 <= len(items) <= 35, len(items)  # short: a page, not the rulebook
    assert not [i for i in items if SNAKE.search(i)], "a raw key in the words"
    assert _content(key).how_to_play == rules  # served with the game's content


def test_the_example_game_brings_its_own() -> None:
    rules = how_to_play("tests.example_game")
    assert rules is not None and rules.title == "Nim"
    assert [s.id for s in rules.sections] == ["goal", "table", "turn", "end", "scoring"]


def test_a_file_it_cannot_read_is_refused_with_its_line() -> None:
    good = "# A game\n\n<!-- a note\nover lines -->\n## The goal {#goal}\n\n- Win.\n"
    parsed = parse(good)
    assert parsed.title == "A game" and parsed.sections[0].items == ["Win."]
    with pytest.raises(ValueError, match="line 3"):
        parse("# A game\n## The goal {#goal}\nWin, somehow.\n")
    with pytest.raises(ValueError, match="line 2"):
        parse("# A game\n## The goal\n- Win.\n")  # a section without its id
    with pytest.raises(ValueError, match="at least one item"):
        parse("# A game\n## The goal {#goal}\n")
    assert how_to_play("games") is None  # a package without the file: none
