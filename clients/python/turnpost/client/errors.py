"""Problems (RFC 9457 with a stable `code`) as typed exceptions, one class per status."""

from __future__ import annotations

import email.utils
import time

import httpx
import msgspec

from contracts.problems import Problem


class ApiError(Exception):
    """An answer of 4xx or 5xx: `status`, `code` (switch on it), `detail`, and the `problem`."""

    def __init__(self, problem: Problem, response: httpx.Response | None = None) -> None:
        super().__init__(f"{problem.status} {problem.code}: {problem.detail or problem.title}")
        self.problem = problem
        self.response = response

    @property
    def status(self) -> int:
        return self.problem.status

    @property
    def code(self) -> str:
        return self.problem.code

    @property
    def detail(self) -> str | None:
        return self.problem.detail


class BadRequest(ApiError):
    """400: the request was malformed (`problem.errors` says what in the body)."""


class Unauthorized(ApiError):
    """401: no token, or one not valid here (expired, revoked, unknown key)."""


class Forbidden(ApiError):
    """403: not yours to do (`not_host`, `not_seated`)."""


class NotFound(ApiError):
    """404: no such room, game, webhook (or no board for this game)."""


class Conflict(ApiError):
    """409: the thing is not in a state to do that now (`room_full`, `game_finished`...)."""


class StaleVersion(Conflict):
    """409 `stale_version`: the game moved since `expected_version`; re-read and decide again."""

    @property
    def current_version(self) -> int | None:
        return self.problem.current_version


class Unprocessable(ApiError):
    """422: well-formed but refused by the rules (`not_your_turn`, `missing_items`...)."""


class StaleQuestion(Unprocessable):
    """422 `stale_question`: the answer names a question other than the one asked now (it
    was answered meanwhile, or read from a replica of another release during an upgrade);
    re-read and decide again."""


class RateLimited(ApiError):
    """429: too many requests; `retry_after` seconds until the next one passes."""

    @property
    def retry_after(self) -> float | None:
        return retry_after(self.response) if self.response is not None else None


class ServerError(ApiError):
    """5xx: the service could not answer (`game_unavailable`, `not_ready`, `internal_error`)."""


class StreamLost(Exception):
    """An SSE iterator gave up: `connections` in a row (`Policy.reconnects` + 1) brought no
    event, each closed (cleanly, by a proxy say) or failed; `error` is the last transport
    error among them (None when every one closed cleanly). A game's stream that ends
    because the game is finished ends the iterator instead; this never means "finished"."""

    def __init__(self, path: str, connections: int, error: httpx.TransportError | None) -> None:
        how = f"the last failed: {error!r}" if error is not None else "each closed cleanly"
        super().__init__(f"{path}: {connections} connections in a row brought nothing ({how})")
        self.path = path
        self.connections = connections
        self.error = error


BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: Unprocessable,
    429: RateLimited,
}
_problem = msgspec.json.Decoder(Problem)


def error_for(response: httpx.Response) -> ApiError:
    """The typed exception for an error answer; a body that is no problem still gives one."""
    try:
        problem = _problem.decode(response.content)
    except (msgspec.DecodeError, msgspec.ValidationError):
        problem = Problem(
            type="about:blank",
            title=response.reason_phrase or "Error",
            status=response.status_code,
            code="http_error",
            detail=response.text[:500] or None,
        )
    if problem.status == 409 and problem.code == "stale_version":
        return StaleVersion(problem, response)
    if problem.status == 422 and problem.code == "stale_question":
        return StaleQuestion(problem, response)
    kind = BY_STATUS.get(problem.status, ServerError if problem.status >= 500 else ApiError)
    return kind(problem, response)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date), or None."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
