"""Lobby REST bodies (REST API v1)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

RoomStatus = Literal["open", "starting", "playing", "finished", "cancelled"]


Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]*$")]


class NewPlayer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name


class PlayerCreated(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    token: str


class Timing(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Turn timer settings, stored and passed to the game (timers act on it later)."""

    turn_seconds: Annotated[int, msgspec.Meta(ge=1, le=90 * 86400)] | None = None


class NewRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    game: Annotated[str, msgspec.Meta(max_length=64)]
    seats: Annotated[int, msgspec.Meta(ge=1, le=64)]
    options: dict[str, Any] = {}
    timing: Timing = Timing()


SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=64)]


class JoinRoom(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seat: SeatNumber | None = None


class AddBot(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    level: Annotated[str, msgspec.Meta(max_length=32)]
    seat: SeatNumber | None = None


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
