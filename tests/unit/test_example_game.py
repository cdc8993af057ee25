"""The example game (tests/example_game, Nim) passes every generic check of games/testing.py
as the hosted games do: a game added in its own folder and registered in one line needs
nothing else of the platform. Served over REST in tests/e2e/test_example_game.py."""

from __future__ import annotations

import os
from pathlib import Path
from random import Random
from typing import Any

import msgspec
import pytest

from games import registry as games
from games.schemas import game_schemas, openapi_components
from games.testing import (
    check_every_type_has_words,
    check_listing,
    check_non_interference,
    check_playout,
    check_sample,
    check_shapes,
    check_words,
    random_options,
    random_playout,
    recorded_game,
)
from tests.example_game import text
from tests.example_game.rules import Nim, Take

RULES = Nim()
NAMES = ["Ada", "Bo", "Cy", "Di"]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_seeded_games_pass_every_generic_check(seats: int) -> None:
    for seed in range(300):
        options = random_options(RULES.options_type, Random(seed))
        playout = random_playout(RULES, seed, seats, options)
        check_playout(RULES, playout)
        check_shapes(RULES, playout)
        check_words(RULES, text, playout, NAMES[:seats])
        for state in playout.states[::5]:
            for seat in sorted(RULES.to_act(state)):
                every = [Take(heap=h, count=n) for h in range(-1, 7) for n in range(-1, 22)]
                check_listing(RULES, state, seat, every, seed=seed)
            check_sample(RULES, state, seed % seats, Random(seed))
        if seed % 30 == 0:
            game = recorded_game(RULES, seed, seats, options, _first)
            check_non_interference(RULES, game, text, NAMES[:seats])


def _first(state: Any, seat: int, actions: list[Any], rng: Random) -> Any:
    return actions[0]


def test_every_type_has_words() -> None:
    check_every_type_has_words(RULES, text, NAMES[:2], "")


def test_one_action_type_gets_a_schema_whose_references_resolve() -> None:
    """Nim has a single action type: `<Game>.Action` must still name a component."""
    components = openapi_components([RULES])
    refs = {r for c in components.values() for r in _refs(c)}
    names = {f"#/components/schemas/{n}" for n in components}
    assert refs <= names and "#/components/schemas/Nim.Action" in refs
    assert game_schemas(RULES)["action"]["$ref"]


def _refs(schema: Any) -> list[str]:
    if isinstance(schema, dict):
        own = [schema["$ref"]] if "$ref" in schema else []
        return own + [r for v in schema.values() for r in _refs(v)]
    if isinstance(schema, list):
        return [r for v in schema for r in _refs(v)]
    return []


def test_it_is_served_where_turnpost_games_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "nim" not in games.keys() or "tests.example_game" in os.environ.get("TURNPOST_GAMES", "")
    monkeypatch.setenv("TURNPOST_GAMES", "tests.example_game")
    games.entries.cache_clear()
    games.registry.cache_clear()
    try:
        assert games.keys()[-1] == "nim" and games.narrator("nim") is text
        setup = games.get("nim").setup(msgspec.convert({}, RULES.options_type), 2, Random(0))
        assert setup[0].options == RULES.options_type()  # the setup carries its whole options
    finally:
        monkeypatch.delenv("TURNPOST_GAMES")
        games.entries.cache_clear()
        games.registry.cache_clear()


def test_it_stays_small() -> None:
    """The issue's proof that a game is cheap to add: the whole example within 150 lines."""
    folder = Path(text.__file__).parent
    assert sum(len(p.read_text().splitlines()) for p in folder.glob("*.py")) <= 150
