"""The JSON Schemas clients build on (games/schemas.py) say what the engines really send."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from games.registry import registry
from games.schemas import game_schemas, openapi_components
from games.testing import check_shapes, random_playout

GAMES = sorted(registry())


@pytest.mark.parametrize("key", GAMES)
def test_views_and_redacted_events_are_what_their_types_say(key: str) -> None:
    rules = registry()[key]
    for seed in range(12):
        seats = list(rules.seats)[seed % len(rules.seats)]
        check_shapes(rules, random_playout(rules, seed, seats))


@pytest.mark.parametrize("key", GAMES)
def test_a_game_s_schemas_stand_alone(key: str) -> None:
    schemas = game_schemas(registry()[key])
    assert set(schemas) == {"action", "event", "view", "options"}
    for name, schema in schemas.items():
        for ref in _refs(schema):
            assert ref.startswith("#/$defs/"), (name, ref)
            assert ref.removeprefix("#/$defs/") in schema["$defs"], (name, ref)
    defs = schemas["event"]["$defs"].values()
    tags = {s["properties"]["type"]["enum"][0] for s in defs if "type" in s.get("properties", {})}
    assert {"turn_started", "timed_out", "resigned", "seat_claimed"} <= tags  # the table's


def test_every_component_reference_resolves_and_each_game_has_its_unions() -> None:
    components = openapi_components(registry().values())
    for schema in components.values():
        for ref in _refs(schema):
            assert ref.removeprefix("#/components/schemas/") in components, ref
    prefixes = {"IttyBitty", "ItchyFeet", "Footprints"}
    assert {r["$ref"].split("/")[-1] for r in components["AnyAction"]["anyOf"]} == {
        f"{p}.Action" for p in prefixes
    }
    assert {"$ref": "#/components/schemas/Table.Event"} in components["AnyEvent"]["anyOf"]


def _refs(schema: Any) -> list[str]:
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    found.append(value)
                elif key == "mapping":
                    found.extend(value.values())
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(json.loads(msgspec.json.encode(schema)))
    return found
