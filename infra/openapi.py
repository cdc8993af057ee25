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
    409: "The request conflicts with the resource's state now",
    413: "The body is larger than this service takes",
    422: "Well-formed, but the rules refuse it",
    429: "Too many requests: retry after `Retry-After` seconds",
    503: "A dependency is unavailable; retry later",
}
EVERY_ROUTE = (429,)  # every route is rate-limited (infra/ratelimit.py)
BODY = (400, 413)  # what a route that reads a JSON body adds (infra/guards.py: size, depth)
DEFAULT_CODES = {
    400: ("malformed_request",),
    401: ("unauthorized", "token_expired", "unknown_key", "token_revoked"),
    404: ("not_found",),
    413: ("payload_too_large",),
    429: ("too_many_requests",),
    503: ("service_unavailable",),
}


def problems(
    *statuses: int, codes: Mapping[int, Iterable[str]] | None = None, body: bool = False
) -> dict[int, Any]:
    """`responses=` for a route: one RFC 9457 problem response per status it can return.

    `codes` names the stable `code`s a status carries on this route (one example each);
    a status without any gets its generic code. 429 is added to every route, and with
    `body` (the route reads a JSON body) 400 and 413.
    """
    responses: dict[int, Any] = {}
    for status in sorted({*statuses, *EVERY_ROUTE, *(BODY if body else ())}):
        named = tuple((codes or {}).get(status, DEFAULT_CODES.get(status, ())))
        if body and status == 400 and "too_deep" not in named:
            named += ("too_deep",)  # JSON nested deeper than the service reads
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


class ContractJson(JsonRenderPlugin):
    """`/schema/openapi.json` as Litestar makes it, plus what it cannot say: component schemas
    of its own (the per-game types), and `additionalProperties: false` on the bodies whose
    Struct refuses unknown fields (Litestar leaves every object open)."""

    def __init__(self, schemas: Mapping[str, Any], closed: Iterable[str]) -> None:
        super().__init__()
        self.schemas = dict(schemas)
        self.closed = frozenset(closed)
        self._rendered: bytes | None = None

    def document(self, openapi_schema: dict[str, Any]) -> dict[str, Any]:
        """The document served: Litestar's, completed."""
        components = dict(openapi_schema.get("components", {}))
        schemas = {**components.get("schemas", {}), **self.schemas}
        for name in self.closed & schemas.keys():
            schemas[name] = {**schemas[name], "additionalProperties": False}
        components["schemas"] = schemas
        return {**openapi_schema, "components": components}

    def render(self, request: Any, openapi_schema: dict[str, Any]) -> bytes:
        if self._rendered is None:
            self._rendered = super().render(request, self.document(openapi_schema))
        return self._rendered


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
    title: str, schemas: Mapping[str, Any] | None = None, closed: Iterable[str] = ()
) -> OpenAPIConfig:
    """The OpenAPI document at /schema (a page) and /schema/openapi.json.

    `schemas`: component schemas to add; `closed`: components that take no unknown fields.
    """
    return OpenAPIConfig(
        title=title,
        version="1.0.0",
        path="/schema",
        render_plugins=[ScalarRenderPlugin(), ContractJson(schemas or {}, closed)],
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
