"""Game service REST bodies (REST API v1)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec


class SeatInfo(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str
    name: str | None = None
    bot: str | None = None


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    version: int
    status: Literal["active", "finished"]
    seats: list[SeatInfo]
    to_act: list[int]
    your_seat: int | None
    view: dict[str, Any]
    outcome: dict[str, Any] | None


class LegalActions(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    seat: int
    actions: list[Any]


class PostAction(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    action: dict[str, Any]
    expected_version: Annotated[int, msgspec.Meta(ge=0, le=2**62)]


class FeedEvent(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    type: str
    data: Any
    seat: int | None  # the seat whose action produced it, None for the set-up
    recorded_at: str


class ActionAccepted(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    events: list[FeedEvent]
    replayed: bool = False  # true when an Idempotency-Key matched an earlier command


class EventFeed(msgspec.Struct, frozen=True, kw_only=True):
    events: list[FeedEvent]
    last_version: int


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    game: str
    version: int
    status: Literal["active", "finished"]
    your_seat: int
    to_act: list[int]
    your_turn: bool


class MyGames(msgspec.Struct, frozen=True, kw_only=True):
    items: list[GameSummary]
