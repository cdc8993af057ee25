"""The legal actions' texts (services/game/routes/games.py): each as its game's words tell it
for these names, though remembered from one listing to the next."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from games import registry
from games.registry import narrator
from games.testing import random_playout
from services.game.routes import games as routes

NAMES = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo")


def _listed(key: str, seeds: int = 3) -> list[tuple[Any, int, Any]]:
    """(rules, seat, state) of every turn of a few random games."""
    rules: Any = registry.get(key)
    turns = []
    for seed in range(seeds):
        playout = random_playout(rules, seed, list(rules.seats)[seed % len(rules.seats)])
        turns += [(rules, seat, s) for s in playout.states for seat in sorted(rules.to_act(s))]
    return turns


@pytest.mark.parametrize("key", registry.keys())
def test_every_listed_text_is_the_games_words_for_these_names(key: str) -> None:
    words = narrator(key)
    for names in (NAMES, tuple(reversed(NAMES))):  # the second listing hits the first's texts
        for rules, seat, state in _listed(key):
            actions = rules.legal_actions(state, seat)
            wire = routes._described(rules, actions, names)
            assert [w["text"] for w in wire] == [words.describe(a, names) for a in actions]
            assert [{k: v for k, v in w.items() if k != "text"} for w in wire] == [
                msgspec.to_builtins(a) for a in actions
            ]
    assert routes._text.cache_info().hits > 0


def test_an_action_naming_a_seat_is_told_with_each_games_names() -> None:
    """Itchy Feet's steals and offers name the other seat: the same action in two games,
    each with its own players, has two texts."""
    words = narrator("itchy-feet")
    other = tuple(reversed(NAMES))
    named = [
        (rules, a)
        for rules, seat, state in _listed("itchy-feet", seeds=6)
        for a in rules.legal_actions(state, seat)
        if words.describe(a, NAMES) != words.describe(a, other)
    ]
    assert named, "no action of these games names a seat"
    for rules, action in named[:50]:
        first = routes._described(rules, [action], NAMES)[0]["text"]
        second = routes._described(rules, [action], other)[0]["text"]
        assert (first, second) == (words.describe(action, NAMES), words.describe(action, other))
        assert first != second


class _Listy(msgspec.Struct, frozen=True, tag="listy", tag_field="type"):
    cards: list[str]  # a list: the action cannot be hashed, so it is not remembered


class _Words:
    def describe(self, action: Any, names: Any) -> str:
        return f"{names[0]} plays {len(action.cards)}"


def test_an_action_that_cannot_be_hashed_is_told_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = type("Rules", (), {"key": "listy"})()
    monkeypatch.setattr(routes, "narrator", lambda key: _Words())
    wire = routes._described(rules, [_Listy(cards=["a", "b"])], ("Ada",))
    assert wire == [{"type": "listy", "cards": ["a", "b"], "text": "Ada plays 2"}]
