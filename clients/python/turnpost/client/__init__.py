"""Turnpost's typed Python client: `Client` (blocking) and `AsyncClient` (asyncio) over httpx.

Every route of the lobby and the game service is a method named after its `operationId`;
answers are the msgspec Structs of `contracts`, problems raise typed `ApiError`s. See
README, "Python client", docs/api.md, "The Python client", and
`clients/python/examples/bot.py`.
"""

from contracts.game import GameMap
from turnpost.client.asynchronous import AsyncClient
from turnpost.client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    RateLimited,
    ServerError,
    StaleQuestion,
    StaleVersion,
    StreamLost,
    Unauthorized,
    Unprocessable,
)
from turnpost.client.policy import GAME_URL, LOBBY_URL, Policy, my_turn
from turnpost.client.routes import Call
from turnpost.client.sse import Frame
from turnpost.client.sync import Client

__all__ = [
    "GAME_URL",
    "LOBBY_URL",
    "ApiError",
    "AsyncClient",
    "BadRequest",
    "Call",
    "Client",
    "Conflict",
    "Forbidden",
    "Frame",
    "GameMap",
    "NotFound",
    "Policy",
    "RateLimited",
    "ServerError",
    "StaleQuestion",
    "StaleVersion",
    "StreamLost",
    "Unauthorized",
    "Unprocessable",
    "my_turn",
]
