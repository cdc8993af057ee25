"""A player's record over REST (API v1): profiles, finished games, ratings, leaderboards."""

from __future__ import annotations

from typing import Any

import msgspec

from contracts.lobby import Name
from contracts.lobby import Rating as Rating  # defined beside the catalog, which shows them


class GameRecordOf(msgspec.Struct, frozen=True, kw_only=True):
    """One game's part of a profile."""

    game: str
    played: int  # finished games, rated or not
    won: int
    current: int  # games being played now
    rating: Rating | None  # None before the first rated game


class Profile(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    since: str
    bot: str | None  # a bot player's level
    games: list[GameRecordOf]


class Rename(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name


class FinishedSeat(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    seat: int
    player_id: str
    name: str
    bot: str | None  # its level, for a bot seated from the start
    rank: int
    # in a rated room: the seat's rating (a bot's: its level's) before and after, and the change
    rating_before: float | None = None
    rating_after: float | None = None
    rating_change: float | None = None


class FinishedGame(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    room_id: str | None
    game: str
    rated: bool
    options: dict[str, Any]
    started_at: str | None
    finished_at: str
    outcome: dict[str, Any]  # the game's result (GameOutcome's shape)
    seats: list[FinishedSeat]
    rank: int | None  # the player's whose history it is
    rating_change: float | None


class History(msgspec.Struct, frozen=True, kw_only=True):
    items: list[FinishedGame]
    next: str | None  # the cursor of the next (older) page


class Ranked(msgspec.Struct, frozen=True, kw_only=True):
    place: int
    subject: str  # a player's id, or `bot:<level>`
    name: str
    bot: str | None
    rating: Rating


class Leaderboard(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    provisional: bool  # the page lists provisional ratings (fewer than 10 games) only
    items: list[Ranked]
    next: str | None
