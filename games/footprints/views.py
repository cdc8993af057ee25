"""What each seat sees: `view` (the table and its own hand) and `redact` (its copy of an
event); the shape of a view, for the JSON Schema clients build on (catalog); and the
assembled map a game serves once (`AssembledMap`)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import msgspec
from msgspec.structs import replace

from games.api import View as TableView
from games.footprints import questions
from games.footprints.content import Bonus, Content, Terrain
from games.footprints.events import (
    ChoicesOpened,
    DeckBuilt,
    Event,
    FireDrawn,
    FootprintsReturned,
    GameEnded,
    LeaderChosen,
    StartingFootprints,
)
from games.footprints.model import AnyPending, AnyQuestion, Options, Pos, SetupChoices
from games.footprints.state import Player as PlayerState
from games.footprints.state import State, Turn
from games.footprints.table import Table


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
    """The layout drawn at setup; the map assembled from it is `AssembledMap`, served once
    apart from the view (GET /v1/games/{id}/map)."""

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


# -- what each seat sees: its view, its copy of each event -----------------------------------


def view(content: Content, state: State, seat: int | None) -> TableView:
    hidden_leader = state.options.advanced and not state.options.two_leaders
    players = []
    for s, p in enumerate(state.players):
        players.append(
            {
                "seat": s,
                "clan": p.clan,
                "position": p.position,
                "cairn_points": p.cairn_points,
                "skills": dict(zip(("mountain", "ice", "forest", "swamp"), p.skills, strict=True)),
                "resources": dict(
                    zip(("stone", "mammoth", "wood", "berries"), p.resources, strict=True)
                ),
                "panel": list(p.panel),
                "played": list(p.played),
                "deck": len(p.deck_top) + len(p.deck_bottom),
                "fire_cards": len(p.fire_hand),
                "footprints": list(p.footprints),
                "completed": list(p.completed),
                "engravings": list(p.engravings),
                "cave_site": p.cave_site,
                "turns": p.turns,
            }
        )
        leaders = _leaders(p)
        if hidden_leader:  # a leader chosen in secret shows once on the panel or played
            leaders = [x for x in leaders if x in p.panel or x in p.played]
        players[-1]["leaders"] = leaders
    shown = state.pending
    if isinstance(shown, SetupChoices):  # the dealt cards: in their owner's questions
        shown = replace(shown, footprints=tuple((s, ()) for s, _ in shown.footprints))
    pending: Any = msgspec.to_builtins(shown) if shown is not None else None
    public = {
        "seats": state.seats,
        "options": msgspec.to_builtins(state.options),
        "map": {
            "tiles": list(state.tiles),
            "turned": list(state.turned),
            "houses": [list(h) for h in state.houses],
            "caves": {site: token for site, token in state.caves},
        },
        "engraved": [{"at": at, "seat": s, "terrain": terr} for at, s, terr in state.engraved],
        "players": players,
        "first_seat": state.first_seat,
        "turn": msgspec.to_builtins(state.turn) if state.turn else None,
        "pending": pending,
        "fire_deck": len(state.fire_deck),
        "fire_discard": list(state.fire_discard),
        "footprint_deck": len(state.footprint_deck),
        "footprint_discard": list(state.footprint_discard),
        "cairn_track": list(state.cairn_track),
        "end_triggered": state.end_triggered,
        "result": msgspec.to_builtins(state.result) if state.result else None,
    }
    if seat is None or not 0 <= seat < state.seats:
        return TableView(public=public)
    p = state.players[seat]
    asked = questions.asked(Table(content, state, None), seat)
    private = {
        "fire_hand": list(p.fire_hand),
        "leaders": _leaders(p),
        "deck": sorted(p.deck_top + p.deck_bottom),
        "questions": [msgspec.to_builtins(q) for q in asked],
    }
    return TableView(public=public, private=private)


def redact(event: Event, seat: int | None) -> Event | None:
    match event:
        case DeckBuilt():
            return replace(event, top=None, bottom=None)  # the split is unknown to all
        case FireDrawn(seat=owner) if owner != seat:
            return replace(event, card=None)
        case LeaderChosen(seat=owner) if owner != seat:
            return replace(event, leader=None)
        case StartingFootprints(seat=owner) | FootprintsReturned(seat=owner) if owner != seat:
            return replace(event, cards=None)  # dealt face down; only the kept one shows
        case ChoicesOpened(pending=SetupChoices(footprints=dealt) as choices):
            # who chooses, as the view shows it; the cards dealt: their owner's alone
            mine = tuple((s, cards if s == seat else ()) for s, cards in dealt)
            return replace(event, pending=replace(choices, footprints=mine))
    return event


def _leaders(p: PlayerState) -> list[str]:
    """The seat's leaders, wherever they are (two with "2 Leaders"), in id order."""
    return sorted(c for c in (*p.deck_top, *p.deck_bottom, *p.panel, *p.played) if "-leader-" in c)


# -- the assembled map (fixed once the game is set up: `Footprints.board_map`) ---------------


def _says(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class _Wire(msgspec.Struct, frozen=True, kw_only=True):
    pass


class SpaceCave(_Wire, frozen=True, kw_only=True):
    """A cave site a space touches, and the cave token on it (face up), if one is in play."""

    site: str
    token: Annotated[str | None, _says("The cave token there (content `cave_tokens`); null: none")]


class MapSpace(_Wire, frozen=True, kw_only=True):
    """A map space."""

    at: Annotated[
        Pos,
        _says(
            "[row, column], as actions name it (`path`, `fire_path`, `to`, `at`) and as"
            " `players[].position` and the events show it"
        ),
    ]
    terrains: Annotated[list[Terrain], _says("One; two on a cairn space (it counts as both)")]
    bonus: Annotated[Bonus | None, _says("Collected by a figure passing or stopping on it")]
    cairn: bool
    tile: Annotated[
        int, _says("Its map tile, 0-5 from the houses (the view's `map.tiles`); 6: the cairn tile")
    ]
    caves: Annotated[list[SpaceCave], _says("The cave sites next to it: painted from here")]
    neighbours: Annotated[
        list[Pos], _says("The map spaces next to it (never a house): where a step may go")
    ]


class MapHouse(_Wire, frozen=True, kw_only=True):
    """A house tile: a starting position left of its row, never entered again once left."""

    at: Annotated[Pos, _says("[row, -1]: a figure's `position` while it stands there")]
    tile: str
    side: int
    bonuses: Annotated[list[Bonus], _says("Taken by the figure placed there")]
    entry: Annotated[Pos, _says("The one map space it touches: the first of its row")]


class MapCave(_Wire, frozen=True, kw_only=True):
    """A cave site: on the top or bottom edge of a map tile, touching two of its spaces."""

    site: str
    tile: int
    touches: Annotated[list[Pos], _says("Its two spaces")]
    spot: Annotated[
        Pos, _says("Where its token lies: across the tile's edge, next to both (for drawing)")
    ]
    token: Annotated[
        str | None,
        _says("The cave token there, face up (content `cave_tokens`); null: not in play"),
    ]


class AssembledMap(_Wire, frozen=True, kw_only=True):
    """The whole map as it was laid at setup, in the coordinates actions use: `[row, column]`
    on an "odd-r" hex grid (odd rows shifted right by half a space; each space lists its
    neighbours, so no client needs the rule). Houses are in column -1. Fixed for the game."""

    snake: Annotated[bool, _says("The Snake variant's shape: rows go down as well as right")]
    rows: Annotated[int, _says("Every row is 0 <= row < rows")]
    columns: Annotated[int, _says("Every column is -1 (the houses) <= column < columns")]
    spaces: Annotated[list[MapSpace], _says("Every map space, by row then column")]
    houses: Annotated[list[MapHouse], _says("One per row, top first")]
    caves: Annotated[list[MapCave], _says("Every cave site, by tile")]
    cairn_track: Annotated[list[int], _says("The cairn track's points, in order of arrival")]
