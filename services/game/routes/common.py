"""What the game service's routes share: the bounds of their parameters, the problem codes
they document, and the caller, its service and its seat."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request
from litestar.params import QueryParameter

from contracts.problems import ProblemError
from infra.auth.bearer import Principal
from infra.http.common import authenticate
from services.game.service import GameService

MAX_WAIT_SECONDS = 30.0
MAX_VERSION = 2**62  # fits Postgres bigint
MAX_IDEMPOTENCY_KEY = 200  # characters
# A read's `min_version`: the newest version the client has seen (a move's answer, a view, a
# feed's event). The answer is at least that recent (when the game is), and this process
# may give it from memory instead of asking the store (GameService.read_needed).
MinVersion = Annotated[
    int | None,
    QueryParameter(
        ge=0,
        le=MAX_VERSION,
        schema_extra={"minimum": 0},  # Litestar leaves a 0 out of an optional one's schema
        description="The newest version of the game you have seen (from a move's answer, a "
        "view or the feed). The answer is at least that recent, and the service may give it "
        "without asking its store: send it on every read to make reads cheaper and never see "
        "the game go back. 400 `min_version_beyond_version` when the game has not reached it.",
    ),
]
SEEN_CODES = ["malformed_request", "min_version_beyond_version"]  # a read's 400s
UNKNOWN_GAME = {404: ["unknown_game"], 503: ["game_unavailable", "rules_unknown_here"]}
SEATED = {403: ["not_seated"], **UNKNOWN_GAME}  # routes for the game's players only


def service_of(request: Request[Any, Any, Any]) -> GameService:
    svc: GameService = request.app.state.service
    return svc


async def caller(request: Request[Any, Any, Any]) -> Principal:
    return await authenticate(request)  # signed by a key held here, not ended by its player


def seated(seat: int | None) -> int:
    if seat is None:
        raise ProblemError(403, "not_seated", "you have no seat in this game")
    return seat
