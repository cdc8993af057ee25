"""A game's assembled map (games with one: an engine's `board_map` and `map_type`), as the
game service serves it: the body and its OpenAPI components.

The map is public and fixed once the game is set up, and large beside the view (Footprints:
162 spaces with their neighbours, ~25 KB against a view of ~3 KB), so it has a route of its
own that a client fetches once (and may cache), not a field of the view it fetches after
every move.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from contracts.game import GameMap as GameMap  # the wire type, shared with the clients
from games.api import Rules
from games.schemas import component_prefix


def map_components(
    games: Iterable[Rules[Any, Any, Any, Any]], known: dict[str, Any]
) -> dict[str, Any]:
    """`<Game>.<Type>` for each game's map type (beside `known`, the components already
    named: a type the view also holds is the same schema) and `AnyMap` over them."""
    components: dict[str, Any] = {}
    refs = []
    for rules in games:
        map_type = getattr(rules, "map_type", None)
        if map_type is None:
            continue
        template = f"#/components/schemas/{component_prefix(rules)}.{{name}}"
        [ref], defs = msgspec.json.schema_components([map_type], ref_template=template)
        for name, schema in defs.items():
            named = template.format(name=name).removeprefix("#/components/schemas/")
            if known.get(named, schema) != schema:
                raise ValueError(f"{named} is already a component of another shape: rename it")
            components[named] = schema
        refs.append(ref)
    components["AnyMap"] = {
        "anyOf": refs,
        "description": "The map of the game the game id names (Footprints: `Footprints.AssembledMap`)",
    }
    return components
