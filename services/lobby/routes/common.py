"""What the lobby's routes share: the auth problems they document, the caller, the lobby and
the token store."""

from __future__ import annotations

from typing import Any

from litestar import Request

from infra.auth.bearer import Principal
from infra.auth.tokens import Tokens
from infra.http.common import authenticate
from services.lobby.rooms import Lobby

# Every route that takes a token: 401 when it is not valid here (docs/api.md, "Tokens and
# keys").
AUTH_CODES = {
    401: ("unauthorized", "token_expired", "unknown_key", "token_revoked", "unknown_player")
}
# What a room's settings may be refused for (a new room, a quick match's table)
ROOM_SETTINGS_CODES = [
    "unknown_game",
    "bad_seat_count",
    "invalid_options",
    "invalid_timing",
    "invalid_fill",
    "unknown_bot_level",
]


def lobby_of(request: Request[Any, Any, Any]) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


def tokens_of(request: Request[Any, Any, Any]) -> Tokens:
    tokens: Tokens = request.app.state.tokens
    return tokens


async def caller(request: Request[Any, Any, Any]) -> Principal:
    return await authenticate(request)  # signed here, not ended, names a player of this lobby


async def maybe_caller(request: Request[Any, Any, Any]) -> Principal | None:
    """The caller of a route open to anyone, when they sent a token (a bad one is 401)."""
    if "authorization" not in request.headers:
        return None
    return await caller(request)
