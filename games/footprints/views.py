"""The shape of what `view` shows a seat, for the JSON Schema clients build on (catalog)."""

from __future__ import annotations

from typing import TypedDict

from games.footprints.content import Terrain
from games.footprints.model import AnyPending, AnyQuestion, GameEnded, Options, Pos, Turn


class Skills(TypedDict):
    mountain: int
    ice: int
    forest: int
    swamp: int


class Resources(TypedDict):
    stone: int
    mammoth: int
    wood: int
    berries: int


class Player(TypedDict):
    seat: int
    clan: str
    position: Pos | None  # [row, column]; None before placing and once on the cairn track
    cairn_points: int | None
    skills: Skills
    resources: Resources
    panel: list[str]
    played: list[str]  # the clan discard pile, face up
    deck: int  # cards left in the clan deck
    fire_cards: int  # in hand
    footprints: list[str]
    completed: list[str]
    engravings: list[Terrain]
    cave_site: str | None
    turns: int
    # both with "2 Leaders"; a leader chosen in secret (advanced setup) only once it is on
    # the panel or played
    leaders: list[str]


class Map(TypedDict):
    tiles: list[str]
    turned: list[bool]
    houses: list[tuple[str, int]]
    caves: dict[str, str]  # cave site -> token


class Engraving(TypedDict):
    at: Pos
    seat: int
    terrain: Terrain


class Public(TypedDict):
    seats: int
    options: Options
    map: Map
    engraved: list[Engraving]
    players: list[Player]
    first_seat: int
    turn: Turn | None
    # what the game waits for, as the table sees it: the cards dealt in the advanced setup
    # are left out (each seat finds its own in `Private.questions`)
    pending: AnyPending | None
    fire_deck: int
    fire_discard: list[str]
    footprint_deck: int
    footprint_discard: list[str]
    cairn_track: list[int]  # seats in order of arrival
    end_triggered: bool
    result: GameEnded | None


class Private(TypedDict):
    fire_hand: list[str]
    leaders: list[str]  # this seat's leaders, wherever they are
    deck: list[str]  # the clan deck's cards, sorted (not their order)
    questions: list[AnyQuestion]  # what you must answer now, whole: its answers name it


class View(TypedDict):
    """`public` for everyone; `private` for the seat asking (null for a spectator)."""

    public: Public
    private: Private | None
