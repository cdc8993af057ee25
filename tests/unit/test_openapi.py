"""The OpenAPI documents both services serve at /schema/openapi.json (tests/e2e/test_contract.py
holds the services to them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from litestar import Litestar

from infra.openapi import BEARER, ContractJson
from services.game.app import create_app as game_app
from services.lobby.app import create_app as lobby_app


def _document(app: Litestar) -> dict[str, Any]:
    assert app.openapi_config is not None
    [plugin] = [p for p in app.openapi_config.render_plugins if isinstance(p, ContractJson)]
    return plugin.document(app.openapi_schema.to_schema())


@pytest.fixture(scope="module", params=["lobby", "game"])
def document(request: pytest.FixtureRequest) -> dict[str, Any]:
    return _document(lobby_app() if request.param == "lobby" else game_app())


def _operations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", op)
        for path, item in document["paths"].items()
        for method, op in item.items()
    ]


def test_every_error_is_a_documented_problem_and_every_route_may_be_rate_limited(
    document: dict[str, Any],
) -> None:
    for name, op in _operations(document):
        assert "429" in op["responses"], name
        for status, response in op["responses"].items():
            if int(status) >= 400:
                [(media_type, content)] = response["content"].items()
                assert media_type == "application/problem+json", (name, status)
                assert content["schema"] == {"$ref": "#/components/schemas/Problem"}
        if op.get("security"):
            assert op["security"] == [{BEARER: []}] and "401" in op["responses"], name
        if "requestBody" in op:
            assert {"400", "413"} <= op["responses"].keys(), name


def test_the_bearer_scheme_and_every_reference_are_there(document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"][BEARER]["scheme"] == "bearer"
    schemas = document["components"]["schemas"]
    text = json.dumps(document)
    for ref in {part.split('"')[0] for part in text.split('"$ref": "#/components/schemas/')[1:]}:
        assert ref in schemas, ref


def test_join_and_start_take_an_optional_body_and_bodies_refuse_unknown_fields() -> None:
    document = _document(lobby_app())
    for path in ("/v1/rooms/{room_id}/join", "/v1/rooms/{room_id}/start"):
        assert document["paths"][path]["post"]["requestBody"]["required"] is False
    schemas = document["components"]["schemas"]
    assert schemas["JoinRoom"]["additionalProperties"] is False
    assert schemas["JoinRoom"]["properties"]["seat"]["minimum"] == 0
    assert "/v1/catalog/{game}/schemas" in document["paths"]


def test_the_timed_fill_is_described() -> None:
    document = _document(lobby_app())
    schemas = document["components"]["schemas"]
    after = schemas["NewRoom"]["properties"]["fill_with_bots_after_s"]
    assert (after["minimum"], after["maximum"]) == (5, 30 * 86400)
    assert {"fill_level", "auto_start"} <= schemas["NewRoom"]["properties"].keys()
    room = schemas["Room"]["properties"]
    assert room["fill_due_at"]["format"] == "date-time"
    assert {"fill_with_bots_after_s", "auto_start", "fill_level"} <= room.keys()
    created = document["paths"]["/v1/rooms"]["post"]["responses"]["422"]["description"]
    assert "`invalid_fill`" in created


def test_the_game_service_names_each_game_s_actions_events_and_views() -> None:
    schemas = _document(game_app())["components"]["schemas"]
    assert schemas["LegalActions"]["properties"]["actions"]["items"] == {
        "$ref": "#/components/schemas/DescribedAction"
    }
    described = schemas["DescribedAction"]["allOf"]
    assert described[0] == {"$ref": "#/components/schemas/AnyAction"}
    assert described[1]["required"] == ["text"]
    assert described[1]["properties"]["text"]["type"] == "string"
    assert "text" in schemas["FeedEvent"]["required"]
    assert schemas["FeedEvent"]["properties"]["text"]["type"] == "string"
    assert {"$ref": "#/components/schemas/AnyEvent"} in schemas["FeedEvent"]["properties"]["data"][
        "oneOf"
    ]
    for game in ("IttyBitty", "ItchyFeet", "Footprints"):
        assert {f"{game}.Action", f"{game}.Event", f"{game}.View"} <= schemas.keys()
    assert schemas["PostAction"]["additionalProperties"] is False


def test_legal_actions_say_why_an_answer_is_missing_beside_the_actions() -> None:
    schemas = _document(game_app())["components"]["schemas"]
    legal = schemas["LegalActions"]
    assert {"version", "seat", "actions", "unavailable"} <= set(legal["required"])
    assert legal["properties"]["unavailable"]["items"] == {
        "$ref": "#/components/schemas/Unavailable"
    }
    unavailable = schemas["Unavailable"]
    assert sorted(unavailable["required"]) == ["code", "message", "type"]
    assert all(f["type"] == "string" for f in unavailable["properties"].values())
    # every answer's question is typed in the game's components (the view names them too)
    assert {
        "ItchyFeet.TradeQuestion",
        "IttyBitty.CollectorChoice",
        "Footprints.LeaderQuestion",
    } <= (schemas.keys())
