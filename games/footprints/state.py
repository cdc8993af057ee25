"""The state of Footprints: the players, the turn in progress, the table (frozen Structs,
folded from the events by evolve.py)."""

from __future__ import annotations

import msgspec

from games.footprints.content import Terrain
from games.footprints.events import GameEnded
from games.footprints.model import AnyPending, Options, Phase, Pos


class Player(msgspec.Struct, frozen=True, kw_only=True):
    clan: str
    position: Pos | None = None  # None before placing, and once on the cairn track
    cairn_points: int | None = None
    skills: tuple[int, int, int, int] = (2, 2, 2, 2)  # mountain, ice, forest, swamp
    resources: tuple[int, int, int, int] = (0, 0, 0, 0)  # stone, mammoth, wood, berries
    deck_top: tuple[str, ...] = ()  # drawn first, in random order
    deck_bottom: tuple[str, ...] = ()
    leader: str | None = None  # the leader in the deck (hidden in advanced setup)
    panel: tuple[str, ...] = ()
    played: tuple[str, ...] = ()  # the clan discard pile, face up
    fire_hand: tuple[str, ...] = ()
    footprints: tuple[str, ...] = ()  # on the footprint board, face up
    completed: tuple[str, ...] = ()
    engravings: tuple[Terrain, ...] = ()
    cave_site: str | None = None
    turns: int = 0


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """The current turn's progress."""

    seat: int
    phase: Phase = "play"
    card: str | None = None
    fire: str | None = None
    both: bool = False  # the fire card lets this follower do both actions
    done_actions: tuple[str, ...] = ()  # "top" / "bottom", for both actions
    built: int = 0
    builds_allowed: int = 1


class State(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    options: Options
    rules: int = 1  # the rules version it began under: decide keeps to it
    tiles: tuple[str, ...]
    turned: tuple[bool, ...]
    houses: tuple[tuple[str, int], ...]
    caves: tuple[tuple[str, str], ...]
    first_seat: int
    players: tuple[Player, ...]
    fire_deck: tuple[str, ...]  # sorted: drawn at random in decide
    fire_discard: tuple[str, ...] = ()
    footprint_deck: tuple[str, ...] = ()
    footprint_discard: tuple[str, ...] = ()
    engraved: tuple[tuple[Pos, int, Terrain], ...] = ()  # where, by whom, which
    cairn_track: tuple[int, ...] = ()  # seats in order of arrival
    turn: Turn | None = None
    pending: AnyPending | None = None
    end_triggered: bool = False
    result: GameEnded | None = None
