"""The shape of what `view` shows a seat (secrecy.py), for the JSON Schemas clients build on."""

from __future__ import annotations

from typing import TypedDict

from games.itty_bitty.model import AnyQuestion, CardId, GameEnded


class Piles(TypedDict):
    ittybits: int  # cards left in each supply
    collectors: int


class Discards(TypedDict):
    ittybits: list[CardId]  # face up
    collectors: list[CardId]


class FaceDown(TypedDict):
    """A completed collector as the table sees it: which collector it was is private."""

    ittybits: int  # how many were paid for it (they went to the discard)
    coins: int  # taken for it


class Player(TypedDict):
    seat: int
    ittybits: int  # how many in hand (the cards are private)
    collectors: int
    completed: list[FaceDown]
    coins: int
    choosing: int  # collectors offered, one to keep


class Public(TypedDict):
    seats: int
    first_seat: int
    current: int | None  # None until every seat kept its starting collector
    turn: int
    market: list[CardId | None]  # the marketplace's four slots
    supply: Piles
    discard: Discards
    players: list[Player]
    end_triggered_by: int | None
    result: GameEnded | None


class Private(TypedDict):
    ittybits: list[CardId]
    collectors: list[CardId]
    choice: list[CardId]  # the collectors offered, to keep one of
    completed: list[CardId]  # your face-down collectors, in the order of `Player.completed`
    questions: list[AnyQuestion]  # what you must answer now: the collector to keep, if any


class View(TypedDict):
    """`public` for everyone; `private` for the seat asking (null for a spectator)."""

    public: Public
    private: Private | None
