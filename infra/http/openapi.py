"""OpenAPI pieces both services share: the problem responses of a route, the bearer scheme."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import msgspec
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, ScalarRenderPlugin
from litestar.openapi.spec import Components, Example, Operation, RequestBody, SecurityScheme

from contracts.problems import PROBLEM_CONTENT_TYPE, TITLES, Problem, ProblemError

BEARER = "BearerToken"
SECURITY: list[dict[str, list[str]]] = [{BEARER: []}]  # `security=` of a route that needs a token

# What each status means on any route; a route names its own codes beside these.
MEANINGS = {
    400: "The request is malformed: a parameter or the JSON body does not fit its schema",
    401: "No valid bearer token",
    403: "The caller may not do this",
    404: "No such resource",
    408: "The request's head or body did not arrive in time; the connection is closed",
    409: "The request conflicts with the resource's state now",
    413: "The body is larger than this service takes",
    422: "Well-formed, but the rules refuse it",
    429: "Too many requests: retry after `Retry-After` seconds",
    431: "The request line and headers are larger than this service takes",
    503: "A dependency is unavailable, or the process holds all the connections it can; retry later",
}
# What is answered before any route, so on every route: the wire's bounds (infra/http/wire.py: a
# slow head or body, a head too large, a connection past the process' limit) and the rate
# limit (infra/http/ratelimit.py); and a backing service away (infra/http/common.py). Each code is the
# one those modules send (tests/unit/test_openapi.py reads them from their sources).
EVERY_ROUTE = {
    408: ("request_timeout",),
    429: ("rate_limited",),
    431: ("head_too_large",),
    503: ("service_unavailable", "too_many_connections"),
}
# What a route that reads a JSON body adds (infra/http/guards.py: depth, size).
BODY = {400: ("malformed_request", "too_deep"), 413: ("payload_too_large",)}
DEFAULT_CODES = {
    400: ("malformed_request",),
    401: ("unauthorized", "token_expired", "unknown_key", "token_revoked"),
    404: ("not_found",),
}


def problems(
    *statuses: int, codes: Mapping[int, Iterable[str]] | None = None, body: bool = False
) -> dict[int, Any]:
    """`responses=` for a route: one RFC 9457 problem response per status it can return.

    `codes` names the stable `code`s a status carries on this route (one example each);
    a status without any gets its generic code. What is answered before any route
    (`EVERY_ROUTE`: 408, 429, 431, 503) is added to every route, and with `body` (the route
    reads a JSON body) 400 `too_deep` and 413.
    """
    added: dict[int, tuple[str, ...]] = {**EVERY_ROUTE}
    if body:
        added[400] = BODY[400]
        added[413] = BODY[413]
    responses: dict[int, Any] = {}
    for status in sorted({*statuses, *added}):
        named = tuple((codes or {}).get(status, DEFAULT_CODES.get(status, ())))
        named += tuple(c for c in added.get(status, ()) if c not in named)
        listed = ", ".join(f"`{c}`" for c in named)
        description = MEANINGS.get(status, TITLES.get(status, "Error"))
        responses[status] = ResponseSpec(
            Problem,
            description=f"{description} (code: {listed})" if listed else description,
            media_type=PROBLEM_CONTENT_TYPE,
            generate_examples=False,
            examples=[
                Example(
                    summary=code,
                    value=msgspec.to_builtins(
                        ProblemError(status, code, code.replace("_", " ")).problem()
                    ),
                )
                for code in named
            ]
            or None,
        )
    return responses


@dataclass
class OptionalBody(Operation):
    """`operation_class=` of a route whose JSON body may be left out (empty means defaults).

    Litestar marks every request body required; this one is not.
    """

    def __post_init__(self) -> None:
        if isinstance(self.request_body, RequestBody):
            self.request_body.required = False


def _fields(schema: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """What two schemas of one type must agree on: its properties, the required ones."""
    return sorted(schema.get("properties", {})), sorted(schema.get("required", []))


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def struct_components(*types: Any) -> dict[str, Any]:
    """Component schemas of msgspec types no route's body or answer names (what the service
    sends elsewhere: webhooks, a stream's items), as msgspec's own JSON Schema writes them."""
    _, defs = msgspec.json.schema_components(types, ref_template="#/components/schemas/{name}")
    return defs


def sse_item(
    data: str | list[str], description: str, event: dict[str, Any], has_id: bool
) -> dict[str, Any]:
    """The schema of one Server-Sent Event of a stream: `data` the JSON of the component
    `data` names (or of any one of them), `event` its type, `id` (when sent) its cursor.

    It is the `text/event-stream` answer's `schema`: before 3.2, OpenAPI tools read that as
    each event's (schemathesis, which checks every event of a stream against it; Speakeasy's
    generated clients); 3.2 calls it `itemSchema`, a rename when the documents move to 3.2.
    """
    properties: dict[str, Any] = {
        "event": event,
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": ref(data)
            if isinstance(data, str)
            else {"anyOf": [ref(name) for name in data]},
        },
    }
    if has_id:
        properties["id"] = {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "The event's version: send it back as `Last-Event-ID` to resume",
        }
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": sorted(properties),
    }


class ContractJson(JsonRenderPlugin):
    """`/schema/openapi.json` as Litestar makes it, plus what it cannot say: component schemas
    of its own (the per-game types, what webhooks and streams carry), `additionalProperties:
    false` on the bodies whose Struct refuses unknown fields (Litestar leaves every object
    open), an integer's bounds as integers, the requests the service sends (`webhooks`) and
    the events of its streams (by operation id: `sse_item`)."""

    def __init__(
        self,
        schemas: Mapping[str, Any],
        closed: Iterable[str],
        webhooks: Mapping[str, Any] | None = None,
        stream_items: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.schemas = dict(schemas)
        self.closed = frozenset(closed)
        self.webhooks = dict(webhooks or {})
        self.stream_items = dict(stream_items or {})
        self._rendered: bytes | None = None

    def document(self, openapi_schema: dict[str, Any]) -> dict[str, Any]:
        """The document served: Litestar's, completed."""
        components = dict(openapi_schema.get("components", {}))
        made = components.get("schemas", {})
        # a type a route names and a webhook carries too (RatingChange) is made by both: one
        # schema, Litestar's, so long as the two say the same fields
        clash = sorted(
            name
            for name in self.schemas.keys() & made.keys()
            if _fields(self.schemas[name]) != _fields(made[name])
        )
        if clash:
            raise ValueError(f"components made twice, differently, by Litestar and given: {clash}")
        schemas = {**self.schemas, **made}
        for name in self.closed & schemas.keys():
            schemas[name] = {**schemas[name], "additionalProperties": False}
        components["schemas"] = schemas
        document = {**openapi_schema, "components": components}
        if self.webhooks:
            document["webhooks"] = self.webhooks
        if self.stream_items:
            document["paths"] = _with_items(document.get("paths", {}), self.stream_items)
        completed: dict[str, Any] = exact_integers(document)
        return completed

    def render(self, request: Any, openapi_schema: dict[str, Any]) -> bytes:
        if self._rendered is None:
            self._rendered = super().render(request, self.document(openapi_schema))
        return self._rendered


def _with_items(paths: dict[str, Any], items: Mapping[str, Any]) -> dict[str, Any]:
    """`paths` with each named stream's `text/event-stream` answer given its events' schema
    (Litestar's says a string: the whole stream's text)."""
    out: dict[str, Any] = {}
    left = dict(items)
    for path, item in paths.items():
        out[path] = item = dict(item)
        for method, op in list(item.items()):
            if not isinstance(op, dict) or op.get("operationId") not in left:
                continue
            schema = left.pop(op["operationId"])
            responses = dict(op["responses"])
            ok = dict(responses["200"])
            content = dict(ok["content"])
            content["text/event-stream"] = {**content["text/event-stream"], "schema": schema}
            ok["content"] = content
            responses["200"] = ok
            item[method] = {**op, "responses": responses}
    if left:
        raise ValueError(f"no stream operation {sorted(left)} in the document")
    return out


_NUMERIC_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _integer(schema: dict[str, Any]) -> bool:
    """Whether a schema is an integer's, or a nullable integer's (`oneOf` it and null)."""
    kind = schema.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        return True
    for key in ("oneOf", "anyOf"):
        branches = [b for b in schema.get(key, ()) if b.get("type") != "null"]
        if branches and all(isinstance(b, dict) and _integer(b) for b in branches):
            return True
    return False


def exact_integers(node: Any) -> Any:
    """The document with an integer's bounds written as integers. Litestar writes every bound
    of a `ge=`/`le=` as a float (`maximum: 4.611686018427388e+18` for 2**62), which a client
    or a test generator reads as a float: values above 2**53 compare wrongly with it, so one
    it takes for valid (2**62 + 95) the server refuses."""
    if isinstance(node, list):
        return [exact_integers(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: exact_integers(value) for key, value in node.items()}
    if _integer(out):
        for key in _NUMERIC_BOUNDS:
            value = out.get(key)
            if isinstance(value, float) and value.is_integer():
                out[key] = int(value)
    return out


def closed_structs(*modules: ModuleType) -> set[str]:
    """Names of the Structs in these modules that refuse unknown fields (request bodies)."""
    return {
        name
        for module in modules
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, msgspec.Struct)
        and value.__struct_config__.forbid_unknown_fields
    }


def openapi_config(
    title: str,
    schemas: Mapping[str, Any] | None = None,
    closed: Iterable[str] = (),
    webhooks: Mapping[str, Any] | None = None,
    stream_items: Mapping[str, Any] | None = None,
) -> OpenAPIConfig:
    """The OpenAPI document at /schema (a page) and /schema/openapi.json.

    `schemas`: component schemas to add; `closed`: components that take no unknown fields;
    `webhooks`: the requests the service sends (OpenAPI 3.1's `webhooks`); `stream_items`:
    the schema of one event of each streaming operation, by operation id (`sse_item`).
    """
    return OpenAPIConfig(
        title=title,
        version="1.0.0",
        path="/schema",
        render_plugins=[
            ScalarRenderPlugin(),
            ContractJson(schemas or {}, closed, webhooks, stream_items),
        ],
        components=Components(
            security_schemes={
                BEARER: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    bearer_format="JWT",
                    description="The token `POST /v1/players` returns, as `Bearer <token>`",
                )
            }
        ),
    )
