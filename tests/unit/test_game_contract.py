"""The game contract (games/api.py, `Rules`), checked for every game the registry serves: what
the platform assumes of a game is written there and holds here, so a new game that breaks
it fails at once, not somewhere in a service."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from games.api import rules_version_of
from games.registry import entries
from games.schemas import openapi_components
from games.testing import random_options, union_members

GAMES = sorted(entries())


@pytest.mark.parametrize("key", GAMES)
def test_the_setup_carries_the_whole_options_and_the_rules_version(key: str) -> None:
    rules = entries()[key].rules
    for seed in range(20):
        options = random_options(rules.options_type, Random(seed))
        events = rules.setup(options, max(2, rules.seats.start), Random(seed))
        assert events[0].options == options, "a log alone must rebuild the game"
        state = rules.evolve(None, events[0])
        assert rules_version_of(state) == rules.rules_version


@pytest.mark.parametrize("key", GAMES)
def test_actions_and_events_are_tagged_structs(key: str) -> None:
    rules = entries()[key].rules
    for union in (rules.action_type, rules.event_type):
        for member in union_members(union):
            assert issubclass(member, msgspec.Struct) and member.__struct_config__.tag, member


@pytest.mark.parametrize("key", GAMES)
def test_every_entry_names_its_words_and_its_bots(key: str) -> None:
    entry = entries()[key]
    assert all(callable(getattr(entry.text, f)) for f in ("cards", "describe", "narrate"))
    levels = entry.rules.bot_levels
    assert "random" in levels and (entry.bots is not None or levels == ("random",))
    assert isinstance(entry.rules.describe(), dict)  # the catalog's content


def test_every_reference_of_the_openapi_components_resolves() -> None:
    components = openapi_components([e.rules for e in entries().values()])
    names = {f"#/components/schemas/{n}" for n in components}
    assert _refs(components) <= names


def _refs(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        return ({schema["$ref"]} if "$ref" in schema else set()) | {
            r for v in schema.values() for r in _refs(v)
        }
    if isinstance(schema, list):
        return {r for v in schema for r in _refs(v)}
    return set()
