"""schemathesis checks of the services' problems, beside its own (`--checks all` runs these
too): loaded by tests/e2e/test_contract.py through SCHEMATHESIS_HOOKS.

- `problem_code_documented`: a problem's `code` is one the operation documents for its
  status (infra/http/openapi.py puts one example per code): a client switching on the codes
  the document names meets no other.
- `valid_request_not_malformed`: a request schemathesis made valid by the schema is never
  400 `malformed_request` or `too_deep`: those say the request does not fit the schema, so
  the schema and the server disagree. The 400s the contract accepts for a valid request
  (`MEANING_400` there) are the ones that say what it means: a version the game has not
  reached, a cursor this API did not give.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis import Case, CheckContext, Response

PROBLEM = "application/problem+json"
MALFORMED = {"malformed_request", "too_deep"}
# Where the codes are not the document's to list, and why.
OPEN_CODES = {
    # the rule codes of whichever game the game id names (games/<game>/RULES.md lists them);
    # the document names two as examples
    ("postAction", 422),
}


def _problem(response: Response) -> dict[str, Any] | None:
    kind = response.headers.get("content-type", [""])
    if not any(PROBLEM in value for value in kind):
        return None
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def documented_codes(operation: dict[str, Any], status: int) -> set[str] | None:
    """The codes the operation documents for a status (None: the status is undocumented,
    which status_code_conformance reports)."""
    response = operation.get("responses", {}).get(str(status))
    if response is None:
        return None
    return {
        example.get("value", {}).get("code")
        for content in response.get("content", {}).values()
        for example in content.get("examples", {}).values()
    }


@schemathesis.check
def problem_code_documented(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    problem = _problem(response)
    if problem is None or response.status_code < 400:
        return None
    operation = case.operation.definition.raw
    if (operation.get("operationId"), response.status_code) in OPEN_CODES:
        return None
    codes = documented_codes(operation, response.status_code)
    if codes is None:
        return None
    code = problem.get("code")
    assert code in codes, (
        f"{case.operation.label}: {response.status_code} `{code}` is not among the codes "
        f"documented for it ({', '.join(sorted(c for c in codes if c))})"
    )
    return True


@schemathesis.check
def valid_request_not_malformed(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    problem = _problem(response) or {}
    assert problem.get("code") not in MALFORMED, (
        f"{case.operation.label}: a request valid by the schema was refused as "
        f"`{problem.get('code')}`: {problem.get('detail')}"
    )
    return True
