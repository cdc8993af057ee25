"""The OpenAPI documents both services serve at /schema/openapi.json (tests/e2e/test_contract.py
holds the services to them)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from litestar import Litestar
from openapi_spec_validator import validate

from contracts.game import GameOutcome
from contracts.notifications import (
    NOTIFICATION_TYPES,
    GameResult,
    Notification,
    RoomLinks,
    RoomNews,
    RoomWebhookPayload,
    WebhookPayload,
    WebhookTest,
    WebhookTestData,
    links_for,
)
from games.api import Outcome
from infra.http.openapi import BEARER, ContractJson
from services.game.app import create_app as game_app
from services.game.sse import _news_frame
from services.lobby.app import create_app as lobby_app

ROOT = Path(__file__).resolve().parents[2]


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


# -- the documents say what the server sends ----------------------------------------------

# The modules that answer before a route (and the routes each answer applies to): the wire
# (every request), the rate limiter (every route but the probes), the body bounds (a route
# that reads a body).
BEFORE_THE_ROUTE = {
    "infra/http/wire.py": "every",
    "infra/http/ratelimit.py": "every",
    "infra/http/guards.py": "body",
}


def _emitted(path: str) -> set[tuple[int, str]]:
    """Every (status, code) a module answers with: its `ProblemError(<status>, "<code>", …)`
    and `self._refuse(<status>, "<code>", …)` calls, read from its source."""
    tree = ast.parse((ROOT / path).read_text())
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        status, code = node.args[:2]
        if (
            name in ("ProblemError", "_refuse")
            and isinstance(status, ast.Constant)
            and isinstance(code, ast.Constant)
        ):
            found.add((status.value, code.value))
    return found


def _documented_codes(op: dict[str, Any], status: int) -> set[str]:
    response = op["responses"].get(str(status))
    if response is None:
        return set()
    [content] = response["content"].values()
    return {example["value"]["code"] for example in content.get("examples", {}).values()}


def test_every_problem_code_answered_before_the_route_is_documented(
    document: dict[str, Any],
) -> None:
    expected = {path: _emitted(path) for path in BEFORE_THE_ROUTE}
    # what the modules are known to answer, so a change of how they answer fails here first
    assert expected["infra/http/ratelimit.py"] == {(429, "rate_limited")}
    assert expected["infra/http/guards.py"] == {(413, "payload_too_large"), (400, "too_deep")}
    assert expected["infra/http/wire.py"] == {
        (431, "head_too_large"),
        (408, "request_timeout"),
        (503, "too_many_connections"),
    }
    missing = []
    for name, op in _operations(document):
        for path, where in BEFORE_THE_ROUTE.items():
            if where == "body" and "requestBody" not in op:
                continue
            for status, code in expected[path]:
                if code not in _documented_codes(op, status):
                    missing.append(f"{name}: {status} {code}")
    assert not missing, missing


def test_no_documented_problem_code_is_one_no_module_answers(document: dict[str, Any]) -> None:
    """Every code in the documents is one the sources answer with somewhere (a literal in
    infra/, services/ or contracts/), so no document names a code the server never sends."""
    sources = "\n".join(
        p.read_text()
        for d in ("infra", "services", "contracts")
        for p in (ROOT / d).rglob("*.py")
        if p != ROOT / "infra/http/openapi.py"  # the documents' own words
    )
    named = {
        code
        for _, op in _operations(document)
        for status in op["responses"]
        if int(status) >= 400
        for code in _documented_codes(op, int(status))
    }
    unsent = sorted(c for c in named if f'"{c}"' not in sources and f"'{c}'" not in sources)
    assert not unsent, unsent


_BOUNDS = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusiveMinimum",
    "lt": "exclusiveMaximum",
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_items": "minItems",
    "max_items": "maxItems",
    "pattern": "pattern",
}


def _bounds_of(schema: dict[str, Any]) -> dict[str, Any]:
    """The bound keywords of a schema, its nullable wrapper's and its one other branch's (a
    reference's are its component's, compared on their own)."""
    # `extra`: bounds a Struct field shows for the document and checks itself (msgspec's own
    # schema keeps them under that key, Litestar's takes them out of it)
    own = {**schema, **schema.get("extra", {})}
    found = {k: v for k, v in own.items() if k in _BOUNDS.values()}
    for key in ("oneOf", "anyOf"):
        branches = [b for b in schema.get(key, []) if b.get("type") != "null"]
        if len(branches) == 1:
            found.update(_bounds_of(branches[0]))
    return found


def _type_of(schema: dict[str, Any]) -> Any:
    for key in ("oneOf", "anyOf"):
        branches = [b for b in schema.get(key, []) if b.get("type") != "null"]
        if len(branches) == 1:
            return _type_of(branches[0])
    return schema.get("type")


def _exact(bounds: dict[str, Any], kind: Any) -> dict[str, tuple[type, Any]]:
    """Bounds with their JSON types where the schema is an integer's: a maximum of 2**62
    written as a float is not 2**62 (a number's 0 and 0.0 are one bound)."""
    return {
        k: (type(v), v) if kind == "integer" or isinstance(v, str) else (float, float(v))
        for k, v in bounds.items()
    }


def _app(name: str) -> Litestar:
    return lobby_app() if name == "lobby" else game_app()


@pytest.mark.parametrize("service", ["lobby", "game"])
def test_every_bound_the_server_enforces_is_in_the_document_exactly(service: str) -> None:
    """A parameter's bounds (Litestar's `ge`, `le`, `max_length`...) and a body's (msgspec's
    `Meta`, as msgspec's own JSON Schema writes them) are the document's, as integers where
    they are: schemathesis' valid requests are then the ones the server takes."""
    app = _app(service)
    document = _document(app)
    wrong = []
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            if not handler.include_in_schema:
                continue
            for method in handler.http_methods:
                op = document["paths"].get(route.path_format, {}).get(method.lower())
                if op is None:
                    continue
                documented = {p["name"]: p for p in op.get("parameters", [])}
                for name, field in handler.parsed_fn_signature.parameters.items():
                    kwarg = field.kwarg_definition
                    if name == "data" and op.get("requestBody"):
                        wrong += _body_bounds(field.annotation, op, document)
                        continue
                    if kwarg is None or not hasattr(kwarg, "query"):
                        continue
                    alias = kwarg.query or kwarg.header or name
                    expected = {
                        key: getattr(kwarg, attr)
                        for attr, key in _BOUNDS.items()
                        if getattr(kwarg, attr, None) is not None
                    }
                    if alias not in documented:
                        continue
                    schema = documented[alias]["schema"]
                    got, kind = _bounds_of(schema), _type_of(schema)
                    if _exact(got, kind) != _exact(expected, kind):
                        wrong.append(f"{method} {route.path_format} {alias}: {got} != {expected}")
    assert not wrong, "\n".join(wrong)


def _body_bounds(annotation: Any, op: dict[str, Any], document: dict[str, Any]) -> list[str]:
    """Each field's bounds in the body's Struct (and the Structs in it), as msgspec's own JSON
    Schema has them, against the document's component of the same name."""
    types = getattr(annotation, "__args__", None) or (annotation,)
    [struct] = [t for t in types if t is not type(None)]
    _, defs = msgspec.json.schema_components([struct], ref_template="{name}")
    wrong = []
    for name, own in defs.items():
        theirs = document["components"]["schemas"].get(name)
        if theirs is None:
            wrong.append(f"{op['operationId']}: no component {name}")
            continue
        for field, schema in own.get("properties", {}).items():
            got = _bounds_of(theirs["properties"].get(field, {}))
            expected, kind = _bounds_of(schema), _type_of(schema)
            if _exact(got, kind) != _exact(expected, kind):
                wrong.append(f"{name}.{field}: {got} != {expected}")
    return wrong


@pytest.mark.parametrize("service", ["lobby", "game"])
def test_the_documents_are_valid_openapi(service: str) -> None:
    """openapi-spec-validator reads each document as a client generator would need it."""
    validate(json.loads(msgspec.json.encode(_document(_app(service)))))  # as served


# -- what the game service sends beside its answers is typed -------------------------------


def _valid(document: dict[str, Any], component: str, instance: Any) -> None:
    """The instance, as the service encodes it, against the document's component."""
    root = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    jsonschema.Draft202012Validator(root).validate(json.loads(msgspec.json.encode(instance)))


def test_a_finished_game_s_outcome_is_typed_as_the_engines_give_it() -> None:
    document = _document(game_app())
    schemas = document["components"]["schemas"]
    for name in ("GameView", "EventFeed"):
        outcome = schemas[name]["properties"]["outcome"]
        assert {"$ref": "#/components/schemas/GameOutcome"} in outcome["oneOf"], name
    # the contract has every field of the engines' Outcome (services/game/routes/games.py copies them)
    assert GameOutcome.__struct_fields__ == Outcome.__struct_fields__
    engines = Outcome(scores=[3, 5], ranks=[2, 1], winners=[1], detail={"forfeited": [0]})
    _valid(document, "GameOutcome", GameOutcome(**msgspec.structs.asdict(engines)))


NEWS = Notification(
    type="game_finished",
    game_id="g-1",
    game="itty-bitty",
    title="The itty bitty card game",
    version=40,
    seat=1,
    player_id="p-1",
    links=links_for("g-1"),
    outcome=GameResult(winners=[1], ranks=[2, 1], scores=[3, 5], forfeited=[]),
)


ROOM_NEWS = RoomNews(
    type="invited",
    room_id="r-1",
    game="itty-bitty",
    title="The itty bitty card game",
    player_id="p-2",
    seat=1,
    by="p-1",
    by_name="Ada",
    expires_at="2026-01-02T03:04:05Z",
    created_at="2026-01-01T03:04:05Z",
    links=RoomLinks(room="/v1/rooms/r-1", answer="/v1/rooms/r-1/invitations/decline"),
)


def test_webhook_deliveries_are_typed_in_the_document_s_webhooks() -> None:
    document = _document(game_app())
    hooks = document["webhooks"]
    bodies = {
        name: hook["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        for name, hook in hooks.items()
    }
    assert bodies == {
        "gameNews": "#/components/schemas/WebhookPayload",
        "roomNews": "#/components/schemas/RoomWebhookPayload",
        "webhookTest": "#/components/schemas/WebhookTest",
    }
    signed = {p["name"] for p in hooks["gameNews"]["post"]["parameters"]}
    assert signed == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    _valid(document, "WebhookPayload", WebhookPayload(type=NEWS.type, timestamp="t", data=NEWS))
    test = WebhookTest(timestamp="t", data=WebhookTestData(webhook_id="w-1", player_id="p-1"))
    _valid(document, "WebhookTest", test)
    room = RoomWebhookPayload(type="invited", timestamp="t", data=ROOM_NEWS)
    _valid(document, "RoomWebhookPayload", room)


def test_each_stream_s_items_are_typed() -> None:
    document = _document(game_app())
    items = {}
    for path, operation in (
        ("/v1/games/{game_id}/stream", "streamGameEvents"),
        ("/v1/me/stream", "streamMyNews"),
    ):
        op = document["paths"][path]["get"]
        assert op["operationId"] == operation
        # `schema` is each event's, as OpenAPI 3.1 tools read a stream's (3.2: itemSchema)
        items[operation] = op["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert items["streamGameEvents"]["properties"]["data"]["contentSchema"] == {
        "$ref": "#/components/schemas/FeedEvent"
    }
    news = items["streamMyNews"]["properties"]
    assert news["data"]["contentSchema"] == {
        "anyOf": [
            {"$ref": "#/components/schemas/Notification"},
            {"$ref": "#/components/schemas/RoomNews"},
        ]
    }
    assert news["data"]["contentMediaType"] == "application/json"
    assert news["event"]["enum"] == list(NOTIFICATION_TYPES)
    # an event as the stream writes it, read as an EventSource reads it
    frame = _news_frame(NEWS).decode()
    event = dict(line.split(": ", 1) for line in frame.strip().split("\n"))
    root = {**items["streamMyNews"], "components": document["components"]}
    jsonschema.Draft202012Validator(root).validate(event)
    _valid(document, "Notification", msgspec.json.decode(event["data"]))
    # a room's news the same way
    frame = _news_frame(ROOM_NEWS).decode()
    event = dict(line.split(": ", 1) for line in frame.strip().split("\n"))
    jsonschema.Draft202012Validator(root).validate(event)
    _valid(document, "RoomNews", msgspec.json.decode(event["data"]))
