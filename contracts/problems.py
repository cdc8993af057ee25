"""RFC 9457 problem details with a stable `code` a client can switch on."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import msgspec

PROBLEM_CONTENT_TYPE = "application/problem+json"


class Problem(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    type: str
    title: str
    status: int
    code: str
    detail: str | None = None
    instance: str | None = None
    current_version: int | None = None  # on 409 stale_version
    errors: list[dict[str, Any]] | None = None  # on 400: what in the body was wrong
    deadline: str | None = None  # on 409 deadline_not_passed: when the seat's time runs out


class ProblemError(Exception):
    """Raised by handlers; rendered as a Problem by the app's exception handler."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra

    def problem(self, instance: str | None = None) -> Problem:
        return Problem(
            type=f"https://turnpost.dev/problems/{self.code.replace('_', '-')}",
            title=title_of(self.status),
            status=self.status,
            code=self.code,
            detail=self.detail,
            instance=instance,
            **self.extra,
        )


def title_of(status: int) -> str:
    """The reason phrase of the status (RFC 9110), so a title says what its status says."""
    if status in TITLES:
        return TITLES[status]
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        return "Error"
    return phrase[:1] + phrase[1:].lower()  # "Not acceptable", as the table writes them


# RFC 9110's phrases where Python's HTTPStatus still has older ones.
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Internal error",
    503: "Service unavailable",
}
