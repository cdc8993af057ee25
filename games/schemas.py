"""JSON Schemas a client builds moves from: each game's actions, events and views.

Made from the engines' own types (msgspec), so they cannot drift from what the service
decodes and sends. The catalog serves them per game, self-contained; the game service's
OpenAPI holds them all as components named `<Game>.<Type>`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from games.api import Rules
from games.table import AnyTableEvent

TABLE = "Table"  # the component prefix of the table events (clocks, resignations, claims)


def game_schemas(rules: Rules[Any, Any, Any, Any]) -> dict[str, Any]:
    """The game's JSON Schemas, each with its own `$defs`.

    `event` covers the engine's events and the table's, as `/events` lists them.
    """
    return {
        "action": msgspec.json.schema(rules.action_type),
        "event": msgspec.json.schema(rules.event_type | AnyTableEvent),
        "view": msgspec.json.schema(rules.view_type),
        "options": msgspec.json.schema(rules.options_type),
    }


def component_prefix(rules: Rules[Any, Any, Any, Any]) -> str:
    return type(rules).__name__  # "IttyBitty": component names may not hold every key's "-"


def openapi_components(games: Iterable[Rules[Any, Any, Any, Any]]) -> dict[str, Any]:
    """Every game's types as OpenAPI components, and unions over the games.

    `<Game>.Action`, `<Game>.Event`, `<Game>.View` per game, `Table.Event` for the table
    events; `AnyAction`, `AnyEvent`, `AnyView` the union of those, for the routes that carry
    the actions, events and views of whichever game a game id names.
    """
    components: dict[str, Any] = {}
    unions: dict[str, list[dict[str, str]]] = {"AnyAction": [], "AnyEvent": [], "AnyView": []}

    def add(prefix: str, types: list[Any], names: list[str]) -> list[dict[str, str]]:
        template = f"#/components/schemas/{prefix}.{{name}}"
        schemas, defs = msgspec.json.schema_components(types, ref_template=template)
        refs = []
        for name, schema in zip(names, schemas, strict=True):
            # a union gets a name of its own; so does a single type (a game of one action
            # type), as a reference to its own component: `<Game>.Action` always resolves
            own = {"$ref": template.format(name=name)}
            if schema != own:
                if name in defs:
                    raise ValueError(f"{prefix} has a type named {name}: rename it")
                defs[name] = schema
            refs.append(own)
        components.update({f"{prefix}.{name}": schema for name, schema in defs.items()})
        return refs

    for rules in games:
        prefix = component_prefix(rules)
        action, event, view = add(
            prefix,
            [rules.action_type, rules.event_type, rules.view_type],
            ["Action", "Event", "View"],
        )
        unions["AnyAction"].append(action)
        unions["AnyEvent"].append(event)
        unions["AnyView"].append(view)
    unions["AnyEvent"].extend(add(TABLE, [AnyTableEvent], ["Event"]))
    descriptions = {
        "AnyAction": "An action of the game the game id names (`<Game>.Action`)",
        "AnyEvent": "An event of that game (`<Game>.Event`) or of its table (`Table.Event`: clocks)",
        "AnyView": "What the caller sees of that game (`<Game>.View`)",
    }
    for name, refs in unions.items():
        components[name] = {"anyOf": refs, "description": descriptions[name]}
    return components
