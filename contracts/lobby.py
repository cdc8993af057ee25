"""Lobby REST bodies (REST API v1)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

RoomStatus = Literal["open", "starting", "playing", "finished", "cancelled"]
BotLevel = Literal["random", "greedy", "mcts"]


class NewPlayer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str


class PlayerCreated(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    token: str


class Timing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Turn timer settings, stored and passed to the game (timers act on it later)."""

    turn_seconds: int | None = None


class NewRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    game: str
    seats: int
    options: dict[str, Any] = {}
    timing: Timing = Timing()


class JoinRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seat: int | None = None


class AddBot(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    level: str
    seat: int | None = None


class StartRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Empty seats are filled with bots of `fill_bots` level; null refuses to start with gaps."""

    fill_bots: str | None = "greedy"


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None
    name: str | None
    bot: str | None  # the bot's level, None for a person


class Room(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    status: RoomStatus
    host: str
    seats: list[Seat]
    options: dict[str, Any]
    timing: Timing
    game_id: str | None
    created_at: str


class RoomPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[Room]
    next: str | None


class CatalogGame(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    name: str
    min_seats: int
    max_seats: int
    bot_levels: list[str]
    options_schema: dict[str, Any]


class Catalog(msgspec.Struct, frozen=True, kw_only=True):
    games: list[CatalogGame]
